/* Open MPI 5's osc ucx with a second thread in MPI (no ARMCI): one thread makes one-sided calls on a window
 * that spans hosts while another polls MPI_Iprobe, as armci-x's progress thread does (and GA's threaded tests
 * make one-sided calls from OpenMP threads).  Seen on Open MPI 5.0.7 + UCX 1.18 across simulated hosts
 * (2026-11-29): UCX aborts with "Assertion `ucs_async_check_owner_thread(&(worker)->async)' failed".
 *   mpicc.openmpi -O1 -pthread tools/repro/ompi-ucx-threads.c -o /tmp/ouct
 *   tools/simhosts.sh --mpi openmpi --hosts 2 -n 4 /tmp/ouct          # "ouct: ok" or UCX's abort
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static volatile int done;

static void* poller(void* arg) {
  (void)arg;
  while (!done) {
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  }
  return NULL;
}

int main(int argc, char** argv) {
  int provided, me, n;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided != MPI_THREAD_MULTIPLE) {
    printf("ouct: MPI_THREAD_MULTIPLE not provided\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  long* base;
  MPI_Win win;
  MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  *base = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  pthread_t t;
  pthread_create(&t, NULL, poller, NULL);
  MPI_Win_lock_all(0, win);
  long one = 1, old;
  for (int i = 0; i < 2000; ++i) {
    MPI_Fetch_and_op(&one, &old, MPI_LONG, (me + 1 + i) % n, 0, MPI_SUM, win);
    MPI_Win_flush((me + 1 + i) % n, win);
  }
  MPI_Win_unlock_all(win);
  done = 1;
  pthread_join(t, NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  long sum = 0;
  MPI_Allreduce(base, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) printf(sum == 2000L * n ? "ouct: ok (%ld)\n" : "ouct: WRONG sum %ld\n", sum);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
