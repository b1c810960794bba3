/* mpitime: an LD_PRELOAD library that counts and times the MPI calls a program makes (through the PMPI
 * interface) and prints a table per rank to stderr at MPI_Finalize.  Use it to see where an
 * oversubscribed run waits inside MPI (MPICH busy-polls in blocking calls):
 *
 *   mpicc.mpich -shared -fPIC -O2 -o libmpitime.so tools/mpitime/mpitime.c
 *   mpiexec.mpich -n 4 env LD_PRELOAD=$PWD/libmpitime.so ./prog
 *
 * Only works for programs that link MPI dynamically (NWChem, GA programs); armci-x itself may be static.
 * MPITIME_MIN_MS (default 1): calls whose total is below this many ms are not printed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
#define X(name) K_##name,
#include "mpitime_calls.h"
#undef X
  K_COUNT
};
static const char* const names[K_COUNT] = {
#define X(name) #name,
#include "mpitime_calls.h"
#undef X
};
static double secs[K_COUNT];
static long calls[K_COUNT];

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
static double t_init;

#define TIMED(k, call)    \
  double t0_ = now();     \
  int rc_ = call;         \
  secs[k] += now() - t0_; \
  calls[k]++;             \
  return rc_;

int MPI_Init(int* argc, char*** argv) {
  t_init = now();
  return PMPI_Init(argc, argv);
}
int MPI_Init_thread(int* argc, char*** argv, int req, int* prov) {
  t_init = now();
  return PMPI_Init_thread(argc, argv, req, prov);
}
int MPI_Barrier(MPI_Comm c) {
  TIMED(K_MPI_Barrier, PMPI_Barrier(c))
}
int MPI_Bcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm c) {
  TIMED(K_MPI_Bcast, PMPI_Bcast(b, n, t, root, c))
}
int MPI_Allreduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  TIMED(K_MPI_Allreduce, PMPI_Allreduce(s, r, n, t, op, c))
}
int MPI_Reduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
  TIMED(K_MPI_Reduce, PMPI_Reduce(s, r, n, t, op, root, c))
}
int MPI_Allgather(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, MPI_Comm c) {
  TIMED(K_MPI_Allgather, PMPI_Allgather(s, sn, st, r, rn, rt, c))
}
int MPI_Alltoall(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, MPI_Comm c) {
  TIMED(K_MPI_Alltoall, PMPI_Alltoall(s, sn, st, r, rn, rt, c))
}
int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm* n) {
  TIMED(K_MPI_Comm_split, PMPI_Comm_split(c, color, key, n))
}
int MPI_Comm_dup(MPI_Comm c, MPI_Comm* n) {
  TIMED(K_MPI_Comm_dup, PMPI_Comm_dup(c, n))
}
int MPI_Comm_create(MPI_Comm c, MPI_Group g, MPI_Comm* n) {
  TIMED(K_MPI_Comm_create, PMPI_Comm_create(c, g, n))
}
int MPI_Comm_create_group(MPI_Comm c, MPI_Group g, int tag, MPI_Comm* n) {
  TIMED(K_MPI_Comm_create_group, PMPI_Comm_create_group(c, g, tag, n))
}
int MPI_Comm_free(MPI_Comm* c) {
  TIMED(K_MPI_Comm_free, PMPI_Comm_free(c))
}
int MPI_Win_allocate_shared(MPI_Aint sz, int du, MPI_Info i, MPI_Comm c, void* b, MPI_Win* w) {
  TIMED(K_MPI_Win_allocate_shared, PMPI_Win_allocate_shared(sz, du, i, c, b, w))
}
int MPI_Win_allocate(MPI_Aint sz, int du, MPI_Info i, MPI_Comm c, void* b, MPI_Win* w) {
  TIMED(K_MPI_Win_allocate, PMPI_Win_allocate(sz, du, i, c, b, w))
}
int MPI_Win_create(void* b, MPI_Aint sz, int du, MPI_Info i, MPI_Comm c, MPI_Win* w) {
  TIMED(K_MPI_Win_create, PMPI_Win_create(b, sz, du, i, c, w))
}
int MPI_Win_free(MPI_Win* w) {
  TIMED(K_MPI_Win_free, PMPI_Win_free(w))
}
int MPI_Win_lock_all(int a, MPI_Win w) {
  TIMED(K_MPI_Win_lock_all, PMPI_Win_lock_all(a, w))
}
int MPI_Win_unlock_all(MPI_Win w) {
  TIMED(K_MPI_Win_unlock_all, PMPI_Win_unlock_all(w))
}
int MPI_Win_flush(int r, MPI_Win w) {
  TIMED(K_MPI_Win_flush, PMPI_Win_flush(r, w))
}
int MPI_Win_flush_all(MPI_Win w) {
  TIMED(K_MPI_Win_flush_all, PMPI_Win_flush_all(w))
}
int MPI_Win_flush_local(int r, MPI_Win w) {
  TIMED(K_MPI_Win_flush_local, PMPI_Win_flush_local(r, w))
}
int MPI_Win_sync(MPI_Win w) {
  TIMED(K_MPI_Win_sync, PMPI_Win_sync(w))
}
int MPI_Wait(MPI_Request* r, MPI_Status* s) {
  TIMED(K_MPI_Wait, PMPI_Wait(r, s))
}
int MPI_Waitall(int n, MPI_Request* r, MPI_Status* s) {
  TIMED(K_MPI_Waitall, PMPI_Waitall(n, r, s))
}
int MPI_Test(MPI_Request* r, int* f, MPI_Status* s) {
  TIMED(K_MPI_Test, PMPI_Test(r, f, s))
}
int MPI_Iprobe(int src, int tag, MPI_Comm c, int* f, MPI_Status* s) {
  TIMED(K_MPI_Iprobe, PMPI_Iprobe(src, tag, c, f, s))
}
int MPI_Send(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) {
  TIMED(K_MPI_Send, PMPI_Send(b, n, t, d, tag, c))
}
int MPI_Recv(void* b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Status* st) {
  TIMED(K_MPI_Recv, PMPI_Recv(b, n, t, s, tag, c, st))
}
int MPI_Fetch_and_op(const void* o, void* r, MPI_Datatype t, int tr, MPI_Aint td, MPI_Op op, MPI_Win w) {
  TIMED(K_MPI_Fetch_and_op, PMPI_Fetch_and_op(o, r, t, tr, td, op, w))
}
int MPI_Comm_split_type(MPI_Comm c, int st, int key, MPI_Info i, MPI_Comm* n) {
  TIMED(K_MPI_Comm_split_type, PMPI_Comm_split_type(c, st, key, i, n))
}

int MPI_Finalize(void) {
  int me = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &me);
  const char* m = getenv("MPITIME_MIN_MS");
  double min_s = (m ? atof(m) : 1.0) / 1000.0;
  double total = 0;
  for (int k = 0; k < K_COUNT; ++k) total += secs[k];
  char buf[8192];
  int len = snprintf(buf, sizeof buf, "mpitime rank %d: %.3f s in the MPI calls below of %.3f s since MPI_Init\n", me,
                     total, now() - t_init);
  for (int k = 0; k < K_COUNT; ++k)
    if (secs[k] >= min_s && len < (int)sizeof buf - 100)
      len += snprintf(buf + len, sizeof buf - len, "mpitime rank %d: %-24s %9ld calls %10.3f s %10.1f us/call\n", me,
                      names[k], calls[k], secs[k], 1e6 * secs[k] / calls[k]);
  fputs(buf, stderr);
  return PMPI_Finalize();
}
