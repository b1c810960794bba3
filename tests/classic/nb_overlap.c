/*
 * Re-creation of ARMCI-MPI's tests/contrib/non-blocking programs (simple non-blocking put/get, and the
 * overlap test: start a non-blocking get, compute, wait), extended with the handle patterns classic codes
 * use: ARMCI_Wait on an initialised but unused handle; ARMCI_Test polled until it reports completion (0);
 * handles reused after ARMCI_Wait without ARMCI_INIT_HANDLE; 2000 outstanding ARMCI_NbPut on distinct handles
 * waited in reverse order; location consistency between non-blocking operations to one location
 * (NbPut then NbGet of the same bytes before any wait must see the put; NbGet then NbPut: the get sees the
 * old value); NULL-handle puts completed by ARMCI_Fence; ARMCI_WaitProc / ARMCI_WaitAll with nothing
 * pending; NbPutS / NbGetS with 7 stride levels where some levels have count 1; zero-byte contiguous
 * transfers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <armci.h>

#define N 1024
#define NHDL 2000

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

int main(int argc, char **argv)
{
  int i, k, peer;
  double **g, *loc, *loc2;
  armci_hdl_t h, h2, *hs;

  MPI_Init(&argc, &argv);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  if (rank == 0) printf("ARMCI non-blocking test with %d processes\n", nproc);
  peer = (rank + 1) % nproc;

  g = malloc(sizeof(double *) * nproc);
  ARMCI_Malloc((void **)g, (N + NHDL) * sizeof(double));
  loc = malloc((N + NHDL) * sizeof(double));
  loc2 = malloc((N + NHDL) * sizeof(double));
  ARMCI_Access_begin(g[rank]);
  for (i = 0; i < N + NHDL; i++) g[rank][i] = rank + i * 1e-3;
  ARMCI_Access_end(g[rank]);
  ARMCI_Barrier();

  /* 1. wait on an unused handle; WaitProc/WaitAll with nothing pending */
  ARMCI_INIT_HANDLE(&h);
  if (ARMCI_Wait(&h) != 0) FAIL("ARMCI_Wait on an unused handle returned nonzero");
  ARMCI_WaitProc(peer);
  ARMCI_WaitAll();

  /* 2. overlap: NbGet, compute, Test until done, check */
  ARMCI_INIT_HANDLE(&h);
  ARMCI_NbGet(g[peer], loc, N * sizeof(double), peer, &h);
  {
    double acc = 0;
    for (i = 0; i < 100000; i++) acc += i * 1e-9;
    if (acc < 0) FAIL("impossible");
  }
  for (k = 0; ARMCI_Test(&h) != 0; k++)
    if (k > 10000000) {
      FAIL("ARMCI_Test never reported completion");
      break;
    }
  ARMCI_Wait(&h); /* wait after a successful test is allowed */
  for (i = 0; i < N; i++)
    if (loc[i] != peer + i * 1e-3) {
      FAIL("overlap get element %d = %f", i, loc[i]);
      break;
    }

  /* 3. handle reuse without re-initialisation */
  for (k = 0; k < 5; k++) {
    for (i = 0; i < N; i++) loc[i] = rank * 10 + k;
    ARMCI_NbPut(loc, g[peer] + N / 2, 8 * sizeof(double), peer, &h);
    ARMCI_Wait(&h);
    ARMCI_NbGet(g[peer] + N / 2, loc2, 8 * sizeof(double), peer, &h);
    ARMCI_Wait(&h);
    for (i = 0; i < 8; i++)
      if (loc2[i] != rank * 10 + k) {
        FAIL("reuse round %d: %f", k, loc2[i]);
        break;
      }
  }
  ARMCI_Barrier();

  /* 4. many outstanding handles, waited in reverse order */
  hs = malloc(sizeof(armci_hdl_t) * NHDL);
  for (i = 0; i < NHDL; i++) {
    loc[N + i] = -(rank * 100000.0 + i);
    ARMCI_INIT_HANDLE(&hs[i]);
    ARMCI_NbPut(&loc[N + i], &g[peer][N + i], sizeof(double), peer, &hs[i]);
  }
  for (i = NHDL - 1; i >= 0; i--) ARMCI_Wait(&hs[i]);
  ARMCI_Barrier();
  {
    int left = (rank + nproc - 1) % nproc;
    ARMCI_Access_begin(g[rank]);
    for (i = 0; i < NHDL; i++)
      if (g[rank][N + i] != -(left * 100000.0 + i)) {
        FAIL("many handles element %d = %f", i, g[rank][N + i]);
        break;
      }
    ARMCI_Access_end(g[rank]);
  }
  ARMCI_Barrier();

  /* 5. location consistency among outstanding non-blocking operations */
  for (k = 0; k < 20; k++) {
    double v = rank * 1000 + k, got = -1, old = -1, newer = rank * 1000 + k + 0.5;
    ARMCI_INIT_HANDLE(&h);
    ARMCI_INIT_HANDLE(&h2);
    ARMCI_NbPut(&v, &g[peer][k], sizeof(double), peer, &h);
    ARMCI_NbGet(&g[peer][k], &got, sizeof(double), peer, &h2);
    ARMCI_Wait(&h2);
    ARMCI_Wait(&h);
    if (got != v) FAIL("NbPut then NbGet of one location: got %f, expected %f", got, v);
    ARMCI_NbGet(&g[peer][k], &old, sizeof(double), peer, &h2);
    ARMCI_NbPut(&newer, &g[peer][k], sizeof(double), peer, &h);
    ARMCI_Wait(&h);
    ARMCI_Wait(&h2);
    if (old != v) FAIL("NbGet then NbPut of one location: got %f, expected the old %f", old, v);
    got = -1;
    ARMCI_Get(&g[peer][k], &got, sizeof(double), peer);
    if (got != newer) FAIL("final value %f, expected %f", got, newer);
  }

  /* 6. NULL-handle puts completed by ARMCI_Fence, seen by the target after a barrier */
  for (i = 0; i < N; i++) loc[i] = rank + 0.25 + i;
  for (i = 0; i < N; i += 64) ARMCI_NbPut(&loc[i], &g[peer][i], 64 * sizeof(double), peer, NULL);
  ARMCI_Fence(peer);
  ARMCI_Barrier();
  {
    int left = (rank + nproc - 1) % nproc;
    ARMCI_Access_begin(g[rank]);
    for (i = 0; i < N; i++)
      if (g[rank][i] != left + 0.25 + i) {
        FAIL("NULL-handle put + Fence element %d = %f", i, g[rank][i]);
        break;
      }
    ARMCI_Access_end(g[rank]);
  }
  ARMCI_Barrier();

  /* 7. 7 stride levels, 2 x 1 x 2 x 1 x 2 x 1 x 2 blocks of 3 doubles (levels with count 1 in between) */
  {
    int count[8] = {3 * sizeof(double), 2, 1, 2, 1, 2, 1, 2};
    int lstr[7], rstr[7], lvl, nel = 0;
    /* local layout dense, remote layout padded by one double per level */
    lstr[0] = 3 * sizeof(double);
    rstr[0] = 4 * sizeof(double);
    for (lvl = 1; lvl < 7; lvl++) {
      lstr[lvl] = lstr[lvl - 1] * count[lvl];
      rstr[lvl] = rstr[lvl - 1] * count[lvl] + sizeof(double);
    }
    nel = 3 * 2 * 2 * 2 * 2;
    for (i = 0; i < nel; i++) loc[i] = rank * 1e4 + i;
    ARMCI_Access_begin(g[rank]);
    for (i = 0; i < N; i++) g[rank][i] = -5;
    ARMCI_Access_end(g[rank]);
    ARMCI_Barrier();
    ARMCI_INIT_HANDLE(&h);
    ARMCI_NbPutS(loc, lstr, g[peer], rstr, count, 7, peer, &h);
    ARMCI_Wait(&h);
    for (i = 0; i < nel; i++) loc2[i] = -7;
    ARMCI_NbGetS(g[peer], rstr, loc2, lstr, count, 7, peer, &h);
    ARMCI_Wait(&h);
    for (i = 0; i < nel; i++)
      if (loc2[i] != rank * 1e4 + i) {
        FAIL("7-level strided round trip element %d = %f", i, loc2[i]);
        break;
      }
    ARMCI_Barrier();
    /* the owner checks placement: element (a,b,c,d,e) of 3x2x2x2x2 at a + 4*b-ish padded offsets */
    {
      int left = (rank + nproc - 1) % nproc, idx[8], e = 0, bad = 0;
      ARMCI_Access_begin(g[rank]);
      for (idx[7] = 0; idx[7] < 2; idx[7]++)
        for (idx[5] = 0; idx[5] < 2; idx[5]++)
          for (idx[3] = 0; idx[3] < 2; idx[3]++)
            for (idx[1] = 0; idx[1] < 2; idx[1]++)
              for (idx[0] = 0; idx[0] < 3; idx[0]++) {
                long off = idx[0] * (long)sizeof(double) + idx[1] * (long)rstr[0] + idx[3] * (long)rstr[2] +
                           idx[5] * (long)rstr[4] + idx[7] * (long)rstr[6]; 
                double got = *(double *)((char *)g[rank] + off);
                if (got != left * 1e4 + e && !bad) {
                  FAIL("7-level placement element %d at byte %ld = %f", e, off, got);
                  bad = 1;
                }
                e++;
              }
      ARMCI_Access_end(g[rank]);
    }
  }
  ARMCI_Barrier();

  /* 8. zero-byte transfers are no-ops */
  ARMCI_Put(loc, g[peer], 0, peer);
  ARMCI_Get(g[peer], loc, 0, peer);
  ARMCI_INIT_HANDLE(&h);
  ARMCI_NbPut(loc, g[peer], 0, peer, &h);
  ARMCI_Wait(&h);

  ARMCI_Barrier();
  ARMCI_Free(g[rank]);
  free(g);
  free(loc);
  free(loc2);
  free(hs);
  MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  if (rank == 0) printf(errors ? "%d errors: FAILED\n" : "All tests passed\n", errors);
  MPI_Finalize();
  return errors != 0;
}
