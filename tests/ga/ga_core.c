/*
 * ga_core.c - core Global Arrays functionality on top of ARMCI.
 *
 * Checks (all self-verifying, deterministic, any number of ranks >= 1):
 *   - 1-D, 2-D regular and 2-D irregular (NGA_Create_irreg) arrays of
 *     int, long, double and double complex: NGA_Put of patches from a
 *     partition that is shifted against the ownership boundaries, NGA_Get of
 *     the whole array and of odd sub-patches (padded ld), NGA_Acc from every
 *     rank with rank-dependent alpha; NGA_Distribution of irregular arrays
 *   - GA_Fill, GA_Zero, GA_Duplicate, GA_Copy for all four types (plus
 *     GA_Copy regular -> irregular distribution for double), GA_Destroy
 *   - NGA_Read_inc: every rank increments a counter K times; the union of the
 *     returned values is exactly 0..nproc*K-1 (int and long counters, inc 1/3)
 *   - GA_Dgemm ('N','N' and 'T','N') against a local reference
 *   - GA_Ddot / GA_Idot / GA_Ldot / GA_Zdot against closed forms
 *   - GA_Scale and GA_Add for all four types
 *   - NGA_Access / NGA_Release_update / NGA_Release on the local block
 *     (int and double complex)
 *   - many create/destroy cycles, non-LIFO destroy order, GA memory returns
 *     to its initial value
 *
 * MPI is initialised by the program (MPI_Init before GA_Initialize).
 */
#include "gatest.h"

static const int types[4] = { C_INT, C_LONG, C_DBL, C_DCPL };

/* base pattern and accumulate pattern (integer valued => exact) */
static double f_re(long i) { return (double)(3 * i + 1); }
static double f_im(long i) { return (double)(-(i % 17)); }
static double h_re(long i) { return (double)(i % 5 + 1); }
static double h_im(long i) { return (double)(i % 3); }

/* alpha used by rank r for NGA_Acc: real types (r+1), complex (r+1, 1) */
static void alpha_of(int t, int r, double *ar, double *ai)
{
    *ar = r + 1;
    *ai = (t == C_DCPL) ? 1.0 : 0.0;
}

/* bounds of a partition of [0,n) into np pieces shifted by +3 so that the
 * pieces straddle the ownership boundaries of the default distribution */
static int shifted_bound(int r, int n, int np)
{
    int b;
    if (r <= 0) return 0;
    if (r >= np) return n;
    b = (int)((long)r * n / np) + 3;
    return b > n ? n : b;
}

