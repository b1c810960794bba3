/*
 * ga_patches.c - random patch traffic checked against a replicated reference.
 *
 * Every rank keeps a full local copy ("reference") of each global array and
 * replays every rank's operations on it, so any NGA_Get can be verified
 * exactly. All randomness comes from a fixed-seed generator (seeds printed);
 * values are integer valued so accumulation order does not matter.
 *
 * Arrays: 2-D double (default distribution, odd extents), 2-D int with a very
 * uneven irregular distribution, 3-D double irregular (uneven blocks),
 * 3-D long default distribution.
 * Per round:
 *   - one rotating writer NGA_Put's a random patch (random padded ld)
 *   - every rank NGA_Acc's a random patch with alpha = rank+1
 *   - every rank NGA_Get's a random patch into a padded buffer; the padding
 *     must stay untouched
 * and finally the whole array is read back and compared.
 *
 * Then NGA_Scatter / NGA_Gather / NGA_Scatter_acc (and the *_flat variants)
 * on a 2-D double and a 3-D long array; these are the GA calls that drive
 * ARMCI_PutV / ARMCI_GetV / ARMCI_AccV.
 */
#include "gatest.h"

#define MAXD 3

typedef struct {
    const char *name;
    int type, ndim, dims[MAXD];
    long n;                 /* number of elements */
    double *ref;            /* replicated reference, row-major */
    int g;
} garr;

static long lin(const garr *a, const int *idx)
{
    long x = 0;
    int d;
    for (d = 0; d < a->ndim; d++) x = x * a->dims[d] + idx[d];
    return x;
}

/* advance odometer idx over [lo,hi]; returns 0 when done */
static int next_idx(int ndim, int *idx, const int *lo, const int *hi)
{
    int d;
    for (d = ndim - 1; d >= 0; d--) {
        if (++idx[d] <= hi[d]) return 1;
        idx[d] = lo[d];
    }
    return 0;
}

/* buffer geometry for a patch with per-dimension padding */
typedef struct { int ext[MAXD]; long stride[MAXD]; long size; int ld[MAXD]; } bufgeo;

static void make_geo(int ndim, const int *lo, const int *hi, const int *pad, bufgeo *b)
{
    int d;
    for (d = 0; d < ndim; d++) b->ext[d] = hi[d] - lo[d] + 1 + (d > 0 ? pad[d] : 0);
    b->stride[ndim - 1] = 1;
    for (d = ndim - 2; d >= 0; d--) b->stride[d] = b->stride[d + 1] * b->ext[d + 1];
    b->size = b->stride[0] * b->ext[0];
    for (d = 0; d < ndim - 1; d++) b->ld[d] = b->ext[d + 1];
}

static long boff(int ndim, const bufgeo *b, const int *idx, const int *lo)
{
    long o = 0;
    int d;
    for (d = 0; d < ndim; d++) o += (idx[d] - lo[d]) * b->stride[d];
    return o;
}

static void rand_patch(gt_rng *r, const garr *a, int *lo, int *hi, int *pad)
{
    int d;
    for (d = 0; d < a->ndim; d++) {
        int x = gt_rng_int(r, 0, a->dims[d] - 1), y = gt_rng_int(r, 0, a->dims[d] - 1);
        lo[d] = x < y ? x : y;
        hi[d] = x < y ? y : x;
        pad[d] = gt_rng_int(r, 0, 3);
    }
}

static double put_val(int round, long x) { return (double)((round * 131 + x * 7) % 1001 - 500); }
static double acc_val(long x) { return (double)(x % 7 - 3); }

