/* A small ARMCI job for tests/errors/shm_hazards.sh, which runs it against what another user or job may leave
 * in /dev/shm (names taken, a lock file planted or held, the file system full) and checks that it either runs
 * or ends with a named ARMCI error, never a hang or a SIGBUS.  Prints "shm_job: ok" when it ran through.
 * Usage: shm_job CASE [MIB]
 *   malloc MIB   ARMCI_Malloc of MIB MiB per process, every byte written, a put to the next process, a message
 *                barrier (ARMCI_NODE_SYNC's shared page when that is on)
 *   group        the same (1 MiB) on a group of processes 0 and 1 (a window smaller than the job: the window
 *                gate's case)
 *   cleanup      ARMCI_Cleanup, then exit normally */
#include <armci.h>
#include <message.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void use(void** ptrs, long bytes, int me, int n) {
  memset(ptrs[me], 1, (size_t)bytes);
  ARMCI_Barrier();
  char v[8] = "abcdefg";
  ARMCI_Put(v, ptrs[(me + 1) % n], sizeof v, (me + 1) % n);
  ARMCI_Fence((me + 1) % n);
  armci_msg_barrier();
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ARMCI_Init();
  int me = 0, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const char* c = argc > 1 ? argv[1] : "";
  if (strcmp(c, "malloc") == 0) {
    const long bytes = (argc > 2 ? atol(argv[2]) : 1) << 20;
    void** ptrs = malloc(sizeof(void*) * (size_t)n);
    ARMCI_Malloc(ptrs, bytes);
    use(ptrs, bytes, me, n);
    ARMCI_Free(ptrs[me]);
    free(ptrs);
  } else if (strcmp(c, "group") == 0) {
    int members[2] = {0, 1};
    ARMCI_Group g;
    ARMCI_Group_create(2, members, &g);
    if (me < 2) {
      void* ptrs[2];
      ARMCI_Malloc_group(ptrs, 1 << 20, &g);
      memset(ptrs[me], 1, 1 << 20);
      ARMCI_Free_group(ptrs[me], &g);
    }
    ARMCI_Group_free(&g);
  } else if (strcmp(c, "cleanup") == 0) {
    ARMCI_Cleanup();
  } else {
    if (me == 0) fprintf(stderr, "shm_job: unknown case '%s'\n", c);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  ARMCI_Finalize();
  if (me == 0) printf("shm_job: ok\n");
  MPI_Finalize();
  return 0;
}
