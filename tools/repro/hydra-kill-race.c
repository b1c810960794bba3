/* Reproducer for Hydra 4.2.1 (Debian 13's mpiexec.mpich) not ending a job whose process was killed, across
 * hosts.  No ARMCI involved: the last rank prints its pid and sleeps, the others wait in MPI_Barrier for it;
 * tools/repro/hydra-kill-race.sh kills the last rank with SIGKILL and times how long the job takes to end.
 *
 * Measured on 2026-11-27 (2 simulated hosts x 2 ranks, tools/simhosts.sh): Hydra 4.0.2 (Debian 12) ended
 * the job within 1 s in 12 of 12 runs, printing "BAD TERMINATION"; Hydra 4.2.1 (Debian 13) in 10 of 12,
 * and in the other 2 never: the killed rank's proxy and its other rank were gone, mpiexec had closed that
 * proxy's connection without printing "BAD TERMINATION" (so it took the exit statuses it received for a
 * normal exit), and the ranks on the other host stayed in MPI_Barrier until the 40-s timeout.  Nothing
 * inside a process can tell such a peer from a slow one, so armci-x documents ARMCI_WATCHDOG_S as the
 * remedy (doc/user-guide.md, "Known MPI problems on Debian 13"), and the fault tests use it on Hydra 4.2. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == np - 1) {
    printf("victim ready (rank %d, pid %d)\n", me, (int)getpid());
    fflush(stdout);
    sleep(1000);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
