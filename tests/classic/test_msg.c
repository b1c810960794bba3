/*
 * The rest of message.h and the topology/odds-and-ends API as classic ARMCI programs use them (GA's
 * armci/testing and ARMCI-MPI's tests call these in passing): ARMCI_Init_args after ARMCI_Init (reference
 * counted) and ARMCI_Initialized, armci_msg_snd/armci_msg_rcv (with msglen) and armci_msg_rcvany,
 * armci_msg_bcast/brdcst/bcast_scope from every root, armci_msg_bintree, armci_msg_sel (GA's select-element
 * pattern: a struct whose first member is the key, n in bytes, some processes not contributing),
 * armci_msg_barrier, armci_timer, armci_domain_* vs ARMCI_Same_node, ARMCI_Uses_shm, ARMCI_Copy,
 * ARMCI_Put_flag / ARMCI_PutS_flag (the receiver polls its own flag with ARMCI_GetValueInt: polling with plain
 * loads hangs on the MPI path of both libraries, where RMA needs the target to make MPI progress), and (not built with
 * -DCLASSIC_ARMCI_MPI, which lacks it) armci_exchange_address.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <armci.h>

static int rank, nproc, errors = 0;
#define FAIL(...)                                                                                            \
  do {                                                                                                       \
    if (errors++ < 20) {                                                                                     \
      printf("[%d] FAIL line %d: ", rank, __LINE__);                                                         \
      printf(__VA_ARGS__);                                                                                   \
      printf("\n");                                                                                          \
      fflush(stdout);                                                                                        \
    }                                                                                                        \
  } while (0)

struct selinfo {
  double key;
  int owner;
  int subscript[3];
};

int main(int argc, char **argv)
{
  int i, p, root;

  MPI_Init(&argc, &argv);
  ARMCI_Init();
  ARMCI_Init_args(&argc, &argv); /* second initialisation: reference counted */
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  if (rank == 0) printf("Starting ARMCI message/topology test with %d processes\n", nproc);
  if (!ARMCI_Initialized()) FAIL("ARMCI_Initialized is 0");

  /* point-to-point: ring, sizes 0..4096 bytes, msglen reported */
  for (i = 0; i <= 4096; i = i ? i * 4 : 1) {
    char *out = malloc(i + 1), *in = malloc(i + 16);
    int len = -1, right = (rank + 1) % nproc, left = (rank + nproc - 1) % nproc, k;
    for (k = 0; k < i; k++) out[k] = (char)(rank + k);
    if (nproc > 1) {
      if (rank % 2 == 0) {
        armci_msg_snd(100 + i, out, i, right);
        armci_msg_rcv(100 + i, in, i + 16, &len, left);
      } else {
        armci_msg_rcv(100 + i, in, i + 16, &len, left);
        armci_msg_snd(100 + i, out, i, right);
      }
      if (len != i) FAIL("armci_msg_rcv msglen %d, expected %d", len, i);
      for (k = 0; k < i; k++)
        if (in[k] != (char)(left + k)) {
          FAIL("armci_msg_rcv data at %d", k);
          break;
        }
    }
    free(out);
    free(in);
  }
  /* rcvany: everyone sends to 0 */
  if (rank != 0) {
    int v = rank * 7;
    armci_msg_snd(77, &v, sizeof v, 0);
  } else {
    int seen = 0;
    for (p = 1; p < nproc; p++) {
      int v = -1, len = -1, from = armci_msg_rcvany(77, &v, sizeof v, &len);
      if (from < 1 || from >= nproc || v != from * 7 || len != (int)sizeof v) FAIL("rcvany from %d value %d len %d", from, v, len);
      else seen |= 1 << from;
    }
    if (nproc > 1 && seen != ((1 << nproc) - 2)) FAIL("rcvany senders mask %x", seen);
  }
  armci_msg_barrier();

  /* broadcasts from every root */
  for (root = 0; root < nproc; root++) {
    long buf[5];
    for (i = 0; i < 5; i++) buf[i] = rank == root ? root * 100 + i : -1;
    armci_msg_bcast(buf, sizeof buf, root);
    for (i = 0; i < 5; i++)
      if (buf[i] != root * 100 + i) FAIL("armci_msg_bcast root %d element %d = %ld", root, i, buf[i]);
    for (i = 0; i < 5; i++) buf[i] = rank == root ? root * 1000 + i : -1;
    armci_msg_brdcst(buf, sizeof buf, root);
    for (i = 0; i < 5; i++)
      if (buf[i] != root * 1000 + i) FAIL("armci_msg_brdcst root %d element %d = %ld", root, i, buf[i]);
    for (i = 0; i < 5; i++) buf[i] = rank == root ? root * 10000 + i : -1;
    armci_msg_bcast_scope(SCOPE_ALL, buf, sizeof buf, root);
    for (i = 0; i < 5; i++)
      if (buf[i] != root * 10000 + i) FAIL("armci_msg_bcast_scope root %d element %d = %ld", root, i, buf[i]);
  }

  /* binary tree over all processes */
  {
    int Root = -2, Up = -2, Left = -2, Right = -2;
    armci_msg_bintree(SCOPE_ALL, &Root, &Up, &Left, &Right);
    if (Root != 0 || Up != (rank == 0 ? -1 : (rank - 1) / 2) || Left != (2 * rank + 1 < nproc ? 2 * rank + 1 : -1) ||
        Right != (2 * rank + 2 < nproc ? 2 * rank + 2 : -1))
      FAIL("armci_msg_bintree: root %d up %d left %d right %d", Root, Up, Left, Right);
  }

  /* select: max and min of a key, process 1 does not contribute */
  {
    const char *ops[2] = {"max", "min"};
    for (i = 0; i < 2; i++) {
      struct selinfo s;
      char op[8];
      int best = -1;
      double bestkey = 0;
      strcpy(op, ops[i]);
      for (p = 0; p < nproc; p++) {
        double key = (double)((p * 5 + 3) % 7) - 3.0 + p * 0.01;
        if (p == 1 && nproc > 1) continue;
        if (best < 0 || (i == 0 ? key > bestkey : key < bestkey)) {
          best = p;
          bestkey = key;
        }
      }
      s.key = (double)((rank * 5 + 3) % 7) - 3.0 + rank * 0.01;
      s.owner = rank;
      s.subscript[0] = rank * 3;
      s.subscript[1] = -rank;
      s.subscript[2] = 42;
      armci_msg_sel(&s, (int)sizeof s, op, ARMCI_DOUBLE, !(rank == 1 && nproc > 1));
      if (s.key != bestkey || s.owner != best || s.subscript[0] != best * 3 || s.subscript[1] != -best || s.subscript[2] != 42)
        FAIL("armci_msg_sel %s: key %g owner %d, expected %g from %d", op, s.key, s.owner, bestkey, best);
    }
    /* integer key */
    {
      struct {
        int key;
        int owner;
      } s;
      char op[8] = "max";
      int bestk = -1, bestp = -1;
      for (p = 0; p < nproc; p++)
        if ((p * 7) % 11 > bestk) {
          bestk = (p * 7) % 11;
          bestp = p;
        }
      s.key = (rank * 7) % 11;
      s.owner = rank;
      armci_msg_sel(&s, (int)sizeof s, op, ARMCI_INT, 1);
      if (s.key != bestk || s.owner != bestp) FAIL("armci_msg_sel int max: key %d owner %d, expected %d from %d", s.key, s.owner, bestk, bestp);
    }
  }

  /* timer */
  {
    double t0 = armci_timer(), t1;
    armci_msg_barrier();
    t1 = armci_timer();
    if (!(t1 >= t0)) FAIL("armci_timer went backwards: %f %f", t0, t1);
  }

  /* topology */
  {
    int ndom = armci_domain_count(ARMCI_DOMAIN_SMP), mydom = armci_domain_my_id(ARMCI_DOMAIN_SMP), total = 0, d;
    if (ndom < 1 || ndom > nproc) FAIL("armci_domain_count %d", ndom);
    if (mydom != armci_domain_id(ARMCI_DOMAIN_SMP, rank)) FAIL("armci_domain_my_id %d vs id(me) %d", mydom, armci_domain_id(ARMCI_DOMAIN_SMP, rank));
    for (d = 0; d < ndom; d++) {
      int n = armci_domain_nprocs(ARMCI_DOMAIN_SMP, d);
      total += n;
      for (i = 0; i < n; i++) {
        int g = armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, d, i);
        if (armci_domain_id(ARMCI_DOMAIN_SMP, g) != d) FAIL("glob_proc_id(%d,%d) = %d is in domain %d", d, i, g, armci_domain_id(ARMCI_DOMAIN_SMP, g));
      }
    }
    if (total != nproc) FAIL("domains hold %d processes, expected %d", total, nproc);
    for (p = 0; p < nproc; p++) {
      int same = armci_domain_id(ARMCI_DOMAIN_SMP, p) == mydom;
      if (!!armci_domain_same_id(ARMCI_DOMAIN_SMP, p) != same) FAIL("armci_domain_same_id(%d) = %d", p, armci_domain_same_id(ARMCI_DOMAIN_SMP, p));
      if (!!ARMCI_Same_node(p) != same) FAIL("ARMCI_Same_node(%d) = %d, domain says %d", p, ARMCI_Same_node(p), same);
    }
    if (!ARMCI_Same_node(rank)) FAIL("ARMCI_Same_node(me) is 0");
    (void)ARMCI_Uses_shm();
  }

  /* ARMCI_Copy, including overlap-free copies into and out of ARMCI memory */
  {
    double **g = malloc(sizeof(double *) * nproc), loc[64], back[64];
    ARMCI_Malloc((void **)g, 64 * sizeof(double));
    for (i = 0; i < 64; i++) loc[i] = rank + i * 0.5;
    ARMCI_Copy(loc, g[rank], 64 * sizeof(double));
    ARMCI_Copy(g[rank], back, 64 * sizeof(double));
    for (i = 0; i < 64; i++)
      if (back[i] != loc[i] || g[rank][i] != loc[i]) {
        FAIL("ARMCI_Copy element %d", i);
        break;
      }
    ARMCI_Barrier();
    ARMCI_Free(g[rank]);
    free(g);
  }

  /* Put_flag / PutS_flag: left neighbour sends data + flag, I poll my flag */
  {
    int **g = malloc(sizeof(int *) * nproc), data[100], round;
    int right = (rank + 1) % nproc, left = (rank + nproc - 1) % nproc;
    ARMCI_Malloc((void **)g, 202 * sizeof(int));
    for (i = 0; i < 202; i++) g[rank][i] = 0;
    ARMCI_Barrier();
    for (round = 1; round <= 20; round++) {
      volatile int *flag = &g[rank][200 + round % 2];
      for (i = 0; i < 100; i++) data[i] = rank * 1000 + round * 10 + i % 10;
      if (round % 2) {
        ARMCI_Put_flag(data, g[right], 100 * sizeof(int), &g[right][201], round, right);
      } else {
        int stride = 10 * sizeof(int), count[2];
        count[0] = 5 * sizeof(int); /* first half of each row of 10 */
        count[1] = 10;
        ARMCI_PutS_flag(data, &stride, g[right], &stride, count, 1, &g[right][200], round, right);
      }
      /* poll through ARMCI: on the MPI path the incoming put needs this process to enter the library */
      while (ARMCI_GetValueInt((void *)flag, rank) != round)
        ;;
      for (i = 0; i < 100; i++) {
        int expect = (round % 2 || i % 10 < 5) ? left * 1000 + round * 10 + i % 10 : left * 1000 + (round - 1) * 10 + i % 10;
        if (g[rank][i] != expect) {
          FAIL("put_flag round %d: element %d = %d, expected %d", round, i, g[rank][i], expect);
          break;
        }
      }
      armci_msg_barrier(); /* before the next round overwrites */
    }
    ARMCI_Barrier();
    ARMCI_Free(g[rank]);
    free(g);
  }

#ifndef CLASSIC_ARMCI_MPI
  {
    void **addrs = malloc(sizeof(void *) * nproc);
    for (p = 0; p < nproc; p++) addrs[p] = NULL;
    addrs[rank] = (void *)(size_t)(0x1000 * (rank + 1));
    armci_exchange_address(addrs, nproc);
    for (p = 0; p < nproc; p++)
      if (addrs[p] != (void *)(size_t)(0x1000 * (p + 1))) FAIL("armci_exchange_address[%d] = %p", p, addrs[p]);
    free(addrs);
  }
#endif

  MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  ARMCI_Finalize();
  if (rank == 0) printf(errors ? "%d errors: FAILED\n" : "All tests passed\n", errors);
  MPI_Finalize();
  return errors != 0;
}
