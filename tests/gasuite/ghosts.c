/*
 * ghosts.c - re-creation of GA 5.8's ghost-cell tests (global/testing/ghosts.F, the ghost parts of
 * testc.c / ngatest.c) for armci-x.
 *
 * For 1-D..5-D double and 1-D..3-D int arrays created with NGA_Create_ghosts (widths 1..3), and a
 * 2-D irregular array (NGA_Create_ghosts_irreg):
 *   - every rank fills its own block through NGA_Access, then GA_Update_ghosts; every ghost cell
 *     seen through NGA_Access_ghosts must hold the (periodically wrapped) neighbour value, corners
 *     included
 *   - ghost cells overwritten with a sentinel, then NGA_Update_ghost_dir for each dimension and
 *     direction: the faces in that direction are refreshed; after all directions with corner flag
 *     every ghost cell is right again
 *   - NGA_Update_ghosts_nb + NGA_NbWait  (not NGA_NbGet_ghost_dir: GA 5.8.2's C binding passes an
 *     all-zero mask and GA aborts "invalid mask entry" on any ARMCI)
 *   - NGA_Get_ghost_block of the local block widened by the ghost width
 *   - NGA_Put / NGA_Get / NGA_Acc of random patches on a ghost array (the remote layout has
 *     ghost-padded leading dimensions), then GA_Update_ghosts again
 *   - NGA_Access_ghost_element
 */
#include "gasuite.h"

static double fval(long x) { return (double)(x % 4099 + 1); }

typedef struct {
    int type, nd, dims[GS_MAXDIM], width[GS_MAXDIM], g;
    int lo[GS_MAXDIM], hi[GS_MAXDIM];   /* my block (lo[0] < 0 if none) */
    int gdims[GS_MAXDIM], gld[GS_MAXDIM]; /* block + ghosts */
    double add;                          /* value added everywhere by the accumulate test */
    char tag[64];
} gh_t;

static int wrapi(int i, int n) { return ((i % n) + n) % n; }

/* value expected at global index idx (wrapped) */
static double expect_at(const gh_t *a, const int *idx)
{
    int w[GS_MAXDIM], d;
    for (d = 0; d < a->nd; d++) w[d] = wrapi(idx[d], a->dims[d]);
    return fval(gs_lin(a->nd, a->dims, w)) + a->add;
}

static int has_block(const gh_t *a) { return a->lo[0] >= 0 && a->hi[0] >= a->lo[0]; }

/* fill my block with fval through NGA_Access */
static void fill_local(gh_t *a)
{
    void *ptr;
    int ld[GS_MAXDIM], idx[GS_MAXDIM], d;
    if (!has_block(a)) return;
    NGA_Access(a->g, a->lo, a->hi, &ptr, ld);
    memcpy(idx, a->lo, sizeof(int) * a->nd);
    do {
        long off = 0;
        for (d = 0; d < a->nd; d++) off = (d ? off * ld[d - 1] : 0) + (idx[d] - a->lo[d]);
        gs_set(a->type, ptr, off, expect_at(a, idx), 0.0);
    } while (gs_next(a->nd, idx, a->lo, a->hi));
    NGA_Release_update(a->g, a->lo, a->hi);
}

/* Walk the ghost-extended local block.  mode 0: count wrong cells (ghost and interior);
 * mode 1: overwrite ghost cells with -1.  Only cells selected by sel are looked at:
 * sel_dim < 0: all cells; otherwise the face of dimension sel_dim on side sel_dir (+1 upper,
 * -1 lower) excluding corner cells (every other coordinate interior). */
