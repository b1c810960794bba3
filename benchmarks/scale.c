/*
 * scale.c -- what a process pays as the job grows (issue 30): resident memory per live allocation,
 * ARMCI_Init, new and reused ARMCI_Malloc/ARMCI_Free, ARMCI_Barrier.  Run at 2..64 ranks, on one node
 * and on MPICH cliques (MPIR_CVAR_NUM_CLIQUES=k), by benchmarks/scale.sh; built twice by compare.sh.
 *
 *   scale [--regions N] [--bytes B] [--reps R] [--quick] [--check-only | --memory-only] [--marginal-from K]
 *         [--probe KIND]
 *
 * Memory: one warm-up region is allocated and kept (so that one-time set-up -- node communicators, pools,
 * first windows -- is not charged to the measured ones), then N regions of B bytes (default 32 x 4 KiB)
 * are allocated and every rank writes all of its own slice.  VmRSS (/proc/self/status) and the bytes
 * malloc has handed out (mallinfo2: in-use chunks + mmapped blocks) are read before and after, on every
 * rank; per live allocation:
 *   rss_per_alloc   (delta VmRSS) / N - B        resident bytes beyond the allocation's own data
 *   data_rss_per_alloc  the same as rss_per_alloc from RssAnon + RssShmem: without file-backed pages (library
 *                   code a measured call runs for the first time: 64 KB of libmpich.so's text at 16 ranks)
 *   marginal_rss_per_alloc  data_rss_per_alloc over allocations K..N only (a third reading after K
 *                   allocations; --marginal-from K, default N/2): the slope once one-time costs are paid.
 *                   Resident memory moves in 4 KiB pages, so with N = 32 one page more or less reads as
 *                   128-256 B per allocation.  A range in which the pool adds a segment also holds that
 *                   segment's MPI window, whose state MPI keeps per rank of the node (MPICH 4.0.2: 55 KB
 *                   resident at 4 ranks, 71 KB at 16): scale.sh reads allocations 530..1000 of 4 KiB, which
 *                   all fall in the pool's fourth segment (slices of 512 KiB, 512 KiB, 1 MiB, 2 MiB: blocks
 *                   1-128, 129-256, 257-512, 513-1024 counting the warm-up region).
 *   heap_per_alloc  (delta malloc bytes) / N     the library's and MPI's tables (not page-rounded; exact
 *                   only without glibc's tcache, whose freed chunks mallinfo2 counts as in use: scale.sh
 *                   runs with GLIBC_TUNABLES=glibc.malloc.tcache_count=0)
 * both the mean over ranks (the max over ranks in the human line).  Pages of node peers' slices are
 * never touched by this rank, so they are not resident here.
 *
 * --probe create|shmcreate|shm: no ARMCI at all (ARMCI_Init is not called): N raw MPI windows of B bytes
 * under MPI_Win_lock_all, made as the libraries make them: `create` = MPI_Alloc_mem + MPI_Win_create over
 * the world (ARMCI-MPI with ARMCI_USE_WIN_ALLOCATE=0); `shm` = MPI_Win_allocate_shared over the node;
 * `shmcreate` = both over the same memory (armci-x's region spanning nodes).  The same rows with variant
 * prefix probe_<kind>_: MPI's own cost per window, to split a library's figure into its tables and MPI's.
 * --probe allreduce: N calls of the one collective an ARMCI_Malloc served by a pool makes since 2026-11-28
 * (MPI_Iallreduce of 8 longs, MPI_MAX, on a duplicate of the world: the collective check's agreement).
 * --probe allgather: N calls of the one collective such an ARMCI_Malloc made before (MPI_Iallgather of
 * 24 B per rank on a duplicate of the world), per call: what MPI itself maps as traffic first reaches its
 * peers (MPICH at 64 ranks: ~11-18 KB per call over the first 32-96 calls), which the resident column of a
 * library's run also contains.
 *
 * Times (rank 0 prints; every collective's time is the max over ranks):
 *   init            ARMCI_Init, ms (after MPI_Init, all ranks entering together)
 *   malloc_new      ARMCI_Malloc of a new region (the N measured ones), median us
 *   free_new        ARMCI_Free of those, median us
 *   malloc_free_reused  ARMCI_Malloc + ARMCI_Free of the same size again and again, median us per pair
 *   barrier         ARMCI_Barrier, median us
 *   group_cycle     ARMCI_Group_create (ranks of my parity) + ARMCI_Malloc_group + ARMCI_Free_group +
 *                   ARMCI_Group_free, median us
 * --memory-only: the memory rows and the data check, no times (what scale.sh runs with many regions), and
 * the control cycle_rss_per_call: the data pages that N-K ARMCI_Malloc + ARMCI_Free pairs of the same size
 * add (each freed before the next, so nothing stays live): MPI's buffers reached by traffic, per call.
 * Data check (every mode, and all of --check-only, which prints no times): every rank writes its own
 * slices, then gets its right neighbour's slice of every region and compares, puts a pattern into its
 * left neighbour's slice, ARMCI_Barrier, and compares what its right neighbour put into its own.
 */
