/*
 * ga_sync.c - atomics, mutexes and synchronisation semantics.
 *
 * Checks:
 *   - NGA_Read_inc on one counter per rank (each counter owned by a
 *     different rank), increments 1..nproc: every returned value set is
 *     exactly {0, inc, .., (nproc*K-1)*inc}
 *   - dynamic task farm driven by NGA_Read_inc: every task claimed exactly
 *     once, per-task results accumulated with NGA_Acc, exact total
 *   - GA_Create_mutexes / GA_Lock / GA_Unlock protecting a non-atomic
 *     get-add-put (single element, and a 5-element record straddling two
 *     owners), exact totals; same again with GA_Init_fence/GA_Fence before
 *     the unlock; GA_Destroy_mutexes and re-creation with another count
 *   - GA_Sync publishes remote NGA_Put's to the owner's NGA_Access view
 *   - GA_Init_fence/NGA_Put/GA_Fence then an MPI message: the receiver sees
 *     the data in its local block
 *
 * Initialisation: MPI_Init, then GA_Initialize_args(&argc, &argv).
 * GA 5.8 + ARMCI-MPI 0.3.1 cannot initialise MPI from GA_Initialize_args
 * (ARMCI_Init_args aborts with "MPI must be initialized before calling
 * ARMCI_Init"), so by default MPI is initialised first. Build with
 * -DGATEST_GA_INITS_MPI to let GA_Initialize_args do it, for ARMCI
 * implementations that support that.
 */
#include "gatest.h"

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static void test_counters(int K)
{
    int n = gt_np, g, i, c, lo, hi, ld = 1;
    long *mine = malloc(sizeof(long) * n * K), *col = malloc(sizeof(long) * K);
    long *all = malloc(sizeof(long) * K * gt_np), *fin = malloc(sizeof(long) * n);
    long bad = 0;

    g = NGA_Create(C_LONG, 1, &n, "counters", NULL);   /* one element per rank */
    GA_Zero(g);
    GA_Sync();
    for (i = 0; i < K; i++)
        for (c = 0; c < n; c++) {
            int ctr = (c + gt_me) % n;                  /* rotate start owner */
            mine[ctr * K + i] = NGA_Read_inc(g, &ctr, ctr + 1);
        }
    for (c = 0; c < n; c++) {
        for (i = 0; i < K; i++) col[i] = mine[c * K + i];
        MPI_Allgather(col, K, MPI_LONG, all, K, MPI_LONG, MPI_COMM_WORLD);
        qsort(all, (size_t)K * gt_np, sizeof(long), cmp_long);
        for (i = 0; i < K * gt_np; i++)
            if (all[i] != (long)i * (c + 1)) { gt_bad("counter %d sorted[%d]=%ld", c, i, all[i]); break; }
    }
    GA_Sync();
    lo = 0; hi = n - 1;
    NGA_Get(g, &lo, &hi, fin, &ld);
    for (c = 0; c < n; c++)
        if (fin[c] != (long)K * gt_np * (c + 1)) bad++;
    gt_check(bad, "NGA_Read_inc: %d counters on %d owners, %d x %d increments each, value sets exact",
             n, n, gt_np, K);
    GA_Sync();
    GA_Destroy(g);
    free(mine); free(col); free(all); free(fin);
}

