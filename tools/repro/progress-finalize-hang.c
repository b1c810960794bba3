/* Reproducer for the tear-down hang with progress ranks (doc/user-guide.md, "Progress ranks and the finalize
 * hang"): MPI_Init, ARMCI_Init, puts, gets and accumulates between the hosts, ARMCI_Finalize, an optional
 * tail (TAIL_MS, the program's code after ARMCI_Finalize), MPI_Finalize -- NWChem's order.  Build against a
 * build's static library and run it in a loop on 2 simulated hosts x (1 program + 1 progress rank) over TCP:
 *   mpicc.mpich -Iinclude tools/repro/progress-finalize-hang.c build/src/.libs/libarmci.a -lstdc++ -o /tmp/pfh
 *   for i in $(seq 30); do tools/simhosts.sh --hosts 2 --timeout 30 --env ARMCI_PROGRESS_RANKS=1 \
 *       --env UCX_TLS=tcp,self -n 4 /tmp/pfh > /tmp/pfh.$i 2>&1 || echo "run $i: exit $? (124: hung)"; done
 * A hung job prints "before MPI_Finalize" and nothing after; attach gdb to its processes (pgrep -x pfh) for
 * the backtraces.  Measured 2026-11-24 (2 cores): 10 of 20 runs hung before the fixes in
 * progress/progress_ranks.cc, 2 of 52 with the settle pause on the progress ranks, 0 of 60 with the meeting
 * in MPI_Finalize; the default mode (4 program ranks) 0 of 30. */
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ARMCI_Init();
  int me = armci_msg_me(), n = armci_msg_nproc();
  void** ptrs = malloc(n * sizeof *ptrs);
  ARMCI_Malloc(ptrs, 1 << 16);
  double buf[128];
  for (int i = 0; i < 128; ++i) buf[i] = me + i;
  for (int it = 0; it < 50; ++it) {
    int t = (me + 1 + it) % n;
    ARMCI_Put(buf, (char*)ptrs[t] + 8 * 128 * me, sizeof buf, t);
    ARMCI_Get((char*)ptrs[t], buf, sizeof buf, t);
    double one = 1.0;
    ARMCI_Acc(ARMCI_ACC_DBL, &one, buf, (char*)ptrs[t] + 4096, 8 * 16, t);
  }
  ARMCI_Barrier();
  ARMCI_Free(ptrs[me]);
  free(ptrs);
  ARMCI_Finalize();
  if (getenv("TAIL_MS")) usleep(atoi(getenv("TAIL_MS")) * 1000);
  int world_me;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_me);
  if (world_me == 0) {
    printf("before MPI_Finalize\n");
    fflush(stdout);
  }
  MPI_Finalize();
  if (world_me == 0) printf("finalized\n");
  return 0;
}
