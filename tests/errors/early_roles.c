/* Progress ranks decided in MPI_Init (progress/progress_roles.h): what a program sees of MPI_COMM_WORLD
 * before ARMCI_Init, a program that never calls ARMCI, ARMCI_Init_mpi_comm, and the errors MPI_Init raises.
 * Run by tests/errors/progress_roles.sh with ARMCI_PROGRESS_RANKS in the launch environment.
 * Usage: early_roles CASE [EXPECTED_PROGRAM_RANKS]
 *   sizes N       MPI_COMM_WORLD has N processes before ARMCI_Init (size, a reduction, a barrier), ARMCI
 *                 agrees, and a put/get ring over ARMCI_Malloc'd memory checks out; prints "early_roles: ok"
 *   no_armci N    MPI_Init, MPI_COMM_WORLD of N, MPI_Finalize without ARMCI: the job ends normally
 *   comm_dup N    ARMCI_Init_mpi_comm with a duplicate of MPI_COMM_WORLD works as ARMCI_Init does
 *   comm_split    ARMCI_Init_mpi_comm with a part of MPI_COMM_WORLD: ARMCI_Error naming the argument
 *   differ        ARMCI_PROGRESS_RANKS set to 1 on the launcher's rank 1 only (before MPI_Init): ARMCI_Error
 *                 in MPI_Init naming the variable */
#include <armci.h>
#include <message.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

static int is(const char* c, const char* name) {
  return strcmp(c, name) == 0;
}

/* The launcher's rank, before MPI_Init (Hydra: PMI_RANK; Open MPI: OMPI_COMM_WORLD_RANK). */
static int launcher_rank(void) {
  const char* r = getenv("PMI_RANK");
  if (!r) r = getenv("OMPI_COMM_WORLD_RANK");
  return r ? atoi(r) : -1;
}

static int ring_checks_out(int me, int n) {
  void* ptrs[64];
  if (n > 64) return 0;
  ARMCI_Malloc(ptrs, 8 * sizeof(long));
  long mine[8], back[8];
  for (int i = 0; i < 8; ++i) mine[i] = 1000L * me + i;
  const int right = (me + 1) % n;
  ARMCI_Put(mine, ptrs[right], sizeof mine, right);
  ARMCI_Barrier();
  const int left = (me + n - 1) % n;
  ARMCI_Get(ptrs[me], back, sizeof back, me);
  int ok = 1;
  for (int i = 0; i < 8; ++i) ok &= back[i] == 1000L * left + i;
  ARMCI_Barrier();
  ARMCI_Free(ptrs[me]);
  return ok;
}

int main(int argc, char** argv) {
  const char* c = argc > 1 ? argv[1] : "";
  const int expected = argc > 2 ? atoi(argv[2]) : -1;
  if (is(c, "differ") && launcher_rank() == 1) setenv("ARMCI_PROGRESS_RANKS", "1", 1);
  MPI_Init(&argc, &argv);
  int me = -1, n = -1, sum = 0, one = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (expected >= 0 && (n != expected || sum != expected)) {
    printf("early_roles: FAILED: before ARMCI_Init MPI_COMM_WORLD has %d processes (reduction: %d), expected %d\n", n,
           sum, expected);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (is(c, "no_armci")) {
    MPI_Finalize();
    if (me == 0) printf("early_roles: ok (%d processes, no ARMCI)\n", n);
    return 0;
  }
  if (is(c, "comm_split")) {
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    ARMCI_Init_mpi_comm(half);
    printf("early_roles: no error raised\n");
    return 3;
  }
  if (is(c, "comm_dup")) {
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    ARMCI_Init_mpi_comm(dup);
  } else {
    ARMCI_Init();
  }
  if (is(c, "differ")) {
    printf("early_roles: no error raised\n");
    return 3;
  }
  /* For progress_roles.sh's orphan case: the program ranks name themselves and sleep while the launcher is
   * killed; then they leave without finalizing. */
  if (is(c, "orphan")) {
    printf("early_roles: program rank pid %d\n", (int)getpid());
    fflush(stdout);
    sleep(40);
    _exit(0);
  }
  int ok = armci_msg_nproc() == n && armci_msg_me() == me && ring_checks_out(me, n);
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  ARMCI_Finalize();
  MPI_Finalize();
  if (me == 0) printf("early_roles: %s (%d program ranks)\n", all_ok ? "ok" : "FAILED", n);
  return all_ok ? 0 : 1;
}