/* ---------------------------------------------------------------- 1-D */
static void test_1d(int t)
{
    int N = 1009;
    int g, lo, hi, ld = 1, r, i;
    size_t es = gt_tsize(t);
    void *buf = malloc(es * N);
    long bad = 0;

    g = NGA_Create(t, 1, &N, "core1d", NULL);
    GA_Zero(g);

    lo = shifted_bound(gt_me, N, gt_np);
    hi = shifted_bound(gt_me + 1, N, gt_np) - 1;
    if (hi >= lo) {
        for (i = lo; i <= hi; i++) gt_tset(t, buf, i - lo, f_re(i), f_im(i));
        NGA_Put(g, &lo, &hi, buf, &ld);
    }
    GA_Sync();
    memset(buf, 0, es * N);
    lo = 0; hi = N - 1;
    NGA_Get(g, &lo, &hi, buf, &ld);
    for (i = 0; i < N; i++)
        if (gt_tdiff(t, buf, i, f_re(i), f_im(i))) {
            gt_bad("[%d] expected %g", i, f_re(i));
        }
    gt_check(0, "1-D %s n=%d: put shifted partition, get all", gt_tname(t), N);
    GA_Sync();

    /* every rank accumulates alpha_r * h over [7r, N-1-r] */
    lo = 7 * gt_me; hi = N - 1 - gt_me;
    if (lo <= hi) {
        double ar, ai;
        char alpha[16];
        alpha_of(t, gt_me, &ar, &ai);
        gt_tset(t, alpha, 0, ar, ai);
        for (i = lo; i <= hi; i++) gt_tset(t, buf, i - lo, h_re(i), h_im(i));
        NGA_Acc(g, &lo, &hi, buf, &ld, alpha);
    }
    GA_Sync();
    lo = 0; hi = N - 1;
    NGA_Get(g, &lo, &hi, buf, &ld);
    for (i = 0; i < N; i++) {
        double er = f_re(i), ei = f_im(i);
        for (r = 0; r < gt_np; r++) {
            if (i >= 7 * r && i <= N - 1 - r) {
                double ar, ai, cr, ci;
                alpha_of(t, r, &ar, &ai);
                if (t == C_DCPL) gt_cmul(ar, ai, h_re(i), h_im(i), &cr, &ci);
                else { cr = ar * h_re(i); ci = 0; }
                er += cr; ei += ci;
            }
        }
        if (gt_tdiff(t, buf, i, er, ei)) bad++;
    }
    gt_check(bad, "1-D %s: NGA_Acc from all ranks (alpha per rank)", gt_tname(t));
    bad = 0;

    /* single-element gets at ownership boundaries (double only: costly
     * when oversubscribed, and type independent) */
    if (t != C_DBL) goto done;
    for (r = 0; r < gt_np; r++) {
        int dlo, dhi;
        NGA_Distribution(g, r, &dlo, &dhi);
        if (dlo < 0 || dhi < dlo) continue;
        for (i = 0; i < 2; i++) {
            int idx = i ? dhi : dlo;
            char one[16];
            double ar, ai, er = f_re(idx), ei = f_im(idx), cr, ci;
            int q;
            NGA_Get(g, &idx, &idx, one, &ld);
            for (q = 0; q < gt_np; q++)
                if (idx >= 7 * q && idx <= N - 1 - q) {
                    alpha_of(t, q, &ar, &ai);
                    if (t == C_DCPL) gt_cmul(ar, ai, h_re(idx), h_im(idx), &cr, &ci);
                    else { cr = ar * h_re(idx); ci = 0; }
                    er += cr; ei += ci;
                }
            if (gt_tdiff(t, one, 0, er, ei)) bad++;
        }
    }
    gt_check(bad, "1-D %s: single-element gets at every ownership boundary", gt_tname(t));
done:
    GA_Sync();           /* all reads done before the array goes away */
    GA_Destroy(g);
    free(buf);
}

/* ---------------------------------------------------------------- 2-D */
static void block_grid(int np, int *b0, int *b1)
{
    int d, best = 1;
    for (d = 1; d * d <= np; d++)
        if (np % d == 0) best = d;
    *b0 = np / best;   /* more blocks along the first dimension */
    *b1 = best;
}

/* uneven map: block k of nb starts at k*k*n/(nb*nb) (strictly increasing) */
static void uneven_map(int n, int nb, int *map)
{
    int k;
    for (k = 0; k < nb; k++) map[k] = (int)((long)k * k * n / ((long)nb * nb));
    for (k = 1; k < nb; k++) if (map[k] <= map[k - 1]) map[k] = map[k - 1] + 1;
}

#define R2 37
#define C2 53