/* Run 'rounds' of put / acc / get on array a; one check line per kind. */
static void random_rounds(garr *a, unsigned long long seed, int rounds)
{
    gt_rng rng;
    int round, r, idx[MAXD], lo[MAXD], hi[MAXD], pad[MAXD];
    long nget = 0, x;
    bufgeo b;
    void *buf;
    size_t es = gt_tsize(a->type);

    gt_rng_seed(&rng, seed);
    buf = malloc(es * (a->n + 16) * 8);    /* generous: patch + padding */

    for (round = 0; round < rounds; round++) {
        /* 1. rotating writer puts a random patch */
        int writer = round % gt_np;
        rand_patch(&rng, a, lo, hi, pad);
        make_geo(a->ndim, lo, hi, pad, &b);
        memcpy(idx, lo, sizeof idx);
        do {
            x = lin(a, idx);
            a->ref[x] = put_val(round, x);
            if (gt_me == writer) gt_tset(a->type, buf, boff(a->ndim, &b, idx, lo), a->ref[x], 0);
        } while (next_idx(a->ndim, idx, lo, hi));
        if (gt_me == writer) NGA_Put(a->g, lo, hi, buf, b.ld);
        GA_Sync();

        /* 2. every rank accumulates a random patch, alpha = rank+1 */
        for (r = 0; r < gt_np; r++) {
            int alo[MAXD], ahi[MAXD], apad[MAXD];
            bufgeo ab;
            rand_patch(&rng, a, alo, ahi, apad);
            make_geo(a->ndim, alo, ahi, apad, &ab);
            memcpy(idx, alo, sizeof idx);
            do {
                x = lin(a, idx);
                a->ref[x] += (r + 1) * acc_val(x);
                if (r == gt_me) gt_tset(a->type, buf, boff(a->ndim, &ab, idx, alo), acc_val(x), 0);
            } while (next_idx(a->ndim, idx, alo, ahi));
            if (r == gt_me) {
                char alpha[16];
                gt_tset(a->type, alpha, 0, r + 1, 0);
                NGA_Acc(a->g, alo, ahi, buf, ab.ld, alpha);
            }
        }
        GA_Sync();

        /* 3. every rank gets a random patch into a padded buffer */
        for (r = 0; r < gt_np; r++) {
            int glo[MAXD], ghi[MAXD], gpad[MAXD];
            bufgeo gb;
            long k;
            rand_patch(&rng, a, glo, ghi, gpad);
            if (r != gt_me) continue;
            make_geo(a->ndim, glo, ghi, gpad, &gb);
            for (k = 0; k < gb.size; k++) gt_tset(a->type, buf, k, -7777, 0);
            NGA_Get(a->g, glo, ghi, buf, gb.ld);
            memcpy(idx, glo, sizeof idx);
            do {
                x = lin(a, idx);
                if (gt_tdiff(a->type, buf, boff(a->ndim, &gb, idx, glo), a->ref[x], 0))
                    gt_bad("round %d get elem %ld", round, x);
                gt_tset(a->type, buf, boff(a->ndim, &gb, idx, glo), -7777, 0);
                nget++;
            } while (next_idx(a->ndim, idx, glo, ghi));
            for (k = 0; k < gb.size; k++)       /* only padding left: sentinel */
                if (gt_tdiff(a->type, buf, k, -7777, 0)) gt_bad("round %d padding %ld", round, k);
        }
        /* the next round's writer must not overwrite what others still read */
        GA_Sync();
    }
    gt_check(0, "%s: %d rounds of random put/acc/get (seed %llu, %ld elements read)",
             a->name, rounds, seed, nget);

    /* final full comparison */
    {
        int flo[MAXD] = { 0, 0, 0 }, fhi[MAXD], fpad[MAXD] = { 0, 0, 0 };
        int d;
        for (d = 0; d < a->ndim; d++) fhi[d] = a->dims[d] - 1;
        make_geo(a->ndim, flo, fhi, fpad, &b);
        NGA_Get(a->g, flo, fhi, buf, b.ld);
        for (x = 0; x < a->n; x++)
            if (gt_tdiff(a->type, buf, x, a->ref[x], 0)) gt_bad("final elem %ld", x);
        gt_check(0, "%s: full array equals replicated reference", a->name);
    }
    free(buf);
}

static void uneven_map(int n, int nb, int *map)
{
    int k;
    for (k = 0; k < nb; k++) map[k] = (int)((long)k * k * n / ((long)nb * nb));
    for (k = 1; k < nb; k++) if (map[k] <= map[k - 1]) map[k] = map[k - 1] + 1;
}

static void setup(garr *a, const char *name, int type, int ndim, const int *dims,
                  const int *block /* NULL: regular */)
{
    int d;
    a->name = name; a->type = type; a->ndim = ndim; a->n = 1;
    for (d = 0; d < ndim; d++) { a->dims[d] = dims[d]; a->n *= dims[d]; }
    a->ref = calloc(a->n, sizeof(double));
    if (block) {
        int map[3 * 64], off = 0, nb[MAXD];
        for (d = 0; d < ndim; d++) { nb[d] = block[d]; uneven_map(dims[d], block[d], map + off); off += block[d]; }
        a->g = NGA_Create_irreg(type, ndim, (int *)dims, (char *)name, nb, map);
    } else {
        a->g = NGA_Create(type, ndim, (int *)dims, (char *)name, NULL);
    }
    GA_Zero(a->g);
}

