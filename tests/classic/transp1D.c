/*
 * Re-creation of the transp1D test (GA's transp1D-c.c as carried in ARMCI-MPI's tests/contrib/transp1D),
 * written on ARMCI directly: a 1-D integer array of TOTAL elements is distributed irregularly (process p owns
 * a rank-dependent block, process 1 owns nothing: an irregular ARMCI_Malloc with a zero-size slice), filled
 * with a[i] = i, then reversed into a second array b[i] = a[TOTAL-1-i]: each process fetches the (possibly
 * multi-owner) source range of its own block with ARMCI_Get / ARMCI_NbGet and writes its block locally;
 * the result is checked by every process through ARMCI_Get of the whole array.  Repeated for a few sizes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <armci.h>

static int rank, nproc;

int main(int argc, char **argv)
{
  int errors = 0, round;
  int **a, **b;
  long *lo, *hi;

  MPI_Init(&argc, &argv);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  if (rank == 0) printf("transp1D: reversing an irregularly distributed 1-D array on %d processes\n", nproc);

  a = malloc(sizeof(int *) * nproc);
  b = malloc(sizeof(int *) * nproc);
  lo = malloc(sizeof(long) * nproc);
  hi = malloc(sizeof(long) * nproc);

  for (round = 0; round < 4; round++) {
    long TOTAL = 0, i, p;
    int *all;
    for (p = 0; p < nproc; p++) {
      long n = (p == 1 && nproc > 1) ? 0 : 1000 * (round + 1) + 37 * p * (round + 2);
      lo[p] = TOTAL;
      TOTAL += n;
      hi[p] = TOTAL; /* exclusive */
    }
    ARMCI_Malloc((void **)a, (hi[rank] - lo[rank]) * sizeof(int));
    ARMCI_Malloc((void **)b, (hi[rank] - lo[rank]) * sizeof(int));
    for (i = lo[rank]; i < hi[rank]; i++) {
      a[rank][i - lo[rank]] = (int)i;
      b[rank][i - lo[rank]] = -1;
    }
    ARMCI_Barrier();

    /* my block of b needs a[TOTAL-hi .. TOTAL-lo) (reversed) */
    if (hi[rank] > lo[rank]) {
      long slo = TOTAL - hi[rank], shi = TOTAL - lo[rank], n = shi - slo;
      int *tmp = malloc(n * sizeof(int));
      armci_hdl_t h;
      int nb = 0;
      ARMCI_INIT_HANDLE(&h);
      for (p = 0; p < nproc; p++) {
        long s = slo > lo[p] ? slo : lo[p], e = shi < hi[p] ? shi : hi[p];
        if (s >= e) continue;
        if (round % 2) {
          ARMCI_NbGet(a[p] + (s - lo[p]), tmp + (s - slo), (int)((e - s) * sizeof(int)), (int)p, NULL);
          nb = 1;
        } else {
          ARMCI_Get(a[p] + (s - lo[p]), tmp + (s - slo), (int)((e - s) * sizeof(int)), (int)p);
        }
      }
      if (nb) ARMCI_WaitAll();
      for (i = 0; i < n; i++) b[rank][i] = tmp[n - 1 - i];
      free(tmp);
    }
    ARMCI_Barrier();

    all = malloc(TOTAL * sizeof(int));
    for (p = 0; p < nproc; p++)
      if (hi[p] > lo[p]) ARMCI_Get(b[p], all + lo[p], (int)((hi[p] - lo[p]) * sizeof(int)), (int)p);
    for (i = 0; i < TOTAL; i++)
      if (all[i] != TOTAL - 1 - i) {
        if (errors++ < 5) printf("[%d] FAIL round %d: b[%ld] = %d, expected %ld\n", rank, round, i, all[i], TOTAL - 1 - i);
        break;
      }
    free(all);
    ARMCI_Barrier();
    ARMCI_Free(b[rank]);
    ARMCI_Free(a[rank]);
  }

  free(a);
  free(b);
  free(lo);
  free(hi);
  MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  if (rank == 0) printf(errors ? "%d errors: FAILED\n" : "All tests passed\n", errors);
  MPI_Finalize();
  return errors != 0;
}
