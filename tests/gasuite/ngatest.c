/*
 * ngatest.c - re-creation of GA 5.8's global/testing/ngatest.c (and ndim.F) for armci-x.
 *
 * For every GA element type (int, long, long long, float, double, single complex, double complex)
 * and every dimension 1..7 (GA_MAX_DIM), as the original does with its per-type/per-dimension
 * macros:
 *   - NGA_Create, GA_Zero, NGA_Put of the whole array by one rank, NGA_Get of random patches by all
 *   - NGA_Acc of one random patch from every rank with alpha (complex alpha for complex types)
 *   - NGA_Strided_put (two ranks, disjoint interleaved elements), NGA_Strided_get with other
 *     skips and origins, NGA_Strided_acc from every rank
 *   - NGA_Scatter (every rank its own elements), NGA_Gather of random elements,
 *     NGA_Scatter_acc from every rank with alpha
 *   - NGA_Periodic_put / NGA_Periodic_get / NGA_Periodic_acc on patches that wrap around the
 *     array bounds (negative lo, hi beyond the dimension)
 * A replicated reference of the whole array is kept on every rank and the whole array is read
 * back and compared after each group of operations. Then:
 *   - NGA_Read_inc on an element of a 7-D int array and a 5-D long array
 *   - irregular 3-D distribution (NGA_Create_irreg) and block-cyclic 2-D arrays
 *     (GA_Set_block_cyclic, GA_Set_block_cyclic_proc_grid): put/get/acc as above
 *
 * GA 5.8.2 restrictions seen identically on ARMCI-MPI 0.3.1 and armci-x, worked around here:
 *   - no accumulate of any kind for C_LONGLONG (NGA_Acc aborts "type not supported"): long long
 *     arrays get put/get/strided put+get/scatter/gather/periodic put+get only
 *   - NGA_Strided_* mis-address the buffer for >= 3 dimensions (see strided_maxdim below)
 *
 * Usage: ngatest [maxdim]   (default 7); NGATEST_STRIDED_MAXDIM=n runs the strided checks up to n-D
 */
#include "gasuite.h"

static const int dimtab[GS_MAXDIM][GS_MAXDIM] = {
    { 1201 },
    { 41, 37 },
    { 13, 11, 9 },
    { 7, 6, 5, 8 },
    { 5, 4, 5, 3, 4 },
    { 4, 3, 3, 4, 3, 2 },
    { 3, 3, 2, 3, 2, 3, 2 },
};

static double f_re(long x) { return (double)((x * 7) % 1001 - 500); }
static double f_im(long x) { return (double)(x % 13 - 6); }
static double h_re(long x) { return (double)(x % 9 - 4); }
static double h_im(long x) { return (double)(x % 5 - 2); }

typedef struct {
    int type, ndim, dims[GS_MAXDIM], g;
    long n;
    double *rr, *ri; /* replicated reference */
    double ar, ai;   /* alpha used for accumulates */
    char tag[64];
} arr_t;

static void ref_zero(arr_t *a)
{
    memset(a->rr, 0, sizeof(double) * a->n);
    memset(a->ri, 0, sizeof(double) * a->n);
}

/* ref[x] += np * alpha * h(x) */
static void ref_acc_all(arr_t *a, long x, int nacc, double vr, double vi)
{
    double sr, si;
    gs_scale(a->type, a->ar, a->ai, vr, vi, &sr, &si);
    a->rr[x] += nacc * sr;
    a->ri[x] += nacc * si;
}

