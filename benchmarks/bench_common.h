/*
 * bench_common.h -- shared helpers for the armci-x benchmark suite.
 *
 * Every benchmark is a plain C program that uses only the public ARMCI API (armci.h, armcix.h,
 * message.h) plus MPI, so the same source builds against armci-x and against ARMCI-MPI.
 * raw_mpi.c defines BENCH_NO_ARMCI before including this header and then uses MPI only.
 *
 * Output format (one line per measurement, rank 0 only):
 *
 *     RESULT <bench> <variant> <param> <value> <unit>
 *
 * <bench> is the program name, <variant> the operation being timed (no spaces), <param> an
 * integer (message size in bytes, number of segments, ...), <value> the median over the
 * repetitions, <unit> one of: us (lower is better), MB/s, msg/s (higher is better; MB = 1e6 bytes),
 * frac (a fraction, nominally in [0,1], higher is better), count (warning rows only).  Every
 * other output line is for humans and starts with '#' (headers) or two spaces (per-measurement
 * summaries), except "WARNING ..." lines.  Data-check failures are printed as "CHECK FAILED ..."
 * on stderr and make the program exit non-zero; timings never do.
 *
 * Roles: rank 0 is the origin, the last rank (bench_target) the target of point-to-point
 * benchmarks; all other ranks wait in a barrier.  With one rank, origin and target coincide.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <mpi.h>
#ifndef BENCH_NO_ARMCI
#include <armci.h>
#endif
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Global state                                                                                 */

static const char *bench_name = "bench";
static int bench_me = 0;       /* rank in MPI_COMM_WORLD                                       */
static int bench_np = 1;       /* number of ranks                                              */
static int bench_origin = 0;   /* origin of point-to-point benchmarks                          */
static int bench_target = 0;   /* target of point-to-point benchmarks (last rank)              */
static int bench_quick = 0;    /* --quick: fewer sizes, repetitions and iterations             */
static int bench_reps = 5;     /* repetitions per measurement; the reported value is the median */
static long bench_failures = 0;/* data-check failures on this rank                              */

#define BENCH_MAX_REPS 64
#define BENCH_BW_MIN_BYTES 65536L /* MB/s rows are printed from this size up */

/* ------------------------------------------------------------------------------------------ */
/* Errors and data checks                                                                       */

