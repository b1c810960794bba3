/*
 * Re-creation of GA's armci/testing/perf.c (ARMCI-MPI tests/contrib/armci-perf.c): process 0 times
 * ARMCI_Put/Get/Acc (1-D, sizes 8 B .. 256 KiB) and ARMCI_PutS/GetS/AccS (2-D square blocks of doubles,
 * 1 stride level) against every other process in turn while they wait in a barrier, printing bandwidth, and
 * verifies every transfer (the original's CHECK_RESULT option, always on here).
 */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <armci.h>

#define MAXBYTES (256 * 1024)
#define DIM 128 /* shared 2-D array is DIM x DIM doubles */
#define REPS 8

static int rank, nproc, errors = 0;

static void fail(const char *op, int proc, int size, int i, double got, double want)
{
  if (errors++ < 10) printf("[%d] FAIL %s to %d size %d: element %d = %f, expected %f\n", rank, op, proc, size, i, got, want);
  fflush(stdout);
}

int main(int argc, char **argv)
{
  double **g, *src, *dst, one = 1.0;
  int proc, op, bytes, i, j, n;

  MPI_Init(&argc, &argv);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  g = malloc(sizeof(double *) * nproc);
  ARMCI_Malloc((void **)g, MAXBYTES > DIM * DIM * 8 ? MAXBYTES : DIM * DIM * 8);
  src = malloc(MAXBYTES);
  dst = malloc(MAXBYTES);
  if (rank == 0) printf("ARMCI perf test (%d processes)\n%10s %10s %12s\n", nproc, "op", "bytes", "MB/s");

  for (proc = 1; proc < nproc || (nproc == 1 && proc == 1); proc++) {
    int target = proc % nproc;
    for (op = 0; op < 6; op++) {
      static const char *name[6] = {"Put", "Get", "Acc", "PutS", "GetS", "AccS"};
      for (bytes = 8; bytes <= MAXBYTES; bytes *= 8) {
        int side = 1;
        if (op >= 3) {
          while ((side + 1) * (side + 1) * 8 <= bytes && side + 1 <= DIM) side++;
          n = side * side;
        } else {
          n = bytes / 8;
        }
        ARMCI_Access_begin(g[rank]);
        for (i = 0; i < MAXBYTES / 8; i++) g[rank][i] = rank + i * 1e-6;
        ARMCI_Access_end(g[rank]);
        ARMCI_Barrier();
        if (rank == 0) {
          double t0, t;
          int stride = DIM * sizeof(double), count[2];
          count[0] = side * sizeof(double);
          count[1] = side;
          for (i = 0; i < n; i++) src[i] = 1000 + i;
          t0 = MPI_Wtime();
          for (j = 0; j < REPS; j++) {
            switch (op) {
            case 0: ARMCI_Put(src, g[target], n * 8, target); break;
            case 1: ARMCI_Get(g[target], dst, n * 8, target); break;
            case 2: ARMCI_Acc(ARMCI_ACC_DBL, &one, src, g[target], n * 8, target); break;
            case 3: ARMCI_PutS(src, &count[0], g[target], &stride, count, 1, target); break;
            case 4: ARMCI_GetS(g[target], &stride, dst, &count[0], count, 1, target); break;
            default: ARMCI_AccS(ARMCI_ACC_DBL, &one, src, &count[0], g[target], &stride, count, 1, target); break;
            }
          }
          ARMCI_Fence(target);
          t = MPI_Wtime() - t0;
          printf("%10s %10d %12.1f\n", name[op], n * 8, n * 8.0 * REPS / t / 1e6);
          fflush(stdout);
          /* verify */
          if (op == 1 || op == 4) {
            for (i = 0; i < n; i++) {
              int r = op == 4 ? i / side : 0, c = op == 4 ? i % side : i;
              double want = target + (op == 4 ? r * DIM + c : i) * 1e-6;
              if (dst[i] != want) {
                fail(name[op], target, n * 8, i, dst[i], want);
                break;
              }
            }
          } else {
            double *chk = malloc(DIM * DIM * 8 > MAXBYTES ? DIM * DIM * 8 : MAXBYTES);
            ARMCI_Get(g[target], chk, MAXBYTES, target);
            for (i = 0; i < n; i++) {
              int idx = op >= 3 ? (i / side) * DIM + i % side : i;
              double orig = target + idx * 1e-6;
              double want = (op == 0 || op == 3) ? src[i] : orig + REPS * src[i];
              double diff = chk[idx] - want; /* accumulates: REPS sequential additions round differently */
              if (diff < 0) diff = -diff;
              if (diff > 1e-9 * (want < 0 ? -want : want)) {
                fail(name[op], target, n * 8, i, chk[idx], want);
                break;
              }
            }
            free(chk);
          }
        }
        ARMCI_Barrier();
      }
    }
    if (nproc == 1) break;
  }

  ARMCI_Free(g[rank]);
  free(g);
  free(src);
  free(dst);
  MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  if (rank == 0) printf(errors ? "%d errors: FAILED\n" : "All tests passed\n", errors);
  MPI_Finalize();
  return errors != 0;
}