/* read the whole array and compare with the reference */
static long compare_all(arr_t *a)
{
    int lo[GS_MAXDIM] = { 0 }, hi[GS_MAXDIM], ld[GS_MAXDIM], d;
    long x, bad = 0;
    void *buf = malloc(gs_tsize(a->type) * a->n);
    for (d = 0; d < a->ndim; d++) hi[d] = a->dims[d] - 1;
    gs_box_ld(a->ndim, lo, hi, ld);
    NGA_Get(a->g, lo, hi, buf, ld);
    for (x = 0; x < a->n; x++)
        if (gs_diff(a->type, buf, x, a->rr[x], a->ri[x])) {
            double r, i;
            gs_get(a->type, buf, x, &r, &i);
            gt_bad("%s elem %ld = (%g,%g) expected (%g,%g)", a->tag, x, r, i, a->rr[x], a->ri[x]);
            bad++;
        }
    free(buf);
    return bad;
}

static void test_put_get_acc(arr_t *a, gt_rng *shared)
{
    int lo[GS_MAXDIM] = { 0 }, hi[GS_MAXDIM], ld[GS_MAXDIM], idx[GS_MAXDIM], d, k;
    size_t ts = gs_tsize(a->type);
    long x, j, bad = 0;
    void *buf = malloc(ts * a->n);
    gt_rng mine;
    int writer = (a->ndim + a->type) % gt_np;

    for (d = 0; d < a->ndim; d++) hi[d] = a->dims[d] - 1;
    GA_Zero(a->g);
    ref_zero(a);
    for (x = 0; x < a->n; x++) {
        a->rr[x] = f_re(x);
        a->ri[x] = gs_is_cplx(a->type) ? f_im(x) : 0.0;
        gs_set(a->type, buf, x, a->rr[x], a->ri[x]);
    }
    if (gt_me == writer) {
        gs_box_ld(a->ndim, lo, hi, ld);
        NGA_Put(a->g, lo, hi, buf, ld);
    }
    GA_Sync();
    gt_rng_seed(&mine, 1000 + 17 * gt_me + a->ndim);
    for (k = 0; k < 4; k++) {
        int plo[GS_MAXDIM], phi[GS_MAXDIM];
        gs_rand_box(&mine, a->ndim, a->dims, plo, phi);
        gs_box_ld(a->ndim, plo, phi, ld);
        NGA_Get(a->g, plo, phi, buf, ld);
        memcpy(idx, plo, sizeof(int) * a->ndim);
        j = 0;
        do {
            x = gs_lin(a->ndim, a->dims, idx);
            if (gs_diff(a->type, buf, j, a->rr[x], a->ri[x])) {
                double r_, i_;
                gs_get(a->type, buf, j, &r_, &i_);
                if (!bad) gt_bad("%s get patch elem %ld = (%g,%g) expected (%g,%g)", a->tag, x, r_, i_, a->rr[x], a->ri[x]);
                bad++;
            }
            j++;
        } while (gs_next(a->ndim, idx, plo, phi));
    }
    gt_check(bad, "%s: NGA_Put by rank %d, NGA_Get random patches", a->tag, writer);

    /* accumulate the same patch from every rank (after everybody has finished reading) */
    GA_Sync();
    if (a->type != C_LONGLONG) { /* GA 5.8: NGA_Acc aborts "type not supported" for long long */
        int plo[GS_MAXDIM], phi[GS_MAXDIM];
        gs_scalar alpha = gs_make_scalar(a->type, a->ar, a->ai);
        gs_rand_box(shared, a->ndim, a->dims, plo, phi);
        gs_box_ld(a->ndim, plo, phi, ld);
        memcpy(idx, plo, sizeof(int) * a->ndim);
        j = 0;
        do {
            x = gs_lin(a->ndim, a->dims, idx);
            gs_set(a->type, buf, j, h_re(x), h_im(x));
            ref_acc_all(a, x, gt_np, h_re(x), gs_is_cplx(a->type) ? h_im(x) : 0.0);
            j++;
        } while (gs_next(a->ndim, idx, plo, phi));
        NGA_Acc(a->g, plo, phi, buf, ld, &alpha);
        GA_Sync();
        gt_check(compare_all(a), "%s: NGA_Acc same patch from all ranks, alpha=(%g,%g)", a->tag, a->ar, a->ai);
    }
    free(buf);
}