static long walk_ghosts(gh_t *a, int mode, int sel_dim, int sel_dir)
{
    void *ptr;
    int gdims[GS_MAXDIM], ld[GS_MAXDIM], li[GS_MAXDIM], zero[GS_MAXDIM] = { 0 }, top[GS_MAXDIM], d;
    long bad = 0;
    if (!has_block(a)) return 0;
    NGA_Access_ghosts(a->g, gdims, &ptr, ld);
    for (d = 0; d < a->nd; d++) {
        if (gdims[d] != a->hi[d] - a->lo[d] + 1 + 2 * a->width[d]) {
            gt_bad("%s: NGA_Access_ghosts dims[%d]=%d, expected %d", a->tag, d, gdims[d],
                   a->hi[d] - a->lo[d] + 1 + 2 * a->width[d]);
            bad++;
        }
        top[d] = gdims[d] - 1;
    }
    memset(li, 0, sizeof li);
    do {
        int gi[GS_MAXDIM], ghost = 0, pick = 1;
        long off = 0;
        for (d = 0; d < a->nd; d++) {
            int in = li[d] >= a->width[d] && li[d] < gdims[d] - a->width[d];
            gi[d] = a->lo[d] - a->width[d] + li[d];
            off = (d ? off * ld[d - 1] : 0) + li[d];
            if (!in) ghost = 1;
            if (sel_dim >= 0) {
                if (d == sel_dim) {
                    if (sel_dir > 0 && li[d] < gdims[d] - a->width[d]) pick = 0;
                    if (sel_dir < 0 && li[d] >= a->width[d]) pick = 0;
                } else if (!in) {
                    pick = 0;
                }
            }
        }
        if (!pick) continue;
        if (mode == 1) {
            if (ghost) gs_set(a->type, ptr, off, -1.0, 0.0);
        } else if (gs_diff(a->type, ptr, off, expect_at(a, gi), 0.0)) {
            double r, im;
            gs_get(a->type, ptr, off, &r, &im);
            if (!bad)
                gt_bad("%s: local cell %ld (global %d,%d,..) = %g expected %g (ghost %d)", a->tag, off, gi[0],
                       a->nd > 1 ? gi[1] : 0, r, expect_at(a, gi), ghost);
            bad++;
        }
    } while (gs_next(a->nd, li, zero, top));
    NGA_Release_ghosts(a->g);
    return bad;
}

static void setup(gh_t *a, int type, int nd, const int *dims, const int *width, int irreg)
{
    int d;
    memset(a, 0, sizeof *a);
    a->type = type;
    a->nd = nd;
    memcpy(a->dims, dims, sizeof(int) * nd);
    memcpy(a->width, width, sizeof(int) * nd);
    snprintf(a->tag, sizeof a->tag, "%s%dD %s ghosts w=%d", irreg ? "irreg " : "", nd, gs_tname(type), width[0]);
    if (irreg) {
        /* 2-D only: uneven rows over nproc blocks, columns in one block */
        int nblock[2] = { gt_np, 1 }, map[70], k;
        for (k = 0; k < gt_np; k++) map[k] = k == 0 ? 0 : map[k - 1] + (k % 2 ? width[0] + 2 : width[0] + 5);
        map[gt_np] = 0;
        a->g = NGA_Create_ghosts_irreg(type, nd, a->dims, a->width, "ghost_irreg", nblock, map);
    } else {
        a->g = NGA_Create_ghosts(type, nd, a->dims, a->width, "ghosts", NULL);
    }
    if (!a->g) GA_Error("NGA_Create_ghosts failed", nd);
    NGA_Distribution(a->g, gt_me, a->lo, a->hi);
    for (d = 0; d < nd; d++)
        if (has_block(a) && a->hi[d] - a->lo[d] + 1 < a->width[d])
            GA_Error("ghosts.c: block thinner than the ghost width", d);
}

