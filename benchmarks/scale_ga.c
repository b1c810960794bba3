/*
 * scale_ga.c -- the Global Arrays side of the scale benchmark (scale.c, issue 30): Debian's prebuilt
 * libga-mpich.a linked in front of the ARMCI under test (benchmarks/compare.sh builds it twice).
 *
 *   scale_ga [--arrays N] [--reps R] [--quick]
 *
 * Rows (rank 0 prints; times are the max over ranks):
 *   ga_rss_per_array   resident bytes per live GA array beyond its data: one warm-up array is created and
 *                      kept, then N 1-D double arrays of 512 elements per rank (4 KiB) are created and every
 *                      rank fills its block; (delta VmRSS) / N - 4096, mean over ranks
 *   ga_heap_per_array  malloc'd bytes per live array (mallinfo2), mean over ranks
 *   ga_create_new      NGA_Create of those arrays, median us
 *   ga_create_destroy  NGA_Create + GA_Destroy of the same shape again and again (GA temporaries), median us
 *   ga_initialize      GA_Initialize (ARMCI_Init and GA's own set-up: its mutexes, groups), ms: start-up as a GA
 *                      program sees it
 *   ga_first_create    the program's first NGA_Create (the ARMCI runtime's first ARMCI_Malloc and whatever it
 *                      sets up lazily), ms
 * Data check: every rank puts a pattern into its right neighbour's block of every array, GA_Sync, reads its
 * own block and compares.
 */
#define BENCH_NO_ARMCI
#include "bench_common.h"

#include "memory_reading.h"

#include "ga.h"
#include "macdecls.h"

#define PER_RANK 512
#define MAX_ARRAYS 1024

static double reduce(double v, MPI_Op op)
{
    double m;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, op, MPI_COMM_WORLD);
    return m;
}

static int create_array(void)
{
    int dims = PER_RANK * bench_np, chunk = PER_RANK;
    int g = NGA_Create(C_DBL, 1, &dims, "scale", &chunk);
    if (!g)
        bench_fatal(__FILE__, __LINE__, "NGA_Create failed");
    return g;
}

int main(int argc, char **argv)
{
    int n = 32, reps = 0, i, r, provided, lo, hi;
    static int arrays[MAX_ARRAYS];
    static double t_create[MAX_ARRAYS];
    double buf[PER_RANK], t0, times[BENCH_MAX_REPS], t_init, t_first;
    long rss0, rss1, heap0, heap1;
    int warm, right = 0;

    bench_name = "scale_ga";
    BENCH_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &bench_me);
    MPI_Comm_size(MPI_COMM_WORLD, &bench_np);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            bench_quick = 1;
        else if (!strcmp(argv[i], "--arrays") && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else
            bench_fatal(__FILE__, __LINE__, "unknown argument '%s' (usage: scale_ga [--arrays N] [--reps R] [--quick])",
                        argv[i]);
    }
    if (n < 1 || n > MAX_ARRAYS)
        bench_fatal(__FILE__, __LINE__, "--arrays must be 1..%d", MAX_ARRAYS);
    bench_reps = reps > 0 ? reps : (bench_quick ? 3 : 7);
    if (bench_reps > BENCH_MAX_REPS)
        bench_reps = BENCH_MAX_REPS;
    right = (bench_me + 1) % bench_np;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = bench_now();
    GA_Initialize();
    t_init = bench_now() - t0;
    if (!MA_init(C_DBL, 100000, 100000))
        bench_fatal(__FILE__, __LINE__, "MA_init failed");
    if (bench_me == 0)
        printf("# scale_ga: %d rank(s), %d live arrays of %d doubles per rank\n", bench_np, n, PER_RANK);

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = bench_now();
    warm = create_array();
    t_first = bench_now() - t0;
    GA_Sync();
    rss0 = vm_rss_bytes();
    heap0 = heap_bytes();
    for (i = 0; i < n; i++) {
        GA_Sync();
        t0 = bench_now();
        arrays[i] = create_array();
        t_create[i] = bench_now() - t0;
        GA_Fill(arrays[i], &(double){1.0});
    }
    GA_Sync();
    rss1 = vm_rss_bytes();
    heap1 = heap_bytes();

    for (i = 0; i < n; i++) {
        int k;
        for (k = 0; k < PER_RANK; k++)
            buf[k] = (double)(bench_me * 100000 + i * 1000 + k % 1000);
        lo = right * PER_RANK;
        hi = lo + PER_RANK - 1;
        NGA_Put(arrays[i], &lo, &hi, buf, NULL);
    }
    GA_Sync();
    for (i = 0; i < n; i++) {
        int k, left = (bench_me + bench_np - 1) % bench_np;
        lo = bench_me * PER_RANK;
        hi = lo + PER_RANK - 1;
        NGA_Get(arrays[i], &lo, &hi, buf, NULL);
        for (k = 0; k < PER_RANK; k++)
            if (!bench_check(buf[k] == (double)(left * 100000 + i * 1000 + k % 1000),
                             "array %d element %d of my block is %g after rank %d's put", i, k, buf[k], left))
                break;
    }

    {
        double rss = (double)(rss1 - rss0) / n - PER_RANK * sizeof(double), heap = (double)(heap1 - heap0) / n;
        double rss_mean = reduce(rss, MPI_SUM) / bench_np, heap_mean = reduce(heap, MPI_SUM) / bench_np;
        bench_result("scale_ga", "ga_rss_per_array", bench_np, rss_mean, "B");
        bench_result("scale_ga", "ga_heap_per_array", bench_np, heap_mean, "B");
        bench_human("per live GA array: resident beyond the data %.0f B (max %.0f), malloc'd %.0f B (max %.0f)",
                    rss_mean, reduce(rss, MPI_MAX), heap_mean, reduce(heap, MPI_MAX));
    }
    bench_result("scale_ga", "ga_initialize", bench_np, reduce(t_init, MPI_MAX) * 1e3, "ms");
    bench_result("scale_ga", "ga_first_create", bench_np, reduce(t_first, MPI_MAX) * 1e3, "ms");
    for (i = 0; i < n; i++)
        t_create[i] = reduce(t_create[i], MPI_MAX);
    bench_result("scale_ga", "ga_create_new", bench_np, bench_median(t_create, n < BENCH_MAX_REPS ? n : BENCH_MAX_REPS) * 1e6,
                 "us");
    for (r = 0; r < bench_reps; r++) {
        int g;
        GA_Sync();
        t0 = bench_now();
        g = create_array();
        GA_Destroy(g);
        times[r] = reduce(bench_now() - t0, MPI_MAX);
    }
    bench_result("scale_ga", "ga_create_destroy", bench_np, bench_median(times, bench_reps) * 1e6, "us");
    for (i = n - 1; i >= 0; i--)
        GA_Destroy(arrays[i]);
    GA_Destroy(warm);
    GA_Terminate();
    return bench_finish();
}