/* box of elements lo, lo+skip, ... <= hi: count per dimension */
static void strided_counts(int ndim, const int *lo, int *hi, const int *skip, int *cnt)
{
    int d;
    for (d = 0; d < ndim; d++) {
        cnt[d] = (hi[d] - lo[d]) / skip[d] + 1;
        hi[d] = lo[d] + (cnt[d] - 1) * skip[d]; /* last selected element */
    }
}

/* GA 5.8.2's NGA_Strided_put/get/acc mis-address the local buffer for 3 or more dimensions when
 * the patch spans a block that does not start at index 0 of the slowest dimension (the same wrong
 * elements on ARMCI-MPI 0.3.1 and armci-x; even skip 1 is affected).  By default the strided
 * checks therefore run for 1-D and 2-D arrays only; NGATEST_STRIDED_MAXDIM=7 runs them all. */
static int strided_maxdim = 2;

static void test_strided(arr_t *a)
{
    int lo[GS_MAXDIM], hi[GS_MAXDIM], skip[GS_MAXDIM], cnt[GS_MAXDIM], ld[GS_MAXDIM];
    int zero[GS_MAXDIM] = { 0 }, cmax[GS_MAXDIM], ci[GS_MAXDIM], d, p, nd = a->ndim;
    size_t ts = gs_tsize(a->type);
    void *buf = malloc(ts * a->n);
    long j, x, bad = 0;
    gs_scalar alpha = gs_make_scalar(a->type, a->ar, a->ai);

    if (nd > strided_maxdim) {
        free(buf);
        return;
    }
    GA_Zero(a->g);
    ref_zero(a);
    /* ranks 0 and 1 put interleaved elements along the last dimension (skip 2), every other
     * element in the other dimensions */
    for (p = 0; p < (gt_np > 1 ? 2 : 1); p++) {
        for (d = 0; d < nd; d++) {
            lo[d] = d == nd - 1 ? p : 0;
            skip[d] = a->dims[d] > 2 ? 2 : 1;
            if (d == nd - 1) skip[d] = 2;
            hi[d] = a->dims[d] - 1;
        }
        if (lo[nd - 1] > hi[nd - 1]) continue;
        strided_counts(nd, lo, hi, skip, cnt);
        for (d = 0; d < nd; d++) cmax[d] = cnt[d] - 1;
        memset(ci, 0, sizeof ci);
        j = 0;
        do {
            int idx[GS_MAXDIM];
            for (d = 0; d < nd; d++) idx[d] = lo[d] + ci[d] * skip[d];
            x = gs_lin(nd, a->dims, idx);
            a->rr[x] = f_re(x) + p;
            a->ri[x] = gs_is_cplx(a->type) ? f_im(x) : 0.0;
            if (p == gt_me) gs_set(a->type, buf, j, a->rr[x], a->ri[x]);
            j++;
        } while (gs_next(nd, ci, zero, cmax));
        if (p == gt_me) {
            gs_box_ld(nd, zero, cmax, ld);
            NGA_Strided_put(a->g, lo, hi, skip, buf, ld);
        }
    }
    GA_Sync();
    gt_check(compare_all(a), "%s: NGA_Strided_put interleaved from 2 ranks", a->tag);

    /* strided get with skips 1..3 from rank-dependent origins */
    for (p = 0; p < 3; p++) {
        for (d = 0; d < nd; d++) {
            skip[d] = 1 + (p + d + gt_me) % 3;
            lo[d] = (gt_me + p + d) % (a->dims[d] > 1 ? 2 : 1);
            hi[d] = a->dims[d] - 1 - (p % 2);
            if (hi[d] < lo[d]) hi[d] = lo[d];
        }
        strided_counts(nd, lo, hi, skip, cnt);
        for (d = 0; d < nd; d++) cmax[d] = cnt[d] - 1;
        gs_box_ld(nd, zero, cmax, ld);
        NGA_Strided_get(a->g, lo, hi, skip, buf, ld);
        memset(ci, 0, sizeof ci);
        j = 0;
        do {
            int idx[GS_MAXDIM];
            for (d = 0; d < nd; d++) idx[d] = lo[d] + ci[d] * skip[d];
            x = gs_lin(nd, a->dims, idx);
            if (gs_diff(a->type, buf, j, a->rr[x], a->ri[x])) {
                if (!bad) gt_bad("%s strided get elem %ld (round %d)", a->tag, x, p);
                bad++;
            }
            j++;
        } while (gs_next(nd, ci, zero, cmax));
    }
    gt_check(bad, "%s: NGA_Strided_get skips 1..3", a->tag);

    GA_Sync();
    /* strided accumulate from every rank: skip 2 from origin 0 in every dimension (skip 1 when
     * the dimension has fewer than 3 elements) */
    if (a->type == C_LONGLONG) {
        free(buf);
        return;
    }
    for (d = 0; d < nd; d++) {
        lo[d] = 0;
        hi[d] = a->dims[d] - 1;
        skip[d] = a->dims[d] > 2 ? 2 : 1;
    }
    strided_counts(nd, lo, hi, skip, cnt);
    for (d = 0; d < nd; d++) cmax[d] = cnt[d] - 1;
    memset(ci, 0, sizeof ci);
    j = 0;
    do {
        int idx[GS_MAXDIM];
        for (d = 0; d < nd; d++) idx[d] = lo[d] + ci[d] * skip[d];
        x = gs_lin(nd, a->dims, idx);
        gs_set(a->type, buf, j, h_re(x), h_im(x));
        ref_acc_all(a, x, gt_np, h_re(x), gs_is_cplx(a->type) ? h_im(x) : 0.0);
        j++;
    } while (gs_next(nd, ci, zero, cmax));
    gs_box_ld(nd, zero, cmax, ld);
    NGA_Strided_acc(a->g, lo, hi, skip, buf, ld, &alpha);
    GA_Sync();
    gt_check(compare_all(a), "%s: NGA_Strided_acc from all ranks", a->tag);
    free(buf);
}