static void test_update(gh_t *a)
{
    int d, dir;
    long bad;
    GA_Zero(a->g);
    fill_local(a);
    GA_Update_ghosts(a->g);
    gt_check(walk_ghosts(a, 0, -1, 0) + (NGA_Has_ghosts(a->g) ? 0 : 1), "%s: GA_Update_ghosts (corners included)",
             a->tag);

    /* sentinel everywhere in the ghosts, then one direction at a time.  The C binding of
     * NGA_Update_ghost_dir numbers dimensions in GA's internal (Fortran) order: C dimension d is
     * ndim-1-d; idir -1 fills the ghost cells below the block, +1 those above. */
    walk_ghosts(a, 1, -1, 0);
    GA_Sync();
    bad = 0;
    for (d = 0; d < a->nd; d++)
        for (dir = -1; dir <= 1; dir += 2) {
            if (!NGA_Update_ghost_dir(a->g, a->nd - 1 - d, dir, 0)) bad++;
            bad += walk_ghosts(a, 0, d, dir);
        }
    gt_check(bad, "%s: NGA_Update_ghost_dir each face, no corners", a->tag);

    walk_ghosts(a, 1, -1, 0);
    GA_Sync();
    for (d = 0; d < a->nd; d++)
        for (dir = -1; dir <= 1; dir += 2) NGA_Update_ghost_dir(a->g, a->nd - 1 - d, dir, 1);
    gt_check(walk_ghosts(a, 0, -1, 0), "%s: NGA_Update_ghost_dir all directions with corners", a->tag);

    /* non-blocking update */
    walk_ghosts(a, 1, -1, 0);
    GA_Sync();
    {
        ga_nbhdl_t h;
        NGA_Update_ghosts_nb(a->g, &h);
        NGA_NbWait(&h);
        GA_Sync();
    }
    gt_check(walk_ghosts(a, 0, -1, 0), "%s: NGA_Update_ghosts_nb + NGA_NbWait", a->tag);
}

static void test_get_ghost_block(gh_t *a)
{
    int lo[GS_MAXDIM], hi[GS_MAXDIM], ld[GS_MAXDIM], idx[GS_MAXDIM], d;
    long bad = 0, j = 0;
    void *buf;
    if (has_block(a)) {
        for (d = 0; d < a->nd; d++) {
            lo[d] = a->lo[d] - a->width[d];
            hi[d] = a->hi[d] + a->width[d];
            if (lo[d] < 0) lo[d] = 0;
            if (hi[d] > a->dims[d] - 1) hi[d] = a->dims[d] - 1;
        }
        buf = malloc(gs_tsize(a->type) * gs_count(a->nd, lo, hi));
        gs_box_ld(a->nd, lo, hi, ld);
        NGA_Get_ghost_block(a->g, lo, hi, buf, ld);
        memcpy(idx, lo, sizeof(int) * a->nd);
        do {
            if (gs_diff(a->type, buf, j, expect_at(a, idx), 0.0)) {
                if (!bad) gt_bad("%s: ghost block elem %ld", a->tag, j);
                bad++;
            }
            j++;
        } while (gs_next(a->nd, idx, lo, hi));
        free(buf);
    }
    gt_check(bad, "%s: NGA_Get_ghost_block of the widened local block", a->tag);
}

