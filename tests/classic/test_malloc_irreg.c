/*
 * Re-creation of ARMCI-MPI tests/test_malloc_irreg.c: irregular collective allocations where the size
 * depends on the rank and is zero on some ranks (every other rank, all but one, all but the last, ...);
 * zero-size slices must be NULL, ARMCI_Free is passed the (possibly NULL) local pointer.  Data is put into
 * every non-empty slice by every process (into disjoint parts) and checked by the owner; puts through
 * ARMCI_PutS with a 2-level stride into the same slices; ARMCI_Malloc_group on the world group with
 * irregular sizes too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <armci.h>

#define NPATTERN 5

static int rank, nproc, errors = 0;

static long size_of(int pattern, int p)
{
  switch (pattern) {
  case 0: return p % 2 == 0 ? 0 : 64L * nproc * (p + 1);   /* odd ranks only */
  case 1: return p == 0 ? 8L * nproc * 100 : 0;           /* rank 0 only */
  case 2: return p == nproc - 1 ? 0 : 8L * nproc * 37;    /* all but the last */
  case 3: return 8L * nproc * (p + 1) * 11;               /* all, different sizes */
  default: return p == nproc - 1 ? 8L * nproc * 3 : 0;   /* last rank only */
  }
}

int main(int argc, char **argv)
{
  int pattern, p, i, grp;
  void **ptrs;
  ARMCI_Group world;

  MPI_Init(&argc, &argv);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  if (rank == 0) printf("Starting ARMCI irregular malloc test with %d processes\n", nproc);
  ptrs = malloc(sizeof(void *) * nproc);
  ARMCI_Group_get_world(&world);

  for (grp = 0; grp < 2; grp++)
    for (pattern = 0; pattern < NPATTERN; pattern++) {
      long mysize = size_of(pattern, rank);
      long chunk;
      int rc = grp ? ARMCI_Malloc_group(ptrs, mysize, &world) : ARMCI_Malloc(ptrs, mysize);
      if (rc) {
        printf("[%d] FAIL malloc returned %d\n", rank, rc);
        errors++;
      }
      for (p = 0; p < nproc; p++)
        if ((size_of(pattern, p) == 0) != (ptrs[p] == NULL)) {
          printf("[%d] FAIL pattern %d: slice of %d has size %ld but pointer %p\n", rank, pattern, p,
                 size_of(pattern, p), ptrs[p]);
          errors++;
        }
      ARMCI_Barrier();
      /* every process writes its part (1/nproc) of every non-empty slice */
      for (p = 0; p < nproc; p++) {
        long n;
        long *buf;
        int target = (rank + p) % nproc;
        if (size_of(pattern, target) == 0) continue;
        chunk = size_of(pattern, target) / nproc;
        n = chunk / sizeof(long);
        buf = malloc(chunk);
        for (i = 0; i < n; i++) buf[i] = 1000000L * pattern + 1000L * rank + i;
        if (n % 2 == 0 && n > 0) {
          /* as two strided rows of n/2 longs */
          int stride = (int)(chunk / 2), count[2];
          count[0] = stride;
          count[1] = 2;
          ARMCI_PutS(buf, &stride, (char *)ptrs[target] + rank * chunk, &stride, count, 1, target);
        } else {
          ARMCI_Put(buf, (char *)ptrs[target] + rank * chunk, (int)chunk, target);
        }
        free(buf);
      }
      ARMCI_Barrier();
      if (mysize > 0) {
        long *mine = ptrs[rank];
        chunk = mysize / nproc;
        ARMCI_Access_begin(mine);
        for (p = 0; p < nproc; p++)
          for (i = 0; i < (long)(chunk / sizeof(long)); i++)
            if (mine[p * chunk / sizeof(long) + i] != 1000000L * pattern + 1000L * p + i) {
              printf("[%d] FAIL pattern %d: element %d from %d = %ld\n", rank, pattern, i, p,
                     mine[p * chunk / sizeof(long) + i]);
              errors++;
              break;
            }
        ARMCI_Access_end(mine);
      }
      ARMCI_Barrier();
      if (grp) ARMCI_Free_group(ptrs[rank], &world);
      else ARMCI_Free(ptrs[rank]);
    }

  free(ptrs);
  MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  if (rank == 0) printf(errors ? "%d errors: FAILED\n" : "All tests passed\n", errors);
  MPI_Finalize();
  return errors != 0;
}
