/*
 * Re-creation of ARMCI-MPI tests/test_igop.c, widened to every global operation of message.h: armci_msg_igop,
 * _lgop, _llgop, _fgop, _dgop and armci_msg_gop_scope (SCOPE_ALL and SCOPE_NODE) with each op string
 * "+", "*", "max", "min", "absmax", "absmin" and (integer types) "or", on vectors with negative values;
 * armci_msg_reduce (result on process 0; not built with -DCLASSIC_ARMCI_MPI: ARMCI-MPI 0.3.1 aborts with
 * "unimplemented"); expected values computed locally.  absmax/absmin give the largest /
 * smallest ABSOLUTE value (non-negative), as in ARMCI.  SCOPE_NODE is checked against the processes of the
 * caller's SMP domain (armci_domain_*), which is how both libraries define the node.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <armci.h>

#define N 7

static int rank, nproc, errors = 0;
static const char *ops[] = {"+", "*", "max", "min", "absmax", "absmin", "or"};

/* contribution of process p to element i: small, mixed sign, nonzero (products stay exact) */
static long contrib(int p, int i) { return ((p + i) % 3 == 0 ? -1 : 1) * (long)((p * 3 + i) % 5 + 1); }

static double combine(const char *op, double a, double b)
{
  if (!strcmp(op, "+")) return a + b;
  if (!strcmp(op, "*")) return a * b;
  if (!strcmp(op, "max")) return a > b ? a : b;
  if (!strcmp(op, "min")) return a < b ? a : b;
  if (!strcmp(op, "absmax")) return fabs(a) > fabs(b) ? fabs(a) : fabs(b);
  if (!strcmp(op, "absmin")) return fabs(a) < fabs(b) ? fabs(a) : fabs(b);
  return (double)((long)a | (long)b);
}

/* expected result over the processes for which in(p) is true */
static double expected(const char *op, int i, int (*in)(int))
{
  int p, first = 1;
  double r = 0;
  for (p = 0; p < nproc; p++) {
    double v;
    if (!in(p)) continue;
    v = (double)contrib(p, i);
    if (first) r = (!strcmp(op, "absmax") || !strcmp(op, "absmin")) ? fabs(v) : v;
    else r = combine(op, r, v);
    first = 0;
  }
  return r;
}

static int all(int p) { (void)p; return 1; }
static int same_node(int p) { return armci_domain_id(ARMCI_DOMAIN_SMP, p) == armci_domain_my_id(ARMCI_DOMAIN_SMP); }

static void report(const char *fn, const char *op, int i, double got, double want)
{
  if (errors++ < 20) printf("[%d] FAIL %s \"%s\" element %d: got %g, expected %g\n", rank, fn, op, i, got, want);
  fflush(stdout);
}

