/*
 * nb.c -- non-blocking operations: message rate and communication/computation overlap.
 *
 * Message rate (param = 1000 messages of 8 B per batch, value in msg/s, higher is better):
 *   rate_nbput_null  1000 x ARMCI_NbPut(..., NULL) to distinct 8 B slots, then ARMCI_WaitAll()
 *   rate_nbput_hdl   1000 x ARMCI_NbPut(..., &hdl[i]), then ARMCI_Wait(&hdl[i]) for each i
 *
 * Overlap ("availability"), for m = 8 B .. 4 MiB (param = m):
 *   bare_get / bare_put    t_bare: time of ARMCI_NbGet (NbPut) + ARMCI_Wait, no computation (us)
 *   avail_get / avail_put  issue the operation, compute (calibrated busy loop) for W, then Wait.
 *                          W grows in steps of t_bare/4 until an iteration takes >= 1.5 * t_bare;
 *                          there overhead = t_iter - W and
 *                          availability = 1 - overhead / t_bare   (frac, higher is better).
 *                          W is measured as the same loop without the operation, repetitions of
 *                          the two loops interleaved, so loop and timer costs cancel out.
 *   availability ~1: the transfer proceeds entirely while the origin computes; ~0: nothing
 *   happens until Wait (or the operation completes inside the initiating call).  When t_bare is
 *   below ~1 us the operation is essentially done inside the call and the number means little.
 *
 * Data checks: the message-rate slots and the overlap buffers are verified once per point.
 */
#include "bench_common.h"

#define MAX_BYTES (4L * 1024 * 1024)
#define NMSG 1000

static void **gmem;
static double *lsrc, *ldst, *lexp;
static armci_hdl_t hdls[NMSG];
static double sec_per_spin; /* busy-loop calibration */
static volatile double spin_sink;

/* ------------------------------------------------------------------------------------------ */
/* Busy loop */

