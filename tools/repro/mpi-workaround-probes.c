/* Probes for the MPI bugs armci-x works around, to tell whether an MPI version still has them.  No ARMCI
 * involved.  Each probe prints "PROBE <name>: ok" or "PROBE <name>: BUG (...)"; exit status 1 if any BUG.
 *   mpicc.mpich tools/repro/mpi-workaround-probes.c -o /tmp/probes
 *   timeout 120 mpiexec.mpich -n 4 /tmp/probes            (all probes; or name them: procnull atomics)
 * procnull: MPI_Irecv from MPI_PROC_NULL, then MPI_Wait: the status must say MPI_PROC_NULL, MPI_ANY_TAG, count
 *   0 (MPICH 4.0.2 gave source 0, tag 0; src/runtime/mpi_world.cc sets the null status itself).
 * atomics: MPICH issue 6110 (4.0.1-4.0.2 ch4): every rank adds 1 to counters at rank 0 of a window from
 *   MPI_Win_allocate, ITER times each by MPI_Fetch_and_op, MPI_Accumulate and MPI_Get_accumulate (SUM) and by
 *   an MPI_Compare_and_swap loop; the totals must be np * ITER and the values fetch-and-op returned all
 *   distinct.  Run with the window from MPI_Win_create too ("atomics-create") as the control.
 * Results are in doc/mpi-versions.md. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ITER = 500, ROUNDS = 4 };
static int me, np, bugs;

static void report(const char *name, int ok, const char *why) {
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) bugs++;
  if (me == 0) printf("PROBE %s: %s%s%s\n", name, all_ok ? "ok" : "BUG (", all_ok ? "" : why, all_ok ? "" : ")");
  fflush(stdout);
}

static void probe_procnull(void) {
  int buf = 5, count = -1, ok = 1;
  MPI_Request req;
  MPI_Status st;
  MPI_Irecv(&buf, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  char why[160];
  snprintf(why, sizeof why, "MPI_Wait status of an MPI_PROC_NULL receive: source %d tag %d count %d",
           st.MPI_SOURCE, st.MPI_TAG, count);
  if (st.MPI_SOURCE != MPI_PROC_NULL || st.MPI_TAG != MPI_ANY_TAG || count != 0 || buf != 5) ok = 0;
  report("procnull", ok, why);
}

static void probe_atomics(int allocate) {
  long *base = NULL;
  MPI_Win win;
  const MPI_Aint bytes = me == 0 ? 4 * sizeof(long) : 0;
  if (allocate) {
    MPI_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  } else {
    MPI_Alloc_mem(bytes > 0 ? bytes : 1, MPI_INFO_NULL, &base);
    MPI_Win_create(base, bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  }
  if (me == 0) memset(base, 0, 4 * sizeof(long));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  long one = 1, got = 0, *fetched = malloc(ITER * sizeof(long));
  for (int i = 0; i < ITER; i++) {
    MPI_Fetch_and_op(&one, &fetched[i], MPI_LONG, 0, 0, MPI_SUM, win);
    MPI_Accumulate(&one, 1, MPI_LONG, 0, 1, 1, MPI_LONG, MPI_SUM, win);
    MPI_Get_accumulate(&one, 1, MPI_LONG, &got, 1, MPI_LONG, 0, 2, 1, MPI_LONG, MPI_SUM, win);
    long expect = 0, seen = -1;
    for (;;) {  // compare-and-swap increment of counter 3
      long next = expect + 1;
      MPI_Compare_and_swap(&next, &expect, &seen, MPI_LONG, 0, 3, win);
      MPI_Win_flush(0, win);
      if (seen == expect) break;
      expect = seen;
    }
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  long totals[4] = {0, 0, 0, 0};
  if (me == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(totals, 4, MPI_LONG, 0, 0, 4, MPI_LONG, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Bcast(totals, 4, MPI_LONG, 0, MPI_COMM_WORLD);
  long *all = NULL;
  if (me == 0) all = malloc((size_t)np * ITER * sizeof(long));
  MPI_Gather(fetched, ITER, MPI_LONG, all, ITER, MPI_LONG, 0, MPI_COMM_WORLD);
  int ok = 1, dup = 0;
  const long want = (long)np * ITER;
  for (int k = 0; k < 4; k++) ok &= totals[k] == want;
  if (me == 0) {
    char *seen = calloc((size_t)want, 1);
    for (long i = 0; i < want; i++) {
      if (all[i] < 0 || all[i] >= want || seen[all[i]]++) dup++;
    }
    free(seen);
    free(all);
  }
  MPI_Bcast(&dup, 1, MPI_INT, 0, MPI_COMM_WORLD);
  ok &= dup == 0;
  char why[200];
  snprintf(why, sizeof why, "totals fop %ld acc %ld getacc %ld cas %ld, want %ld; %d fetch-and-op results repeated or out of range",
           totals[0], totals[1], totals[2], totals[3], want, dup);
  report(allocate ? "atomics (MPI_Win_allocate)" : "atomics-create (MPI_Win_create)", ok, why);
  free(fetched);
  MPI_Win_free(&win);
  if (!allocate) MPI_Free_mem(base);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (me == 0) {
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(v, &len);
    printf("%.*s\n", (int)strcspn(v, "\n"), v);
  }
  int all = argc < 2;
  for (int i = 1; i < argc || all; i++) {
    const char *p = all ? "" : argv[i];
    if (all || !strcmp(p, "procnull")) probe_procnull();
    // Several windows one after the other: MPICH's shared-memory atomics broke on windows made after
    // another was freed (its inter-process mutex; MPICH issue 5750's symptom), not on the first.
    for (int round = 0; round < ROUNDS; round++) {
      if (all || !strcmp(p, "atomics")) probe_atomics(1);
      if (all || !strcmp(p, "atomics-create")) probe_atomics(0);
    }
    if (all) break;
  }
  MPI_Finalize();
  return bugs ? 1 : 0;
}
