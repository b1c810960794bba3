/*
 * triples_waits.c -- the get pattern of NWChem's CCSD(T) triples (ccsd_trpdrv) between hosts, reduced: both
 * ranks loop over L node-local and 3 remote 41472-byte gets (ARMCI_NbGetS + ARMCI_Wait, what GA's ga_get makes
 * of a column patch), then compute about C ms (1/2, 1 or 3/2 C, staggered between the ranks) without calling
 * ARMCI or MPI, in P pieces with L/P more node-local gets after each piece.  A remote get completes only when its
 * target enters MPI (MPICH over UCX: the target's CPU serves it), so its wait is set by the target's compute
 * blocks.  Prints, per rank, the loop time and the mean wait per remote get.  Build against either library and
 * run on 2 simulated hosts:
 *     mpicc.mpich -O2 -Iinclude -Ibuild/include -o tw benchmarks/triples_waits.c build/src/.libs/libarmci.a \
 *         -lstdc++ -lm -lpthread
 *     mpicc.mpich -O2 -o tw-deb benchmarks/triples_waits.c -larmci-mpich     (Debian's ARMCI-MPI 0.3.1)
 *     tools/simhosts.sh --hosts 2 -n 2 ./tw [C_ms=2] [iters=300] [L=3] [P=1] [F=0]
 * A fifth argument F=1 makes each compute block a fixed amount of work instead of a fixed time (C units of
 * 500,000 dependent multiply-adds, about 1 ms on a free core here), so that the loop time also shows what other
 * processes of the machine (progress ranks, a progress thread) take from the computing ranks' cores.
 * (ARMCI_USE_WIN_ALLOCATE=0 for ARMCI-MPI on this MPICH.)  See tools/nwchem/RESULTS.md, issue 14 section: the
 * waits vary up to 10x between runs of one build, so compare alternating runs.
 */
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static int fixed_work;  /* F: compute blocks of fixed work rather than fixed time */
static void busy(double ms) {
  volatile double x = 1;
  if (fixed_work) {
    for (long i = (long)(ms * 500000); i > 0; --i) x = x * 1.0000001;
    return;
  }
  double e = MPI_Wtime() + ms * 1e-3;
  while (MPI_Wtime() < e) x = x * 1.0000001;
}
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ARMCI_Init();
  int me = armci_msg_me(), np = armci_msg_nproc(), other = (me + 1) % np;
  double cms = argc > 1 ? atof(argv[1]) : 2.0;
  int iters = argc > 2 ? atoi(argv[2]) : 300;
  int sz = 41472;
  int nlocal = argc > 3 ? atoi(argv[3]) : 3;
  fixed_work = argc > 5 && atoi(argv[5]) != 0;
  void** p = malloc(sizeof(void*) * np);
  ARMCI_Malloc(p, 8 * sz);
  char* buf = malloc(8 * sz);
  ARMCI_Barrier();
  double wait = 0, t0 = MPI_Wtime();
  int cnt[2] = {sz, 1}, st[1] = {sz};
  for (int it = 0; it < iters; ++it) {
    for (int k = 0; k < nlocal; ++k) {
      armci_hdl_t h;
      ARMCI_INIT_HANDLE(&h);
      ARMCI_NbGetS((char*)p[me] + (k % 3) * sz, st, buf + (k % 3) * sz, st, cnt, 1, me, &h);
      ARMCI_Wait(&h);
    }
    for (int k = 0; k < 3; ++k) {
      armci_hdl_t h;
      ARMCI_INIT_HANDLE(&h);
      ARMCI_NbGetS((char*)p[other] + k * sz, st, buf + (3 + k) * sz, st, cnt, 1, other, &h);
      double w = MPI_Wtime();
      ARMCI_Wait(&h);
      wait += MPI_Wtime() - w;
    }
    int pieces = argc > 4 ? atoi(argv[4]) : 1;
    for (int q = 0; q < pieces; ++q) {
      busy(cms * (1 + (it + me) % 3) / 2 / pieces);
      for (int k = 0; k < nlocal / pieces; ++k) {
        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        ARMCI_NbGetS((char*)p[me] + (k % 3) * sz, st, buf + (k % 3) * sz, st, cnt, 1, me, &h);
        ARMCI_Wait(&h);
      }
    }
  }
  double total = MPI_Wtime() - t0;
  ARMCI_Barrier();
  printf("rank %d: compute %.1f ms/iter avg, loop %.3f s, mean wait per remote get %.1f us\n", me, cms, total,
         wait / (3.0 * iters) * 1e6);
  ARMCI_Finalize();
  MPI_Finalize();
  return 0;
}