#include "bench_common.h"

#include "memory_reading.h"

#define MAX_REGIONS 4096

static double max_over_ranks(double v)
{
    double m;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

static double mean_over_ranks(double v)
{
    double s;
    MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return s / bench_np;
}

static unsigned pattern(int rank, int region, int round, size_t i)
{
    return (unsigned)rank * 2654435761u ^ (unsigned)region * 40503u ^ (unsigned)round * 977u ^ (unsigned)i;
}

/* Bytes per allocation beyond its own `bytes` of data, between two readings n allocations apart (this rank). */
static double growth_per(long before, long after, int n, long bytes)
{
    return (double)(after - before) / n - (double)bytes;
}

/* The same, the mean over ranks (a collective). */
static double per_alloc(long before, long after, int n, long bytes)
{
    return mean_over_ranks(growth_per(before, after, n, bytes));
}

/* Memory rows: mean and max over ranks of (rss, heap) deltas per region. */
static void report_memory(const char *prefix, long rss0, long rss1, long heap0, long heap1, int n, long bytes)
{
    char v[64];
    double rss = growth_per(rss0, rss1, n, bytes), heap = growth_per(heap0, heap1, n, 0);
    double rss_mean = mean_over_ranks(rss), rss_max = max_over_ranks(rss);
    double heap_mean = mean_over_ranks(heap), heap_max = max_over_ranks(heap);
    snprintf(v, sizeof v, "%srss_per_alloc", prefix);
    bench_result("scale", v, bench_np, rss_mean, "B");
    snprintf(v, sizeof v, "%sheap_per_alloc", prefix);
    bench_result("scale", v, bench_np, heap_mean, "B");
    bench_human("%s per live allocation of %ld B, %d live: resident beyond the data %.0f B (max over ranks %.0f), "
                "malloc'd %.0f B (max %.0f)", prefix[0] ? prefix : "armci", bytes, n, rss_mean, rss_max, heap_mean,
                heap_max);
}

/* --probe: MPI's own cost per window, no ARMCI. */
static void probe(const char *kind, int n, long bytes)
{
    MPI_Win win[MAX_REGIONS], shm[MAX_REGIONS];
    void *mem[MAX_REGIONS];
    MPI_Comm node, world;
    char prefix[64];
    int i, do_create = strcmp(kind, "shm") != 0, do_shm = strcmp(kind, "create") != 0;
    long rss0 = 0, rss1, heap0 = 0, heap1;
    MPI_Info info;

    if (strcmp(kind, "create") && strcmp(kind, "shm") && strcmp(kind, "shmcreate") && strcmp(kind, "allgather") &&
        strcmp(kind, "allreduce"))
        bench_fatal(__FILE__, __LINE__, "--probe takes create, shm, shmcreate, allgather or allreduce, not '%s'", kind);
    BENCH_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, bench_me, MPI_INFO_NULL, &node));
    BENCH_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &world));
    if (!strcmp(kind, "allgather") || !strcmp(kind, "allreduce")) { /* a pooled ARMCI_Malloc's collective */
        const int gather = !strcmp(kind, "allgather");
        long mine[8] = {bench_me, 1, 2, 3, 4, 5, 6, 7}, *all = malloc(sizeof(long) * (gather ? 3 * (size_t)bench_np : 8));
        MPI_Request req;
        if (!all)
            bench_fatal(__FILE__, __LINE__, "out of memory");
        for (i = 0; i <= n; i++) { /* call 0: the warm-up, not counted */
            if (i == 1) {
                BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
                rss0 = vm_rss_bytes();
                heap0 = heap_bytes();
            }
            if (gather)
                BENCH_MPI(MPI_Iallgather(mine, 3, MPI_LONG, all, 3, MPI_LONG, world, &req));
            else
                BENCH_MPI(MPI_Iallreduce(mine, all, 8, MPI_LONG, MPI_MAX, world, &req));
            BENCH_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
        BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
        rss1 = vm_rss_bytes();
        heap1 = heap_bytes();
        report_memory(gather ? "probe_allgather_" : "probe_allreduce_", rss0, rss1, heap0, heap1, n, 0);
        free(all);
        MPI_Comm_free(&world);
        MPI_Comm_free(&node);
        return;
    }
    BENCH_MPI(MPI_Info_create(&info));
    BENCH_MPI(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    for (i = 0; i <= n; i++) { /* window 0: the warm-up, not counted */
        if (i == 1) {
            BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
            rss0 = vm_rss_bytes();
            heap0 = heap_bytes();
        }
        if (do_shm) {
            BENCH_MPI(MPI_Win_allocate_shared(bytes, 1, info, node, &mem[i], &shm[i]));
            BENCH_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, shm[i]));
        } else {
            BENCH_MPI(MPI_Alloc_mem(bytes, MPI_INFO_NULL, &mem[i]));
        }
        memset(mem[i], 1, (size_t)bytes);
        if (do_create) {
            BENCH_MPI(MPI_Win_create(mem[i], bytes, 1, MPI_INFO_NULL, world, &win[i]));
            BENCH_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win[i]));
        }
    }
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    rss1 = vm_rss_bytes();
    heap1 = heap_bytes();
    snprintf(prefix, sizeof prefix, "probe_%s_", kind);
    report_memory(prefix, rss0, rss1, heap0, heap1, n, bytes);
    for (i = n; i >= 0; i--) {
        if (do_create) {
            BENCH_MPI(MPI_Win_unlock_all(win[i]));
            BENCH_MPI(MPI_Win_free(&win[i]));
        }
        if (do_shm) {
            BENCH_MPI(MPI_Win_unlock_all(shm[i]));
            BENCH_MPI(MPI_Win_free(&shm[i]));
        } else {
            BENCH_MPI(MPI_Free_mem(mem[i]));
        }
    }
    MPI_Info_free(&info);
    MPI_Comm_free(&world);
    MPI_Comm_free(&node);
}