/* create the 2-D test array: regular, or irregular with an uneven map */
static int create_2d(int t, int irreg)
{
    int dims[2] = { R2, C2 }, g, i, j, lo[2], hi[2];

    if (!irreg) return NGA_Create(t, 2, dims, "core2d", NULL);
    {
        int b[2], map[2 * 64];
        block_grid(gt_np, &b[0], &b[1]);
        uneven_map(R2, b[0], map);
        uneven_map(C2, b[1], map + b[0]);
        g = NGA_Create_irreg(t, 2, dims, "core2di", b, map);
        /* my block must be exactly one of the map blocks, all distinct */
        NGA_Distribution(g, gt_me, lo, hi);
        {
            int id = -1, i0, i1, *all = malloc(sizeof(int) * gt_np);
            for (i0 = 0; i0 < b[0]; i0++)
                for (i1 = 0; i1 < b[1]; i1++) {
                    int l0 = map[i0], h0 = (i0 + 1 < b[0] ? map[i0 + 1] : R2) - 1;
                    int l1 = map[b[0] + i1], h1 = (i1 + 1 < b[1] ? map[b[0] + i1 + 1] : C2) - 1;
                    if (lo[0] == l0 && hi[0] == h0 && lo[1] == l1 && hi[1] == h1)
                        id = i0 * b[1] + i1;
                }
            MPI_Allgather(&id, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
            if (id < 0) gt_bad("my block [%d:%d,%d:%d] not in map", lo[0], hi[0], lo[1], hi[1]);
            for (i = 0; i < gt_np; i++)
                for (j = i + 1; j < gt_np; j++)
                    if (all[i] == all[j] && gt_me == 0) gt_bad("ranks %d,%d same block", i, j);
            free(all);
        }
        gt_check(0, "2-D irregular %s %dx%d: NGA_Distribution matches block map (%dx%d blocks)",
                 gt_tname(t), R2, C2, b[0], b[1]);
    }
    return g;
}

/* put / get / acc patches on an R2 x C2 array */
static void test_2d(int g, int t, int irreg)
{
    int i, j, r, k, lo[2], hi[2], ld[1];
    const char *kind = irreg ? "2-D irregular" : "2-D";
    size_t es = gt_tsize(t);
    const int LDP = C2 + 2;           /* padded leading dimension */
    void *buf = malloc(es * R2 * LDP);
    double *er = malloc(sizeof(double) * R2 * C2);
    double *ei = malloc(sizeof(double) * R2 * C2);
    const int csplit[4] = { 0, 7, 20, C2 };

    GA_Zero(g);

    /* put: my shifted row band, in three column pieces of odd width */
    lo[0] = shifted_bound(gt_me, R2, gt_np);
    hi[0] = shifted_bound(gt_me + 1, R2, gt_np) - 1;
    for (k = 0; k < 3 && lo[0] <= hi[0]; k++) {
        int w = csplit[k + 1] - csplit[k];
        int pld = w + 3;
        lo[1] = csplit[k]; hi[1] = csplit[k + 1] - 1;
        for (i = lo[0]; i <= hi[0]; i++)
            for (j = lo[1]; j <= hi[1]; j++)
                gt_tset(t, buf, (long)(i - lo[0]) * pld + (j - lo[1]),
                        f_re(i * C2 + j), f_im(i * C2 + j));
        ld[0] = pld;
        NGA_Put(g, lo, hi, buf, ld);
    }
    for (i = 0; i < R2 * C2; i++) { er[i] = f_re(i); ei[i] = f_im(i); }
    GA_Sync();

    /* full get into a padded buffer; padding must stay untouched */
    for (i = 0; i < R2 * LDP; i++) gt_tset(t, buf, i, -12345, 0);
    lo[0] = 0; lo[1] = 0; hi[0] = R2 - 1; hi[1] = C2 - 1; ld[0] = LDP;
    NGA_Get(g, lo, hi, buf, ld);
    for (i = 0; i < R2; i++) {
        for (j = 0; j < C2; j++)
            if (gt_tdiff(t, buf, (long)i * LDP + j, er[i * C2 + j], ei[i * C2 + j]))
                gt_bad("(%d,%d)", i, j);
        for (j = C2; j < LDP; j++)
            if (gt_tdiff(t, buf, (long)i * LDP + j, -12345, 0)) gt_bad("padding (%d,%d) overwritten", i, j);
    }
    gt_check(0, "%s %s %dx%d: put banded odd-width patches, get all (padded ld)",
             kind, gt_tname(t), R2, C2);

    /* odd sub-patch, different on every rank */
    lo[0] = 2 + gt_me % 5; hi[0] = 30 - gt_me % 7;
    lo[1] = 5;             hi[1] = 47 - gt_me % 3;
    ld[0] = hi[1] - lo[1] + 1;
    NGA_Get(g, lo, hi, buf, ld);
    for (i = lo[0]; i <= hi[0]; i++)
        for (j = lo[1]; j <= hi[1]; j++)
            if (gt_tdiff(t, buf, (long)(i - lo[0]) * ld[0] + (j - lo[1]),
                         er[i * C2 + j], ei[i * C2 + j]))
                gt_bad("(%d,%d)", i, j);
    gt_check(0, "%s %s: get odd sub-patch across ownership boundaries", kind, gt_tname(t));
    GA_Sync();

    /* acc: every rank adds alpha_r*h over its own odd rectangle */
    for (r = 0; r < gt_np; r++) {
        int alo[2], ahi[2];
        double ar, ai, cr, ci;
        alo[0] = 1 + r % 9; ahi[0] = R2 - 2 - r % 5;
        alo[1] = 2 + r % 3; ahi[1] = C2 - 3 - r % 4;
        alpha_of(t, r, &ar, &ai);
        for (i = alo[0]; i <= ahi[0]; i++)
            for (j = alo[1]; j <= ahi[1]; j++) {
                long x = i * C2 + j;
                if (t == C_DCPL) gt_cmul(ar, ai, h_re(x), h_im(x), &cr, &ci);
                else { cr = ar * h_re(x); ci = 0; }
                er[x] += cr; ei[x] += ci;
            }
        if (r == gt_me) {
            char alpha[16];
            int pld = ahi[1] - alo[1] + 1;
            gt_tset(t, alpha, 0, ar, ai);
            for (i = alo[0]; i <= ahi[0]; i++)
                for (j = alo[1]; j <= ahi[1]; j++)
                    gt_tset(t, buf, (long)(i - alo[0]) * pld + (j - alo[1]),
                            h_re(i * C2 + j), h_im(i * C2 + j));
            ld[0] = pld;
            NGA_Acc(g, alo, ahi, buf, ld, alpha);
        }
    }
    GA_Sync();
    lo[0] = 0; lo[1] = 0; hi[0] = R2 - 1; hi[1] = C2 - 1; ld[0] = C2;
    NGA_Get(g, lo, hi, buf, ld);
    for (i = 0; i < R2 * C2; i++)
        if (gt_tdiff(t, buf, i, er[i], ei[i])) gt_bad("(%d,%d)", i / C2, i % C2);
    gt_check(0, "%s %s: NGA_Acc overlapping rectangles from all ranks", kind, gt_tname(t));
    GA_Sync();           /* readers done before anyone modifies the array again */
    free(buf); free(er); free(ei);
}

/* ------------------------------------------- fill / zero / copy / dup */
static long check_all(int g, int t, int n0, int n1, double re, double im, int pattern)
{
    int lo[2] = { 0, 0 }, hi[2] = { n0 - 1, n1 - 1 }, ld[1] = { n1 }, i;
    void *buf = malloc(gt_tsize(t) * n0 * n1);
    long bad = 0;
    NGA_Get(g, lo, hi, buf, ld);
    for (i = 0; i < n0 * n1; i++) {
        double r = pattern ? f_re(i) : re, m = pattern ? f_im(i) : im;
        if (gt_tdiff(t, buf, i, r, m)) bad++;
    }
    free(buf);
    return bad;
}

static void put_pattern_local(int g, int t, int n1)
{
    int lo[2], hi[2], ld[1], i, j;
    void *buf;
    NGA_Distribution(g, gt_me, lo, hi);
    if (lo[0] < 0 || hi[0] < lo[0] || hi[1] < lo[1]) return;
    ld[0] = hi[1] - lo[1] + 1;
    buf = malloc(gt_tsize(t) * (hi[0] - lo[0] + 1) * ld[0]);
    for (i = lo[0]; i <= hi[0]; i++)
        for (j = lo[1]; j <= hi[1]; j++)
            gt_tset(t, buf, (long)(i - lo[0]) * ld[0] + (j - lo[1]),
                    f_re(i * n1 + j), f_im(i * n1 + j));
    NGA_Put(g, lo, hi, buf, ld);
    free(buf);
}

/* GA_Fill / GA_Duplicate / GA_Copy / GA_Zero on g; returns the duplicate */
static int test_fill_copy(int g, int t)
{
    int g2, lo[2], hi[2], lo2[2], hi2[2];
    char val[16];
    long bad;

    gt_tset(t, val, 0, 7, -2);
    GA_Fill(g, val);
    GA_Sync();
    gt_check(check_all(g, t, R2, C2, 7, -2, 0), "GA_Fill %s %dx%d", gt_tname(t), R2, C2);
    GA_Sync();

    g2 = GA_Duplicate(g, "dup");
    NGA_Distribution(g, gt_me, lo, hi);
    NGA_Distribution(g2, gt_me, lo2, hi2);
    bad = g2 == 0 || memcmp(lo, lo2, sizeof lo) || memcmp(hi, hi2, sizeof hi);
    gt_check(bad, "GA_Duplicate %s: new handle, same distribution", gt_tname(t));

    GA_Copy(g, g2);
    GA_Zero(g);
    GA_Sync();
    bad = check_all(g, t, R2, C2, 0, 0, 0);
    gt_check(bad, "GA_Zero %s", gt_tname(t));
    bad = check_all(g2, t, R2, C2, 7, -2, 0);
    gt_check(bad, "GA_Copy %s (source zeroed afterwards, copy intact)", gt_tname(t));
    GA_Sync();           /* everybody has read g2 before it is overwritten */

    put_pattern_local(g2, t, C2);
    GA_Sync();
    GA_Copy(g2, g);
    GA_Sync();
    gt_check(check_all(g, t, R2, C2, 0, 0, 1), "GA_Copy %s of a pattern written via local puts", gt_tname(t));
    GA_Sync();
    return g2;
}

/* GA_Copy between different distributions: regular g -> irregular gi */
static void test_copy_irreg(int g, int gi, int t)
{
    GA_Zero(gi);
    put_pattern_local(g, t, C2);
    GA_Sync();
    GA_Copy(g, gi);
    GA_Sync();
    gt_check(check_all(gi, t, R2, C2, 0, 0, 1), "GA_Copy %s regular -> irregular distribution",
             gt_tname(t));
    GA_Sync();
}

/* -------------------------------------------------------- read_inc */
static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static void test_read_inc(int t, int inc, int K)
{
    int n = 3 * gt_np, g, sub, i, lo, hi, ld = 1;
    long *mine = malloc(sizeof(long) * K), *all = malloc(sizeof(long) * K * gt_np);
    long bad = 0, last;
    char zero[16];

    g = NGA_Create(t, 1, &n, "counter", NULL);
    GA_Zero(g);
    GA_Sync();
    sub = n - 2;                         /* lives on the last rank */
    for (i = 0; i < K; i++) mine[i] = NGA_Read_inc(g, &sub, inc);
    for (i = 1; i < K; i++) if (mine[i] <= mine[i - 1]) bad++;   /* monotone per rank */
    MPI_Allgather(mine, K, MPI_LONG, all, K, MPI_LONG, MPI_COMM_WORLD);
    qsort(all, (size_t)K * gt_np, sizeof(long), cmp_long);
    for (i = 0; i < K * gt_np; i++)
        if (all[i] != (long)i * inc) { gt_bad("sorted[%d]=%ld", i, all[i]); break; }
    GA_Sync();
    lo = hi = sub;
    NGA_Get(g, &lo, &hi, zero, &ld);
    last = t == C_INT ? *(int *)zero : *(long *)zero;
    if (last != (long)K * gt_np * inc) gt_bad("final counter %ld", last);
    gt_check(bad, "NGA_Read_inc %s inc=%d: %d x %d increments give exactly {0..%d}*%d",
             gt_tname(t), inc, gt_np, K, K * gt_np - 1, inc);
    GA_Sync();
    GA_Destroy(g);
    free(mine); free(all);
}

/* ------------------------------------------------------------ dgemm */
static double A_el(int i, int j) { return (double)((i * 3 + j * 5) % 11 - 5); }
static double B_el(int i, int j) { return (double)((i * 7 + j * 2) % 13 - 6); }

static void fill_local(int g, double (*fn)(int, int))
{
    int lo[2], hi[2], ld[1], i, j;
    double *buf;
    NGA_Distribution(g, gt_me, lo, hi);
    if (lo[0] < 0 || hi[0] < lo[0] || hi[1] < lo[1]) return;
    ld[0] = hi[1] - lo[1] + 1;
    buf = malloc(sizeof(double) * (hi[0] - lo[0] + 1) * ld[0]);
    for (i = lo[0]; i <= hi[0]; i++)
        for (j = lo[1]; j <= hi[1]; j++)
            buf[(i - lo[0]) * ld[0] + (j - lo[1])] = fn(i, j);
    NGA_Put(g, lo, hi, buf, ld);
    free(buf);
}

static double At_el(int i, int j) { return A_el(j, i); }

static void test_dgemm(void)
{
    const int m = 45, n = 38, k = 29;
    int da[2] = { m, k }, dat[2] = { k, m }, db[2] = { k, n }, dc[2] = { m, n };
    int gA, gAt, gB, gC, i, j, l, lo[2] = { 0, 0 }, hi[2] = { m - 1, n - 1 }, ld[1] = { n };
    double *c = malloc(sizeof(double) * m * n), err = 0, one = 1.0;

    gA = NGA_Create(C_DBL, 2, da, "A", NULL);
    gAt = NGA_Create(C_DBL, 2, dat, "At", NULL);
    gB = NGA_Create(C_DBL, 2, db, "B", NULL);
    gC = NGA_Create(C_DBL, 2, dc, "C", NULL);
    fill_local(gA, A_el);
    fill_local(gAt, At_el);
    fill_local(gB, B_el);
    GA_Fill(gC, &one);
    GA_Sync();

    GA_Dgemm('N', 'N', m, n, k, 2.0, gA, gB, 0.5, gC);
    GA_Sync();
    NGA_Get(gC, lo, hi, c, ld);
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++) {
            double s = 0;
            for (l = 0; l < k; l++) s += A_el(i, l) * B_el(l, j);
            s = 2.0 * s + 0.5;
            if (fabs(c[i * n + j] - s) > err) err = fabs(c[i * n + j] - s);
        }
    gt_check_err(err, 1e-9, "GA_Dgemm N,N %dx%dx%d alpha=2 beta=0.5", m, n, k);

    err = 0;
    GA_Sync();           /* C is read above and overwritten below */
    GA_Dgemm('T', 'N', m, n, k, 1.0, gAt, gB, 0.0, gC);
    GA_Sync();
    NGA_Get(gC, lo, hi, c, ld);
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++) {
            double s = 0;
            for (l = 0; l < k; l++) s += A_el(i, l) * B_el(l, j);
            if (fabs(c[i * n + j] - s) > err) err = fabs(c[i * n + j] - s);
        }
    gt_check_err(err, 1e-9, "GA_Dgemm T,N %dx%dx%d", m, n, k);

    GA_Sync();
    GA_Destroy(gC); GA_Destroy(gB); GA_Destroy(gAt); GA_Destroy(gA);
    free(c);
}

