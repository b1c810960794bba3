/*
 * ga_nb.c - non-blocking GA operations (ARMCI_NbPutS / NbGetS / NbAccS,
 * ARMCI_Wait / ARMCI_Test underneath).
 *
 * Checks:
 *   - several outstanding NGA_NbPut's per rank (patches straddling owners),
 *     waited in reverse order; source buffers are scribbled on right after
 *     each NGA_NbWait (local completion => reuse must be safe); result exact
 *   - several outstanding NGA_NbGet's of random patches into separate
 *     buffers, waited in shuffled order, each verified
 *   - outstanding NGA_NbAcc's from every rank onto overlapping patches,
 *     exact totals
 *   - NGA_NbPut + NGA_NbWait followed by NGA_Get of the same patch by the
 *     same rank returns the new data (ARMCI location consistency)
 *   - NGA_NbTest polling until completion (NbTest retires the handle)
 *   - one handle variable reused for many issue/wait cycles
 *   - 3-D int array NbGet/NbPut mix
 */
#include "gatest.h"

#define R 48
#define C 40
#define NPUT 6

static double base(int i, int j) { return (double)(i * 1000 + j); }

static void shifted_rows(int r, int *lo, int *hi)
{
    int a = r == 0 ? 0 : (int)((long)r * R / gt_np) + 2;
    int b = r + 1 == gt_np ? R : (int)((long)(r + 1) * R / gt_np) + 2;
    *lo = a > R ? R : a;
    *hi = (b > R ? R : b) - 1;
}

static long check_full(int g, double (*expect)(int, int, void *), void *ctx)
{
    int lo[2] = { 0, 0 }, hi[2] = { R - 1, C - 1 }, ld[1] = { C }, i, j;
    double *buf = malloc(sizeof(double) * R * C);
    NGA_Get(g, lo, hi, buf, ld);
    for (i = 0; i < R; i++)
        for (j = 0; j < C; j++)
            if (buf[i * C + j] != expect(i, j, ctx))
                gt_bad("(%d,%d)=%g expected %g", i, j, buf[i * C + j], expect(i, j, ctx));
    free(buf);
    return 0;
}

static double expect_base(int i, int j, void *ctx) { (void)ctx; return base(i, j); }

static void test_nbput(int g)
{
    ga_nbhdl_t h[NPUT];
    double *bufs[NPUT];
    int lo[NPUT][2], hi[NPUT][2], ld[NPUT][1], k, i, j, rlo, rhi;

    GA_Zero(g);
    GA_Sync();
    shifted_rows(gt_me, &rlo, &rhi);
    for (k = 0; k < NPUT; k++) {
        /* column pieces of uneven width: 0..3, 4..10, 11..16, ... */
        int c0 = (k * k * C) / (NPUT * NPUT), c1 = ((k + 1) * (k + 1) * C) / (NPUT * NPUT) - 1;
        lo[k][0] = rlo; hi[k][0] = rhi; lo[k][1] = c0; hi[k][1] = c1;
        ld[k][0] = c1 - c0 + 1 + (k % 3);               /* some padded */
        bufs[k] = malloc(sizeof(double) * (R + 1) * ld[k][0]);
        for (i = rlo; i <= rhi; i++)
            for (j = c0; j <= c1; j++)
                bufs[k][(i - rlo) * ld[k][0] + (j - c0)] = base(i, j);
        if (rlo <= rhi && c0 <= c1) NGA_NbPut(g, lo[k], hi[k], bufs[k], ld[k], &h[k]);
    }
    for (k = NPUT - 1; k >= 0; k--) {
        int c0 = lo[k][1], c1 = hi[k][1];
        if (!(rlo <= rhi && c0 <= c1)) continue;
        NGA_NbWait(&h[k]);
        for (i = 0; i < (R + 1) * ld[k][0]; i++) bufs[k][i] = -1.0;   /* reuse */
    }
    GA_Sync();
    check_full(g, expect_base, NULL);
    gt_check(0, "NGA_NbPut x%d per rank (straddling owners), NbWait in reverse order, "
             "buffers reused after wait", NPUT);
    GA_Sync();           /* reads done before the next phase writes */
    for (k = 0; k < NPUT; k++) free(bufs[k]);
}

