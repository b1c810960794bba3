/*
 * Re-creation of ARMCI-MPI tests/test_acc_type.c: accumulate of every ARMCI datatype (ARMCI_ACC_INT, _LNG,
 * _FLT, _DBL, _CPL, _DCP) with a scale other than 1 (complex scales for CPL/DCP: dst += scale * src with
 * complex multiplication), through ARMCI_Acc, ARMCI_AccS (2-level stride, count[0] in bytes), ARMCI_AccV and
 * ARMCI_NbAccS, from every process into every process; each owner checks its slice against the sum computed
 * locally.  Values are small integers so that float results are exact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <armci.h>

#define NROW 6  /* elements per row */
#define NCOL 5  /* rows */
#define NEL (NROW * NCOL)

static int rank, nproc, errors = 0;

static const int esize[6] = {sizeof(int), sizeof(long), sizeof(float), sizeof(double), 2 * sizeof(float), 2 * sizeof(double)};
static const char *tname[6] = {"INT", "LNG", "FLT", "DBL", "CPL", "DCP"};
static const int atype[6] = {ARMCI_ACC_INT, ARMCI_ACC_LNG, ARMCI_ACC_FLT, ARMCI_ACC_DBL, ARMCI_ACC_CPL, ARMCI_ACC_DCP};

/* source value (re, im) of process p, element e */
static void srcval(int p, int e, double *re, double *im)
{
  *re = (double)((p + 1) * (e % 7 + 1));
  *im = (double)((e + p) % 3) - 1.0;
}

static void put_elem(int t, void *base, int e, double re, double im)
{
  switch (t) {
  case 0: ((int *)base)[e] = (int)re; break;
  case 1: ((long *)base)[e] = (long)re; break;
  case 2: ((float *)base)[e] = (float)re; break;
  case 3: ((double *)base)[e] = re; break;
  case 4: ((float *)base)[2 * e] = (float)re; ((float *)base)[2 * e + 1] = (float)im; break;
  default: ((double *)base)[2 * e] = re; ((double *)base)[2 * e + 1] = im; break;
  }
}

static void get_elem(int t, void *base, int e, double *re, double *im)
{
  *im = 0;
  switch (t) {
  case 0: *re = ((int *)base)[e]; break;
  case 1: *re = (double)((long *)base)[e]; break;
  case 2: *re = ((float *)base)[e]; break;
  case 3: *re = ((double *)base)[e]; break;
  case 4: *re = ((float *)base)[2 * e]; *im = ((float *)base)[2 * e + 1]; break;
  default: *re = ((double *)base)[2 * e]; *im = ((double *)base)[2 * e + 1]; break;
  }
}

int main(int argc, char **argv)
{
  int t, mode, p, e;
  void **ptrs;
  char *src;
  int iscale = 3;
  long lscale = 2;
  float fscale = 0.5f;
  double dscale = 0.25;
  float cscale[2] = {1.0f, 2.0f};
  double zscale[2] = {0.5, -1.5};
  void *scales[6];
  double sre[6], sim[6];

  scales[0] = &iscale; scales[1] = &lscale; scales[2] = &fscale; scales[3] = &dscale; scales[4] = cscale; scales[5] = zscale;
  sre[0] = 3; sre[1] = 2; sre[2] = 0.5; sre[3] = 0.25; sre[4] = 1; sre[5] = 0.5;
  sim[0] = sim[1] = sim[2] = sim[3] = 0; sim[4] = 2; sim[5] = -1.5;

  MPI_Init(&argc, &argv);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  if (rank == 0) printf("Starting ARMCI accumulate type test with %d processes\n", nproc);

  ptrs = malloc(sizeof(void *) * nproc);
  src = malloc(NEL * 2 * sizeof(double));
  ARMCI_Malloc(ptrs, NEL * 2 * sizeof(double));

  for (t = 0; t < 6; t++)
    for (mode = 0; mode < 4; mode++) {
      int es = esize[t];
      ARMCI_Access_begin(ptrs[rank]);
      for (e = 0; e < NEL; e++) put_elem(t, ptrs[rank], e, 10.0, t >= 4 ? -10.0 : 0.0);
      ARMCI_Access_end(ptrs[rank]);
      for (e = 0; e < NEL; e++) {
        double re, im;
        srcval(rank, e, &re, &im);
        put_elem(t, src, e, re, t >= 4 ? im : 0.0);
      }
      ARMCI_Barrier();
      for (p = 0; p < nproc; p++) {
        int target = (rank + p) % nproc, rc = 0;
        if (mode == 0) {
          rc = ARMCI_Acc(atype[t], scales[t], src, ptrs[target], NEL * es, target);
        } else if (mode == 1 || mode == 3) {
          int stride = NROW * es, count[2];
          count[0] = NROW * es;
          count[1] = NCOL;
          if (mode == 1) {
            rc = ARMCI_AccS(atype[t], scales[t], src, &stride, ptrs[target], &stride, count, 1, target);
          } else {
            armci_hdl_t h;
            ARMCI_INIT_HANDLE(&h);
            rc = ARMCI_NbAccS(atype[t], scales[t], src, &stride, ptrs[target], &stride, count, 1, target, &h);
            ARMCI_Wait(&h);
          }
        } else {
          /* vector: one element per segment, reversed order */
          void *s[NEL], *d[NEL];
          armci_giov_t iov;
          for (e = 0; e < NEL; e++) {
            s[e] = src + (NEL - 1 - e) * es;
            d[e] = (char *)ptrs[target] + (NEL - 1 - e) * es;
          }
          iov.src_ptr_array = s;
          iov.dst_ptr_array = d;
          iov.bytes = es;
          iov.ptr_array_len = NEL;
          rc = ARMCI_AccV(atype[t], scales[t], &iov, 1, target);
        }
        if (rc) {
          printf("[%d] FAIL %s mode %d: acc returned %d\n", rank, tname[t], mode, rc);
          errors++;
        }
      }
      ARMCI_Barrier();
      ARMCI_Access_begin(ptrs[rank]);
      for (e = 0; e < NEL; e++) {
        double ere = 10.0, eim = t >= 4 ? -10.0 : 0.0, gre, gim;
        for (p = 0; p < nproc; p++) {
          double re, im;
          srcval(p, e, &re, &im);
          if (t < 4) im = 0;
          if (t == 0 || t == 1) { /* integer: scale * src in integer arithmetic */
            ere += sre[t] * re;
          } else {
            ere += sre[t] * re - sim[t] * im;
            eim += sre[t] * im + sim[t] * re;
          }
        }
        get_elem(t, ptrs[rank], e, &gre, &gim);
        if (gre != ere || gim != eim) {
          printf("[%d] FAIL %s mode %d (%s): element %d = (%g, %g), expected (%g, %g)\n", rank, tname[t], mode,
                 mode == 0 ? "Acc" : mode == 1 ? "AccS" : mode == 2 ? "AccV" : "NbAccS", e, gre, gim, ere, eim);
          errors++;
          break;
        }
      }
      ARMCI_Access_end(ptrs[rank]);
      ARMCI_Barrier();
    }

  ARMCI_Free(ptrs[rank]);
  free(ptrs);
  free(src);
  MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  if (rank == 0) printf(errors ? "%d errors: FAILED\n" : "All tests passed\n", errors);
  MPI_Finalize();
  return errors != 0;
}
