/*
 * Re-creation of ARMCI-MPI tests/test_mutex_rmw.c: a mutex-protected read-modify-write of a shared counter
 * (ARMCI_Get, add, ARMCI_Put inside ARMCI_Lock/ARMCI_Unlock) on process 0, then on every process, with
 * nothing but the mutex ordering the accesses; the unlock must make the put visible to the next holder.
 * The final values are read with ARMCI_Get after ARMCI_Barrier.
 */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <armci.h>

#define NITER 100

int main(int argc, char **argv)
{
  int rank, nproc, i, p, errors = 0, val;
  long **counter;

  MPI_Init(&argc, &argv);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  if (rank == 0) printf("Starting ARMCI mutex read-modify-write test with %d processes\n", nproc);

  counter = malloc(nproc * sizeof(long *));
  ARMCI_Malloc((void **)counter, 2 * sizeof(long));
  ARMCI_Access_begin(counter[rank]);
  counter[rank][0] = counter[rank][1] = 0;
  ARMCI_Access_end(counter[rank]);
  ARMCI_Create_mutexes(1);
  ARMCI_Barrier();

  for (i = 0; i < NITER; i++) {
    long c;
    ARMCI_Lock(0, 0);
    ARMCI_Get(counter[0], &c, sizeof(long), 0);
    c += rank + 1;
    ARMCI_Put(&c, counter[0], sizeof(long), 0);
    ARMCI_Unlock(0, 0);
  }
  ARMCI_Barrier();
  {
    long c, expect = 0;
    for (p = 0; p < nproc; p++) expect += (long)NITER * (p + 1);
    ARMCI_Get(counter[0], &c, sizeof(long), 0);
    if (c != expect) {
      printf("[%d] FAIL counter on 0 = %ld, expected %ld\n", rank, c, expect);
      errors++;
    }
  }
  ARMCI_Barrier();

  /* every process hosts a counter; pairs (value, copy) updated under the host's mutex */
  for (i = 0; i < NITER; i++) {
    long c[2];
    p = (rank + i) % nproc;
    ARMCI_Lock(0, p);
    ARMCI_Get(counter[p], c, 2 * sizeof(long), p);
    if (p != 0 && c[0] != c[1]) {
      printf("[%d] FAIL torn pair on %d: %ld %ld\n", rank, p, c[0], c[1]);
      errors++;
    }
    c[1] = ++c[0];
    ARMCI_Put(&c[0], counter[p], sizeof(long), p);
    ARMCI_Put(&c[1], counter[p] + 1, sizeof(long), p);
    ARMCI_Unlock(0, p);
  }
  ARMCI_Barrier();
  for (p = 1; p < nproc; p++) {
    val = (int)ARMCI_GetValueLong(counter[p], p);
    if (val != NITER) {
      printf("[%d] FAIL counter on %d = %d, expected %d\n", rank, p, val, NITER);
      errors++;
    }
  }

  ARMCI_Barrier();
  ARMCI_Destroy_mutexes();
  ARMCI_Free(counter[rank]);
  free(counter);
  MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  if (rank == 0) printf(errors ? "%d errors: FAILED\n" : "All tests passed\n", errors);
  MPI_Finalize();
  return errors != 0;
}