static void teardown(garr *a)
{
    GA_Sync();           /* all reads finished before the array goes away */
    GA_Destroy(a->g);
    free(a->ref);
}

/* factor np into up to 3 block counts */
static void factor3(int np, int ndim, int *b)
{
    int d, p = np;
    for (d = 0; d < ndim; d++) b[d] = 1;
    d = 0;
    while (p > 1) {
        int f = 2;
        while (p % f) f++;
        b[d % ndim] *= f;
        p /= f;
        d++;
    }
}

/* ------------------------------------------------- scatter / gather */
static void test_scatter_gather(int type, int ndim, const int *dims, unsigned long long seed)
{
    garr a;
    gt_rng rng;
    long n, *perm, i, x;
    int per = 24, d, k, r;
    int **subs, *flat;
    void *vals;
    char name[64];
    long bad = 0;

    snprintf(name, sizeof name, "%d-D %s scatter/gather", ndim, gt_tname(type));
    setup(&a, name, type, ndim, dims, NULL);
    n = a.n;
    GA_Sync();
    gt_rng_seed(&rng, seed);

    /* distinct cells for everybody: a shared random permutation */
    perm = malloc(sizeof(long) * n);
    for (i = 0; i < n; i++) perm[i] = i;
    for (i = n - 1; i > 0; i--) {
        long j = (long)(gt_rng_next(&rng) % (unsigned long long)(i + 1)), t = perm[i];
        perm[i] = perm[j]; perm[j] = t;
    }
    if (per * gt_np * 2 > n) per = (int)(n / (2 * gt_np));

    subs = malloc(sizeof(int *) * n);
    flat = malloc(sizeof(int) * n * ndim);
    vals = malloc(gt_tsize(type) * n);
    for (i = 0; i < n; i++) subs[i] = flat + i * ndim;

#define UNLIN(x, out) do { long _y = (x); for (d = ndim - 1; d >= 0; d--) { (out)[d] = (int)(_y % dims[d]); _y /= dims[d]; } } while (0)

    /* NGA_Scatter: rank r writes cells perm[r*per .. (r+1)*per) */
    for (r = 0; r < gt_np; r++)
        for (k = 0; k < per; k++) {
            x = perm[r * per + k];
            a.ref[x] = (double)(x * 3 + 11);
        }
    for (k = 0; k < per; k++) {
        x = perm[gt_me * per + k];
        UNLIN(x, subs[k]);
        gt_tset(type, vals, k, a.ref[x], 0);
    }
    NGA_Scatter(a.g, vals, subs, per);
    GA_Sync();

    /* NGA_Gather of every scattered cell plus an equal number of untouched ones */
    for (k = 0; k < 2 * per * gt_np && k < n; k++) UNLIN(perm[k], subs[k]);
    memset(vals, 0xff, gt_tsize(type) * n);
    NGA_Gather(a.g, vals, subs, k);
    for (i = 0; i < k; i++)
        if (gt_tdiff(type, vals, i, a.ref[perm[i]], 0)) gt_bad("gather cell %ld", perm[i]);
    gt_check(0, "%s: NGA_Scatter %d distinct cells/rank, NGA_Gather %d cells (seed %llu)",
             name, per, k, seed);
    GA_Sync();           /* all gathers done before the array is modified */

    /* NGA_Scatter_acc with duplicate subscripts; each rank has its own stream */
    {
        int m = 3 * per;
        for (r = 0; r < gt_np; r++) {
            gt_rng rr;
            gt_rng_seed(&rr, seed * 1000 + r);
            for (k = 0; k < m; k++) {
                x = (long)(gt_rng_next(&rr) % (unsigned long long)n);
                if (k % 5 == 4) x = perm[0];               /* hot cell */
                a.ref[x] += (r + 1) * (double)(k % 4 + 1);
                if (r == gt_me) { UNLIN(x, subs[k]); gt_tset(type, vals, k, k % 4 + 1, 0); }
            }
        }
        {
            char alpha[16];
            gt_tset(type, alpha, 0, gt_me + 1, 0);
            NGA_Scatter_acc(a.g, vals, subs, m, alpha);
        }
        GA_Sync();
        /* gather everything with the flat interface */
        for (i = 0; i < n; i++) UNLIN(i, flat + i * ndim);
        NGA_Gather_flat(a.g, vals, flat, (int)n);
        for (i = 0; i < n; i++)
            if (gt_tdiff(type, vals, i, a.ref[i], 0)) gt_bad("cell %ld after scatter_acc", i);
        gt_check(0, "%s: NGA_Scatter_acc %d subscripts/rank with duplicates, NGA_Gather_flat all %ld cells",
                 name, m, n);
        for (i = 0; i < n; i++) subs[i] = flat + i * ndim;   /* restore */
    }

    /* NGA_Scatter_flat: last rank overwrites a stripe, check via NGA_Get */
    GA_Sync();
    if (gt_me == gt_np - 1) {
        for (i = 0; i < n; i += 3) {
            UNLIN(i, flat + (i / 3) * ndim);
            gt_tset(type, vals, i / 3, -(double)i, 0);
        }
        NGA_Scatter_flat(a.g, vals, flat, (int)((n + 2) / 3));
    }
    for (i = 0; i < n; i += 3) a.ref[i] = -(double)i;
    GA_Sync();
    {
        int lo[MAXD] = { 0, 0, 0 }, hi[MAXD], pad[MAXD] = { 0, 0, 0 };
        bufgeo b;
        for (d = 0; d < ndim; d++) hi[d] = dims[d] - 1;
        make_geo(ndim, lo, hi, pad, &b);
        NGA_Get(a.g, lo, hi, vals, b.ld);
        for (i = 0; i < n; i++)
            if (gt_tdiff(type, vals, i, a.ref[i], 0)) bad++;
        gt_check(bad, "%s: NGA_Scatter_flat stripe visible to NGA_Get", name);
    }
#undef UNLIN
    free(perm); free(subs); free(flat); free(vals);
    teardown(&a);
}