static void test_nbget(int g, unsigned long long seed)
{
    enum { NG = 7 };
    ga_nbhdl_t h[NG];
    double *bufs[NG];
    int lo[NG][2], hi[NG][2], ld[NG][1], k, i, j, order[NG];
    gt_rng rng;

    gt_rng_seed(&rng, seed + gt_me);
    for (k = 0; k < NG; k++) {
        int a = gt_rng_int(&rng, 0, R - 1), b = gt_rng_int(&rng, 0, R - 1);
        int c = gt_rng_int(&rng, 0, C - 1), d = gt_rng_int(&rng, 0, C - 1);
        lo[k][0] = a < b ? a : b; hi[k][0] = a < b ? b : a;
        lo[k][1] = c < d ? c : d; hi[k][1] = c < d ? d : c;
        ld[k][0] = hi[k][1] - lo[k][1] + 1;
        bufs[k] = malloc(sizeof(double) * (hi[k][0] - lo[k][0] + 1) * ld[k][0]);
        NGA_NbGet(g, lo[k], hi[k], bufs[k], ld[k], &h[k]);
        order[k] = k;
    }
    for (k = NG - 1; k > 0; k--) {     /* shuffled wait order */
        int x = gt_rng_int(&rng, 0, k), t = order[k];
        order[k] = order[x]; order[x] = t;
    }
    for (k = 0; k < NG; k++) NGA_NbWait(&h[order[k]]);
    for (k = 0; k < NG; k++)
        for (i = lo[k][0]; i <= hi[k][0]; i++)
            for (j = lo[k][1]; j <= hi[k][1]; j++)
                if (bufs[k][(i - lo[k][0]) * ld[k][0] + (j - lo[k][1])] != base(i, j))
                    gt_bad("get %d (%d,%d)", k, i, j);
    gt_check(0, "NGA_NbGet x%d random patches per rank (seed %llu+rank), shuffled NbWait order",
             NG, seed);
    GA_Sync();
    for (k = 0; k < NG; k++) free(bufs[k]);
}

struct accctx { int nacc; };
static int acc_lo0(int r, int k) { return (r + 3 * k) % 9; }
static int acc_hi0(int r, int k) { return R - 1 - (r + k) % 7; }
static int acc_lo1(int r, int k) { return (2 * r + k) % 5; }
static int acc_hi1(int r, int k) { return C - 1 - (r * k) % 6; }
static double expect_acc(int i, int j, void *vctx)
{
    struct accctx *ctx = vctx;
    double v = base(i, j);
    int r, k;
    for (r = 0; r < gt_np; r++)
        for (k = 0; k < ctx->nacc; k++)
            if (i >= acc_lo0(r, k) && i <= acc_hi0(r, k) && j >= acc_lo1(r, k) && j <= acc_hi1(r, k))
                v += (r + 1) * (double)((i + j + k) % 4);
    return v;
}

static void test_nbacc(int g)
{
    enum { NA = 5 };
    ga_nbhdl_t h[NA];
    double *bufs[NA];
    int lo[NA][2], hi[NA][2], ld[NA][1], k, i, j;
    double alpha = gt_me + 1;
    struct accctx ctx = { NA };

    for (k = 0; k < NA; k++) {
        lo[k][0] = acc_lo0(gt_me, k); hi[k][0] = acc_hi0(gt_me, k);
        lo[k][1] = acc_lo1(gt_me, k); hi[k][1] = acc_hi1(gt_me, k);
        ld[k][0] = hi[k][1] - lo[k][1] + 1;
        bufs[k] = malloc(sizeof(double) * (hi[k][0] - lo[k][0] + 1) * ld[k][0]);
        for (i = lo[k][0]; i <= hi[k][0]; i++)
            for (j = lo[k][1]; j <= hi[k][1]; j++)
                bufs[k][(i - lo[k][0]) * ld[k][0] + (j - lo[k][1])] = (double)((i + j + k) % 4);
        NGA_NbAcc(g, lo[k], hi[k], bufs[k], ld[k], &alpha, &h[k]);
    }
    alpha = -99.0;   /* GA must have consumed alpha at issue time */
    for (k = 0; k < NA; k++) NGA_NbWait(&h[k]);
    GA_Sync();
    check_full(g, expect_acc, &ctx);
    gt_check(0, "NGA_NbAcc x%d overlapping patches from every rank, exact totals", NA);
    GA_Sync();
    for (k = 0; k < NA; k++) free(bufs[k]);
}

