/*
 * nbtest.c - re-creation of GA 5.8's global/testing/nbtest.c (non-blocking put/get/acc with many
 * outstanding handles) for armci-x; tests/ga/ga_nb.c covers the basic forms with a handful.
 *
 *   - NB outstanding NGA_NbGet's (default 300: more than GA's handle table holds, so GA recycles
 *     handles by completing the oldest) of random 2-D patches, each spanning several owners, waited
 *     in shuffled order; every buffer verified
 *   - NB outstanding NGA_NbPut's of disjoint single rows into every owner, source buffers kept
 *     until NGA_NbWait, then the whole array verified
 *   - NB outstanding NGA_NbAcc's of one element each from every rank onto a small 1-D array
 *     (hot spot: every rank hits the same few elements), exact totals
 *   - mixed NbGet/NbPut/NbAcc on three arrays, completed with NGA_NbTest polling for half of them
 *     and NGA_NbWait for the rest
 *   - 3-D NbGet of a patch owned by every rank, while the owners NbAcc into another array
 *
 * Usage: nbtest [NB]
 */
#include "gasuite.h"

#define R 64
#define C 48

static double base(int i, int j) { return (double)(i * 1000 + j); }

int main(int argc, char **argv)
{
    int NB = 300, dims[2] = { R, C }, g, k, i, j, lo[2], hi[2], ld[1];
    long bad;
    gt_rng r;
    gs_init(&argc, &argv);
    if (argc > 1) NB = atoi(argv[1]);
    if (NB < 1) NB = 1;
    gt_note("non-blocking: %d ranks, %d outstanding handles", gt_np, NB);

    g = NGA_Create(C_DBL, 2, dims, "nb", NULL);
    /* rank 0 fills the array */
    if (gt_me == 0) {
        double *all = malloc(sizeof(double) * R * C);
        for (i = 0; i < R; i++)
            for (j = 0; j < C; j++) all[i * C + j] = base(i, j);
        lo[0] = lo[1] = 0;
        hi[0] = R - 1;
        hi[1] = C - 1;
        ld[0] = C;
        NGA_Put(g, lo, hi, all, ld);
        free(all);
    }
    GA_Sync();

    /* many outstanding gets */
    {
        ga_nbhdl_t *h = malloc(sizeof(ga_nbhdl_t) * NB);
        double **buf = malloc(sizeof(double *) * NB);
        int (*box)[4] = malloc(sizeof(int[4]) * NB), *order = malloc(sizeof(int) * NB);
        gt_rng_seed(&r, 11 + gt_me);
        for (k = 0; k < NB; k++) {
            int a = gt_rng_int(&r, 0, R - 1), b = gt_rng_int(&r, 0, R - 1);
            box[k][0] = a < b ? a : b;
            box[k][1] = a < b ? b : a;
            a = gt_rng_int(&r, 0, C - 1);
            b = gt_rng_int(&r, 0, C - 1);
            box[k][2] = a < b ? a : b;
            box[k][3] = a < b ? b : a;
            lo[0] = box[k][0];
            hi[0] = box[k][1];
            lo[1] = box[k][2];
            hi[1] = box[k][3];
            ld[0] = hi[1] - lo[1] + 1;
            buf[k] = malloc(sizeof(double) * (hi[0] - lo[0] + 1) * ld[0]);
            NGA_NbGet(g, lo, hi, buf[k], ld, &h[k]);
            order[k] = k;
        }
        for (k = NB - 1; k > 0; k--) {
            int x = gt_rng_int(&r, 0, k), t = order[k];
            order[k] = order[x];
            order[x] = t;
        }
        bad = 0;
        for (k = 0; k < NB; k++) {
            int q = order[k], w = box[q][3] - box[q][2] + 1;
            NGA_NbWait(&h[q]);
            for (i = box[q][0]; i <= box[q][1]; i++)
                for (j = box[q][2]; j <= box[q][3]; j++)
                    if (buf[q][(i - box[q][0]) * w + (j - box[q][2])] != base(i, j)) {
                        if (!bad) gt_bad("get %d (%d,%d) = %g", q, i, j, buf[q][(i - box[q][0]) * w + (j - box[q][2])]);
                        bad++;
                    }
            free(buf[q]);
        }
        gt_check(bad, "%d outstanding NGA_NbGet's of random patches, waited in shuffled order", NB);
        free(h);
        free(buf);
        free(box);
        free(order);
    }
    GA_Sync();

    /* many outstanding puts: row i, columns split in pieces, piece k of every row belongs to rank
     * (i + k) % np */
    {
        int pieces = 6, pw = C / pieces, nput = 0, cap = R * pieces;
        ga_nbhdl_t *h = malloc(sizeof(ga_nbhdl_t) * cap);
        double *src = malloc(sizeof(double) * R * C);
        for (i = 0; i < R; i++)
            for (k = 0; k < pieces; k++)
                if ((i + k) % gt_np == gt_me) {
                    for (j = k * pw; j < (k + 1) * pw; j++) src[i * C + j] = -base(i, j);
                    lo[0] = hi[0] = i;
                    lo[1] = k * pw;
                    hi[1] = (k + 1) * pw - 1;
                    ld[0] = pw;
                    NGA_NbPut(g, lo, hi, src + i * C + k * pw, ld, &h[nput++]);
                    if (nput == NB) { /* keep at most NB outstanding */
                        int q;
                        for (q = 0; q < nput; q++) NGA_NbWait(&h[q]);
                        nput = 0;
                    }
                }
        for (k = 0; k < nput; k++) NGA_NbWait(&h[k]);
        GA_Sync();
        {
            double *all = malloc(sizeof(double) * R * C);
            lo[0] = lo[1] = 0;
            hi[0] = R - 1;
            hi[1] = C - 1;
            ld[0] = C;
            NGA_Get(g, lo, hi, all, ld);
            bad = 0;
            for (i = 0; i < R; i++)
                for (j = 0; j < C; j++)
                    if (all[i * C + j] != -base(i, j)) {
                        if (!bad) gt_bad("put (%d,%d) = %g", i, j, all[i * C + j]);
                        bad++;
                    }
            free(all);
        }
        gt_check(bad, "NGA_NbPut of %d row pieces per rank, up to %d outstanding", R * pieces / gt_np, NB);
        free(h);
        free(src);
    }

    /* hot-spot accumulates */
    {
        int n = 8, g1 = NGA_Create(C_LONG, 1, &n, "hot", NULL), l, hh, ld1[1] = { 1 };
        long *val = malloc(sizeof(long) * NB), tot[8], expect[8];
        ga_nbhdl_t *h = malloc(sizeof(ga_nbhdl_t) * NB);
        long one = 1;
        GA_Zero(g1);
        for (k = 0; k < NB; k++) {
            val[k] = k % 5 + 1;
            l = hh = (k * 3) % n;
            NGA_NbAcc(g1, &l, &hh, &val[k], ld1, &one, &h[k]);
        }
        for (k = NB - 1; k >= 0; k--) NGA_NbWait(&h[k]);
        GA_Sync();
        l = 0;
        hh = n - 1;
        NGA_Get(g1, &l, &hh, tot, ld1);
        memset(expect, 0, sizeof expect);
        for (k = 0; k < NB; k++) expect[(k * 3) % n] += (k % 5 + 1) * (long)gt_np;
        bad = 0;
        for (k = 0; k < n; k++)
            if (tot[k] != expect[k]) {
                if (!bad) gt_bad("hot[%d] = %ld expected %ld", k, tot[k], expect[k]);
                bad++;
            }
        gt_check(bad, "%d outstanding one-element NGA_NbAcc's per rank onto 8 hot elements", NB);
        GA_Destroy(g1);
        free(val);
        free(h);
    }

    /* mixed: NbGet from g, NbPut to g2 (own rows), NbAcc to g3; NbTest polling for half */
    {
        int g2 = NGA_Create(C_DBL, 2, dims, "nb2", NULL), g3 = NGA_Create(C_INT, 2, dims, "nb3", NULL), m = NB / 3 + 1;
        ga_nbhdl_t *h = malloc(sizeof(ga_nbhdl_t) * 3 * m);
        double *gb = malloc(sizeof(double) * m * C), *pb = malloc(sizeof(double) * m * C);
        int *ab = malloc(sizeof(int) * m * C), ione = 1, nh = 0, done, *live = malloc(sizeof(int) * 3 * m);
        GA_Zero(g2);
        GA_Zero(g3);
        for (k = 0; k < m; k++) {
            int row = (gt_me + k * gt_np) % R;
            lo[0] = hi[0] = (k * 7) % R;
            lo[1] = 0;
            hi[1] = C - 1;
            ld[0] = C;
            NGA_NbGet(g, lo, hi, gb + k * C, ld, &h[nh++]);
            for (j = 0; j < C; j++) {
                pb[k * C + j] = row + j * 0.5;
                ab[k * C + j] = j + 1;
            }
            lo[0] = hi[0] = row;
            if (k * gt_np + gt_me < R) NGA_NbPut(g2, lo, hi, pb + k * C, ld, &h[nh++]);
            lo[0] = hi[0] = k % R;
            NGA_NbAcc(g3, lo, hi, ab + k * C, ld, &ione, &h[nh++]);
        }
        for (k = 0; k < nh; k++) live[k] = 1;
        /* poll the even ones with NGA_NbTest (it retires the handle once complete) */
        do {
            done = 1;
            for (k = 0; k < nh; k += 2)
                if (live[k]) {
                    if (NGA_NbTest(&h[k]))
                        live[k] = 0;
                    else
                        done = 0;
                }
        } while (!done);
        for (k = 1; k < nh; k += 2) NGA_NbWait(&h[k]);
        bad = 0;
        for (k = 0; k < m; k++)
            for (j = 0; j < C; j++)
                if (gb[k * C + j] != -base((k * 7) % R, j)) bad++;
        GA_Sync();
        {
            double *a2 = malloc(sizeof(double) * R * C);
            int *a3 = malloc(sizeof(int) * R * C);
            lo[0] = lo[1] = 0;
            hi[0] = R - 1;
            hi[1] = C - 1;
            ld[0] = C;
            NGA_Get(g2, lo, hi, a2, ld);
            NGA_Get(g3, lo, hi, a3, ld);
            for (i = 0; i < R; i++)
                for (j = 0; j < C; j++) {
                    long cnt = 0;
                    int rr, kk;
                    double e2 = (i < m * gt_np) ? i + j * 0.5 : 0.0;
                    if (a2[i * C + j] != e2) bad++;
                    for (rr = 0; rr < gt_np; rr++)
                        for (kk = 0; kk < m; kk++)
                            if (kk % R == i) cnt++;
                    if (a3[i * C + j] != cnt * (j + 1)) bad++;
                }
            free(a2);
            free(a3);
        }
        gt_check(bad, "mixed NbGet/NbPut/NbAcc (%d handles), NGA_NbTest polling and NGA_NbWait", nh);
        GA_Destroy(g3);
        GA_Destroy(g2);
        free(h);
        free(gb);
        free(pb);
        free(ab);
        free(live);
    }

    /* 3-D: NbGet a patch owned by everyone while the owners NbAcc into another array */
    {
        int d3[3] = { 16, 12, 10 }, ga = NGA_Create(C_DBL, 3, d3, "a3", NULL), gb3 = NGA_Create(C_DBL, 3, d3, "b3", NULL);
        int l3[3] = { 0, 0, 0 }, h3[3] = { 15, 11, 9 }, ld3[2] = { 12, 10 }, x, n3 = 16 * 12 * 10;
        double *v = malloc(sizeof(double) * n3), *w = malloc(sizeof(double) * n3), one = 1.0;
        ga_nbhdl_t hg[4], ha;
        for (x = 0; x < n3; x++) v[x] = x;
        if (gt_me == 0) NGA_Put(ga, l3, h3, v, ld3);
        GA_Zero(gb3);
        GA_Sync();
        for (k = 0; k < 4; k++) NGA_NbGet(ga, l3, h3, k == 0 ? w : w, ld3, &hg[k]);
        NGA_NbAcc(gb3, l3, h3, v, ld3, &one, &ha);
        for (k = 0; k < 4; k++) NGA_NbWait(&hg[k]);
        NGA_NbWait(&ha);
        bad = 0;
        for (x = 0; x < n3; x++)
            if (w[x] != x) bad++;
        GA_Sync();
        NGA_Get(gb3, l3, h3, w, ld3);
        for (x = 0; x < n3; x++)
            if (w[x] != (double)x * gt_np) bad++;
        gt_check(bad, "3-D: 4 outstanding NbGet's of the whole array + NbAcc of another");
        free(v);
        free(w);
        GA_Destroy(gb3);
        GA_Destroy(ga);
    }
    GA_Destroy(g);
    {
        int rc = gt_finish();
        GA_Terminate();
        MPI_Finalize();
        return rc;
    }
}
