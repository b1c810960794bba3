/*
 * Re-creation of ARMCI-MPI tests/test_rmw.c: ARMCI_Rmw with all four operations on counters hosted by every
 * process -- ARMCI_FETCH_AND_ADD (int), ARMCI_FETCH_AND_ADD_LONG (long, above 2^32), ARMCI_SWAP and
 * ARMCI_SWAP_LONG (ploc is both the value swapped in and the result).  Checks atomicity, not just totals:
 * the values fetched by all processes from one counter with increment 1 must be exactly 0..N-1 (each
 * once), and the values swapped out of one location plus its final value must be exactly the values ever
 * swapped in plus the initial one.  Counters sit in the middle of the allocation, next to words that are
 * updated by plain ARMCI_Put at the same time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <armci.h>

#define NITER 200
#define BIG 10000000000L /* > 2^32 */

static int rank, nproc, errors = 0;

struct slot {
  int pad0;
  int icount;   /* fetch-and-add int */
  long lcount;  /* fetch-and-add long */
  int iswap;    /* swap int */
  int pad1;
  long lswap;   /* swap long */
  long neighbours[4];
};

static int cmp_long(const void *a, const void *b)
{
  long x = *(const long *)a, y = *(const long *)b;
  return x < y ? -1 : x > y;
}

/* gathers n values per process at every process and checks that, sorted, they equal expect[] sorted */
static void check_multiset(const char *what, long *mine, int n, long *expect, int nexpect)
{
  long *all = malloc(sizeof(long) * n * nproc);
  int i;
  MPI_Allgather(mine, n, MPI_LONG, all, n, MPI_LONG, MPI_COMM_WORLD);
  if (n * nproc != nexpect) {
    printf("[%d] FAIL %s: internal count mismatch\n", rank, what);
    errors++;
  }
  qsort(all, n * nproc, sizeof(long), cmp_long);
  qsort(expect, nexpect, sizeof(long), cmp_long);
  for (i = 0; i < nexpect; i++)
    if (all[i] != expect[i]) {
      printf("[%d] FAIL %s: sorted value %d is %ld, expected %ld\n", rank, what, i, all[i], expect[i]);
      errors++;
      break;
    }
  free(all);
}