static void test_task_farm(int ntasks)
{
    int one = 1, g_cnt, g_res, zero = 0, nres = 7, i, lo, hi, ld = 1;
    int *claimed = calloc(ntasks, sizeof(int)), *tot = calloc(ntasks, sizeof(int));
    long t, bad = 0, mytasks = 0;
    double res[7], expect[7] = { 0 };

    g_cnt = NGA_Create(C_INT, 1, &one, "taskctr", NULL);
    g_res = NGA_Create(C_DBL, 1, &nres, "results", NULL);
    GA_Zero(g_cnt);
    GA_Zero(g_res);
    GA_Sync();
    while ((t = NGA_Read_inc(g_cnt, &zero, 1)) < ntasks) {
        int k = (int)(t % nres);
        double v = (double)(t * t % 97 + 1), alpha = 1.0;
        claimed[t]++;
        mytasks++;
        NGA_Acc(g_res, &k, &k, &v, &ld, &alpha);
    }
    MPI_Allreduce(claimed, tot, ntasks, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (i = 0; i < ntasks; i++) if (tot[i] != 1) gt_bad("task %d claimed %d times", i, tot[i]);
    GA_Sync();
    lo = 0; hi = nres - 1;
    NGA_Get(g_res, &lo, &hi, res, &ld);
    for (t = 0; t < ntasks; t++) expect[t % nres] += (double)(t * t % 97 + 1);
    for (i = 0; i < nres; i++) if (res[i] != expect[i]) bad++;
    {
        int c;
        lo = hi = 0;
        NGA_Get(g_cnt, &lo, &hi, &c, &ld);
        if (c != ntasks + gt_np) gt_bad("final counter %d != %d", c, ntasks + gt_np);
    }
    (void)mytasks;   /* varies from run to run: not printed, output stays deterministic */
    gt_check(bad, "task farm: %d tasks via NGA_Read_inc claimed exactly once, NGA_Acc results exact",
             ntasks);
    GA_Sync();
    GA_Destroy(g_res);
    GA_Destroy(g_cnt);
    free(claimed); free(tot);
}

/*
 * M mutexes protect M records of 'rec' doubles each in a 1-D array whose
 * distribution makes records straddle owners. Every rank does K
 * lock/get/add/put/unlock sequences.
 */
static void test_mutex(int M, int rec, int K, int use_fence)
{
    int n = M * rec, g, i, m, lo, hi, ld = 1;
    double *buf = malloc(sizeof(double) * n), *expect = calloc(n, sizeof(double));
    long bad = 0;

    if (!GA_Create_mutexes(M)) {       /* returns 1 on success */
        gt_check(1, "GA_Create_mutexes(%d) failed", M);
        free(buf); free(expect);
        return;
    }
    g = NGA_Create(C_DBL, 1, &n, "bank", NULL);
    GA_Zero(g);
    GA_Sync();
    for (i = 0; i < K; i++) {
        m = (i + gt_me) % M;
        lo = m * rec; hi = lo + rec - 1;
        GA_Lock(m);
        if (use_fence) GA_Init_fence();
        NGA_Get(g, &lo, &hi, buf, &ld);
        {
            int e;
            for (e = 0; e < rec; e++) buf[e] += (gt_me + 1) * (e + 1);
        }
        NGA_Put(g, &lo, &hi, buf, &ld);
        if (use_fence) GA_Fence();
        GA_Unlock(m);
    }
    GA_Sync();
    {
        int r, e;
        for (r = 0; r < gt_np; r++)
            for (i = 0; i < K; i++)
                for (e = 0; e < rec; e++) expect[((i + r) % M) * rec + e] += (r + 1) * (e + 1);
    }
    lo = 0; hi = n - 1;
    NGA_Get(g, &lo, &hi, buf, &ld);
    for (i = 0; i < n; i++)
        if (buf[i] != expect[i]) gt_bad("bank[%d]=%g expected %g", i, buf[i], expect[i]);
    gt_check(bad, "GA_Lock/GA_Unlock%s: %d mutexes, %d-element records, %d x %d locked get-add-put, exact",
             use_fence ? " + GA_Fence" : "", M, rec, gt_np, K);
    GA_Sync();
    GA_Destroy(g);
    gt_check(!GA_Destroy_mutexes(), "GA_Destroy_mutexes after %d mutexes", M);
    free(buf); free(expect);
}

/* GA_Sync makes remote puts visible in the owner's local view */
static void test_sync_visibility(int reps)
{
    int n = 5 * gt_np, g, rep, lo[1], hi[1], ld[1] = { 1 };
    long bad = 0;

    g = NGA_Create(C_LONG, 1, &n, "vis", NULL);
    GA_Zero(g);
    GA_Sync();
    for (rep = 0; rep < reps; rep++) {
        int tgt = (gt_me + 1 + rep) % gt_np, tlo, thi, src, i;
        long vals[64];
        void *ptr;
        NGA_Distribution(g, tgt, &tlo, &thi);
        for (i = tlo; i <= thi; i++) vals[i - tlo] = 1000L * rep + 10L * gt_me + i;
        if (thi >= tlo) { lo[0] = tlo; hi[0] = thi; NGA_Put(g, lo, hi, vals, ld); }
        GA_Sync();
        /* who wrote into my block this rep? */
        src = ((gt_me - 1 - rep) % gt_np + gt_np) % gt_np;
        NGA_Distribution(g, gt_me, &tlo, &thi);
        if (thi >= tlo) {
            lo[0] = tlo; hi[0] = thi;
            NGA_Access(g, lo, hi, &ptr, ld);
            for (i = tlo; i <= thi; i++)
                if (((long *)ptr)[i - tlo] != 1000L * rep + 10L * src + i) bad++;
            NGA_Release(g, lo, hi);
        }
        GA_Sync();
    }
    gt_check(bad, "GA_Sync: remote NGA_Put visible through owner's NGA_Access (%d reps)", reps);
    GA_Destroy(g);
}

/* GA_Fence completes puts at the target before an MPI notification */
static void test_fence_notify(void)
{
    int n = 4 * gt_np, g, lo, hi, ld = 1, i;
    long bad = 0;
    double vals[64];
    int tgt = (gt_me + 1) % gt_np, src = (gt_me - 1 + gt_np) % gt_np, tok = 1, got = 0;

    g = NGA_Create(C_DBL, 1, &n, "fence", NULL);
    GA_Zero(g);
    GA_Sync();
    NGA_Distribution(g, tgt, &lo, &hi);
    for (i = lo; i <= hi; i++) vals[i - lo] = 0.5 + i + 100 * gt_me;
    GA_Init_fence();
    if (hi >= lo) NGA_Put(g, &lo, &hi, vals, &ld);
    GA_Fence();
    MPI_Sendrecv(&tok, 1, MPI_INT, tgt, 77, &got, 1, MPI_INT, src, 77,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    NGA_Distribution(g, gt_me, &lo, &hi);
    if (hi >= lo) {
        double *p;
        NGA_Access(g, &lo, &hi, &p, &ld);
        for (i = lo; i <= hi; i++)
            if (p[i - lo] != 0.5 + i + 100 * src) bad++;
        NGA_Release(g, &lo, &hi);
    }
    gt_check(bad, "GA_Init_fence/NGA_Put/GA_Fence then MPI message: data already at target");
    GA_Sync();
    GA_Destroy(g);
}

int main(int argc, char **argv)
{
    int rc, small;
#ifdef GATEST_GA_INITS_MPI
    GA_Initialize_args(&argc, &argv);
#else
    MPI_Init(&argc, &argv);
    GA_Initialize_args(&argc, &argv);
#endif
    gt_ma_init();
    gt_setup();
    small = gt_np > 2;
    if (gt_me == 0) {
        printf("ga_sync: %d ranks\n", gt_np);
#ifdef GATEST_GA_INITS_MPI
        printf("NOTE: MPI initialised by GA_Initialize_args\n");
#else
        printf("NOTE: MPI_Init before GA_Initialize_args (ARMCI-MPI 0.3.1 cannot "
               "initialise MPI itself)\n");
#endif
    }
    {
        int ok = GA_Initialized() && GA_Nnodes() == gt_np && GA_Nodeid() == gt_me;
        gt_check(!ok, "GA_Initialized/GA_Nnodes/GA_Nodeid agree with MPI_COMM_WORLD");
    }

    test_counters(small ? 12 : 32);
    test_task_farm(small ? 80 : 160);
    gt_flush();
    test_mutex(3, 1, small ? 12 : 24, 0);
    test_mutex(2, 5, small ? 8 : 16, 0);
    test_mutex(5, 3, small ? 8 : 16, 1);
    gt_flush();
    test_sync_visibility(small ? 4 : 12);
    test_fence_notify();

    gt_flush();
    if (gt_me == 0) printf("ga_sync: elapsed %.2f s\n", gt_elapsed());
    GA_Terminate();
    rc = gt_finish();
    MPI_Finalize();
    return rc;
}
