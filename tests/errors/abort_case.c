/* Runs one bad-input case with ARMCI's default error handling (no handler installed): ARMCI_Error must
 * print a message naming the call and the argument and abort the whole job, never hang.  The test
 * driver (tests/errors/run_abort_cases.sh) checks the exit status and the message.
 * Usage: abort_case CASE   (CASE: put_bad_rank | get_unallocated | acc_bad_type | not_initialized) */
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* c = argc > 1 ? argv[1] : "";
  if (strcmp(c, "not_initialized") == 0) {
    void* ptrs[64];
    ARMCI_Malloc(ptrs, 8); /* before ARMCI_Init */
  }
  ARMCI_Init();
  int me, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  void* ptrs[64];
  ARMCI_Malloc(ptrs, 64);
  double buf[8] = {0};
  if (me == 0) {
    if (strcmp(c, "put_bad_rank") == 0) ARMCI_Put(buf, ptrs[0], 8, n + 5);
    if (strcmp(c, "get_unallocated") == 0) ARMCI_Get(buf + 1, buf, 8, n - 1);
    if (strcmp(c, "acc_bad_type") == 0) {
      double one = 1.0;
      ARMCI_Acc(42, &one, buf, ptrs[n - 1], 8, n - 1);
    }
  }
  /* Only reached if no error was raised; rank != 0 would wait here forever without the abort. */
  ARMCI_Barrier();
  if (me == 0) printf("abort_case %s: no error raised\n", c);
  ARMCI_Free(ptrs[me]);
  ARMCI_Finalize();
  MPI_Finalize();
  return 3;
}