static void test_scatter_gather(arr_t *a)
{
    int nd = a->ndim, d, **subs, *sbuf, idx[GS_MAXDIM];
    long n = a->n, m = 0, x, k, bad = 0;
    size_t ts = gs_tsize(a->type);
    void *v = malloc(ts * n);
    gs_scalar alpha = gs_make_scalar(a->type, a->ar, a->ai);
    gt_rng r;

    subs = malloc(sizeof(int *) * n);
    sbuf = malloc(sizeof(int) * n * nd);
    GA_Zero(a->g);
    ref_zero(a);
    for (x = 0; x < n; x++) {
        long rem = x;
        for (d = nd - 1; d >= 0; d--) {
            idx[d] = (int)(rem % a->dims[d]);
            rem /= a->dims[d];
        }
        a->rr[x] = f_re(x);
        a->ri[x] = gs_is_cplx(a->type) ? f_im(x) : 0.0;
        if ((x * 5 + 3) % gt_np == gt_me) {
            subs[m] = sbuf + m * nd;
            memcpy(subs[m], idx, sizeof(int) * nd);
            gs_set(a->type, v, m, a->rr[x], a->ri[x]);
            m++;
        }
    }
    NGA_Scatter(a->g, v, subs, (int)m);
    GA_Sync();
    gt_check(compare_all(a), "%s: NGA_Scatter of %ld elements per rank", a->tag, m);

    gt_rng_seed(&r, 77 + gt_me * 13 + nd);
    m = n < 300 ? n : 300;
    for (k = 0; k < m; k++) {
        subs[k] = sbuf + k * nd;
        for (d = 0; d < nd; d++) subs[k][d] = gt_rng_int(&r, 0, a->dims[d] - 1);
    }
    memset(v, 0xff, ts * m);
    NGA_Gather(a->g, v, subs, (int)m);
    for (k = 0; k < m; k++) {
        x = gs_lin(nd, a->dims, subs[k]);
        if (gs_diff(a->type, v, k, a->rr[x], a->ri[x])) {
            if (!bad) gt_bad("%s gather elem %ld", a->tag, x);
            bad++;
        }
    }
    gt_check(bad, "%s: NGA_Gather %ld random elements", a->tag, m);

    /* scatter-accumulate from every rank on every third element (no accumulate for long long in
     * GA 5.8) */
    GA_Sync();
    if (a->type != C_LONGLONG) {
        m = 0;
        for (x = 0; x < n; x += 3) {
            long rem = x;
            subs[m] = sbuf + m * nd;
            for (d = nd - 1; d >= 0; d--) {
                subs[m][d] = (int)(rem % a->dims[d]);
                rem /= a->dims[d];
            }
            gs_set(a->type, v, m, h_re(x), h_im(x));
            ref_acc_all(a, x, gt_np, h_re(x), gs_is_cplx(a->type) ? h_im(x) : 0.0);
            m++;
        }
        NGA_Scatter_acc(a->g, v, subs, (int)m, &alpha);
        GA_Sync();
        gt_check(compare_all(a), "%s: NGA_Scatter_acc from all ranks", a->tag);
    }
    free(subs);
    free(sbuf);
    free(v);
}

