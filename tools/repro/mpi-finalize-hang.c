/* Reproducer for the MPI_Finalize hang of Debian's MPICH 4.0.2 (ch4:ucx) over UCX 1.13's tcp transport.
 * No ARMCI involved.  Build and run it 30 times:
 *   mpicc.mpich tools/repro/mpi-finalize-hang.c -o /tmp/fh
 *   for i in $(seq 30); do timeout 15 env UCX_TLS=tcp,self mpiexec.mpich -n 3 /tmp/fh 0 || echo hung; done
 * Measured on 2026-11-22 (2 cores): with pause 0, 8 of 30 runs hung (one rank in ucp_worker_progress
 * inside MPI_Finalize, the others in the PMI barrier); with a 20 ms or 1 s pause after the barrier, 0 of
 * 30.  Busy polling (MPI_Iprobe for 100 ms) instead of the pause: 10 of 30 hung.  ARMCI_Finalize therefore
 * pauses ARMCI_FINALIZE_SETTLE_MS (default 20) after its last barrier. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  int pause_ms = argc > 1 ? atoi(argv[1]) : 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (pause_ms > 0) usleep(pause_ms * 1000);
  MPI_Finalize();
  if (me == 0) printf("finalized\n");
  return 0;
}
