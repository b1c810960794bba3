/* Runs one bad-input case with ARMCI's default error handling (no handler installed): ARMCI_Error must
 * print a message naming the call and the argument (or the disagreeing processes) and abort the whole
 * job, never hang or crash.  The test driver (tests/errors/run_abort_cases.sh) checks the exit status,
 * the message and the time bound.
 * Usage: abort_case CASE   (the cases are the strcmp()s below) */
#include <armci.h>
#include <dirent.h>
#include <fcntl.h>
#include <message.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <unistd.h>

static int is(const char* c, const char* name) {
  return strcmp(c, name) == 0;
}

/* The highest file descriptor open in this process. */
static int highest_fd(void) {
  int high = 2;
  DIR* d = opendir("/proc/self/fd");
  if (!d) return high;
  const int own = dirfd(d);
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    const int fd = atoi(e->d_name);
    if (fd != own && fd > high) high = fd;
  }
  closedir(d);
  return high;
}

/* What armci-x takes a node to hold (src/topo/nodes.cc): RAM + swap, and with the node-local path the size
 * of /dev/shm if that is less. */
static long long node_limit(void) {
  struct sysinfo si;
  long long cap = 0;
  if (sysinfo(&si) == 0) cap = ((long long)si.totalram + (long long)si.totalswap) * (si.mem_unit ? si.mem_unit : 1);
  const char* shm = getenv("ARMCI_SHM");
  struct statvfs vfs;
  if (!(shm && strcmp(shm, "0") == 0) && statvfs("/dev/shm", &vfs) == 0) {
    const long long bytes = (long long)vfs.f_blocks * (long long)vfs.f_frsize;
    if (bytes > 0 && bytes < cap) cap = bytes;
  }
  return cap;
}

/* This process's address space in bytes (/proc/self/statm: pages). */
static long long address_space(void) {
  long long pages = 0;
  FILE* f = fopen("/proc/self/statm", "r");
  if (f) {
    if (fscanf(f, "%lld", &pages) != 1) pages = 0;
    fclose(f);
  }
  return pages * sysconf(_SC_PAGESIZE);
}

/* Sets a soft resource limit (the hard one stays). */
static void limit(int resource, long long value) {
  struct rlimit l;
  getrlimit(resource, &l);
  l.rlim_cur = (rlim_t)value;
  if (setrlimit(resource, &l) != 0) perror("abort_case: setrlimit");
}