static void test_patch_ops(gh_t *a)
{
    int lo[GS_MAXDIM], hi[GS_MAXDIM], ld[GS_MAXDIM], idx[GS_MAXDIM], k;
    long bad = 0, j, n = 1;
    size_t ts = gs_tsize(a->type);
    void *buf;
    gt_rng r;
    gs_scalar one = gs_make_scalar(a->type, 1.0, 0.0);
    int d;
    for (d = 0; d < a->nd; d++) n *= a->dims[d];
    buf = malloc(ts * n);
    /* rank 0 rewrites the whole array by NGA_Put, everyone reads random patches */
    GA_Zero(a->g);
    if (gt_me == 0) {
        for (d = 0; d < a->nd; d++) {
            lo[d] = 0;
            hi[d] = a->dims[d] - 1;
        }
        memcpy(idx, lo, sizeof(int) * a->nd);
        j = 0;
        do gs_set(a->type, buf, j++, expect_at(a, idx), 0.0);
        while (gs_next(a->nd, idx, lo, hi));
        gs_box_ld(a->nd, lo, hi, ld);
        NGA_Put(a->g, lo, hi, buf, ld);
    }
    GA_Sync();
    gt_rng_seed(&r, 300 + gt_me);
    for (k = 0; k < 6; k++) {
        gs_rand_box(&r, a->nd, a->dims, lo, hi);
        gs_box_ld(a->nd, lo, hi, ld);
        NGA_Get(a->g, lo, hi, buf, ld);
        memcpy(idx, lo, sizeof(int) * a->nd);
        j = 0;
        do {
            if (gs_diff(a->type, buf, j, expect_at(a, idx), 0.0)) {
                if (!bad) gt_bad("%s: get elem %ld of patch %d", a->tag, j, k);
                bad++;
            }
            j++;
        } while (gs_next(a->nd, idx, lo, hi));
    }
    gt_check(bad, "%s: NGA_Put whole / NGA_Get random patches on a ghost array", a->tag);
    GA_Sync();
    /* every rank adds 1 to the whole array */
    for (d = 0; d < a->nd; d++) {
        lo[d] = 0;
        hi[d] = a->dims[d] - 1;
    }
    for (j = 0; j < n; j++) gs_set(a->type, buf, j, 1.0, 0.0);
    gs_box_ld(a->nd, lo, hi, ld);
    NGA_Acc(a->g, lo, hi, buf, ld, &one);
    GA_Sync();
    a->add = gt_np;
    GA_Update_ghosts(a->g);
    gt_check(walk_ghosts(a, 0, -1, 0), "%s: NGA_Acc from all, then GA_Update_ghosts", a->tag);
    /* NGA_Access_ghost_element on my first interior element and the ghost cell before it; the
     * subscript is local to the ghost-extended block (0 = first ghost cell) */
    bad = 0;
    if (has_block(a)) {
        void *p;
        int sub[GS_MAXDIM], gi[GS_MAXDIM], eld[GS_MAXDIM];
        memcpy(sub, a->width, sizeof(int) * a->nd);
        memcpy(gi, a->lo, sizeof(int) * a->nd);
        NGA_Access_ghost_element(a->g, &p, sub, eld);
        if (gs_diff(a->type, p, 0, expect_at(a, gi), 0.0)) bad++;
        NGA_Release_ghost_element(a->g, sub);
        sub[0] -= 1; /* ghost cell: global lo[0]-1, wrapped when lo[0] == 0 */
        gi[0] -= 1;
        NGA_Access_ghost_element(a->g, &p, sub, eld);
        if (gs_diff(a->type, p, 0, expect_at(a, gi), 0.0)) bad++;
        NGA_Release_ghost_element(a->g, sub);
    }
    gt_check(bad, "%s: NGA_Access_ghost_element interior and ghost", a->tag);
    a->add = 0;
    free(buf);
}

int main(int argc, char **argv)
{
    static const int dd[5][5] = { { 60 }, { 24, 21 }, { 12, 10, 9 }, { 8, 6, 6, 5 }, { 6, 5, 4, 4, 4 } };
    static const int ww[5][5] = { { 3 }, { 2, 1 }, { 1, 2, 1 }, { 1, 1, 1, 1 }, { 1, 1, 1, 1, 1 } };
    int nd;
    gh_t a;
    gs_init(&argc, &argv);
    gt_note("ghost cells: %d ranks", gt_np);
    for (nd = 1; nd <= 5; nd++) {
        setup(&a, C_DBL, nd, dd[nd - 1], ww[nd - 1], 0);
        test_update(&a);
        fill_local(&a);
        GA_Update_ghosts(a.g);
        test_get_ghost_block(&a);
        test_patch_ops(&a);
        GA_Destroy(a.g);
        gt_flush();
    }
    for (nd = 1; nd <= 3; nd++) {
        setup(&a, C_INT, nd, dd[nd - 1], ww[nd - 1], 0);
        test_update(&a);
        test_patch_ops(&a);
        GA_Destroy(a.g);
    }
    {
        int dims[2] = { 40, 13 }, w[2] = { 2, 2 };
        setup(&a, C_DBL, 2, dims, w, 1);
        test_update(&a);
        test_patch_ops(&a);
        GA_Destroy(a.g);
    }
    {
        int rc = gt_finish();
        GA_Terminate();
        MPI_Finalize();
        return rc;
    }
}
