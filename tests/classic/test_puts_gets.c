/*
 * Re-creation of ARMCI-MPI tests/test_puts_gets.c (and test_puts.c with PUTS_ONLY, test_puts_gets_dla.c with
 * PUTS_DLA): 2-D strided transfers of sub-blocks between every pair of processes.  Each process writes
 * a (rows x cols) patch of doubles into every peer's matrix at a location only it writes (ARMCI_PutS, 1 stride
 * level, count[0] in bytes), reads it back with ARMCI_GetS into a differently strided local buffer and
 * compares; after a barrier each owner checks its whole matrix (untouched elements included).  Patch shapes
 * vary per iteration (single row, single column, full width).  With PUTS_DLA the local buffers are inside
 * the caller's own ARMCI slice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <armci.h>

#define XDIM 64   /* elements per row of the shared matrix */
#define YDIM 32   /* rows per process block */
#define ITERATIONS 6
#define LXDIM 80  /* row length of the local buffers (a different stride) */

static double val(int writer, int iter, int r, int c) { return writer * 1e6 + iter * 1e4 + r * 100 + c; }

int main(int argc, char **argv)
{
  int rank, nproc, it, p, r, c, errors = 0;
  double **mat, *lsrc, *ldst;

  MPI_Init(&argc, &argv);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);

  mat = malloc(sizeof(double *) * nproc);
#ifdef PUTS_DLA
  ARMCI_Malloc((void **)mat, (XDIM * YDIM * nproc + 2 * LXDIM * YDIM) * sizeof(double));
  lsrc = mat[rank] + XDIM * YDIM * nproc;
  ldst = lsrc + LXDIM * YDIM;
#else
  ARMCI_Malloc((void **)mat, XDIM * YDIM * nproc * sizeof(double));
  lsrc = malloc(LXDIM * YDIM * sizeof(double));
  ldst = malloc(LXDIM * YDIM * sizeof(double));
#endif
  if (rank == 0) printf("ARMCI strided put%s test with %d processes\n",
#ifdef PUTS_ONLY
                        "",
#else
                        "/get",
#endif
                        nproc);

  for (it = 0; it < ITERATIONS; it++) {
    /* patch shape of this iteration: rows x cols at (r0, c0) within the writer's block */
    int rows = it % 3 == 0 ? 1 : YDIM - it, cols = it % 3 == 1 ? 1 : (it % 3 == 2 ? XDIM : XDIM - 3 * it);
    int r0 = (YDIM - rows) / 2, c0 = (XDIM - cols) / 3;
    int sstride = LXDIM * sizeof(double), tstride = XDIM * sizeof(double), count[2];

    ARMCI_Access_begin(mat[rank]);
    for (r = 0; r < XDIM * YDIM * nproc; r++) mat[rank][r] = -1.0;
    for (r = 0; r < rows; r++)
      for (c = 0; c < cols; c++) lsrc[r * LXDIM + c] = val(rank, it, r, c);
    for (r = 0; r < LXDIM * YDIM; r++) ldst[r] = -2.0;
    ARMCI_Access_end(mat[rank]);
    ARMCI_Barrier();

    count[0] = cols * sizeof(double);
    count[1] = rows;
    for (p = 0; p < nproc; p++) {
      int peer = (rank + p) % nproc;
      double *dst = mat[peer] + rank * XDIM * YDIM + r0 * XDIM + c0;
      ARMCI_PutS(lsrc, &sstride, dst, &tstride, count, 1, peer);
#ifndef PUTS_ONLY
      ARMCI_GetS(dst, &tstride, ldst, &sstride, count, 1, peer);
      ARMCI_Access_begin(mat[rank]);
      for (r = 0; r < rows; r++)
        for (c = 0; c < cols; c++)
          if (ldst[r * LXDIM + c] != val(rank, it, r, c)) {
            if (errors++ < 10) printf("[%d] FAIL get back from %d (iter %d): [%d,%d] = %f\n", rank, peer, it, r, c, ldst[r * LXDIM + c]);
            r = rows;
            break;
          }
      ARMCI_Access_end(mat[rank]);
#endif
    }
    ARMCI_Barrier();

    ARMCI_Access_begin(mat[rank]);
    for (p = 0; p < nproc; p++)
      for (r = 0; r < YDIM; r++)
        for (c = 0; c < XDIM; c++) {
          double got = mat[rank][p * XDIM * YDIM + r * XDIM + c];
          int in = r >= r0 && r < r0 + rows && c >= c0 && c < c0 + cols;
          double want = in ? val(p, it, r - r0, c - c0) : -1.0;
          if (got != want) {
            if (errors++ < 10) printf("[%d] FAIL iter %d block of %d [%d,%d] = %f, expected %f\n", rank, it, p, r, c, got, want);
          }
        }
    ARMCI_Access_end(mat[rank]);
    ARMCI_Barrier();
  }

  ARMCI_Free(mat[rank]);
#ifndef PUTS_DLA
  free(lsrc);
  free(ldst);
#endif
  free(mat);
  MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  if (rank == 0) printf(errors ? "%d errors: FAILED\n" : "All tests passed\n", errors);
  MPI_Finalize();
  return errors != 0;
}
