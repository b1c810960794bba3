/*
 * collective_traffic.c -- what ARMCI's collectives move per member (issue 30): ARMCI_Barrier, ARMCI_Free,
 * ARMCI_Malloc of equal sizes and ARMCI_Group_create of one list make no allgather (an allreduce of a few
 * longs, whatever the number of ranks), ARMCI_Malloc of differing sizes exactly one allgather of 8 bytes per
 * member; the data stays right in every case.
 *
 * A PMPI shim counts the allgathers and allreduces the library calls (link libarmci without the MPI
 * wrapper library, which defines some of these itself).  Run with ARMCI_NODE_SYNC=0: on the shared-memory
 * path of an oversubscribed node no MPI allgather is made at all, and the count of one would not be seen.
 * Ends with "N passed, N failed"; exit status 0 only if nothing failed.
 */
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long g_allgathers, g_allgather_bytes, g_allreduces;
static int g_failed, g_passed;

int MPI_Allgather(const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, MPI_Comm comm) {
  int size = 0, n = 0;
  PMPI_Comm_size(comm, &n);
  PMPI_Type_size(rt, &size);
  ++g_allgathers;
  g_allgather_bytes += (long)rc * size * n;
  return PMPI_Allgather(s, sc, st, r, rc, rt, comm);
}

int MPI_Iallgather(const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, MPI_Comm comm,
                   MPI_Request* req) {
  int size = 0, n = 0;
  PMPI_Comm_size(comm, &n);
  PMPI_Type_size(rt, &size);
  ++g_allgathers;
  g_allgather_bytes += (long)rc * size * n;
  return PMPI_Iallgather(s, sc, st, r, rc, rt, comm, req);
}

int MPI_Allreduce(const void* s, void* r, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  ++g_allreduces;
  return PMPI_Allreduce(s, r, c, t, op, comm);
}

int MPI_Iallreduce(const void* s, void* r, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Request* req) {
  ++g_allreduces;
  return PMPI_Iallreduce(s, r, c, t, op, comm, req);
}

static int me, nproc;

/* The largest count over ranks (a rank that took another path shows). */
static long max_over_ranks(long x) {
  long m = 0;
  PMPI_Allreduce(&x, &m, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

static void expect(int ok, const char* what, long got, long want) {
  int all = 0;
  PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (me == 0) printf("%s  %s (got %ld, want %ld)\n", all ? "PASS" : "FAIL", what, got, want);
  if (all)
    ++g_passed;
  else
    ++g_failed;
}

/* Puts my rank into every other rank's slice and reads it back after a barrier. */
static int data_ok(void** ptrs, const long* sizes) {
  int ok = 1;
  for (int p = 0; p < nproc; ++p) {
    if (sizes[p] < (long)sizeof(int)) continue;
    if (!ptrs[p]) return 0;
    int v = 1000 + me;
    ARMCI_Put(&v, (char*)ptrs[p] + sizeof(int) * (size_t)(me % (int)(sizes[p] / sizeof(int))), sizeof v, p);
  }
  ARMCI_Barrier();
  if (sizes[me] >= (long)(nproc * sizeof(int)))
    for (int p = 0; p < nproc; ++p) ok &= ((int*)ptrs[me])[p] == 1000 + p;
  ARMCI_Barrier();
  return ok;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  const int reps = 20;
  void** ptrs = malloc(sizeof(void*) * (size_t)nproc);
  long* sizes = malloc(sizeof(long) * (size_t)nproc);

  /* Warm-up: the first allocation makes the node pool (its segment's addresses are gathered once). */
  ARMCI_Malloc(ptrs, 4096);
  ARMCI_Free(ptrs[me]);

  long before = g_allgathers;
  for (int i = 0; i < reps; ++i) ARMCI_Barrier();
  long got = max_over_ranks(g_allgathers - before);
  expect(got == 0, "ARMCI_Barrier x20: no allgather", got, 0);

  int ok = 1;
  before = g_allgathers;
  long reduces = g_allreduces;
  for (int i = 0; i < reps; ++i) {
    ARMCI_Malloc(ptrs, 4096);
    for (int p = 0; p < nproc; ++p) sizes[p] = 4096;
    ok &= data_ok(ptrs, sizes);
    ARMCI_Free(ptrs[me]);
  }
  got = max_over_ranks(g_allgathers - before);
  expect(got == 0, "ARMCI_Malloc + ARMCI_Free of equal sizes x20: no allgather", got, 0);
  expect(ok, "ARMCI_Malloc of equal sizes: data", ok, 1);
  long made = max_over_ranks(g_allreduces - reduces);
  expect(made >= 2 * reps, "ARMCI_Malloc + ARMCI_Free of equal sizes x20: an allreduce each", made, 2 * reps);

  /* Rank 0 asks nothing (NULL, and ARMCI_Free(NULL)), the others different sizes. */
  ok = 1;
  long bytes = 0;
  before = g_allgathers;
  for (int i = 0; i < reps; ++i) {
    const long base = g_allgathers, base_bytes = g_allgather_bytes;
    ARMCI_Malloc(ptrs, me == 0 ? 0 : 4096 + 64 * me);
    bytes = g_allgather_bytes - base_bytes;
    ok &= g_allgathers - base == 1 && bytes == (long)sizeof(long) * nproc;
    for (int p = 0; p < nproc; ++p) sizes[p] = p == 0 ? 0 : 4096 + 64 * p;
    ok &= ptrs[0] == NULL && (nproc < 2 || ptrs[1] != NULL);
    ok &= data_ok(ptrs, sizes);
    const long before_free = g_allgathers;
    ARMCI_Free(me == 0 ? NULL : ptrs[me]);
    ok &= g_allgathers == before_free;
  }
  got = max_over_ranks(g_allgathers - before);
  expect(ok, "ARMCI_Malloc of differing sizes x20: one allgather of 8 bytes per rank, none in ARMCI_Free(NULL)", got,
         reps);

  /* A group of every rank (identical lists): no allgather in its creation's check, nor in its collectives. */
  int* all = malloc(sizeof(int) * (size_t)nproc);
  for (int p = 0; p < nproc; ++p) all[p] = p;
  before = g_allgathers;
  for (int i = 0; i < 5; ++i) {
    ARMCI_Group g;
    ARMCI_Group_create(nproc, all, &g);
    ARMCI_Group_free(&g);
  }
  got = max_over_ranks(g_allgathers - before);
  expect(got == 0, "ARMCI_Group_create + ARMCI_Group_free of all ranks x5: no allgather", got, 0);

  free(all);
  free(sizes);
  free(ptrs);
  ARMCI_Finalize();
  if (me == 0) printf("%d passed, %d failed\n", g_passed, g_failed);
  MPI_Finalize();
  return g_failed ? 1 : 0;
}