static int wrap(int i, int n) { return ((i % n) + n) % n; }

static void test_periodic(arr_t *a)
{
    int nd = a->ndim, lo[GS_MAXDIM], hi[GS_MAXDIM], ld[GS_MAXDIM], idx[GS_MAXDIM], w[GS_MAXDIM], d, k;
    size_t ts = gs_tsize(a->type);
    void *buf = malloc(ts * a->n);
    long j, x, bad = 0;
    gs_scalar alpha = gs_make_scalar(a->type, a->ar, a->ai);

    GA_Zero(a->g);
    ref_zero(a);
    /* a patch starting two elements before the end of each dimension, wrapping to the front */
    for (d = 0; d < nd; d++) {
        int sz = a->dims[d] < 5 ? a->dims[d] : 5;
        lo[d] = a->dims[d] - 2;
        hi[d] = lo[d] + sz - 1;
    }
    gs_box_ld(nd, lo, hi, ld);
    memcpy(idx, lo, sizeof(int) * nd);
    j = 0;
    do {
        for (d = 0; d < nd; d++) w[d] = wrap(idx[d], a->dims[d]);
        x = gs_lin(nd, a->dims, w);
        a->rr[x] = (double)(j + 1);
        a->ri[x] = gs_is_cplx(a->type) ? (double)(-j) : 0.0;
        gs_set(a->type, buf, j, a->rr[x], a->ri[x]);
        j++;
    } while (gs_next(nd, idx, lo, hi));
    if (gt_me == gt_np - 1) NGA_Periodic_put(a->g, lo, hi, buf, ld);
    GA_Sync();
    gt_check(compare_all(a), "%s: NGA_Periodic_put wrapping patch", a->tag);

    /* periodic get with negative lower bounds */
    for (k = 0; k < 2; k++) {
        for (d = 0; d < nd; d++) {
            int sz = a->dims[d] < 4 ? a->dims[d] : 4;
            lo[d] = -1 - (k + d + gt_me) % 2;
            if (k == 1 && d % 2) lo[d] = -a->dims[d] - 1; /* more than one period below */
            hi[d] = lo[d] + sz - 1;
        }
        gs_box_ld(nd, lo, hi, ld);
        NGA_Periodic_get(a->g, lo, hi, buf, ld);
        memcpy(idx, lo, sizeof(int) * nd);
        j = 0;
        do {
            for (d = 0; d < nd; d++) w[d] = wrap(idx[d], a->dims[d]);
            x = gs_lin(nd, a->dims, w);
            if (gs_diff(a->type, buf, j, a->rr[x], a->ri[x])) {
                if (!bad) gt_bad("%s periodic get elem %ld (k=%d)", a->tag, x, k);
                bad++;
            }
            j++;
        } while (gs_next(nd, idx, lo, hi));
    }
    gt_check(bad, "%s: NGA_Periodic_get with negative lo", a->tag);

    /* periodic accumulate from every rank on a patch hanging over the upper end */
    GA_Sync();
    if (a->type == C_LONGLONG) {
        free(buf);
        return;
    }
    for (d = 0; d < nd; d++) {
        int sz = a->dims[d] < 3 ? a->dims[d] : 3;
        lo[d] = a->dims[d] - 1;
        hi[d] = lo[d] + sz - 1;
    }
    gs_box_ld(nd, lo, hi, ld);
    memcpy(idx, lo, sizeof(int) * nd);
    j = 0;
    do {
        for (d = 0; d < nd; d++) w[d] = wrap(idx[d], a->dims[d]);
        x = gs_lin(nd, a->dims, w);
        gs_set(a->type, buf, j, h_re(x), h_im(x));
        ref_acc_all(a, x, gt_np, h_re(x), gs_is_cplx(a->type) ? h_im(x) : 0.0);
        j++;
    } while (gs_next(nd, idx, lo, hi));
    NGA_Periodic_acc(a->g, lo, hi, buf, ld, &alpha);
    GA_Sync();
    gt_check(compare_all(a), "%s: NGA_Periodic_acc from all ranks", a->tag);
    free(buf);
}

