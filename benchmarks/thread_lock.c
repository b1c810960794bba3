/*
 * thread_lock.c -- the cost of armci-x's thread serialisation (src/base/thread_lock.h) on the smallest
 * operations: 8-byte ARMCI_Put and ARMCI_Get from rank 0 to the last rank, per operation.
 *
 *   thread_lock [--multiple] [--threads T] [--iters N]
 *
 * Without --multiple, MPI starts at MPI_THREAD_SINGLE: the entry points' guard is one branch on a flag.
 * With --multiple, MPI starts at MPI_THREAD_MULTIPLE and every call takes the process-wide lock; T threads
 * (default 1) of rank 0 then issue operations at once, each to its own 8 bytes.  Run it with ARMCI_SHM=0
 * too (MPI for every target).  Same output format as the other benchmarks (bench_common.h):
 *     RESULT thread_lock <op>_<mode>_t<T> 8 <microseconds per operation, median of 5> us
 * Data is checked (each thread reads back what it wrote); a mismatch exits non-zero.
 */
#include <mpi.h>
#include <armci.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPS 5
#define MAX_THREADS 8

static int me, np, target, nthreads = 1, iters = 20000, multiple = 0;
static void **bases;
static long failures = 0;
static pthread_barrier_t start_line;

struct job {
  int t;
  int get; /* 0: put, 1: get */
  double us;
};

static double now_us(void) { return MPI_Wtime() * 1e6; }

static void *worker(void *arg)
{
  struct job *j = arg;
  long *remote = (long *)bases[target] + j->t;
  long v = 1000 + j->t, back = -1;
  pthread_barrier_wait(&start_line);
  double t0 = now_us();
  for (int i = 0; i < iters; ++i) {
    if (j->get)
      ARMCI_Get(remote, &back, sizeof back, target);
    else
      ARMCI_Put(&v, remote, sizeof v, target);
  }
  j->us = (now_us() - t0) / iters;
  ARMCI_Fence(target);
  ARMCI_Get(remote, &back, sizeof back, target);
  if (back != v) {
    fprintf(stderr, "CHECK FAILED thread %d read %ld, wrote %ld\n", j->t, back, v);
    __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
  }
  return NULL;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--multiple")) multiple = 1;
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) nthreads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
  }
  if (nthreads < 1 || nthreads > MAX_THREADS) nthreads = 1;
  if (!multiple) nthreads = 1; /* concurrent calls need MPI_THREAD_MULTIPLE */
  int provided;
  MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  target = np - 1;
  bases = malloc(sizeof(void *) * np);
  ARMCI_Malloc(bases, sizeof(long) * MAX_THREADS);
  if (me == 0)
    printf("# thread_lock: MPI thread level %d, %d thread(s), %d iterations, 8-byte ops rank 0 -> %d\n", provided,
           nthreads, iters, target);
  for (int get = 0; get <= 1; ++get) {
    double per_rep[REPS];
    for (int rep = 0; rep < REPS; ++rep) {
      ARMCI_Barrier();
      if (me == 0) {
        pthread_t th[MAX_THREADS];
        struct job jobs[MAX_THREADS];
        pthread_barrier_init(&start_line, NULL, (unsigned)nthreads);
        for (int t = 0; t < nthreads; ++t) {
          jobs[t] = (struct job){t, get, 0};
          if (nthreads == 1) worker(&jobs[t]);
          else pthread_create(&th[t], NULL, worker, &jobs[t]);
        }
        double worst = 0;
        for (int t = 0; t < nthreads; ++t) {
          if (nthreads > 1) pthread_join(th[t], NULL);
          if (jobs[t].us > worst) worst = jobs[t].us;
        }
        pthread_barrier_destroy(&start_line);
        per_rep[rep] = worst; /* the slowest thread: what the concurrent phase cost per operation */
      }
      ARMCI_Barrier();
    }
    if (me == 0) {
      qsort(per_rep, REPS, sizeof(double), cmp_double);
      printf("RESULT thread_lock %s_%s_t%d 8 %.4f us\n", get ? "get" : "put", multiple ? "multiple" : "single",
             nthreads, per_rep[REPS / 2]);
    }
  }
  ARMCI_Free(bases[me]);
  free(bases);
  ARMCI_Finalize();
  MPI_Finalize();
  return failures ? 1 : 0;
}