/* ------------------------------------------------- dot / scale / add */
static double p_re(long x) { return (double)(x % 7 + 1); }
static double p_im(long x) { return (double)(x % 4 - 1); }
static double q_re(long x) { return (double)(x % 5 - 1); }
static double q_im(long x) { return (double)(x % 3); }

static void put_fn_local(int g, int t, int n1, double (*fr)(long), double (*fi)(long))
{
    int lo[2], hi[2], ld[1], i, j;
    void *buf;
    NGA_Distribution(g, gt_me, lo, hi);
    if (lo[0] < 0 || hi[0] < lo[0] || hi[1] < lo[1]) return;
    ld[0] = hi[1] - lo[1] + 1;
    buf = malloc(gt_tsize(t) * (hi[0] - lo[0] + 1) * ld[0]);
    for (i = lo[0]; i <= hi[0]; i++)
        for (j = lo[1]; j <= hi[1]; j++)
            gt_tset(t, buf, (long)(i - lo[0]) * ld[0] + (j - lo[1]),
                    fr((long)i * n1 + j), fi((long)i * n1 + j));
    NGA_Put(g, lo, hi, buf, ld);
    free(buf);
}

static void test_dot_scale_add(int gA, int gB, int t)
{
    const int n0 = R2, n1 = C2;
    int lo[2] = { 0, 0 }, hi[2] = { n0 - 1, n1 - 1 }, ld[1] = { n1 };
    long x, bad = 0;
    double sr = 0, si = 0, cr, ci;
    void *buf = malloc(gt_tsize(t) * n0 * n1);
    char s[16], a[16], b[16];

    put_fn_local(gA, t, n1, p_re, p_im);
    put_fn_local(gB, t, n1, q_re, q_im);
    GA_Sync();

    for (x = 0; x < (long)n0 * n1; x++) {
        if (t == C_DCPL) {          /* GA_Zdot: sum a_i * b_i (no conjugate) */
            gt_cmul(p_re(x), p_im(x), q_re(x), q_im(x), &cr, &ci);
            sr += cr; si += ci;
        } else sr += p_re(x) * q_re(x);
    }
    switch (t) {
    case C_INT:  bad = GA_Idot(gA, gB) != (int)sr;  break;
    case C_LONG: bad = GA_Ldot(gA, gB) != (long)sr; break;
    case C_DBL:  bad = GA_Ddot(gA, gB) != sr;       break;
    case C_DCPL: { DoubleComplex z = GA_Zdot(gA, gB);
                   bad = z.real != sr || z.imag != si; } break;
    }
    gt_check(bad, "GA_%cdot %s %dx%d = (%g,%g) closed form",
             t == C_INT ? 'I' : t == C_LONG ? 'L' : t == C_DBL ? 'D' : 'Z',
             gt_tname(t), n0, n1, sr, si);

    /* A <- a*(s*A) + b*B  (GA_Add with g_c == g_a) */
    gt_tset(t, s, 0, 3, t == C_DCPL ? -1 : 0);
    gt_tset(t, a, 0, 2, t == C_DCPL ? 1 : 0);
    gt_tset(t, b, 0, -1, t == C_DCPL ? 2 : 0);
    GA_Scale(gA, s);
    GA_Add(a, gA, b, gB, gA);
    GA_Sync();
    NGA_Get(gA, lo, hi, buf, ld);
    bad = 0;
    for (x = 0; x < (long)n0 * n1; x++) {
        double tr, ti, ur, ui, vr, vi;
        if (t == C_DCPL) {
            gt_cmul(3, -1, p_re(x), p_im(x), &tr, &ti);
            gt_cmul(2, 1, tr, ti, &ur, &ui);
            gt_cmul(-1, 2, q_re(x), q_im(x), &vr, &vi);
            cr = ur + vr; ci = ui + vi;
        } else { cr = 2 * 3 * p_re(x) - q_re(x); ci = 0; }
        if (gt_tdiff(t, buf, x, cr, ci)) bad++;
    }
    gt_check(bad, "GA_Scale + GA_Add %s: A = a*(s*A) + b*B in place", gt_tname(t));
    GA_Sync();
    free(buf);
}