int main(int argc, char **argv)
{
  int i, t, target;
  struct slot **s;
  long *fetched, *expect;

  MPI_Init(&argc, &argv);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  if (rank == 0) printf("Starting ARMCI RMW test with %d processes\n", nproc);

  s = malloc(sizeof(void *) * nproc);
  ARMCI_Malloc((void **)s, 3 * sizeof(struct slot));
  ARMCI_Access_begin(s[rank]);
  memset(s[rank], 0, 3 * sizeof(struct slot));
  for (i = 0; i < 3; i++) {
    s[rank][i].lcount = BIG;
    s[rank][i].iswap = -1;
    s[rank][i].lswap = -BIG;
  }
  ARMCI_Access_end(s[rank]);
  ARMCI_Barrier();

  fetched = malloc(sizeof(long) * NITER * nproc);
  expect = malloc(sizeof(long) * (NITER * nproc * nproc + nproc));

  /* 1. int fetch-and-add, increment 1, everybody on every target's slot 1 */
  for (i = 0; i < NITER; i++)
    for (t = 0; t < nproc; t++) {
      int v = -7;
      target = (rank + t) % nproc;
      ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &v, &s[target][1].icount, 1, target);
      fetched[t * NITER + i] = (long)target * 1000000 + v;
      /* plain puts next to the counter */
      ARMCI_PutValueLong(i, &s[target][1].neighbours[rank % 4], target);
    }
  for (i = 0; i < NITER * nproc * nproc; i++) expect[i] = (long)(i / (NITER * nproc)) * 1000000 + i % (NITER * nproc);
  /* fetched[] is per target-offset; rebuild per-target grouping is unnecessary: the multiset is the same */
  check_multiset("FETCH_AND_ADD values", fetched, NITER * nproc, expect, NITER * nproc * nproc);
  ARMCI_Barrier();
  if (s[rank][1].icount != NITER * nproc) {
    printf("[%d] FAIL FETCH_AND_ADD final %d, expected %d\n", rank, s[rank][1].icount, NITER * nproc);
    errors++;
  }

  /* 2. long fetch-and-add, increment rank+1, on process 0's slot 2 only */
  for (i = 0; i < NITER; i++) {
    long v = -7;
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &v, &s[0][2].lcount, rank + 1, 0);
    if (v < BIG || v >= BIG + (long)NITER * nproc * (nproc + 1) / 2) {
      printf("[%d] FAIL FETCH_AND_ADD_LONG fetched %ld\n", rank, v);
      errors++;
      break;
    }
  }
  ARMCI_Barrier();
  {
    long final = ARMCI_GetValueLong(&s[0][2].lcount, 0);
    if (final != BIG + (long)NITER * nproc * (nproc + 1) / 2) {
      printf("[%d] FAIL FETCH_AND_ADD_LONG final %ld, expected %ld\n", rank, final,
             BIG + (long)NITER * nproc * (nproc + 1) / 2);
      errors++;
    }
  }
  ARMCI_Barrier();

  /* 3. int swap on every target's slot 0: swap in unique values */
  for (i = 0; i < NITER; i++)
    for (t = 0; t < nproc; t++) {
      int v = rank * NITER + i + 1; /* 1 .. nproc*NITER, initial -1 */
      target = (rank + t) % nproc;
      ARMCI_Rmw(ARMCI_SWAP, &v, &s[target][0].iswap, 12345 /* ignored */, target);
      fetched[t * NITER + i] = (long)target * 1000000 + v;
    }
  ARMCI_Barrier();
  {
    long *finals = malloc(sizeof(long) * nproc), mine;
    int k = 0, p;
    mine = (long)rank * 1000000 + s[rank][0].iswap;
    MPI_Allgather(&mine, 1, MPI_LONG, finals, 1, MPI_LONG, MPI_COMM_WORLD);
    for (target = 0; target < nproc; target++) {
      expect[k++] = (long)target * 1000000 - 1;
      for (p = 0; p < nproc; p++)
        for (i = 0; i < NITER; i++) expect[k++] = (long)target * 1000000 + p * NITER + i + 1;
    }
    /* fetched values + finals == initial + swapped in */
    {
      long *all = malloc(sizeof(long) * (NITER * nproc * nproc + nproc));
      MPI_Allgather(fetched, NITER * nproc, MPI_LONG, all, NITER * nproc, MPI_LONG, MPI_COMM_WORLD);
      memcpy(all + NITER * nproc * nproc, finals, sizeof(long) * nproc);
      qsort(all, k, sizeof(long), cmp_long);
      qsort(expect, k, sizeof(long), cmp_long);
      for (i = 0; i < k; i++)
        if (all[i] != expect[i]) {
          printf("[%d] FAIL SWAP: sorted value %d is %ld, expected %ld\n", rank, i, all[i], expect[i]);
          errors++;
          break;
        }
      free(all);
    }
    free(finals);
  }
  ARMCI_Barrier();

  /* 4. long swap on process nproc-1: a lock built from SWAP_LONG protecting a get/put increment */
  for (i = 0; i < NITER / 4; i++) {
    long v, c;
    do {
      v = -1; /* LOCKED */
      ARMCI_Rmw(ARMCI_SWAP_LONG, &v, &s[nproc - 1][0].lswap, 0, nproc - 1);
    } while (v == -1);
    /* v is the counter value (starts at -BIG) */
    ARMCI_Get(&s[nproc - 1][0].lcount, &c, sizeof(long), nproc - 1);
    c += 1;
    ARMCI_Put(&c, &s[nproc - 1][0].lcount, sizeof(long), nproc - 1);
    ARMCI_Fence(nproc - 1);
    v += BIG; /* values larger than 2^32 to catch truncation */
    ARMCI_Rmw(ARMCI_SWAP_LONG, &v, &s[nproc - 1][0].lswap, 0, nproc - 1);
  }
  ARMCI_Barrier();
  if (rank == nproc - 1) {
    long expect_sw = -BIG + (long)(NITER / 4) * nproc * BIG;
    if (s[rank][0].lswap != expect_sw || s[rank][0].lcount != BIG + (NITER / 4) * nproc) {
      printf("[%d] FAIL SWAP_LONG lock: word %ld (expected %ld), counter %ld (expected %ld)\n", rank,
             s[rank][0].lswap, expect_sw, s[rank][0].lcount, BIG + (long)(NITER / 4) * nproc);
      errors++;
    }
  }

  ARMCI_Barrier();
  ARMCI_Free(s[rank]);
  free(s);
  free(fetched);
  free(expect);
  MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  if (rank == 0) printf(errors ? "%d errors: FAILED\n" : "All tests passed\n", errors);
  MPI_Finalize();
  return errors != 0;
}