static void arr_init(arr_t *a, int type, int ndim, const int *dims, const char *kind)
{
    int d;
    a->type = type;
    a->ndim = ndim;
    a->n = 1;
    for (d = 0; d < ndim; d++) {
        a->dims[d] = dims[d];
        a->n *= dims[d];
    }
    a->rr = malloc(sizeof(double) * a->n);
    a->ri = malloc(sizeof(double) * a->n);
    a->ar = type == C_FLOAT || type == C_DBL ? 0.5 : 2.0;
    a->ai = gs_is_cplx(type) ? -1.0 : 0.0;
    snprintf(a->tag, sizeof a->tag, "%s %dD %s", kind, ndim, gs_tname(type));
}

static void arr_free(arr_t *a)
{
    GA_Destroy(a->g);
    free(a->rr);
    free(a->ri);
}

static void test_read_inc(int type, int ndim, const int *dims, int K)
{
    int g, sub[GS_MAXDIM], d, k, lo[1], hi[1], nt = K * gt_np, one = 1, ld[1] = { 1 };
    long bad = 0, v, *got;
    int gf;
    for (d = 0; d < ndim; d++) sub[d] = dims[d] / 2;
    g = NGA_Create(type, ndim, (int *)dims, "read_inc", NULL);
    gf = NGA_Create(C_INT, 1, &nt, "claimed", NULL);
    GA_Zero(g);
    GA_Zero(gf);
    for (k = 0; k < K; k++) {
        v = NGA_Read_inc(g, sub, 1);
        if (v < 0 || v >= nt) {
            bad++;
            continue;
        }
        lo[0] = hi[0] = (int)v;
        NGA_Acc(gf, lo, hi, &one, ld, &one);
    }
    GA_Sync();
    got = malloc(sizeof(int) * nt);
    lo[0] = 0;
    hi[0] = nt - 1;
    NGA_Get(gf, lo, hi, got, ld);
    for (k = 0; k < nt; k++)
        if (((int *)got)[k] != 1) {
            if (!bad) gt_bad("value %d claimed %d times", k, ((int *)got)[k]);
            bad++;
        }
    gt_check(bad, "NGA_Read_inc on a %dD %s array: %d values each claimed once", ndim, gs_tname(type), nt);
    free(got);
    GA_Destroy(gf);
    GA_Destroy(g);
}