static inline void bench_fatal(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    char msg[512];
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "FATAL [%s rank %d] %s:%d: %s\n", bench_name, bench_me, file, line, msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

/* Every ARMCI call that returns a status goes through this: a non-zero status aborts the job. */
#define BENCH_ARMCI(call)                                                                       \
    do {                                                                                        \
        int bench_rc_ = (call);                                                                 \
        if (bench_rc_ != 0)                                                                     \
            bench_fatal(__FILE__, __LINE__, "%s returned %d", #call, bench_rc_);                \
    } while (0)

#define BENCH_MPI(call)                                                                         \
    do {                                                                                        \
        int bench_rc_ = (call);                                                                 \
        if (bench_rc_ != MPI_SUCCESS)                                                           \
            bench_fatal(__FILE__, __LINE__, "%s returned %d", #call, bench_rc_);                \
    } while (0)

/* Record a failed data check (the program keeps going and exits non-zero at the end). */
static inline int bench_check(int ok, const char *fmt, ...)
{
    if (!ok) {
        va_list ap;
        char msg[512];
        bench_failures++;
        if (bench_failures <= 20) {
            va_start(ap, fmt);
            vsnprintf(msg, sizeof msg, fmt, ap);
            va_end(ap);
            /* one write, so that it does not interleave with stdout lines */
            fprintf(stderr, "CHECK FAILED [%s rank %d]: %s\n", bench_name, bench_me, msg);
            fflush(stderr);
        }
    }
    return ok;
}

/* Compare n doubles; report the first mismatch.  Returns 1 if all equal. */
static inline int bench_check_array(const char *what, long param, const double *got,
                                    const double *expect, size_t n)
{
    size_t i, bad = 0, first = 0;
    for (i = 0; i < n; i++) {
        if (got[i] != expect[i]) {
            if (bad == 0)
                first = i;
            bad++;
        }
    }
    if (bad)
        return bench_check(0, "%s (param %ld): %zu of %zu elements wrong, first at [%zu]: got %.17g "
                           "expected %.17g", what, param, bad, n, first, got[first], expect[first]);
    return 1;
}

/* Deterministic test data: small positive integers stored as doubles, so that sums of a few
 * thousand of them are exact.  Different seeds give different sequences. */
static inline double bench_pat(unsigned seed, size_t i)
{
    unsigned v = (seed + 1u) * 2654435761u + (unsigned)i * 40503u;
    v ^= v >> 13;
    return (double)(v % 1021u) + 1.0;
}

/* ------------------------------------------------------------------------------------------ */
/* Timing                                                                                       */

static inline double bench_now(void)
{
    return MPI_Wtime();
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n values (the input is not modified). */
static inline double bench_median(const double *v, int n)
{
    double tmp[BENCH_MAX_REPS];
    if (n <= 0)
        return 0.0;
    if (n > BENCH_MAX_REPS)
        n = BENCH_MAX_REPS;
    memcpy(tmp, v, (size_t)n * sizeof(double));
    qsort(tmp, (size_t)n, sizeof(double), bench_cmp_double);
    return (n % 2) ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}

/* Time-boxed measurement of an operation.  fn(arg, n) performs n back-to-back operations.
 *
 * Calibration (which doubles as warm-up) runs batches of 1, 4, 16, ... operations until a batch
 * takes at least 1/8 of the per-repetition target time (a slow single first operation is retried
 * twice; the estimate is the fastest batch's).  Then bench_reps repetitions of `iters` operations
 * are timed, iters chosen so that a repetition takes about bench_rep_time() seconds (clamped to
 * [1, max_iters]); if they ran more than 4x faster than estimated (a disturbed calibration) the
 * repetitions are redone once with the measured rate.  Returns the median seconds per operation.
 * *total_ops, if not NULL, is increased by the number of operations performed (calibration
 * included), so that data checks know exactly how many operations ran. */
typedef void (*bench_fn_t)(void *arg, int n);

static inline double bench_rep_time(void)
{
    return bench_quick ? 0.004 : 0.012;
}

static inline double bench_time_op(bench_fn_t fn, void *arg, int max_iters, long *total_ops)
{
    double times[BENCH_MAX_REPS], t, med = 0.0, per_op = 1e30, target = bench_rep_time();
    long done = 0;
    int n = 1, iters, r, retries = 0, pass;

    for (;;) {
        double t0 = bench_now();
        fn(arg, n);
        t = bench_now() - t0;
        done += n;
        if (t / n < per_op)
            per_op = t / n;
        if (n >= max_iters)
            break;
        if (t >= target / 8) {
            /* A single slow first operation may be a hiccup (page faults, descheduled peer):
             * retry it twice and keep the fastest estimate. */
            if (n == 1 && retries++ < 2)
                continue;
            break;
        }
        n = (n * 4 > max_iters) ? max_iters : n * 4;
    }
    for (pass = 0; pass < 2; pass++) {
        iters = per_op > 0 ? (int)(target / per_op) : max_iters;
        if (iters < 1)
            iters = 1;
        if (iters > max_iters)
            iters = max_iters;
        for (r = 0; r < bench_reps; r++) {
            double t0 = bench_now();
            fn(arg, iters);
            times[r] = (bench_now() - t0) / iters;
            done += iters;
        }
        med = bench_median(times, bench_reps);
        /* If the calibration was disturbed (the repetitions ran far faster than estimated),
         * repeat once with an iteration count based on the measured median. */
        if (med * iters >= target / 4 || iters >= max_iters)
            break;
        per_op = med;
    }
    if (total_ops)
        *total_ops += done;
    return med;
}

/* Collective variant for contended benchmarks: every rank calls fn(arg, n) at the same time, n is
 * agreed on by all ranks (calibrated so that a repetition takes about the target time), and a
 * repetition's time is that of the slowest rank.  Returns the median seconds per operation per
 * rank; *total_ops (per rank, if not NULL) is increased by the operations this rank performed. */
static inline double bench_time_collective(bench_fn_t fn, void *arg, int max_iters, long *total_ops)
{
    double times[BENCH_MAX_REPS], t, tmax, target = bench_rep_time();
    long done = 0;
    int n = 4, iters, r;

    MPI_Barrier(MPI_COMM_WORLD);
    t = bench_now();
    fn(arg, n);
    t = bench_now() - t;
    done += n;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    iters = tmax > 0 ? (int)(target / (tmax / n)) : max_iters;
    if (iters < 1)
        iters = 1;
    if (iters > max_iters)
        iters = max_iters;
    for (r = 0; r < bench_reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        t = bench_now();
        fn(arg, iters);
        t = bench_now() - t;
        done += iters;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        times[r] = tmax / iters;
    }
    if (total_ops)
        *total_ops += done;
    return bench_median(times, bench_reps);
}

/* Message sizes 8 B .. 4 MiB: every power of two in full mode, 8 and powers of four from 16 in
 * quick mode (or when sparse != 0).  Returns the count; out must hold 32 entries. */
static inline int bench_sizes(long *out, int sparse)
{
    int n = 0;
    long s;
    out[n++] = 8;
    for (s = 16; s <= 4L * 1024 * 1024; s *= (sparse ? 4 : 2))
        out[n++] = s;
    return n;
}

/* ------------------------------------------------------------------------------------------ */
/* Output (rank 0 only)                                                                         */

static inline void bench_result(const char *bench, const char *variant, long param, double value,
                                const char *unit)
{
    if (bench_me != 0)
        return;
    printf("RESULT %s %s %ld %.6g %s\n", bench, variant, param, value, unit);
    fflush(stdout);
}

static inline void bench_human(const char *fmt, ...)
{
    va_list ap;
    char msg[512];
    if (bench_me != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("  %s\n", msg);
    fflush(stdout);
}

static inline const char *bench_fmt_size(long bytes, char *buf, size_t len)
{
    if (bytes >= 1048576 && bytes % 1048576 == 0)
        snprintf(buf, len, "%ld MiB", bytes / 1048576);
    else if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(buf, len, "%ld KiB", bytes / 1024);
    else
        snprintf(buf, len, "%ld B", bytes);
    return buf;
}

/* Latency row for every size, plus a bandwidth row from BENCH_BW_MIN_BYTES up. */
static inline void bench_report_xfer(const char *bench, const char *variant, long bytes, double t_sec)
{
    char sz[32];
    double mbs = t_sec > 0 ? (double)bytes / t_sec / 1e6 : 0.0;
    bench_result(bench, variant, bytes, t_sec * 1e6, "us");
    if (bytes >= BENCH_BW_MIN_BYTES)
        bench_result(bench, variant, bytes, mbs, "MB/s");
    bench_human("%-8s %-12s %10s  %12.3f us  %10.1f MB/s", bench, variant,
                bench_fmt_size(bytes, sz, sizeof sz), t_sec * 1e6, mbs);
}

/* ------------------------------------------------------------------------------------------ */
/* Start-up and shutdown                                                                        */

static inline void bench_usage(void)
{
    if (bench_me == 0)
        printf("usage: %s [--quick] [--reps N]\n"
               "  --quick   fewer sizes, repetitions and iterations\n"
               "  --reps N  repetitions per measurement (median is reported, default 5, quick 3)\n",
               bench_name);
}

static inline void bench_init(int *argc, char ***argv, const char *name)
{
    int i, reps = 0;
    const char *q = getenv("BENCH_QUICK");

    bench_name = name;
    {
        /* armci-x's progress thread (ARMCI_PROGRESS_THREAD=1) needs MPI_THREAD_MULTIPLE from whoever
         * starts MPI; ask for it only then, so that the default runs measure the single-threaded MPI. */
        const char *pt = getenv("ARMCI_PROGRESS_THREAD");
        int provided = 0;
        BENCH_MPI(MPI_Init_thread(argc, argv, pt && pt[0] == '1' ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE,
                                  &provided));
    }
#ifndef BENCH_NO_ARMCI
    BENCH_ARMCI(ARMCI_Init());
#endif
    MPI_Comm_rank(MPI_COMM_WORLD, &bench_me);
    MPI_Comm_size(MPI_COMM_WORLD, &bench_np);
    bench_origin = 0;
    bench_target = bench_np - 1;

    if (q && *q && strcmp(q, "0") != 0)
        bench_quick = 1;
    for (i = 1; i < *argc; i++) {
        const char *a = (*argv)[i];
        if (strcmp(a, "--quick") == 0) {
            bench_quick = 1;
        } else if (strcmp(a, "--reps") == 0 && i + 1 < *argc) {
            reps = atoi((*argv)[++i]);
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            bench_usage();
            MPI_Finalize();
            exit(0);
        } else {
            if (bench_me == 0)
                fprintf(stderr, "%s: unknown argument '%s'\n", name, a);
            bench_usage();
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    bench_reps = reps > 0 ? reps : (bench_quick ? 3 : 5);
    if (bench_reps > BENCH_MAX_REPS)
        bench_reps = BENCH_MAX_REPS;

    if (bench_me == 0) {
        printf("# %s: %d rank(s), origin %d, target %d, %d repetition(s) per point (median), %s mode\n",
               name, bench_np, bench_origin, bench_target, bench_reps, bench_quick ? "quick" : "full");
        printf("# rows: RESULT <bench> <variant> <param> <value> <unit>\n");
        fflush(stdout);
    }
}

/* Finalize ARMCI and MPI; returns the process exit status (non-zero if any data check failed on
 * any rank). */
static inline int bench_finish(void)
{
    long total = 0;
    MPI_Allreduce(&bench_failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
#ifndef BENCH_NO_ARMCI
    BENCH_ARMCI(ARMCI_Finalize());
#endif
    if (bench_me == 0) {
        if (total)
            printf("# %s: %ld data check(s) FAILED\n", bench_name, total);
        else
            printf("# %s: all data checks passed\n", bench_name);
        fflush(stdout);
    }
    MPI_Finalize();
    return total ? 1 : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* ARMCI helpers                                                                                */

#ifndef BENCH_NO_ARMCI
/* Collective: allocate `bytes` of ARMCI global memory on every rank; returns the pointer table. */
static inline void **bench_armci_malloc(long bytes)
{
    void **p = (void **)calloc((size_t)bench_np, sizeof(void *));
    if (!p)
        bench_fatal(__FILE__, __LINE__, "calloc failed");
    BENCH_ARMCI(ARMCI_Malloc(p, (armci_size_t)bytes));
    if (bytes > 0 && !p[bench_me])
        bench_fatal(__FILE__, __LINE__, "ARMCI_Malloc returned a NULL local pointer");
    return p;
}

static inline void bench_armci_free(void **p)
{
    BENCH_ARMCI(ARMCI_Free(p[bench_me]));
    free(p);
}

static inline void *bench_local_malloc(long bytes)
{
    void *p = ARMCI_Malloc_local((armci_size_t)bytes);
    if (!p)
        bench_fatal(__FILE__, __LINE__, "ARMCI_Malloc_local(%ld) returned NULL", bytes);
    return p;
}

/* Direct load/store access by the owner to its own part of global memory. */
static inline void bench_fill_local(void **p, long off_doubles, long n, unsigned seed, int mode)
{
    /* mode 0: pattern, 1: zeros, 2: sentinel -1 */
    double *d = (double *)p[bench_me] + off_doubles;
    long i;
    ARMCI_Access_begin(p[bench_me]);
    for (i = 0; i < n; i++)
        d[i] = mode == 0 ? bench_pat(seed, (size_t)i) : (mode == 1 ? 0.0 : -1.0);
    ARMCI_Access_end(p[bench_me]);
}
#endif

#endif /* BENCH_COMMON_H */