/* put then get by the same rank, same location, only NbWait in between */
static void test_location_consistency(int g)
{
    int lo[2], hi[2], ld[1], i, j, rlo, rhi, rep;
    double *buf = malloc(sizeof(double) * R * C), *back = malloc(sizeof(double) * R * C);
    ga_nbhdl_t h;

    GA_Sync();
    shifted_rows(gt_np - 1 - gt_me, &rlo, &rhi);   /* someone else's rows mostly */
    for (rep = 0; rep < 3 && rlo <= rhi; rep++) {
        lo[0] = rlo; hi[0] = rhi; lo[1] = rep; hi[1] = C - 1 - rep;
        ld[0] = hi[1] - lo[1] + 1;
        for (i = lo[0]; i <= hi[0]; i++)
            for (j = lo[1]; j <= hi[1]; j++)
                buf[(i - lo[0]) * ld[0] + (j - lo[1])] = -(double)(rep * 100000 + i * 100 + j);
        NGA_NbPut(g, lo, hi, buf, ld, &h);
        NGA_NbWait(&h);
        NGA_Get(g, lo, hi, back, ld);
        for (i = 0; i < (hi[0] - lo[0] + 1) * ld[0]; i++)
            if (back[i] != buf[i]) { gt_bad("rep %d elem %d: %g vs %g", rep, i, back[i], buf[i]); break; }
    }
    gt_check(0, "NGA_NbPut+NbWait then NGA_Get of same patch by same rank sees new data");
    GA_Sync();
    free(buf); free(back);
}

static void test_nbtest_and_reuse(int g)
{
    int lo[2], hi[2], ld[1] = { C }, i, j, polls = 0, done = 0, cycles;
    double *buf = malloc(sizeof(double) * R * C);
    ga_nbhdl_t h;
    long bad = 0;

    /* known content first */
    GA_Sync();
    if (gt_me == 0) {
        lo[0] = 0; lo[1] = 0; hi[0] = R - 1; hi[1] = C - 1;
        for (i = 0; i < R * C; i++) buf[i] = base(i / C, i % C);
        NGA_Put(g, lo, hi, buf, ld);
    }
    GA_Sync();

    lo[0] = 0; lo[1] = 0; hi[0] = R - 1; hi[1] = C - 1;
    memset(buf, 0, sizeof(double) * R * C);
    NGA_NbGet(g, lo, hi, buf, ld, &h);
    /* NGA_NbTest returns 1 once complete and then retires the handle:
     * calling NGA_NbWait afterwards makes GA print "inactive slot" */
    while (polls < 100000000 && !(done = NGA_NbTest(&h))) polls++;
    if (!done) NGA_NbWait(&h);
    for (i = 0; i < R * C; i++) if (buf[i] != base(i / C, i % C)) bad++;
    gt_check(bad, "NGA_NbTest polling completes a full-array NbGet");

    /* the same handle variable reused for many cycles */
    bad = 0;
    cycles = gt_np <= 2 ? 50 : 12;
    for (i = 0; i < cycles; i++) {
        int row = (gt_me * 7 + i * 5) % R;
        double v[C];
        lo[0] = hi[0] = row; lo[1] = 0; hi[1] = C - 1;
        NGA_NbGet(g, lo, hi, v, ld, &h);
        NGA_NbWait(&h);
        for (j = 0; j < C; j++) if (v[j] != base(row, j)) bad++;
    }
    gt_check(bad, "one ga_nbhdl_t reused for %d NbGet/NbWait cycles", cycles);

    /* many handles outstanding at once (more than GA's internal slot count
     * in some versions): one row each */
    bad = 0;
    {
        enum { NH = 40 };
        ga_nbhdl_t hs[NH];
        double *rows = malloc(sizeof(double) * NH * C);
        for (i = 0; i < NH; i++) {
            int row = (i * 11 + gt_me) % R;
            lo[0] = hi[0] = row; lo[1] = 0; hi[1] = C - 1;
            NGA_NbGet(g, lo, hi, rows + i * C, ld, &hs[i]);
        }
        for (i = 0; i < NH; i++) NGA_NbWait(&hs[i]);
        for (i = 0; i < NH; i++)
            for (j = 0; j < C; j++)
                if (rows[i * C + j] != base((i * 11 + gt_me) % R, j)) bad++;
        free(rows);
        gt_check(bad, "%d NGA_NbGet handles outstanding at once", NH);
    }
    GA_Sync();
    free(buf);
}

