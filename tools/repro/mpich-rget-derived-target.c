/* Reproducer: on Debian 12's MPICH 4.0.2 (ch4:ucx) MPI_Rget with a derived (vector) target datatype completes
 * its request before the data has landed; MPI_Rget_accumulate(MPI_NO_OP) with the same types, and MPI_Get +
 * MPI_Win_flush_local, are right.  No ARMCI involved.  Each rank gets a ROWS x COLS tile (leading dimension
 * 1024 doubles) from the next rank, whose values change every iteration, and checks the tile right after the
 * completion call, before unlocking.
 *   mpicc.mpich tools/repro/mpich-rget-derived-target.c -o /tmp/rg
 *   mpiexec.mpich -n 2 /tmp/rg 8 8 500                                     # one node
 *   UCX_TLS=tcp,self tools/simhosts.sh --hosts 2 -n 2 /tmp/rg 8 8 500      # 2 simulated hosts
 * Measured 2026-12-07, both layouts: every element of every MPI_Rget stale (64000 of 64000 for 8x8, 614400
 * of 614400 for 32x32), with a contiguous or a derived origin; 0 for the other calls.  The same on Debian 13's
 * MPICH 4.2.1 (one node).  MPICH issue 7896 ("CH4/UCX MPI_Rget with a noncontiguous datatype returns an
 * already-completed request without data": the UCX netmod falls back to an active-message get that does not
 * track the request), fixed after these versions.  armci-x therefore completes strided gets with
 * MPI_Win_flush_local (src/transfer/mpi_strided.cc).  Exit status 1 when any element was stale. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define LD 1024

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int rows = argc > 1 ? atoi(argv[1]) : 8, cols = argc > 2 ? atoi(argv[2]) : 8;
  const int iters = argc > 3 ? atoi(argv[3]) : 500;
  double* base;
  MPI_Win win;
  MPI_Alloc_mem((MPI_Aint)LD * rows * sizeof(double), MPI_INFO_NULL, &base);
  MPI_Win_create(base, (MPI_Aint)LD * rows * sizeof(double), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Datatype target_type, origin_type;
  MPI_Type_vector(rows, cols, LD, MPI_DOUBLE, &target_type);
  MPI_Type_commit(&target_type);
  MPI_Type_vector(rows, cols, cols + 3, MPI_DOUBLE, &origin_type);
  MPI_Type_commit(&origin_type);
  double* buf = malloc((size_t)rows * (cols + 3) * sizeof(double));
  const int peer = (me + 1) % np;
  const char* names[] = {"MPI_Rget, contiguous origin", "MPI_Rget_accumulate(NO_OP), contiguous origin",
                         "MPI_Rget, derived origin", "MPI_Rget_accumulate(NO_OP), derived origin",
                         "MPI_Get + MPI_Win_flush_local"};
  long stale[5] = {0};
  for (int m = 0; m < 5; ++m)
    for (int it = 0; it < iters; ++it) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) base[(size_t)r * LD + c] = me * 1e6 + it * 100 + r * cols + c + m * 1e8;
      MPI_Win_unlock(me, win);
      MPI_Barrier(MPI_COMM_WORLD);
      for (int i = 0; i < rows * (cols + 3); ++i) buf[i] = -1;
      const int derived = m == 2 || m == 3;
      MPI_Request q;
      MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win);
      switch (m) {
        case 0:
          MPI_Rget(buf, rows * cols, MPI_DOUBLE, peer, 0, 1, target_type, win, &q);
          break;
        case 1:
          MPI_Rget_accumulate(NULL, 0, MPI_BYTE, buf, rows * cols, MPI_DOUBLE, peer, 0, 1, target_type, MPI_NO_OP, win,
                              &q);
          break;
        case 2:
          MPI_Rget(buf, 1, origin_type, peer, 0, 1, target_type, win, &q);
          break;
        case 3:
          MPI_Rget_accumulate(NULL, 0, MPI_BYTE, buf, 1, origin_type, peer, 0, 1, target_type, MPI_NO_OP, win, &q);
          break;
        case 4:
          MPI_Get(buf, rows * cols, MPI_DOUBLE, peer, 0, 1, target_type, win);
          break;
      }
      if (m == 4)
        MPI_Win_flush_local(peer, win);
      else
        MPI_Wait(&q, MPI_STATUS_IGNORE);
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
          if ((derived ? buf[r * (cols + 3) + c] : buf[r * cols + c]) != peer * 1e6 + it * 100 + r * cols + c + m * 1e8)
            ++stale[m];
      MPI_Win_unlock(peer, win);
      MPI_Barrier(MPI_COMM_WORLD);
    }
  long total[5];
  MPI_Reduce(stale, total, 5, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  int bad = 0;
  if (me == 0) {
    for (int m = 0; m < 5; ++m) {
      printf("%-48s %dx%d: %ld of %ld elements stale after completion\n", names[m], rows, cols, total[m],
             (long)iters * np * rows * cols);
      bad |= total[m] != 0;
    }
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Type_free(&target_type);
  MPI_Type_free(&origin_type);
  MPI_Win_free(&win);
  MPI_Free_mem(base);
  free(buf);
  MPI_Finalize();
  return bad;
}
