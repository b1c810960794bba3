/*
 * Re-creation of ARMCI-MPI tests/test_mutex_trylock.c: ARMCIX_Trylock_hdl on a world mutex handle.
 * Uncontended, a trylock must succeed (return 0) and be released with ARMCIX_Unlock_hdl.  Contended
 * (each process in turn holds mutex 0 of every process while the others try): armci-x documents a real
 * trylock, so the others must get nonzero; ARMCI-MPI 0.3.1 implements Trylock as a blocking lock, so the
 * contended part is skipped when CLASSIC_BASELINE=1 (run-against-armci-mpi.sh sets it).
 * Finally every process tries in a loop until it gets the lock and bumps a counter under it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <armci.h>
#include <armcix.h>

#define NITER 20

int main(int argc, char **argv)
{
  int rank, nproc, i, p, holder, errors = 0, contended;
  int **counter;
  ARMCI_Group world;
  armcix_mutex_hdl_t hdl;

  MPI_Init(&argc, &argv);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  contended = !(getenv("CLASSIC_BASELINE") && atoi(getenv("CLASSIC_BASELINE")));
  if (rank == 0) printf("Starting ARMCI trylock test with %d processes\n", nproc);

  counter = malloc(nproc * sizeof(int *));
  ARMCI_Malloc((void **)counter, sizeof(int));
  *counter[rank] = 0;
  ARMCI_Group_get_world(&world);
  hdl = ARMCIX_Create_mutexes_hdl(2, &world);
  ARMCI_Barrier();

  /* uncontended: my own mutex 1 on every process, in turn */
  for (i = 0; i < nproc; i++) {
    if (i == rank)
      for (p = 0; p < nproc; p++) {
        int rc = ARMCIX_Trylock_hdl(hdl, 1, p);
        if (rc != 0) {
          printf("[%d] FAIL uncontended trylock of mutex 1 on %d returned %d\n", rank, p, rc);
          errors++;
        } else {
          ARMCIX_Unlock_hdl(hdl, 1, p);
        }
      }
    ARMCI_Barrier();
  }

  if (contended)
    for (holder = 0; holder < nproc; holder++) {
      if (rank == holder)
        for (p = 0; p < nproc; p++) ARMCIX_Lock_hdl(hdl, 0, p);
      ARMCI_Barrier();
      if (rank != holder)
        for (p = 0; p < nproc; p++) {
          int rc = ARMCIX_Trylock_hdl(hdl, 0, p);
          if (rc == 0) {
            printf("[%d] FAIL trylock of mutex 0 on %d held by %d succeeded\n", rank, p, holder);
            errors++;
            ARMCIX_Unlock_hdl(hdl, 0, p);
          }
        }
      ARMCI_Barrier();
      if (rank == holder)
        for (p = 0; p < nproc; p++) ARMCIX_Unlock_hdl(hdl, 0, p);
      ARMCI_Barrier();
    }

  /* everyone spins on trylock, then does a get/put increment under the lock */
  for (i = 0; i < NITER; i++) {
    int v, target = i % nproc, tries = 0;
    while (ARMCIX_Trylock_hdl(hdl, 0, target) != 0) tries++;
    ARMCI_Get(counter[target], &v, sizeof(int), target);
    v++;
    ARMCI_Put(&v, counter[target], sizeof(int), target);
    ARMCIX_Unlock_hdl(hdl, 0, target);
  }
  ARMCI_Barrier();
  {
    int expect = 0;
    for (i = 0; i < NITER; i++)
      if (i % nproc == rank) expect += nproc;
    if (*counter[rank] != expect) {
      printf("[%d] FAIL counter = %d, expected %d\n", rank, *counter[rank], expect);
      errors++;
    }
  }

  ARMCI_Barrier();
  ARMCIX_Destroy_mutexes_hdl(hdl);
  ARMCI_Free(counter[rank]);
  free(counter);
  MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  if (rank == 0) printf(errors ? "%d errors: FAILED\n" : "All tests passed\n", errors);
  MPI_Finalize();
  return errors != 0;
}
