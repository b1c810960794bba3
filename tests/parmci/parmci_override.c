/*
 * PARMCI profiling interface: this program defines its own ARMCI_Put, which counts the call and forwards
 * it to PARMCI_Put, the way a tracing tool does.  The library's ARMCI_Put is a weak alias of PARMCI_Put,
 * so this definition must take over every ARMCI_Put call of the program, both when it is linked against
 * libarmci.so and against libarmci.a (tests/Makefile.mk builds it both ways).
 *
 * Usage: parmci_override --expect=shared|static   (checks how libarmci was linked: /proc/self/maps)
 * Every rank puts into its right neighbour's slice; prints "N passed, N failed" (summed over ranks).
 */
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kPuts = 5, kInts = 16 };

static int g_put_calls = 0;

int ARMCI_Put(void* src, void* dst, int bytes, int proc) {
  ++g_put_calls;
  return PARMCI_Put(src, dst, bytes, proc);
}

static int g_me, g_passed, g_failed;

static void check(int ok, const char* what) {
  if (ok) {
    ++g_passed;
  } else {
    ++g_failed;
    fprintf(stderr, "[rank %d] FAIL: %s\n", g_me, what);
  }
}

/* 1 if libarmci.so is mapped into this process. */
static int shared_libarmci_loaded(void) {
  FILE* f = fopen("/proc/self/maps", "r");
  char line[4096];
  int found = 0;
  if (!f) return -1;
  while (fgets(line, sizeof line, f))
    if (strstr(line, "/libarmci.so")) found = 1;
  fclose(f);
  return found;
}

int main(int argc, char** argv) {
  const char* expect = NULL;
  int nproc, i, right, left, total[2], mine[2];
  void** ptrs;
  int *slice, data[kInts], extra = -1;

  MPI_Init(&argc, &argv);
  for (i = 1; i < argc; ++i)
    if (strncmp(argv[i], "--expect=", 9) == 0) expect = argv[i] + 9;
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &g_me);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  right = (g_me + 1) % nproc;
  left = (g_me + nproc - 1) % nproc;

  if (expect) {
    int loaded = shared_libarmci_loaded();
    if (strcmp(expect, "shared") == 0)
      check(loaded == 1, "libarmci.so is mapped (linked against the shared library)");
    else if (strcmp(expect, "static") == 0)
      check(loaded == 0, "libarmci.so is not mapped (linked against the static archive)");
    else
      check(0, "--expect= names 'shared' or 'static'");
  }

  ptrs = malloc(nproc * sizeof(void*));
  ARMCI_Malloc(ptrs, (kPuts * kInts + 1) * sizeof(int));
  slice = ptrs[g_me];
  ARMCI_Access_begin(slice);
  for (i = 0; i < kPuts * kInts + 1; ++i) slice[i] = -1;
  ARMCI_Access_end(slice);
  ARMCI_Barrier();

  for (i = 0; i < kPuts; ++i) {
    int j;
    for (j = 0; j < kInts; ++j) data[j] = 1000 * g_me + 100 * i + j;
    ARMCI_Put(data, (int*)ptrs[right] + i * kInts, kInts * (int)sizeof(int), right);
  }
  /* A direct PARMCI_Put is the implementation itself: it must not go through the override. */
  extra = 77 + g_me;
  PARMCI_Put(&extra, (int*)ptrs[right] + kPuts * kInts, sizeof(int), right);
  ARMCI_Barrier();

  check(g_put_calls == kPuts, "the override saw exactly the ARMCI_Put calls");
  {
    int wrong = 0, j;
    ARMCI_Access_begin(slice);
    for (i = 0; i < kPuts; ++i)
      for (j = 0; j < kInts; ++j) wrong += slice[i * kInts + j] != 1000 * left + 100 * i + j;
    check(wrong == 0, "the data of the overridden ARMCI_Put calls arrived");
    check(slice[kPuts * kInts] == 77 + left, "the data of the direct PARMCI_Put arrived");
    ARMCI_Access_end(slice);
  }
  /* Entry points the program does not override still reach the library through the weak aliases. */
  {
    int back[kInts], j, wrong = 0;
    ARMCI_Get((int*)ptrs[right] + (kPuts - 1) * kInts, back, sizeof back, right);
    for (j = 0; j < kInts; ++j) wrong += back[j] != 1000 * g_me + 100 * (kPuts - 1) + j;
    check(wrong == 0, "ARMCI_Get (not overridden) works");
  }
  ARMCI_Barrier();
  ARMCI_Free(slice);
  free(ptrs);

  mine[0] = g_passed;
  mine[1] = g_failed;
  MPI_Reduce(mine, total, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Bcast(total, 2, MPI_INT, 0, MPI_COMM_WORLD);
  if (g_me == 0) printf("%d passed, %d failed\n", total[0], total[1]);
  ARMCI_Finalize();
  MPI_Finalize();
  return total[1] == 0 && total[0] > 0 ? 0 : 1;
}
