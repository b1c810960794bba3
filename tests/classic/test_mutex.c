/*
 * Re-creation of ARMCI-MPI tests/test_mutex.c: every process locks and unlocks mutexes hosted on every
 * process, in a rotating order, many times -- with the world mutex set (ARMCI_Create_mutexes with several
 * mutexes per process; ARMCI_Lock/ARMCI_Unlock) and with ARMCIX mutex handles on the world group and on a
 * subgroup (ARMCIX_Create_mutexes_hdl/ARMCIX_Lock_hdl/ARMCIX_Unlock_hdl).  As in ARMCI-MPI 0.3.1
 * (mutex_hdl_queue.c: "world_proc: Absolute ID of process where the mutex lives", translated with
 * ARMCII_Translate_absolute_to_group), the 'proc' of the _hdl calls is an ABSOLUTE process id even when the
 * handle's group is a subgroup.
 * Besides not deadlocking, it checks mutual exclusion: a counter next to each mutex is read, incremented
 * and written back with a non-atomic get/put pair under the lock; lost updates mean the lock failed.
 * Two different mutexes are also held at once (acquired in a global order).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <armci.h>
#include <armcix.h>

#define NUM_ITERATIONS 10
#define NUM_MUTEXES 3

static int rank, nproc, errors = 0;

static void bump(int *counters[], int idx, int proc)
{
  int v;
  ARMCI_Get(&counters[proc][idx], &v, sizeof(int), proc);
  v++;
  ARMCI_Put(&v, &counters[proc][idx], sizeof(int), proc);
}

static void check_counters(const char *what, int *mine, int n, int expect)
{
  int i;
  ARMCI_Access_begin(mine);
  for (i = 0; i < n; i++)
    if (mine[i] != expect) {
      printf("[%d] FAIL %s: counter %d = %d, expected %d\n", rank, what, i, mine[i], expect);
      fflush(stdout);
      errors++;
    }
  for (i = 0; i < n; i++) mine[i] = 0;
  ARMCI_Access_end(mine);
}

int main(int argc, char **argv)
{
  int i, j, m;
  int **counters;
  ARMCI_Group world, sub;
  armcix_mutex_hdl_t hdl;

  MPI_Init(&argc, &argv);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  if (rank == 0) printf("Starting ARMCI mutex test with %d processes\n", nproc);

  counters = malloc(nproc * sizeof(int *));
  ARMCI_Malloc((void **)counters, NUM_MUTEXES * sizeof(int));
  ARMCI_Access_begin(counters[rank]);
  for (i = 0; i < NUM_MUTEXES; i++) counters[rank][i] = 0;
  ARMCI_Access_end(counters[rank]);

  /* 1. world mutex set */
  if (ARMCI_Create_mutexes(NUM_MUTEXES)) {
    printf("[%d] ARMCI_Create_mutexes failed\n", rank);
    errors++;
  }
  ARMCI_Barrier();
  for (i = 0; i < NUM_ITERATIONS; i++)
    for (j = 0; j < nproc; j++)
      for (m = 0; m < NUM_MUTEXES; m++) {
        int p = (rank + j) % nproc;
        ARMCI_Lock(m, p);
        bump(counters, m, p);
        ARMCI_Unlock(m, p);
      }
  ARMCI_Barrier();
  check_counters("world set", counters[rank], NUM_MUTEXES, NUM_ITERATIONS * nproc);
  ARMCI_Barrier();

  /* two mutexes held at once, taken in a global order (mutex 0 of proc 0, then mutex 1 of proc nproc-1) */
  for (i = 0; i < NUM_ITERATIONS; i++) {
    ARMCI_Lock(0, 0);
    ARMCI_Lock(1, nproc - 1);
    bump(counters, 0, 0);
    bump(counters, 1, nproc - 1);
    ARMCI_Unlock(1, nproc - 1);
    ARMCI_Unlock(0, 0);
  }
  ARMCI_Barrier();
  if (rank == 0) {
    int v = ARMCI_GetValueInt(&counters[0][0], 0);
    int w = ARMCI_GetValueInt(&counters[nproc - 1][1], nproc - 1);
    if (v != NUM_ITERATIONS * nproc || w != NUM_ITERATIONS * nproc) {
      printf("[%d] FAIL nested locks: counters %d %d, expected %d\n", rank, v, w, NUM_ITERATIONS * nproc);
      errors++;
    }
  }
  ARMCI_Barrier();
  ARMCI_Access_begin(counters[rank]);
  for (i = 0; i < NUM_MUTEXES; i++) counters[rank][i] = 0;
  ARMCI_Access_end(counters[rank]);
  ARMCI_Barrier();
  ARMCI_Destroy_mutexes();

  /* 2. handle on the world group */
  ARMCI_Group_get_world(&world);
  hdl = ARMCIX_Create_mutexes_hdl(NUM_MUTEXES, &world);
  for (i = 0; i < NUM_ITERATIONS; i++)
    for (j = 0; j < nproc; j++)
      for (m = 0; m < NUM_MUTEXES; m++) {
        int p = (rank + nproc - j) % nproc;
        ARMCIX_Lock_hdl(hdl, m, p);
        bump(counters, m, p);
        ARMCIX_Unlock_hdl(hdl, m, p);
      }
  ARMCI_Barrier();
  check_counters("world hdl", counters[rank], NUM_MUTEXES, NUM_ITERATIONS * nproc);
  ARMCIX_Destroy_mutexes_hdl(hdl);
  ARMCI_Barrier();

  /* 3. handle on a subgroup: the odd-ranked processes in reverse order (group rank != absolute rank) */
  {
    int n = nproc / 2, *pids = malloc((n + 1) * sizeof(int)), grank, gsize, member = rank % 2 == 1;
    for (i = 0; i < n; i++) pids[i] = 2 * (n - 1 - i) + 1;
    memset(&sub, 0, sizeof sub);
    ARMCI_Group_create(n, pids, &sub);
    if (member) {
      ARMCI_Group_rank(&sub, &grank);
      ARMCI_Group_size(&sub, &gsize);
      hdl = ARMCIX_Create_mutexes_hdl(1, &sub);
      for (i = 0; i < NUM_ITERATIONS; i++)
        for (j = 0; j < gsize; j++) {
          int gp = (grank + j) % gsize, abs = ARMCI_Absolute_id(&sub, gp);
          ARMCIX_Lock_hdl(hdl, 0, abs);
          bump(counters, 2, abs);
          ARMCIX_Unlock_hdl(hdl, 0, abs);
        }
      MPI_Barrier(sub.comm);
      ARMCIX_Destroy_mutexes_hdl(hdl);
    }
    ARMCI_Barrier();
    ARMCI_Access_begin(counters[rank]);
    if (counters[rank][2] != (member ? NUM_ITERATIONS * n : 0)) {
      printf("[%d] FAIL subgroup hdl: counter %d, expected %d\n", rank, counters[rank][2],
             member ? NUM_ITERATIONS * n : 0);
      errors++;
    }
    ARMCI_Access_end(counters[rank]);
    if (member) ARMCI_Group_free(&sub); /* ARMCI-MPI 0.3.1 crashes freeing a group on a non-member */
    free(pids);
  }

  ARMCI_Barrier();
  ARMCI_Free(counters[rank]);
  free(counters);
  MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  if (rank == 0) printf(errors ? "%d errors: FAILED\n" : "All tests passed\n", errors);
  MPI_Finalize();
  return errors != 0;
}
