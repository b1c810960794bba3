/*
 * Re-creation of ARMCI-MPI tests/test_malloc.c: repeated collective ARMCI_Malloc/ARMCI_Free of growing sizes
 * (including 0 bytes on every process, which gives NULL everywhere), several live allocations freed in an
 * order different from the allocation order, and ARMCI_Malloc_local/ARMCI_Free_local.  After every
 * allocation each process writes its slice and checks a neighbour's through ARMCI_Get, and checks that the
 * pointer table is the same on all processes (the pointers are in the owners' address spaces).
 * ARMCI-MPI 0.3.1 leaves the table unset when every process asks for 0 bytes (and then cannot free it), so
 * that case is skipped with CLASSIC_BASELINE=1 (run-against-armci-mpi.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <armci.h>

#define NITER 10
#define NLIVE 5

static int rank, nproc, errors = 0;

static void fail(const char *what, long a, long b)
{
  if (errors++ < 10) {
    printf("[%d] FAIL %s (%ld, %ld)\n", rank, what, a, b);
    fflush(stdout);
  }
}

static void check_table(void **ptrs, long size)
{
  long *all = malloc(sizeof(long) * nproc * nproc);
  long *mine = malloc(sizeof(long) * nproc);
  int i, p;
  for (i = 0; i < nproc; i++) mine[i] = (long)(size_t)ptrs[i];
  MPI_Allgather(mine, nproc, MPI_LONG, all, nproc, MPI_LONG, MPI_COMM_WORLD);
  for (p = 0; p < nproc; p++)
    for (i = 0; i < nproc; i++)
      if (all[p * nproc + i] != mine[i]) fail("pointer tables differ between processes", p, i);
  if (size > 0 && ptrs[rank] == NULL) fail("non-empty slice is NULL", size, 0);
  if (size == 0 && ptrs[rank] != NULL) fail("empty slice is not NULL", size, 0);
  free(all);
  free(mine);
}

static void write_and_check(void **ptrs, long size, int tag)
{
  int peer = (rank + 1) % nproc;
  unsigned char *buf;
  long i;
  if (size <= 0) return;
  ARMCI_Access_begin(ptrs[rank]);
  for (i = 0; i < size; i++) ((unsigned char *)ptrs[rank])[i] = (unsigned char)(rank * 31 + tag + i);
  ARMCI_Access_end(ptrs[rank]);
  ARMCI_Barrier();
  buf = malloc(size);
  ARMCI_Get(ptrs[peer], buf, (int)size, peer);
  for (i = 0; i < size; i++)
    if (buf[i] != (unsigned char)(peer * 31 + tag + i)) {
      fail("data in neighbour's slice", i, buf[i]);
      break;
    }
  free(buf);
  ARMCI_Barrier();
}

int main(int argc, char **argv)
{
  int i, j;
  void **ptrs[NLIVE];
  long sizes[NLIVE];

  MPI_Init(&argc, &argv);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  if (rank == 0) printf("Starting ARMCI malloc test with %d processes\n", nproc);

  for (i = 0; i < NLIVE; i++) ptrs[i] = malloc(sizeof(void *) * nproc);

  /* one at a time, sizes 0, 1, 8, ..., 8^9 bytes up to 1 MiB */
  for (i = getenv("CLASSIC_BASELINE") && atoi(getenv("CLASSIC_BASELINE")) ? 1 : 0; i < NITER; i++) {
    long size = i == 0 ? 0 : (1L << (2 * i));
    if (size > (1L << 20)) size = 1L << 20;
    if (ARMCI_Malloc(ptrs[0], size)) fail("ARMCI_Malloc returned nonzero", size, 0);
    check_table(ptrs[0], size);
    write_and_check(ptrs[0], size, i);
    ARMCI_Free(ptrs[0][rank]);
  }

  /* several live allocations, freed in a permuted order, repeatedly */
  for (j = 0; j < NITER; j++) {
    for (i = 0; i < NLIVE; i++) {
      sizes[i] = 1000 * (i + 1) + 8 * j;
      ARMCI_Malloc(ptrs[i], sizes[i]);
      check_table(ptrs[i], sizes[i]);
    }
    for (i = 0; i < NLIVE; i++) write_and_check(ptrs[i], sizes[i], i + j);
    for (i = 0; i < NLIVE; i++) {
      int k = (i * 3 + j) % NLIVE; /* 3 is coprime with 5: a permutation */
      ARMCI_Free(ptrs[k][rank]);
    }
  }

  /* local allocations */
  for (i = 0; i < NITER; i++) {
    size_t size = (size_t)1 << (i + 4);
    char *p = ARMCI_Malloc_local(size);
    if (!p) fail("ARMCI_Malloc_local returned NULL", (long)size, 0);
    else {
      memset(p, i, size);
      if (ARMCI_Free_local(p)) fail("ARMCI_Free_local returned nonzero", (long)size, 0);
    }
  }

  for (i = 0; i < NLIVE; i++) free(ptrs[i]);
  MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  if (rank == 0) printf(errors ? "%d errors: FAILED\n" : "All tests passed\n", errors);
  MPI_Finalize();
  return errors != 0;
}