int main(int argc, char **argv)
{
    const unsigned long long seed = 20240611ULL;
    int rounds;
    garr a;
    int b[MAXD], rc;

    MPI_Init(&argc, &argv);
    GA_Initialize();
    gt_ma_init();
    gt_setup();
    rounds = gt_np <= 2 ? 40 : 16;
    if (gt_me == 0) printf("ga_patches: %d ranks, base seed %llu, %d rounds per array\n",
                           gt_np, seed, rounds);

    {
        int dims[2] = { 67, 45 };
        setup(&a, "2-D double 67x45 default dist", C_DBL, 2, dims, NULL);
        random_rounds(&a, seed + 1, rounds);
        teardown(&a);
        gt_flush();
    }
    {
        int dims[2] = { 40, 57 };
        factor3(gt_np, 2, b);
        setup(&a, "2-D int 40x57 uneven irregular", C_INT, 2, dims, b);
        random_rounds(&a, seed + 2, rounds);
        teardown(&a);
        gt_flush();
    }
    {
        int dims[3] = { 13, 11, 9 };
        factor3(gt_np, 3, b);
        setup(&a, "3-D double 13x11x9 irregular", C_DBL, 3, dims, b);
        random_rounds(&a, seed + 3, rounds);
        teardown(&a);
        gt_flush();
    }
    {
        int dims[3] = { 7, 10, 6 };
        setup(&a, "3-D long 7x10x6 default dist", C_LONG, 3, dims, NULL);
        random_rounds(&a, seed + 4, rounds / 2 + 1);
        teardown(&a);
        gt_flush();
    }
    {
        int dims2[2] = { 31, 29 }, dims3[3] = { 6, 9, 7 };
        test_scatter_gather(C_DBL, 2, dims2, seed + 5);
        test_scatter_gather(C_LONG, 3, dims3, seed + 6);
        test_scatter_gather(C_DCPL, 2, dims2, seed + 7);
    }

    gt_flush();
    if (gt_me == 0) printf("ga_patches: elapsed %.2f s\n", gt_elapsed());
    GA_Terminate();
    rc = gt_finish();
    MPI_Finalize();
    return rc;
}
