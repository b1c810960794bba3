/* Calls ARMCI through the installed header and library a CMake project found with find_package(armci). */
#include <stdio.h>
#include <mpi.h>
#include <armci.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (ARMCI_Init() != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  int me, n, errors = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  void *bases[64];
  if (n > 64 || ARMCI_Malloc(bases, 2 * sizeof(int)) != 0) MPI_Abort(MPI_COMM_WORLD, 2);
  int right = (me + 1) % n, left = (me + n - 1) % n;
  int v = 1000 + me, got = -1;
  ARMCI_Put(&v, bases[right], sizeof v, right);
  ARMCI_Barrier();
  ARMCI_Get(bases[me], &got, sizeof got, me);
  if (got != 1000 + left) errors++;
  ARMCI_Get(bases[right], &got, sizeof got, right);
  if (got != 1000 + me) errors++;
  ARMCI_Barrier();
  ARMCI_Free(bases[me]);
  ARMCI_Finalize();
  int all = 0;
  MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) printf("cmake consumer: %s\n", all ? "FAILED" : "OK");
  MPI_Finalize();
  return all != 0;
}
