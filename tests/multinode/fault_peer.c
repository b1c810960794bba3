/*
 * fault_peer.c - a peer dies or becomes unreachable while the other ranks are in ARMCI operations aimed
 * at it (issue 12, item 5).  Run by tests/multinode/faults.sh across simulated hosts; it is expected to
 * END WITH AN ERROR, quickly, rather than to pass.
 *
 *   fault_peer MODE [SECONDS]
 *     MODE    get | rmw | lock | barrier | mixed: what the survivors do to the victim (the last rank)
 *     SECONDS how long the survivors keep going (default 120)
 *
 * The victim (last rank, on the last host) takes mutex 0 on itself (so "lock" waiters queue behind it),
 * prints "fault_peer: victim ready", then blocks in a get from rank 0 in a loop; faults.sh kills it with
 * SIGKILL from outside, or takes its host's link down.  The survivors loop over MODE's operation aimed
 * at the victim for SECONDS.  If they ever get that far the fault went unnoticed: exit status 3.
 */
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ARMCI_Init();
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const char* mode = argc > 1 ? argv[1] : "mixed";
  const double seconds = argc > 2 ? atof(argv[2]) : 120.0;
  if (strcmp(mode, "get") && strcmp(mode, "rmw") && strcmp(mode, "lock") && strcmp(mode, "barrier") &&
      strcmp(mode, "mixed")) {
    if (me == 0) fprintf(stderr, "fault_peer: unknown mode '%s'\n", mode);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int victim = np - 1;
  void** ptrs = malloc(sizeof(void*) * np);
  if (!ptrs || ARMCI_Malloc(ptrs, 4096) != 0) ARMCI_Error("fault_peer: ARMCI_Malloc failed", 1);
  memset(ptrs[me], 0, 4096);
  ARMCI_Create_mutexes(1);
  ARMCI_Barrier();
  char buf[4096];
  if (me == victim) {
    ARMCI_Lock(0, victim);
    printf("fault_peer: victim ready (rank %d, pid %ld)\n", me, (long)getpid());
    fflush(stdout);
    /* Keep the network busy until killed (or until the survivors would give up). */
    double end = now() + seconds + 30;
    while (now() < end) ARMCI_Get(ptrs[0], buf, 8, 0);
    ARMCI_Unlock(0, victim);
  } else {
    printf("fault_peer: rank %d doing '%s' at rank %d for %.0f s\n", me, mode, victim, seconds);
    fflush(stdout);
    double end = now() + seconds;
    long iter = 0;
    int old = 0;
    while (now() < end) {
      int what = strcmp(mode, "get") == 0       ? 0
                 : strcmp(mode, "rmw") == 0     ? 1
                 : strcmp(mode, "lock") == 0    ? 2
                 : strcmp(mode, "barrier") == 0 ? 3
                                                : (int)(iter % 3);
      switch (what) {
        case 0:
          ARMCI_Get(ptrs[victim], buf, sizeof buf, victim);
          break;
        case 1:
          ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, ptrs[victim], 1, victim);
          break;
        case 2:
          ARMCI_Lock(0, victim); /* the victim holds it: this waits until the job is torn down */
          ARMCI_Unlock(0, victim);
          break;
        default:
          ARMCI_Barrier();
          break; /* the victim never joins */
      }
      ++iter;
    }
    fprintf(stderr, "fault_peer: rank %d: %ld operations in %.0f s and no error: the fault went unnoticed\n", me, iter,
            seconds);
    return 3;
  }
  ARMCI_Destroy_mutexes();
  ARMCI_Free(ptrs[me]);
  ARMCI_Finalize();
  MPI_Finalize();
  return 0;
}
