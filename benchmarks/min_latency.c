/*
 * min_latency.c -- per-operation cost as the minimum over 15 repetitions, for a loaded machine.
 *
 * On a machine shared with other jobs the medians of compare.sh's benchmarks measure scheduling stalls
 * (4-50 ms) more than the network; the least-disturbed repetition still shows what an operation costs.
 * Rank 0 runs each operation in a loop (200 times; 50 strided and 64 KiB, 5 for 1 MiB; 1000 non-blocking puts
 * and one ARMCI_WaitAll) against the last rank, which waits in ARMCI_Barrier; prints
 *   MICRO <op> min <us per op> med <us per op>
 * Build it against each library from this one source and run the builds alternately, e.g. between
 * simulated hosts:
 *   mpicc.mpich -O2 -Iinclude benchmarks/min_latency.c build/src/.libs/libarmci.a -lstdc++ -lpthread -lm
 *   UCX_TLS=tcp,self ARMCI_USE_WIN_ALLOCATE=0 tools/simhosts.sh --hosts 2 -n 2 ./a.out
 * (doc/performance.md, "Between hosts").  No data checks: compare.sh's benchmarks check the same operations.
 */
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

#define NREP 15 /* repetitions per operation */
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ARMCI_Init();
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  long big = 1 << 20;
  void** g = malloc(np * sizeof(void*));
  ARMCI_Malloc(g, big * 2);
  char* buf = malloc(big * 2);
  memset(buf, 1, big * 2);
  int t = np - 1;
  double one = 1.0;
  const char* names[] = {"put8", "put8+fence", "acc8", "get8", "puts32x1K", "gets32x1K", "put1M", "get1M", "acc1M",
                         "putdisj8", "rmw", "lock", "nbput8",
                         /* explicit handle, waited at once; same bytes each time */
                         "nbget8+wait", "nbput8+wait", "nbacc8+wait", "acc64K+fence", "put16K"};
  int nops = 18;
  for (int op = 0; op < nops; op++) {
    double v[NREP];
    int n = op >= 6 && op <= 8 ? 5 : (op == 4 || op == 5 || op == 16) ? 50 : op == 12 ? 1000 : 200;
    for (int r = 0; r < NREP; r++) {
      ARMCI_Barrier();
      double t0 = MPI_Wtime();
      if (me == 0) {
        int cnt[2] = {1024, 32};
        int st[1] = {2048};
        long val;
        armci_hdl_t h;
        for (int i = 0; i < n; i++) switch (op) {
            case 0:
              ARMCI_Put(buf, g[t], 8, t);
              break;
            case 1:
              ARMCI_Put(buf, g[t], 8, t);
              ARMCI_Fence(t);
              break;
            case 2:
              ARMCI_Acc(ARMCI_ACC_DBL, &one, buf, g[t], 8, t);
              break;
            case 3:
              ARMCI_Get(g[t], buf, 8, t);
              break;
            case 4:
              ARMCI_PutS(buf, st, g[t], st, cnt, 1, t);
              break;
            case 5:
              ARMCI_GetS(g[t], st, buf, st, cnt, 1, t);
              break;
            case 6:
              ARMCI_Put(buf, g[t], big, t);
              break;
            case 7:
              ARMCI_Get(g[t], buf, big, t);
              break;
            case 8:
              ARMCI_Acc(ARMCI_ACC_DBL, &one, buf, g[t], big, t);
              break;
            case 9:
              ARMCI_Put(buf, (char*)g[t] + 8 * (i % 1000), 8, t);
              break;
            case 10:
              ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &val, g[t], 1, t);
              break;
            case 11:
              ARMCI_Lock(0, t);
              ARMCI_Unlock(0, t);
              break;
            case 12:
              ARMCI_NbPut(buf, (char*)g[t] + 8 * (i % 1000), 8, t, NULL);
              break;
            case 13:
              ARMCI_INIT_HANDLE(&h);
              ARMCI_NbGet(g[t], buf, 8, t, &h);
              ARMCI_Wait(&h);
              break;
            case 14:
              ARMCI_INIT_HANDLE(&h);
              ARMCI_NbPut(buf, g[t], 8, t, &h);
              ARMCI_Wait(&h);
              break;
            case 15:
              ARMCI_INIT_HANDLE(&h);
              ARMCI_NbAcc(ARMCI_ACC_DBL, &one, buf, g[t], 8, t, &h);
              ARMCI_Wait(&h);
              break;
            case 16:
              ARMCI_Acc(ARMCI_ACC_DBL, &one, buf, g[t], 65536, t);
              ARMCI_Fence(t);
              break;
            case 17:
              ARMCI_Put(buf, g[t], 16384, t);
              break;
          }
        if (op == 12) ARMCI_WaitAll();
      }
      double dt = (MPI_Wtime() - t0) / n * 1e6;
      v[r] = dt;
    }
    ARMCI_Barrier();
    if (me == 0) {
      qsort(v, NREP, sizeof(double), bench_cmp_double);
      printf("MICRO %-12s min %9.2f med %9.2f\n", names[op], v[0], v[NREP / 2]);
      fflush(stdout);
    }
    if (op == 10) ARMCI_Create_mutexes(1);
  }
  ARMCI_Barrier();
  ARMCI_Destroy_mutexes();
  ARMCI_Free(g[me]);
  ARMCI_Finalize();
  MPI_Finalize();
  return 0;
}