static void spin(long n)
{
    double x = 1.0;
    long i;
    for (i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    spin_sink = x;
}

static void calibrate_spin(void)
{
    long n = 1L << 20;
    double best = 1e30;
    int k;
    spin(n);
    for (k = 0; k < 5; k++) {
        double t0 = bench_now();
        spin(n);
        t0 = bench_now() - t0;
        if (t0 < best)
            best = t0;
    }
    sec_per_spin = best / (double)n;
}

static long spins_for(double seconds)
{
    return (long)(seconds / sec_per_spin);
}

/* ------------------------------------------------------------------------------------------ */
/* Message rate */

static void run_rate(void *varg, int n)
{
    int use_hdl = *(int *)varg, k, i, t = bench_target;
    double *rem = (double *)gmem[t];

    for (k = 0; k < n; k++) {
        if (use_hdl) {
            for (i = 0; i < NMSG; i++) {
                ARMCI_INIT_HANDLE(&hdls[i]);
                BENCH_ARMCI(ARMCI_NbPut(&lsrc[i], &rem[i], (int)sizeof(double), t, &hdls[i]));
            }
            for (i = 0; i < NMSG; i++)
                BENCH_ARMCI(ARMCI_Wait(&hdls[i]));
        } else {
            for (i = 0; i < NMSG; i++)
                BENCH_ARMCI(ARMCI_NbPut(&lsrc[i], &rem[i], (int)sizeof(double), t, NULL));
            BENCH_ARMCI(ARMCI_WaitAll());
        }
    }
}

static void bench_rate(int use_hdl, unsigned seed)
{
    const char *variant = use_hdl ? "rate_nbput_hdl" : "rate_nbput_null";
    double t = 0.0;
    long i;

    if (bench_me == bench_target)
        bench_fill_local(gmem, 0, NMSG, 0, 2);
    if (bench_me == bench_origin)
        for (i = 0; i < NMSG; i++)
            lsrc[i] = bench_pat(seed, (size_t)i);
    ARMCI_Barrier();
    if (bench_me == bench_origin) {
        t = bench_time_op(run_rate, &use_hdl, 1000, NULL); /* seconds per batch of NMSG */
        ARMCI_Fence(bench_target);
    }
    ARMCI_Barrier();
    if (bench_me == bench_target) {
        for (i = 0; i < NMSG; i++)
            lexp[i] = bench_pat(seed, (size_t)i);
        ARMCI_Access_begin(gmem[bench_me]);
        bench_check_array(variant, NMSG, (double *)gmem[bench_me], lexp, NMSG);
        ARMCI_Access_end(gmem[bench_me]);
    }
    bench_result("nb", variant, NMSG, t > 0 ? NMSG / t : 0.0, "msg/s");
    bench_human("%-8s %-16s %d x 8 B: %10.3f us per batch, %8.3f Mmsg/s", "nb", variant, NMSG, t * 1e6,
                t > 0 ? NMSG / t / 1e6 : 0.0);
    ARMCI_Barrier();
}

/* ------------------------------------------------------------------------------------------ */
/* Overlap */

struct ov_arg {
    int is_get;
    long bytes;
    long spins;
    double comp; /* accumulated measured compute time */
};

static void start_op(const struct ov_arg *a, armci_hdl_t *h)
{
    ARMCI_INIT_HANDLE(h);
    if (a->is_get)
        BENCH_ARMCI(ARMCI_NbGet(gmem[bench_target], ldst, (int)a->bytes, bench_target, h));
    else
        BENCH_ARMCI(ARMCI_NbPut(lsrc, gmem[bench_target], (int)a->bytes, bench_target, h));
}

static void run_bare(void *varg, int n)
{
    armci_hdl_t h;
    int i;
    for (i = 0; i < n; i++) {
        start_op((const struct ov_arg *)varg, &h);
        BENCH_ARMCI(ARMCI_Wait(&h));
    }
}

/* One repetition of `iters` iterations of: [start op], compute, [wait].  Without the operation
 * this is the compute-only reference loop (same structure, so loop and timer costs cancel).
 * Returns seconds per iteration. */
static double run_loop(const struct ov_arg *a, int iters, int with_op)
{
    armci_hdl_t h;
    double t0 = bench_now();
    int i;
    for (i = 0; i < iters; i++) {
        if (with_op)
            start_op(a, &h);
        spin(a->spins);
        if (with_op)
            BENCH_ARMCI(ARMCI_Wait(&h));
    }
    return (bench_now() - t0) / iters;
}

static void bench_overlap(int is_get, long bytes, unsigned seed)
{
    struct ov_arg a;
    const char *op = is_get ? "get" : "put";
    char variant[32], sz[32];
    long nd = bytes / (long)sizeof(double), i;
    double t_bare = 0.0, t_iter = 0.0, w = 0.0, ovh = 0.0, avail = 0.0;

    memset(&a, 0, sizeof a);
    a.is_get = is_get;
    a.bytes = bytes;

    if (bench_me == bench_target)
        bench_fill_local(gmem, 0, nd, seed, is_get ? 0 : 2);
    if (bench_me == bench_origin)
        for (i = 0; i < nd; i++) {
            lsrc[i] = bench_pat(seed, (size_t)i);
            ldst[i] = -1.0;
        }
    ARMCI_Barrier();

    if (bench_me == bench_origin) {
        double titer[BENCH_MAX_REPS], tov[BENCH_MAX_REPS], tw[BENCH_MAX_REPS];
        int k, r, iters;

        t_bare = bench_time_op(run_bare, &a, 20000, NULL);
        iters = (int)(bench_rep_time() / (1.5 * t_bare));
        if (iters < 1)
            iters = 1;
        if (iters > 5000)
            iters = 5000;
        for (k = 1; k <= 8; k++) {
            a.spins = spins_for(0.25 * k * t_bare);
            (void)run_loop(&a, iters > 4 ? iters / 4 : 1, 1); /* warm-up */
            for (r = 0; r < bench_reps; r++) {
                tw[r] = run_loop(&a, iters, 0);
                titer[r] = run_loop(&a, iters, 1);
                tov[r] = titer[r] - tw[r];
            }
            t_iter = bench_median(titer, bench_reps);
            if (t_iter >= 1.5 * t_bare || k == 8)
                break;
        }
        w = bench_median(tw, bench_reps);
        ovh = bench_median(tov, bench_reps);
        avail = t_bare > 0 ? 1.0 - ovh / t_bare : 0.0;
        ARMCI_Fence(bench_target);
    }
    ARMCI_Barrier();

    if (is_get && bench_me == bench_origin) {
        for (i = 0; i < nd; i++)
            lexp[i] = bench_pat(seed, (size_t)i);
        bench_check_array("nbget data", bytes, ldst, lexp, (size_t)nd);
    } else if (!is_get && bench_me == bench_target) {
        for (i = 0; i < nd; i++)
            lexp[i] = bench_pat(seed, (size_t)i);
        ARMCI_Access_begin(gmem[bench_me]);
        bench_check_array("nbput data", bytes, (double *)gmem[bench_me], lexp, (size_t)nd);
        ARMCI_Access_end(gmem[bench_me]);
    }

    snprintf(variant, sizeof variant, "bare_%s", op);
    bench_result("nb", variant, bytes, t_bare * 1e6, "us");
    snprintf(variant, sizeof variant, "avail_%s", op);
    bench_result("nb", variant, bytes, avail, "frac");
    bench_human("%-8s %-10s %9s  t_bare %10.3f us  W %10.3f us  t_iter %10.3f us  overhead %10.3f us"
                "  availability %5.2f", "nb", variant, bench_fmt_size(bytes, sz, sizeof sz),
                t_bare * 1e6, w * 1e6, t_iter * 1e6, ovh * 1e6, avail);
    ARMCI_Barrier();
}

int main(int argc, char **argv)
{
    long sizes[32];
    int nsizes, s, is_get;

    bench_init(&argc, &argv, "nb");
    nsizes = bench_sizes(sizes, 1);

    gmem = bench_armci_malloc(MAX_BYTES);
    lsrc = (double *)bench_local_malloc(MAX_BYTES);
    ldst = (double *)bench_local_malloc(MAX_BYTES);
    lexp = (double *)malloc(MAX_BYTES);
    if (!lexp)
        bench_fatal(__FILE__, __LINE__, "malloc failed");
    calibrate_spin();
    if (bench_me == 0) {
        printf("# busy loop: %.3f ns per spin\n", sec_per_spin * 1e9);
        fflush(stdout);
    }

    bench_rate(0, 1);
    bench_rate(1, 2);
    for (is_get = 1; is_get >= 0; is_get--)
        for (s = 0; s < nsizes; s++)
            bench_overlap(is_get, sizes[s], (unsigned)(100 + 40 * is_get + s));

    free(lexp);
    BENCH_ARMCI(ARMCI_Free_local(ldst));
    BENCH_ARMCI(ARMCI_Free_local(lsrc));
    bench_armci_free(gmem);
    return bench_finish();
}