static void test_3d(void)
{
    int dims[3] = { 9, 8, 7 }, g, lo[3], hi[3], ld[2], i, j, k;
    int *buf = malloc(sizeof(int) * 9 * 8 * 7), *got = malloc(sizeof(int) * 9 * 8 * 7);
    ga_nbhdl_t hp, hg;

    g = NGA_Create(C_INT, 3, dims, "nb3d", NULL);
    GA_Zero(g);
    GA_Sync();
    /* rank r puts the planes i == r mod np, all at once non-blocking */
    for (i = gt_me; i < 9; i += gt_np) {
        lo[0] = hi[0] = i; lo[1] = 0; hi[1] = 7; lo[2] = 0; hi[2] = 6;
        ld[0] = 8; ld[1] = 7;
        for (j = 0; j < 8; j++)
            for (k = 0; k < 7; k++) buf[(i * 8 + j) * 7 + k] = i * 100 + j * 10 + k;
        NGA_NbPut(g, lo, hi, buf + i * 56, ld, &hp);
        NGA_NbWait(&hp);
    }
    GA_Sync();
    lo[0] = 1; hi[0] = 8; lo[1] = 1; hi[1] = 6; lo[2] = 2; hi[2] = 6;
    ld[0] = 6; ld[1] = 5;
    NGA_NbGet(g, lo, hi, got, ld, &hg);
    NGA_NbWait(&hg);
    for (i = 1; i <= 8; i++)
        for (j = 1; j <= 6; j++)
            for (k = 2; k <= 6; k++)
                if (got[((i - 1) * 6 + (j - 1)) * 5 + (k - 2)] != i * 100 + j * 10 + k)
                    gt_bad("(%d,%d,%d)", i, j, k);
    gt_check(0, "3-D int 9x8x7: NbPut of planes, NbGet of an interior box");
    GA_Sync();
    GA_Destroy(g);
    free(buf); free(got);
}

int main(int argc, char **argv)
{
    int g, dims[2] = { R, C }, rc;

    MPI_Init(&argc, &argv);
    GA_Initialize();
    gt_ma_init();
    gt_setup();
    if (gt_me == 0) printf("ga_nb: %d ranks, 2-D double %dx%d\n", gt_np, R, C);

    g = NGA_Create(C_DBL, 2, dims, "nb", NULL);
    test_nbput(g);
    test_nbget(g, 4242);
    test_nbacc(g);
    test_location_consistency(g);
    test_nbtest_and_reuse(g);
    gt_flush();
    GA_Destroy(g);
    test_3d();

    gt_flush();
    if (gt_me == 0) printf("ga_nb: elapsed %.2f s\n", gt_elapsed());
    GA_Terminate();
    rc = gt_finish();
    MPI_Finalize();
    return rc;
}
