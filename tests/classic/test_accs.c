/*
 * Re-creation of ARMCI-MPI tests/test_accs.c ("ARMCI Strided Accumulate Test"): every process accumulates an
 * XDIM x YDIM block of doubles ITERATIONS times into its right neighbour with ARMCI_AccS (1 stride level,
 * count[0] = XDIM*sizeof(double)), then a half-width sub-block (a real stride) with scale 2; the owner checks
 * its slice between ARMCI_Access_begin/end.  The source is ARMCI_Malloc_local memory.  test_accs_dla.c
 * includes this file with ACCS_DLA defined: the source then lies in the caller's own ARMCI slice (direct
 * local access, as ARMCI-MPI's test_accs_dla.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <armci.h>

#define XDIM 1024
#define YDIM 64
#define ITERATIONS 10

int main(int argc, char **argv)
{
  int i, j, rank, nranks, peer, left, errors = 0;
  double **buffer, *src_buf, scale = 1.0, two = 2.0;
  int count[2], src_stride, trg_stride, stride_level;

  MPI_Init(&argc, &argv);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  buffer = (double **)malloc(sizeof(double *) * nranks);
#ifdef ACCS_DLA
  ARMCI_Malloc((void **)buffer, 2 * XDIM * YDIM * sizeof(double));
  src_buf = buffer[rank] + XDIM * YDIM;
  if (rank == 0) printf("ARMCI Strided DLA Accumulate Test:\n");
#else
  ARMCI_Malloc((void **)buffer, XDIM * YDIM * sizeof(double));
  src_buf = ARMCI_Malloc_local(XDIM * YDIM * sizeof(double));
  if (rank == 0) printf("ARMCI Strided Accumulate Test:\n");
#endif

  ARMCI_Access_begin(buffer[rank]);
  for (i = 0; i < XDIM * YDIM; i++) {
    buffer[rank][i] = 1.0 + rank;
    src_buf[i] = 1.0 + rank + (i % 3);
  }
  ARMCI_Access_end(buffer[rank]);

  src_stride = XDIM * sizeof(double);
  trg_stride = XDIM * sizeof(double);
  stride_level = 1;
  count[1] = YDIM;
  count[0] = XDIM * sizeof(double);

  ARMCI_Barrier();
  peer = (rank + 1) % nranks;
  left = (rank + nranks - 1) % nranks;

  for (i = 0; i < ITERATIONS; i++)
    ARMCI_AccS(ARMCI_ACC_DBL, &scale, src_buf, &src_stride, buffer[peer], &trg_stride, count, stride_level, peer);
  /* sub-block: columns [XDIM/4, 3*XDIM/4) of rows 1..YDIM-1 */
  count[0] = XDIM / 2 * sizeof(double);
  count[1] = YDIM - 1;
  ARMCI_AccS(ARMCI_ACC_DBL, &two, src_buf + XDIM + XDIM / 4, &src_stride, buffer[peer] + XDIM + XDIM / 4, &trg_stride,
             count, stride_level, peer);

  ARMCI_Barrier();

  ARMCI_Access_begin(buffer[rank]);
  for (j = 0; j < YDIM; j++)
    for (i = 0; i < XDIM; i++) {
      int idx = i + j * XDIM;
      const double actual = buffer[rank][idx];
      const double s = 1.0 + left + (idx % 3);
      double expected = (1.0 + rank) + s * ITERATIONS;
      if (j >= 1 && i >= XDIM / 4 && i < 3 * XDIM / 4) expected += 2.0 * s;
      if (actual != expected) {
        if (errors < 10) printf("%d: Data validation failed at [%d, %d] expected=%f actual=%f\n", rank, j, i, expected, actual);
        errors++;
        fflush(stdout);
      }
    }
  ARMCI_Access_end(buffer[rank]);

  ARMCI_Free(buffer[rank]);
#ifndef ACCS_DLA
  ARMCI_Free_local(src_buf);
#endif
  free(buffer);

  MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  if (rank == 0) printf(errors ? "%d errors: FAILED\n" : "All tests passed\n", errors);
  MPI_Finalize();
  return errors != 0;
}