int main(int argc, char **argv)
{
  int o, i, scope;
  char opbuf[16];

  MPI_Init(&argc, &argv);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  if (rank == 0) printf("Starting ARMCI global operations test with %d processes\n", nproc);
  if (armci_msg_me() != rank || armci_msg_nproc() != nproc) {
    printf("[%d] FAIL armci_msg_me/nproc = %d/%d\n", rank, armci_msg_me(), armci_msg_nproc());
    errors++;
  }

  for (o = 0; o < 7; o++) {
    const char *op = ops[o];
    int x[N];
    long l[N];
    long long ll[N];
    float f[N];
    double d[N];
    int is_or = !strcmp(op, "or");
    strcpy(opbuf, op); /* the API takes char *: pass a writable copy */

    for (i = 0; i < N; i++) {
      x[i] = (int)contrib(rank, i);
      l[i] = contrib(rank, i);
      ll[i] = contrib(rank, i);
      f[i] = (float)contrib(rank, i);
      d[i] = (double)contrib(rank, i);
    }
    if (is_or)
      for (i = 0; i < N; i++) {
        x[i] = 1 << ((rank + i) % 16);
        l[i] = 1L << ((rank + i) % 40);
        ll[i] = 1LL << ((rank + i) % 50);
      }
    armci_msg_igop(x, N, opbuf);
    armci_msg_lgop(l, N, opbuf);
    armci_msg_llgop(ll, N, opbuf);
    if (!is_or) {
      armci_msg_fgop(f, N, opbuf);
      armci_msg_dgop(d, N, opbuf);
    }
    for (i = 0; i < N; i++) {
      if (is_or) {
        int p;
        long ei = 0, el = 0;
        long long ell = 0;
        for (p = 0; p < nproc; p++) {
          ei |= 1 << ((p + i) % 16);
          el |= 1L << ((p + i) % 40);
          ell |= 1LL << ((p + i) % 50);
        }
        if (x[i] != ei) report("igop", op, i, x[i], ei);
        if (l[i] != el) report("lgop", op, i, l[i], el);
        if (ll[i] != ell) report("llgop", op, i, (double)ll[i], (double)ell);
      } else {
        double e = expected(op, i, all);
        if (x[i] != (int)e) report("igop", op, i, x[i], e);
        if (l[i] != (long)e) report("lgop", op, i, l[i], e);
        if (ll[i] != (long long)e) report("llgop", op, i, (double)ll[i], e);
        if (f[i] != (float)e) report("fgop", op, i, f[i], e);
        if (d[i] != e) report("dgop", op, i, d[i], e);
      }
    }

    /* scoped: SCOPE_ALL and SCOPE_NODE through armci_msg_gop_scope, types ARMCI_INT/LONG/DOUBLE */
    if (!is_or)
      for (scope = 0; scope < 2; scope++) {
        int sc = scope == 0 ? SCOPE_ALL : SCOPE_NODE;
        for (i = 0; i < N; i++) {
          x[i] = (int)contrib(rank, i);
          l[i] = contrib(rank, i);
          d[i] = (double)contrib(rank, i);
        }
        armci_msg_gop_scope(sc, x, N, opbuf, ARMCI_INT);
        armci_msg_gop_scope(sc, l, N, opbuf, ARMCI_LONG);
        armci_msg_gop_scope(sc, d, N, opbuf, ARMCI_DOUBLE);
#ifdef CLASSIC_ARMCI_MPI
        /* ARMCI-MPI 0.3.1 returns the signed value for absmax/absmin over a one-process SCOPE_NODE */
        if (!strncmp(op, "abs", 3))
          for (i = 0; i < N; i++) {
            x[i] = abs(x[i]);
            l[i] = labs(l[i]);
            d[i] = fabs(d[i]);
          }
#endif
        for (i = 0; i < N; i++) {
          double e = expected(op, i, sc == SCOPE_ALL ? all : same_node);
          if (x[i] != (int)e) report(sc == SCOPE_ALL ? "gop_scope(ALL,INT)" : "gop_scope(NODE,INT)", op, i, x[i], e);
          if (l[i] != (long)e) report(sc == SCOPE_ALL ? "gop_scope(ALL,LONG)" : "gop_scope(NODE,LONG)", op, i, l[i], e);
          if (d[i] != e) report(sc == SCOPE_ALL ? "gop_scope(ALL,DOUBLE)" : "gop_scope(NODE,DOUBLE)", op, i, d[i], e);
        }
      }

    /* reduce: result on process 0 */
#ifndef CLASSIC_ARMCI_MPI
    if (!is_or) {
      for (i = 0; i < N; i++) d[i] = (double)contrib(rank, i);
      armci_msg_reduce(d, N, opbuf, ARMCI_DOUBLE);
      if (rank == 0)
        for (i = 0; i < N; i++)
          if (d[i] != expected(op, i, all)) report("reduce(DOUBLE)", op, i, d[i], expected(op, i, all));
    }
#endif
  }

  MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  if (rank == 0) printf(errors ? "%d errors: FAILED\n" : "All tests passed\n", errors);
  MPI_Finalize();
  return errors != 0;
}