/* Every rank checks, for every region, its right neighbour's slice (what that rank wrote locally), then
 * puts a pattern into its left neighbour's slice; after ARMCI_Barrier its own slice holds its right
 * neighbour's pattern. */
static void check_data(void ***ptrs, int n, long bytes, int round)
{
    const int right = (bench_me + 1) % bench_np, left = (bench_me + bench_np - 1) % bench_np;
    const size_t words = (size_t)bytes / sizeof(unsigned);
    unsigned *buf = (unsigned *)malloc((size_t)bytes);
    int i;
    size_t w;
    if (!buf)
        bench_fatal(__FILE__, __LINE__, "malloc failed");
    ARMCI_Barrier();
    for (i = 0; i < n; i++) {
        BENCH_ARMCI(ARMCI_Get(ptrs[i][right], buf, (int)bytes, right));
        for (w = 0; w < words; w++)
            if (!bench_check(buf[w] == pattern(right, i, round, w),
                             "round %d region %d: word %zu of rank %d's slice is %u, expected %u", round, i, w, right,
                             buf[w], pattern(right, i, round, w)))
                break;
    }
    ARMCI_Barrier(); /* every rank has read its neighbour's slices before they are overwritten */
    for (i = 0; i < n; i++) {
        for (w = 0; w < words; w++)
            buf[w] = pattern(bench_me, i, round + 1, w);
        BENCH_ARMCI(ARMCI_Put(buf, ptrs[i][left], (int)bytes, left));
    }
    ARMCI_Barrier();
    for (i = 0; i < n; i++) {
        const unsigned *mine = (const unsigned *)ptrs[i][bench_me];
        for (w = 0; w < words; w++)
            if (!bench_check(mine[w] == pattern(right, i, round + 1, w),
                             "round %d region %d: word %zu of my slice is %u after rank %d's put, expected %u", round,
                             i, w, mine[w], right, pattern(right, i, round + 1, w)))
                break;
    }
    /* back to "every rank's slice holds its own pattern of round + 2" for the next round */
    for (i = 0; i < n; i++) {
        unsigned *mine = (unsigned *)ptrs[i][bench_me];
        for (w = 0; w < words; w++)
            mine[w] = pattern(bench_me, i, round + 2, w);
    }
    ARMCI_Barrier();
    free(buf);
}

static void fill_own(void **p, int region, long bytes, int round)
{
    unsigned *mine = (unsigned *)p[bench_me];
    size_t w;
    for (w = 0; w < (size_t)bytes / sizeof(unsigned); w++)
        mine[w] = pattern(bench_me, region, round, w);
}