/* ---------------------------------------------------- access/release */
static void test_access(int g, int t)
{
    int lo[2], hi[2], ld[1], i, j;
    void *ptr = NULL;
    long bad = 0;

    GA_Zero(g);
    GA_Sync();
    NGA_Distribution(g, gt_me, lo, hi);
    if (lo[0] >= 0 && hi[0] >= lo[0] && hi[1] >= lo[1]) {
        NGA_Access(g, lo, hi, &ptr, ld);
        for (i = lo[0]; i <= hi[0]; i++)
            for (j = lo[1]; j <= hi[1]; j++)
                gt_tset(t, ptr, (long)(i - lo[0]) * ld[0] + (j - lo[1]),
                        f_re(i * C2 + j), f_im(i * C2 + j));
        NGA_Release_update(g, lo, hi);
    }
    GA_Sync();
    gt_check(check_all(g, t, R2, C2, 0, 0, 1),
             "NGA_Access/NGA_Release_update %s: local writes visible to NGA_Get", gt_tname(t));

    /* remote puts are visible through NGA_Access */
    GA_Sync();
    GA_Zero(g);
    GA_Sync();
    if (gt_me == gt_np - 1) {
        int glo[2] = { 0, 0 }, ghi[2] = { R2 - 1, C2 - 1 }, gld[1] = { C2 };
        void *buf = malloc(gt_tsize(t) * R2 * C2);
        for (i = 0; i < R2 * C2; i++) gt_tset(t, buf, i, f_re(i), f_im(i));
        NGA_Put(g, glo, ghi, buf, gld);
        free(buf);
    }
    GA_Sync();
    if (lo[0] >= 0 && hi[0] >= lo[0] && hi[1] >= lo[1]) {
        NGA_Access(g, lo, hi, &ptr, ld);
        for (i = lo[0]; i <= hi[0]; i++)
            for (j = lo[1]; j <= hi[1]; j++)
                if (gt_tdiff(t, ptr, (long)(i - lo[0]) * ld[0] + (j - lo[1]),
                             f_re(i * C2 + j), f_im(i * C2 + j))) bad++;
        NGA_Release(g, lo, hi);
    }
    gt_check(bad, "NGA_Access/NGA_Release %s: remote put visible in local block", gt_tname(t));
    GA_Sync();
}

