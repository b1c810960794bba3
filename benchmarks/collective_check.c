/*
 * collective_check.c -- the cost of ARMCI_CHECK_COLLECTIVES (doc/user-guide.md).
 *
 * Times, per call, ARMCI_Malloc + ARMCI_Free of 64 KiB, ARMCI_Barrier, and Global Arrays'
 * NGA_Create + GA_Destroy of a 64 x 64 double array (each GA create/destroy is an ARMCI_Malloc/Free
 * pair plus GA's own collectives).  Run it with the check off and on, alternately:
 *
 *   mpicc.mpich collective_check.c -o cc_bench -lga-mpich <armci-x>/libarmci.a -lstdc++ \
 *       /usr/lib/x86_64-linux-gnu/libscalapack-mpich.so.2.2 -llapack -lblas -lgfortran -lm
 *   for i in 1 2 3; do for c in 0 1; do ARMCI_CHECK_COLLECTIVES=$c mpiexec.mpich -n 2 ./cc_bench; done; done
 *
 * Prints one line per operation on rank 0: "RESULT collective_check <op> <check> <median us per call>".
 */
#include <ga.h>
#include <macdecls.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <armci.h>

#define REPS 7

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double median(double* v, int n) {
  qsort(v, n, sizeof *v, cmp);
  return v[n / 2];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  int me = GA_Nodeid(), np = GA_Nnodes();
  const char* env = getenv("ARMCI_CHECK_COLLECTIVES");
  const char* check = env && *env ? env : "default";
  void** ptrs = malloc(sizeof(void*) * np);
  double t[REPS];
  const int iters = argc > 1 ? atoi(argv[1]) : 2000;

  for (int r = 0; r < REPS; ++r) {
    ARMCI_Barrier();
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) {
      ARMCI_Malloc(ptrs, 65536);
      ARMCI_Free(ptrs[me]);
    }
    t[r] = (MPI_Wtime() - t0) / iters * 1e6;
  }
  if (me == 0) printf("RESULT collective_check malloc_free_64k %s %.2f us\n", check, median(t, REPS));

  for (int r = 0; r < REPS; ++r) {
    ARMCI_Barrier();
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters * 5; ++i) ARMCI_Barrier();
    t[r] = (MPI_Wtime() - t0) / (iters * 5) * 1e6;
  }
  if (me == 0) printf("RESULT collective_check barrier %s %.2f us\n", check, median(t, REPS));

  int dims[2] = {64, 64};
  for (int r = 0; r < REPS; ++r) {
    GA_Sync();
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters / 2; ++i) {
      int g = NGA_Create(C_DBL, 2, dims, "bench", NULL);
      GA_Destroy(g);
    }
    t[r] = (MPI_Wtime() - t0) / (iters / 2) * 1e6;
  }
  if (me == 0) printf("RESULT collective_check ga_create_destroy %s %.2f us\n", check, median(t, REPS));

  free(ptrs);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