int main(int argc, char **argv)
{
    int n = 32, reps = 0, check_only = 0, memory_only = 0, i, r, provided, half = -1;
    long bytes = 4096;
    const char *probe_kind = NULL;
    static void **ptrs[MAX_REGIONS];
    static double t_malloc[MAX_REGIONS], t_free[MAX_REGIONS];
    double t0, t_init, times[BENCH_MAX_REPS];
    long rss0, rss1, data0, data1, data_half = -1, heap0, heap1;
    void **warm;

    bench_name = "scale";
    BENCH_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &bench_me);
    MPI_Comm_size(MPI_COMM_WORLD, &bench_np);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            bench_quick = 1;
        else if (!strcmp(argv[i], "--check-only"))
            check_only = 1;
        else if (!strcmp(argv[i], "--memory-only"))
            memory_only = check_only = 1;
        else if (!strcmp(argv[i], "--marginal-from") && i + 1 < argc)
            half = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--regions") && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--bytes") && i + 1 < argc)
            bytes = atol(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--probe") && i + 1 < argc)
            probe_kind = argv[++i];
        else
            bench_fatal(__FILE__, __LINE__,
                        "unknown argument '%s' (usage: scale [--regions N] [--bytes B] [--reps R] [--quick] "
                        "[--check-only | --memory-only] [--marginal-from K] "
                        "[--probe create|shm|shmcreate|allgather|allreduce])",
                        argv[i]);
    }
    if (n < 1 || n > MAX_REGIONS || bytes < 64 || bytes % sizeof(unsigned))
        bench_fatal(__FILE__, __LINE__, "--regions must be 1..%d and --bytes a multiple of 4, >= 64", MAX_REGIONS);
    bench_reps = reps > 0 ? reps : (bench_quick ? 3 : 7);
    if (bench_reps > BENCH_MAX_REPS)
        bench_reps = BENCH_MAX_REPS;
    if (bench_me == 0)
        printf("# scale: %d rank(s), %d live regions of %ld B, %s\n", bench_np, n, bytes,
               probe_kind ? "raw MPI probe" : memory_only ? "memory" : check_only ? "data checks only" : "memory and times");
    if (probe_kind) {
        probe(probe_kind, n, bytes);
        if (bench_me == 0)
            printf("# scale: all data checks passed\n");
        MPI_Finalize();
        return 0;
    }

    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    t0 = bench_now();
    BENCH_ARMCI(ARMCI_Init());
    t_init = max_over_ranks(bench_now() - t0);

    warm = bench_armci_malloc(bytes); /* kept: one-time set-up is not charged to the measured regions */
    ARMCI_Barrier();
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* The program's own pointer tables (8 B per rank each) are made, and written, before the first reading:
     * not the library's cost.  calloc hands out fresh heap pages without touching them, so until 2026-11-28
     * ARMCI_Malloc's first write to them was read as the library's: 512 B per allocation at 64 ranks. */
    for (i = 0; i < n; i++) {
        if (!(ptrs[i] = (void **)malloc(sizeof(void *) * (size_t)bench_np)))
            bench_fatal(__FILE__, __LINE__, "malloc failed");
        memset(ptrs[i], 0xff, sizeof(void *) * (size_t)bench_np);
    }
    if (half < 0)
        half = n / 2;
    if (half >= n)
        bench_fatal(__FILE__, __LINE__, "--marginal-from must be below --regions");
    rss0 = vm_rss_bytes();
    data0 = data_rss_bytes();
    heap0 = heap_bytes();
    for (i = 0; i < n; i++) {
        if (i == half && half > 0) { /* the marginal reading: the slope over allocations K..N */
            BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
            data_half = data_rss_bytes();
        }
        BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
        t0 = bench_now();
        BENCH_ARMCI(ARMCI_Malloc(ptrs[i], (armci_size_t)bytes));
        t_malloc[i] = bench_now() - t0;
        fill_own(ptrs[i], i, bytes, 0);
    }
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    rss1 = vm_rss_bytes();
    data1 = data_rss_bytes();
    heap1 = heap_bytes();
    ARMCI_Barrier();
    check_data(ptrs, n, bytes, 0);

    if (!check_only || memory_only) {
        report_memory("", rss0, rss1, heap0, heap1, n, bytes);
        if (data0 >= 0 && data1 >= 0) {
            bench_result("scale", "data_rss_per_alloc", bench_np, per_alloc(data0, data1, n, bytes), "B");
            if (half > 0 && data_half >= 0)
                bench_result("scale", "marginal_rss_per_alloc", bench_np, per_alloc(data_half, data1, n - half, bytes),
                             "B");
        }
    }
    if (memory_only && data1 >= 0) {
        /* The control: as many ARMCI_Malloc + ARMCI_Free of the same size, each given back before the next
         * (the same pool block and heap chunks again: nothing stays).  What resident memory still grows is
         * MPI's message buffers as traffic reaches them, a function of the calls made, not of what is live. */
        long data2, heap2;
        const long data_before = data_rss_bytes(), heap_before = heap_bytes(); /* after check_data's peer pages */
        for (i = 0; i < n - half; i++) {
            void **p = bench_armci_malloc(bytes);
            bench_armci_free(p);
            BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
        }
        data2 = data_rss_bytes();
        heap2 = heap_bytes();
        bench_result("scale", "cycle_rss_per_call", bench_np, per_alloc(data_before, data2, n - half, 0), "B");
        bench_result("scale", "cycle_heap_per_call", bench_np, per_alloc(heap_before, heap2, n - half, 0), "B");
    }
    if (!check_only) {
        bench_result("scale", "init", bench_np, t_init * 1e3, "ms");
        for (i = 0; i < n; i++)
            t_malloc[i] = max_over_ranks(t_malloc[i]);
        bench_result("scale", "malloc_new", bench_np, bench_median(t_malloc, n < BENCH_MAX_REPS ? n : BENCH_MAX_REPS) * 1e6,
                     "us");
        for (r = 0; r < bench_reps; r++) {
            const int k = 10;
            BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
            t0 = bench_now();
            for (i = 0; i < k; i++)
                ARMCI_Barrier();
            times[r] = max_over_ranks((bench_now() - t0) / k);
        }
        bench_result("scale", "barrier", bench_np, bench_median(times, bench_reps) * 1e6, "us");
        for (r = 0; r < bench_reps; r++) {
            void **p;
            BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
            t0 = bench_now();
            p = bench_armci_malloc(bytes);
            bench_armci_free(p);
            times[r] = max_over_ranks(bench_now() - t0);
        }
        bench_result("scale", "malloc_free_reused", bench_np, bench_median(times, bench_reps) * 1e6, "us");
        /* A short-lived group: ARMCI_Group_create (the ranks of my parity), ARMCI_Malloc_group of B bytes,
         * ARMCI_Free_group, ARMCI_Group_free -- what a library that keeps state per member set (armci-x's pool)
         * pays again when the group goes. */
        {
            int *list = malloc(sizeof(int) * (size_t)bench_np), m = 0, grank;
            void **gp = malloc(sizeof(void *) * (size_t)bench_np);
            ARMCI_Group grp;
            if (!list || !gp)
                bench_fatal(__FILE__, __LINE__, "out of memory");
            for (i = bench_me % 2; i < bench_np; i += 2)
                list[m++] = i;
            for (r = -1; r < bench_reps; r++) { /* r = -1: warm-up */
                BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
                t0 = bench_now();
                ARMCI_Group_create(m, list, &grp);
                ARMCI_Group_rank(&grp, &grank);
                if (ARMCI_Malloc_group(gp, bytes, &grp) != 0)
                    bench_fatal(__FILE__, __LINE__, "ARMCI_Malloc_group failed");
                ARMCI_Free_group(gp[grank], &grp);
                ARMCI_Group_free(&grp);
                if (r >= 0)
                    times[r] = max_over_ranks(bench_now() - t0);
            }
            bench_result("scale", "group_cycle", bench_np, bench_median(times, bench_reps) * 1e6, "us");
            free(gp);
            free(list);
        }
    } else {
        /* a free and a reused allocation are checked too */
        bench_armci_free(ptrs[0]);
        ptrs[0] = bench_armci_malloc(bytes);
        fill_own(ptrs[0], 0, bytes, 2);
        for (i = 1; i < n; i++)
            fill_own(ptrs[i], i, bytes, 2);
        check_data(ptrs, n, bytes, 2);
    }
    for (i = n - 1; i >= 0; i--) {
        BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
        t0 = bench_now();
        bench_armci_free(ptrs[i]);
        t_free[i] = bench_now() - t0;
    }
    if (!check_only) {
        for (i = 0; i < n; i++)
            t_free[i] = max_over_ranks(t_free[i]);
        bench_result("scale", "free_new", bench_np, bench_median(t_free, n < BENCH_MAX_REPS ? n : BENCH_MAX_REPS) * 1e6,
                     "us");
    }
    bench_armci_free(warm);
    return bench_finish();
}