/* ------------------------------------------------ create / destroy */
static void test_create_destroy(void)
{
    /* oversubscribed runs pay milliseconds per collective: keep it short */
    const int cycles = gt_np <= 2 ? 48 : 4, live = gt_np <= 2 ? 12 : 4;
    int c, i, handles[16];
    long bad = 0;
    size_t mem0 = GA_Inquire_memory(), memlive = 0;

    for (c = 0; c < cycles; c++) {
        int t = types[c % 4];
        int dims[2] = { 5 + c % 13, 3 + (c * 7) % 17 };
        int g = NGA_Create(t, 2, dims, "cyc", NULL), lo[2], hi[2], ld[1];
        char v[16];
        if (!g) { bad++; continue; }
        GA_Zero(g);
        GA_Sync();
        /* each rank writes one element; everyone reads the whole array */
        lo[0] = hi[0] = (gt_me * 5) % dims[0];
        lo[1] = hi[1] = (gt_me * 3 + c) % dims[1];
        ld[0] = 1;
        gt_tset(t, v, 0, 100 + c, c);
        NGA_Put(g, lo, hi, v, ld);
        GA_Sync();
        {
            void *all = malloc(gt_tsize(t) * dims[0] * dims[1]);
            int flo[2] = { 0, 0 }, fhi[2] = { dims[0] - 1, dims[1] - 1 }, fld[1] = { dims[1] }, x;
            char *written = calloc((size_t)dims[0] * dims[1], 1);
            NGA_Get(g, flo, fhi, all, fld);
            for (i = 0; i < gt_np; i++)
                written[((i * 5) % dims[0]) * dims[1] + (i * 3 + c) % dims[1]] = 1;
            for (x = 0; x < dims[0] * dims[1]; x++)
                if (gt_tdiff(t, all, x, written[x] ? 100 + c : 0, written[x] ? c : 0)) bad++;
            free(written);
            free(all);
        }
        GA_Sync();
        GA_Destroy(g);
    }
    gt_check(bad, "%d create/put/get/destroy cycles (mixed types and shapes)", cycles);

    bad = 0;
    for (i = 0; i < live; i++) {
        int dims[1] = { 50 + 13 * i };
        handles[i] = NGA_Create(types[i % 4], 1, dims, "live", NULL);
        if (!handles[i]) bad++;
    }
    for (i = 0; i < live; i++) {
        char v[16];
        gt_tset(types[i % 4], v, 0, i + 1, -i);
        GA_Fill(handles[i], v);
    }
    GA_Sync();
    memlive = GA_Inquire_memory();
    for (i = live - 1; i >= 0; i--)                               /* odd ones, reverse */
        if (i % 2) GA_Destroy(handles[i]);
    for (i = 0; i < live; i += 2) {                              /* evens still fine */
        int dims[1] = { 50 + 13 * i }, lo = 0, hi = dims[0] - 1, ld = 1, k;
        void *buf = malloc(gt_tsize(types[i % 4]) * dims[0]);
        NGA_Get(handles[i], &lo, &hi, buf, &ld);
        for (k = 0; k < dims[0]; k++)
            if (gt_tdiff(types[i % 4], buf, k, i + 1, -i)) { bad++; break; }
        free(buf);
    }
    GA_Sync();
    for (i = 0; i < live; i += 2) GA_Destroy(handles[i]);
    gt_check(bad, "%d simultaneous arrays, destroyed in non-LIFO order, survivors intact", live);
    gt_check(!(memlive > mem0) + (GA_Inquire_memory() != mem0),
             "GA_Inquire_memory grows while arrays live, back to initial value after destroys");
}