int main(int argc, char** argv) {
  const char* c = argc > 1 ? argv[1] : "";
  /* How MPI starts: past armci-x's MPI_Init wrapper (as Open MPI's Fortran MPI_INIT does), at a thread level
     below MPI_THREAD_MULTIPLE, or plainly. */
  int provided = -1;
  if (is(c, "armci_starts_mpi")) { /* no MPI_Init: ARMCI_Init starts MPI (and asks for the thread level) */
    ARMCI_Init();
    ARMCI_Barrier();
    ARMCI_Finalize(); /* finalizes MPI too */
    printf("abort_case: no error raised\n");
    return 3;
  }
  if (is(c, "progress_thread_off"))
    PMPI_Init(&argc, &argv);
  else if (is(c, "progress_thread_funneled"))
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  else
    MPI_Init(&argc, &argv);
  if (provided >= 0) printf("abort_case: MPI_Init_thread provided %d\n", provided);
  if (is(c, "not_initialized")) {
    void* ptrs[64];
    ARMCI_Malloc(ptrs, 8); /* before ARMCI_Init */
  }
  int me, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  /* A setting that must agree, different on one rank (the environment of mpiexec is everyone's). */
  if (is(c, "shm_differs") && me == 1) {
    const char* shm = getenv("ARMCI_SHM");
    setenv("ARMCI_SHM", shm && strcmp(shm, "0") == 0 ? "1" : "0", 1);
  }
  /* Explicit values on both ranks: the default differs between MPI libraries (1 on Open MPI). */
  if (is(c, "window_kind_differs")) setenv("ARMCI_USE_WIN_ALLOCATE", me == 1 ? "1" : "0", 1);
  /* Without the collective check, nothing stops ranks freeing different allocations in one ARMCI_Free. */
  if (is(c, "free_null_unknown_nocheck")) setenv("ARMCI_CHECK_COLLECTIVES", "0", 1);
  if (is(c, "free_one_rank_timeout") || is(c, "first_check_one_rank_timeout"))
    setenv("ARMCI_COLLECTIVE_TIMEOUT", "3", 1);
  /* Progress ranks: as many as the node has processes (2 here), a negative count, different counts. */
  if (is(c, "progress_ranks_all")) setenv("ARMCI_PROGRESS_RANKS", "2", 1);
  if (is(c, "progress_ranks_negative")) setenv("ARMCI_PROGRESS_RANKS", "-1", 1);
  if (is(c, "progress_ranks_differ")) setenv("ARMCI_PROGRESS_RANKS", me == 1 ? "1" : "0", 1);
  /* ARMCI_MPI_YIELD: blocking and non-blocking forms of one collective do not match. */
  if (is(c, "mpi_yield_differs")) setenv("ARMCI_MPI_YIELD", me == 1 ? "1" : "0", 1);
  if (is(c, "mpi_yield_bad")) setenv("ARMCI_MPI_YIELD", "sometimes", 1);
  /* ARMCI_MPI_YIELD_TIMER_SIGNAL: SIGUSR1 is no real-time signal (rejected even with the timer off). */
  if (is(c, "yield_timer_signal_not_rt")) {
    setenv("ARMCI_MPI_YIELD_TIMER_SIGNAL", "10", 1);
    setenv("ARMCI_MPI_YIELD_TIMER_US", "0", 1);
  }
  /* ARMCI_NODES_FROM_MPI: one rank asking MPI for its nodes, the other not, would make different collectives. */
  if (is(c, "nodes_from_mpi_differs")) setenv("ARMCI_NODES_FROM_MPI", me == 1 ? "1" : "0", 1);
  if (is(c, "nodes_from_mpi_bad")) setenv("ARMCI_NODES_FROM_MPI", "maybe", 1);
  /* A pooled block larger than the pool's capacity. */
  if (is(c, "pool_block_beyond_capacity")) {
    setenv("ARMCI_POOL_MB", "2", 1);
    setenv("ARMCI_POOL_BLOCK_KB", "4096", 1);
  }
  /* ARMCI_NODE_SYNC: a shared-memory barrier never meets an MPI one; the gathers check who took part. */
  if (is(c, "node_sync_differs")) setenv("ARMCI_NODE_SYNC", me == 1 ? "1" : "0", 1);
  if (is(c, "node_sync_free_vs_msg_barrier") || is(c, "node_sync_free_vs_gop")) setenv("ARMCI_NODE_SYNC", "1", 1);
  if (is(c, "progress_ranks_shm0")) { /* progress ranks serve shared-memory segments: not without them */
    setenv("ARMCI_SHM", "0", 1);
    setenv("ARMCI_PROGRESS_RANKS", "1", 1);
  }
  if (is(c, "progress_ranks_reinit")) { /* the progress ranks finalize MPI with the first ARMCI_Finalize */
    setenv("ARMCI_SHM", "1", 1);
    setenv("ARMCI_PROGRESS_RANKS", "1", 1);
    ARMCI_Init();
    ARMCI_Finalize();
  }
  /* Not an abort: a program rank that calls PMPI_Finalize itself skips the meeting with the progress ranks in
   * armci-x's MPI_Finalize; they wait ARMCI_PROGRESS_RANKS_MEETING_S (1 s here instead of 60), say so and
   * finalize alone, and the job ends normally (run_abort_cases.sh: check_ends_normally). */
  if (is(c, "progress_ranks_pmpi_finalize")) {
    setenv("ARMCI_SHM", "1", 1);
    setenv("ARMCI_PROGRESS_RANKS", "1", 1);
    setenv("ARMCI_PROGRESS_RANKS_MEETING_S", "1", 1);
    ARMCI_Init();
    ARMCI_Finalize();
    PMPI_Finalize();
    return 0;
  }
  /* Progress ranks' shared-memory segments (progress/proxy_segments.cc: proxy_segment_create), refused by
   * the system for real: 4 processes as 2 simulated nodes of 1 program rank + 1 progress rank, so that every
   * allocation spans nodes and lives in such segments.  The limits are set on the program ranks after
   * ARMCI_Init (a file-size limit: ftruncate fails; descriptors: shm_open fails) or, for the progress ranks
   * (world ranks 1 and 3, which run no program code after ARMCI_Init), before it (address space: their mmap
   * of the program rank's segment fails). */
  const int segment_case =
      is(c, "progress_segment_fsize") || is(c, "progress_segment_nofile") || is(c, "progress_segment_proxy_as");
  if (segment_case) {
    setenv("ARMCI_SHM", "1", 1);
    setenv("ARMCI_PROGRESS_RANKS", "1", 1);
    setenv("ARMCI_NODE_SIZE", "2", 1);
  }
  if (is(c, "progress_segment_proxy_as") && me % 2 == 1) limit(RLIMIT_AS, address_space() + (64LL << 20));
  ARMCI_Init();
  if (is(c, "progress_segment_fsize")) {
    signal(SIGXFSZ, SIG_IGN); /* ftruncate then fails with EFBIG instead of killing the process */
    limit(RLIMIT_FSIZE, 4096);
  }
  if (is(c, "progress_segment_nofile")) { /* no descriptor left: fill the gaps below the limit */
    limit(RLIMIT_NOFILE, highest_fd() + 1);
    while (open("/dev/null", O_RDONLY) >= 0) {
    }
  }
  /* The first checked collective also makes the checks' duplicate of the world (checks/collective_check.cc):
   * a process that never comes must be named by the timeout there too, not hang the duplicate. */
  if (is(c, "first_check_one_rank_timeout")) {
    if (me == 0) ARMCI_Barrier();
    sleep(60); /* rank 1 never calls an ARMCI collective */
  }
  void* ptrs[64];
  if (is(c, "progress_segment_fsize") || is(c, "progress_segment_nofile")) ARMCI_Malloc(ptrs, 1 << 20);
  if (is(c, "progress_segment_proxy_as")) ARMCI_Malloc(ptrs, 256 << 20);
  ARMCI_Malloc(ptrs, 64);
  double buf[8] = {0};
  void* garbage = (void*)(uintptr_t)0xABABABABABABABABull;
  void* wrapping = (void*)(~(uintptr_t)0 - 7);
  int t = n - 1; /* a peer: on one node, the node-local path; with ARMCI_SHM=0, MPI */
  if (me == 0) {
    if (is(c, "put_bad_rank")) ARMCI_Put(buf, ptrs[0], 8, n + 5);
    if (is(c, "get_unallocated")) ARMCI_Get(buf + 1, buf, 8, n - 1);
    if (is(c, "acc_bad_type")) {
      double one = 1.0;
      ARMCI_Acc(42, &one, buf, ptrs[n - 1], 8, n - 1);
    }
    if (is(c, "put_wrapping")) ARMCI_Put(buf, wrapping, 64, t);
    if (is(c, "put_garbage")) ARMCI_Put(buf, garbage, 64, t);
    if (is(c, "get_garbage")) ARMCI_Get(garbage, buf, 64, t);
    if (is(c, "rmw_garbage")) {
      int loc = 0;
      ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &loc, (void*)(uintptr_t)0xABABABABABABABA8ull, 1, t);
    }
    if (is(c, "rmw_bad_op")) {
      int loc = 0;
      ARMCI_Rmw(43, &loc, ptrs[t], 1, t); /* the operations are 0-3 (enum ARMCI_Rmw_e) */
    }
    if (is(c, "puts_garbage")) {
      int count[2] = {8, 4}, stride[1] = {16};
      ARMCI_PutS(buf, stride, garbage, stride, count, 1, t);
    }
    if (is(c, "put_flag_bad_flag")) {
      int flag = 0;
      ARMCI_Put_flag(buf, ptrs[t], 8, &flag, 1, t);
    }
  }
  /* Huge allocations: 16 TiB on every rank, or on one rank only. */
  if (is(c, "malloc_huge")) ARMCI_Malloc(ptrs + 32, (armci_size_t)1 << 44);
  if (is(c, "malloc_huge_one_rank")) ARMCI_Malloc(ptrs + 32, me == 0 ? (armci_size_t)1 << 44 : 64);
  /* Each slice fits the node alone, the two on one node do not. */
  if (is(c, "malloc_node_sum")) {
    if (!ARMCI_Same_node(1 - me)) {
      fprintf(stderr, "abort_case malloc_node_sum: needs both ranks on one node\n");
      exit(3);
    }
    ARMCI_Malloc(ptrs + 32, (armci_size_t)(node_limit() / 2 + (1 << 20)));
  }
  if (is(c, "malloc_local_huge") && me == 0) ARMCI_Malloc_local((armci_size_t)1 << 44);
  /* Mismatched collectives. */
  if (is(c, "free_one_rank_only")) {
    if (me == 0) ARMCI_Free(ptrs[me]);
    ARMCI_Finalize(); /* rank 1 goes straight on */
  }
  if (is(c, "free_one_rank_timeout")) {
    if (me == 0) ARMCI_Free(ptrs[me]);
    sleep(60); /* rank 1 computes on and never calls another ARMCI collective */
  }
  if (is(c, "free_different_allocations")) {
    void* second[64];
    ARMCI_Malloc(second, 64);
    ARMCI_Free(me == 0 ? ptrs[me] : second[me]);
  }
  /* Rank 1 frees B while rank 0 frees A (unchecked, both proceed), then passes NULL while rank 0 frees B: the
   * region the others name is no longer known on rank 1. */
  if (is(c, "free_null_unknown_nocheck")) {
    void* second[64];
    ARMCI_Malloc(second, 64);
    ARMCI_Free(me == 0 ? ptrs[me] : second[me]);
    ARMCI_Free(me == 0 ? second[me] : NULL);
  }
  if (is(c, "group_create_different_lists")) {
    ARMCI_Group g;
    int list0[1] = {0}, list_all[2] = {0, 1};
    if (me == 0)
      ARMCI_Group_create(1, list0, &g);
    else
      ARMCI_Group_create(2, list_all, &g);
  }
  if (is(c, "free_vs_barrier")) {
    if (me == 0)
      ARMCI_Free(ptrs[me]);
    else
      ARMCI_Barrier();
  }
  if (is(c, "node_sync_free_vs_msg_barrier")) {
    if (me == 0)
      ARMCI_Free(ptrs[me]);
    else
      armci_msg_barrier();
  }
  if (is(c, "node_sync_free_vs_gop")) { /* a gop as large as the agreement's record: told apart by its kind */
    double x[7] = {0};
    if (me == 0)
      ARMCI_Free(ptrs[me]);
    else
      armci_msg_dgop(x, 7, "+");
  }
  if (is(c, "mutexes_vs_malloc")) {
    if (me == 0)
      ARMCI_Create_mutexes(1);
    else
      ARMCI_Malloc(ptrs + 32, 8);
  }
  /* Only reached if no error was raised; rank != 0 would wait here forever without the abort. */
  ARMCI_Barrier();
  if (me == 0) printf("abort_case %s: no error raised\n", c);
  ARMCI_Free(ptrs[me]);
  ARMCI_Finalize();
  MPI_Finalize();
  return 3;
}
