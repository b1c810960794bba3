/*
 * Re-creation of ARMCI-MPI tests/ARMCI_PutS_latency.c (ARMCI_AccS_latency.c includes it with DO_ACCS):
 * process 0 moves square-ish 2-D blocks of doubles of growing size to process 1 (and, at 3+ processes, to
 * the last process) with ARMCI_PutS (or ARMCI_AccS, scale 1) in a timed loop, ARMCI_Fence after each
 * size, prints the latency per call, and checks the target's data after the loop (the original only timed).
 * Processes other than 0 wait in ARMCI_Barrier.
 */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <armci.h>

#define MAX_XDIM 256
#define MAX_YDIM 256
#define ITERATIONS 20

int main(int argc, char **argv)
{
  int i, j, rank, nranks, xdim, ydim, errors = 0, t;
  double **buffer, *src, scale = 1.0;

  MPI_Init(&argc, &argv);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  buffer = malloc(sizeof(double *) * nranks);
  ARMCI_Malloc((void **)buffer, MAX_XDIM * MAX_YDIM * sizeof(double));
  src = ARMCI_Malloc_local(MAX_XDIM * MAX_YDIM * sizeof(double));
  for (i = 0; i < MAX_XDIM * MAX_YDIM; i++) src[i] = i % 1000;

#ifdef DO_ACCS
  if (rank == 0) printf("ARMCI_AccS Latency - local and remote completions - in usec\n");
#else
  if (rank == 0) printf("ARMCI_PutS Latency - local and remote completions - in usec\n");
#endif
  if (rank == 0) printf("%30s %22s %22s\n", "Dimensions(array of doubles)", "Latency-LocalCompletion", "Latency-RemoteCompletion");
  fflush(stdout);

  for (t = 0; t < 2; t++) {
    int target = t == 0 ? 1 % nranks : nranks - 1;
    if (t == 1 && nranks < 3) break;
    for (xdim = 1; xdim <= MAX_XDIM; xdim *= 2) {
      ydim = xdim;
      ARMCI_Access_begin(buffer[rank]);
      for (i = 0; i < MAX_XDIM * MAX_YDIM; i++) buffer[rank][i] = 0.0;
      ARMCI_Access_end(buffer[rank]);
      ARMCI_Barrier();
      if (rank == 0) {
        int stride = MAX_XDIM * sizeof(double), count[2];
        double t0, t1, t2;
        count[0] = xdim * sizeof(double);
        count[1] = ydim;
        t0 = MPI_Wtime();
        for (i = 0; i < ITERATIONS; i++) {
#ifdef DO_ACCS
          ARMCI_AccS(ARMCI_ACC_DBL, &scale, src, &stride, buffer[target], &stride, count, 1, target);
#else
          ARMCI_PutS(src, &stride, buffer[target], &stride, count, 1, target);
#endif
        }
        t1 = MPI_Wtime();
        ARMCI_Fence(target);
        t2 = MPI_Wtime();
        printf("%30dX%d %20.2f %20.2f\n", xdim, ydim, (t1 - t0) * 1e6 / ITERATIONS, (t2 - t0) * 1e6 / ITERATIONS);
        fflush(stdout);
      }
      ARMCI_Barrier();
      if (rank == target) {
        ARMCI_Access_begin(buffer[rank]);
        for (j = 0; j < MAX_YDIM; j++)
          for (i = 0; i < MAX_XDIM; i++) {
            double want = (i < xdim && j < ydim) ? (double)((j * MAX_XDIM + i) % 1000) : 0.0;
#ifdef DO_ACCS
            want *= (rank == 0 ? 1 : ITERATIONS);
            if (rank == 0 && i < xdim && j < ydim) want *= ITERATIONS; /* 1 process: self-target */
#endif
            if (buffer[rank][j * MAX_XDIM + i] != want) {
              if (errors++ < 10) printf("[%d] FAIL %dx%d: [%d,%d] = %f, expected %f\n", rank, xdim, ydim, j, i, buffer[rank][j * MAX_XDIM + i], want);
            }
          }
        ARMCI_Access_end(buffer[rank]);
      }
      ARMCI_Barrier();
    }
  }
  (void)scale;

  ARMCI_Free(buffer[rank]);
  ARMCI_Free_local(src);
  free(buffer);
  MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  if (rank == 0) printf(errors ? "%d errors: FAILED\n" : "All tests passed\n", errors);
  MPI_Finalize();
  return errors != 0;
}