int main(int argc, char **argv)
{
    int k;
    MPI_Init(&argc, &argv);
    GA_Initialize();
    gt_ma_init();
    gt_setup();
    if (gt_me == 0)
        printf("ga_core: %d ranks, GA %d.%d.%d, GA_Uses_ma=%d\n", gt_np,
               GA_VERSION_MAJOR, GA_VERSION_MINOR, GA_VERSION_PATCH, GA_Uses_ma());

    for (k = 0; k < 4; k++) test_1d(types[k]);
    gt_flush();
    /* one regular, one duplicate and one irregular 2-D array per type are
     * shared by the following steps: creates are expensive when the ranks
     * oversubscribe the cores */
    for (k = 0; k < 4; k++) {
        int t = types[k], g, g2, gi;
        g = create_2d(t, 0);
        test_2d(g, t, 0);
        g2 = test_fill_copy(g, t);
        test_dot_scale_add(g, g2, t);
        if (t == C_INT || t == C_DCPL) test_access(g, t);
        gi = create_2d(t, 1);
        test_2d(gi, t, 1);
        if (t == C_DBL) test_copy_irreg(g, gi, t);
        GA_Destroy(gi);
        GA_Destroy(g2);
        GA_Destroy(g);
        gt_flush();
    }
    test_read_inc(C_INT, 1, gt_np <= 2 ? 40 : 16);
    test_read_inc(C_LONG, 3, gt_np <= 2 ? 25 : 10);
    test_dgemm();
    gt_flush();
    test_create_destroy();

    gt_flush();
    if (gt_me == 0) printf("ga_core: elapsed %.2f s\n", gt_elapsed());
    GA_Terminate();
    k = gt_finish();
    MPI_Finalize();
    return k;
}
