/* Reproducer for Open MPI 4.1's osc/rdma window collision (Open MPI issue 7393).  No ARMCI involved.
 * Both halves of MPI_COMM_WORLD (one MPI_Comm_split: the two communicators share a context id) create
 * windows at the same time, put/accumulate/fetch-and-op through each, check the results, free it.
 *   mpicc.openmpi tools/repro/ompi-window-collision.c -o /tmp/wc
 *   for i in $(seq 10); do timeout 90 mpiexec.openmpi --allow-run-as-root --oversubscribe -n 4 \
 *       /tmp/wc create 30 1 || echo failed; done
 * Arguments: create | allocate | dynamic (window kind), windows per run, 1 = split (0 = a duplicate of
 * MPI_COMM_WORLD, unique context id).  Measured on 2026-11-24 (2 cores, loaded): split, 10 runs each:
 * create 6 failed, allocate 1, dynamic 5 ("unlink(2) /dev/shm/osc_rdma...: No such file or directory",
 * then MPI_ERR_WIN or a crash in MPI_Win_free); duplicate: 0 of 10 for each kind.  With
 * OMPI_MCA_osc=pt2pt, split create: 0 of 10.  armci-x avoids it with ARMCI_WINDOW_GATE
 * (src/base/window.h). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1000 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const char *kind = argc > 1 ? argv[1] : "create";
  const int windows = argc > 2 ? atoi(argv[2]) : 30;
  const int split = argc > 3 ? atoi(argv[3]) : 1;
  const int dynamic = strcmp(kind, "dynamic") == 0, allocate = strcmp(kind, "allocate") == 0;
  MPI_Comm sub;
  if (split)
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &sub);
  else
    MPI_Comm_dup(MPI_COMM_WORLD, &sub);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(sub, MPI_ERRORS_RETURN);
  int sme, snp;
  MPI_Comm_rank(sub, &sme);
  MPI_Comm_size(sub, &snp);
  MPI_Aint *disp = calloc((size_t)snp, sizeof *disp);
  int *world_of = calloc((size_t)snp, sizeof *world_of);
  MPI_Allgather(&me, 1, MPI_INT, world_of, 1, MPI_INT, sub);
  int bad = 0;
  double t0 = MPI_Wtime();
  for (int it = 0; it < windows && !bad; ++it) {
    MPI_Win win;
    long *base = NULL;
    int rc;
    if (allocate) {
      rc = MPI_Win_allocate(N * sizeof(long), sizeof(long), MPI_INFO_NULL, sub, &base, &win);
    } else {
      MPI_Alloc_mem(N * sizeof(long), MPI_INFO_NULL, &base);
      if (dynamic) {
        rc = MPI_Win_create_dynamic(MPI_INFO_NULL, sub, &win);
        if (rc == MPI_SUCCESS) rc = MPI_Win_attach(win, base, N * sizeof(long));
      } else {
        rc = MPI_Win_create(base, N * sizeof(long), sizeof(long), MPI_INFO_NULL, sub, &win);
      }
    }
    if (rc != MPI_SUCCESS) {
      char msg[MPI_MAX_ERROR_STRING];
      int len;
      MPI_Error_string(rc, msg, &len);
      printf("rank %d window %d: creation failed: %s\n", me, it, msg);
      bad++;
      break;
    }
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int i = 0; i < N; ++i) base[i] = 0;
    /* displacements: bytes from the attached address (dynamic), elements otherwise */
    MPI_Aint mine;
    MPI_Get_address(base, &mine);
    if (dynamic) MPI_Allgather(&mine, 1, MPI_AINT, disp, 1, MPI_AINT, sub);
    MPI_Barrier(sub);
    MPI_Win_lock_all(0, win);
    const int t = (sme + 1) % snp;
    long v[100], one = 1, old;
    for (int i = 0; i < 100; ++i) v[i] = me * 1000 + i;
    if (MPI_Put(v, 100, MPI_LONG, t, disp[t], 100, MPI_LONG, win)) bad++;
    for (int r = 0; r < snp; ++r) {
      MPI_Aint at999 = dynamic ? disp[r] + 999 * (MPI_Aint)sizeof(long) : 999;
      MPI_Aint at998 = dynamic ? disp[r] + 998 * (MPI_Aint)sizeof(long) : 998;
      if (MPI_Accumulate(&one, 1, MPI_LONG, r, at999, 1, MPI_LONG, MPI_SUM, win)) bad++;
      if (MPI_Fetch_and_op(&one, &old, MPI_LONG, r, at998, MPI_SUM, win)) bad++;
    }
    MPI_Win_flush_all(win);
    MPI_Barrier(sub);
    MPI_Win_sync(win);
    const int from = world_of[(sme - 1 + snp) % snp];
    for (int i = 0; i < 100; ++i)
      if (base[i] != from * 1000 + i) {
        printf("rank %d window %d: put data wrong at %d: %ld, expected %d\n", me, it, i, base[i], from * 1000 + i);
        bad++;
        break;
      }
    if (base[999] != snp || base[998] != snp) {
      printf("rank %d window %d: accumulate %ld, fetch-and-op %ld, expected %d\n", me, it, base[999], base[998], snp);
      bad++;
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(sub);
    if (dynamic) MPI_Win_detach(win, base);
    MPI_Win_free(&win);
    if (!allocate) MPI_Free_mem(base);
  }
  const double secs = MPI_Wtime() - t0;
  int all_bad = 0;
  MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf("%s, %s, %d ranks, %d windows: %s (%d errors) %.3f s\n", kind, split ? "split" : "dup", np, windows,
           all_bad ? "FAIL" : "ok", all_bad, secs);
  free(disp);
  free(world_of);
  MPI_Comm_free(&sub);
  MPI_Finalize();
  return all_bad ? 1 : 0;
}