static void test_irreg_3d(void)
{
    int dims[3] = { 19, 14, 11 }, block[3], map[64], d, nb = 0, b0 = gt_np, b1 = 1;
    arr_t a;
    gt_rng shared;
    if (gt_np % 2 == 0 && gt_np > 2) {
        b0 = gt_np / 2;
        b1 = 2;
    }
    block[0] = b0;
    block[1] = b1;
    block[2] = 1;
    /* very uneven first dimension: 1, 2, 4, ... rows, rest in the last block */
    map[nb++] = 0;
    for (d = 1; d < b0; d++) {
        int v = map[nb - 1] + (1 << (d - 1)), cap = dims[0] - (b0 - d);
        map[nb] = v > cap ? cap : v;
        nb++;
    }
    map[nb++] = 0;
    if (b1 == 2) map[nb++] = 11;
    map[nb++] = 0;
    arr_init(&a, C_DBL, 3, dims, "irreg");
    a.g = NGA_Create_irreg(C_DBL, 3, dims, "irreg3", block, map);
    gt_rng_seed(&shared, 4711);
    test_put_get_acc(&a, &shared);
    test_strided(&a);
    test_periodic(&a);
    arr_free(&a);
}

static void test_block_cyclic(int type, int use_grid)
{
    int dims[2] = { 45, 38 }, bs[2] = { 4, 7 }, grid[2];
    arr_t a;
    gt_rng shared;
    arr_init(&a, type, 2, dims, use_grid ? "blockcyclic-grid" : "blockcyclic");
    a.g = GA_Create_handle();
    GA_Set_data(a.g, 2, dims, type);
    if (use_grid) {
        grid[0] = gt_np % 2 == 0 ? 2 : 1;
        grid[1] = gt_np / grid[0];
        GA_Set_block_cyclic_proc_grid(a.g, bs, grid);
    } else {
        GA_Set_block_cyclic(a.g, bs);
    }
    if (!GA_Allocate(a.g)) GA_Error("GA_Allocate block cyclic failed", 0);
    gt_rng_seed(&shared, 99);
    test_put_get_acc(&a, &shared);
    test_scatter_gather(&a);
    arr_free(&a);
}

int main(int argc, char **argv)
{
    int maxdim = GS_MAXDIM, ti, nd;
    gs_init(&argc, &argv);
    if (argc > 1) maxdim = atoi(argv[1]);
    if (maxdim < 1 || maxdim > GS_MAXDIM) maxdim = GS_MAXDIM;
    if (getenv("NGATEST_STRIDED_MAXDIM")) strided_maxdim = atoi(getenv("NGATEST_STRIDED_MAXDIM"));
    gt_note("ngatest re-creation: %d ranks, dimensions 1..%d, 7 types (strided ops up to %d-D)", gt_np, maxdim,
            strided_maxdim);

    for (ti = 0; ti < 7; ti++) {
        for (nd = 1; nd <= maxdim; nd++) {
            arr_t a;
            gt_rng shared;
            arr_init(&a, gs_all_types[ti], nd, dimtab[nd - 1], "nga");
            a.g = NGA_Create(a.type, nd, a.dims, "nga", NULL);
            if (!a.g) GA_Error("NGA_Create failed", nd);
            gt_rng_seed(&shared, 31 * nd + ti);
            test_put_get_acc(&a, &shared);
            test_strided(&a);
            test_scatter_gather(&a);
            test_periodic(&a);
            arr_free(&a);
        }
        gt_flush();
    }
    test_read_inc(C_INT, 7, dimtab[6], 40);
    test_read_inc(C_LONG, 5, dimtab[4], 40);
    test_irreg_3d();
    test_block_cyclic(C_DBL, 0);
    test_block_cyclic(C_DCPL, 1);
    test_block_cyclic(C_INT, 1);
    {
        int rc = gt_finish();
        GA_Terminate();
        MPI_Finalize();
        return rc;
    }
}
