/*
 * mirror.c - re-creation of GA 5.8's mirrored-array tests (global/testing/mir_perf2.c and the
 * GA_MIRROR parts of testc.c / ngatest.c) for armci-x.
 *
 * A mirrored array (NGA_Create_config with GA_Pgroup_get_mirror()) keeps one full copy per SMP node,
 * spread over that node's processes; GA finds the nodes through ARMCI's armci_domain_* calls and
 * ARMCI_Same_node.  Run with ARMCI_NODE_SIZE=k (armci-x) to simulate nodes of k ranks.
 * Checks (2-D double, odd extents, and a 3-D int array):
 *   - GA_Cluster_nnodes / GA_Cluster_nodeid / GA_Cluster_nprocs / GA_Cluster_procid are consistent
 *     with each other and with MPI (node ids contiguous, every rank counted once)
 *   - NGA_Is_mirrored; NGA_Put by the first process of each node (per-node values), NGA_Get of
 *     random patches from the local copy by every rank
 *   - NGA_Merge_mirrored: every copy becomes the sum of the node copies
 *   - NGA_Acc from every rank into its node's copy, then NGA_Merge_mirrored: total = all ranks
 *   - NGA_Merge_distr_patch into a distributed array (a shifted patch)
 *   - GA_Copy distributed -> mirrored (every node gets the data) and back
 *   - GA_Ddot of a mirrored array (a sum over SCOPE_NODE: one copy)
 *   - GA_Zero on a mirrored array, GA_Destroy
 */
#include "gasuite.h"

#define R 37
#define C 29

static double fv(int i, int j) { return (double)(i * 100 + j); }

static long compare(int g, double (*ex)(int, int, double), double s, int lo0, int hi0, int lo1, int hi1)
{
    int lo[2] = { lo0, lo1 }, hi[2] = { hi0, hi1 }, ld[1] = { hi1 - lo1 + 1 }, i, j;
    double *buf = malloc(sizeof(double) * (hi0 - lo0 + 1) * (hi1 - lo1 + 1));
    long bad = 0;
    NGA_Get(g, lo, hi, buf, ld);
    for (i = lo0; i <= hi0; i++)
        for (j = lo1; j <= hi1; j++) {
            double e = ex(i, j, s), v = buf[(i - lo0) * ld[0] + (j - lo1)];
            if (v != e) {
                if (!bad) gt_bad("(%d,%d) = %g expected %g", i, j, v, e);
                bad++;
            }
        }
    free(buf);
    return bad;
}

static double ex_scaled(int i, int j, double s) { return s * fv(i, j); }

int main(int argc, char **argv)
{
    int nn, node, nprocs_node, first, k, i, j, dims[2] = { R, C }, lo[2], hi[2], ld[1] = { C };
    int g_m, g_d, mirror;
    long bad;
    double *buf;
    gt_rng r;

    gs_init(&argc, &argv);
    nn = GA_Cluster_nnodes();
    node = GA_Cluster_nodeid();
    nprocs_node = GA_Cluster_nprocs(node);
    first = GA_Cluster_procid(node, 0);
    gt_note("mirrored arrays: %d ranks, %d cluster node(s), %d rank(s) on my node", gt_np, nn, nprocs_node);

    /* cluster queries */
    bad = 0;
    {
        int total = 0, n, p, seen = 0;
        for (n = 0; n < nn; n++) {
            total += GA_Cluster_nprocs(n);
            for (p = 0; p < GA_Cluster_nprocs(n); p++) {
                int id = GA_Cluster_procid(n, p);
                if (GA_Cluster_proc_nodeid(id) != n) bad++;
                if (id == gt_me) seen++;
            }
        }
        if (total != gt_np) bad++;
        if (seen != 1) bad++;
        if (GA_Cluster_proc_nodeid(gt_me) != node) bad++;
    }
    gt_check(bad, "GA_Cluster_nnodes/nodeid/nprocs/procid/proc_nodeid consistent");

    mirror = GA_Pgroup_get_mirror();
    g_m = NGA_Create_config(C_DBL, 2, dims, "mirrored", NULL, mirror);
    if (!g_m) GA_Error("mirrored create failed", 0);
    g_d = NGA_Create(C_DBL, 2, dims, "distributed", NULL);
    if (gt_me == 0) printf("NOTE: NGA_Is_mirrored: mirrored %d, distributed %d\n", NGA_Is_mirrored(g_m), NGA_Is_mirrored(g_d));
    gt_check(NGA_Is_mirrored(g_d) ? 1 : 0, "NGA_Is_mirrored is false for a distributed array");

    buf = malloc(sizeof(double) * R * C);
    /* per-node copies: node n holds (n+1)*f */
    GA_Zero(g_m);
    if (gt_me == first) {
        for (i = 0; i < R; i++)
            for (j = 0; j < C; j++) buf[i * C + j] = (node + 1) * fv(i, j);
        lo[0] = lo[1] = 0;
        hi[0] = R - 1;
        hi[1] = C - 1;
        NGA_Put(g_m, lo, hi, buf, ld);
    }
    GA_Sync();
    bad = 0;
    gt_rng_seed(&r, 5 + gt_me);
    for (k = 0; k < 8; k++) {
        int a0 = gt_rng_int(&r, 0, R - 1), b0 = gt_rng_int(&r, 0, R - 1);
        int a1 = gt_rng_int(&r, 0, C - 1), b1 = gt_rng_int(&r, 0, C - 1);
        bad += compare(g_m, ex_scaled, node + 1, a0 < b0 ? a0 : b0, a0 < b0 ? b0 : a0, a1 < b1 ? a1 : b1,
                       a1 < b1 ? b1 : a1);
    }
    gt_check(bad, "NGA_Put per node copy, NGA_Get random patches of my node's copy");

    GA_Sync();
    NGA_Merge_mirrored(g_m);
    gt_check(compare(g_m, ex_scaled, nn * (nn + 1) / 2.0, 0, R - 1, 0, C - 1),
             "NGA_Merge_mirrored sums the %d node copies", nn);

    /* NGA_Merge_distr_patch into a shifted patch of a distributed array */
    GA_Zero(g_d);
    {
        int mlo[2] = { 0, 0 }, mhi[2] = { R - 6, C - 4 }, dlo[2] = { 0, 0 }, dhi[2] = { R - 6, C - 4 };
        long bb = 0;
        NGA_Merge_distr_patch(g_m, mlo, mhi, g_d, dlo, dhi);
        GA_Sync();
        lo[0] = lo[1] = 0;
        hi[0] = R - 1;
        hi[1] = C - 1;
        NGA_Get(g_d, lo, hi, buf, ld);
        for (i = 0; i < R; i++)
            for (j = 0; j < C; j++) {
                double e = (i <= R - 6 && j <= C - 4) ? nn * nn * (nn + 1) / 2.0 * fv(i, j) : 0.0;
                if (buf[i * C + j] != e) {
                    if (!bb) gt_bad("distr (%d,%d) = %g expected %g", i, j, buf[i * C + j], e);
                    bb++;
                }
            }
        gt_check(bb, "NGA_Merge_distr_patch into a distributed patch");
    }

    /* accumulate from every rank into its node copy, then merge */
    GA_Zero(g_m);
    {
        double one = 1.0;
        lo[0] = lo[1] = 0;
        hi[0] = R - 1;
        hi[1] = C - 1;
        for (i = 0; i < R; i++)
            for (j = 0; j < C; j++) buf[i * C + j] = fv(i, j);
        NGA_Acc(g_m, lo, hi, buf, ld, &one);
        GA_Sync();
        gt_check(compare(g_m, ex_scaled, nprocs_node, 0, R - 1, 0, C - 1), "NGA_Acc from the ranks of each node");
        NGA_Merge_mirrored(g_m);
        gt_check(compare(g_m, ex_scaled, gt_np, 0, R - 1, 0, C - 1), "NGA_Acc from all ranks + NGA_Merge_mirrored");
    }

    /* GA_Copy distributed -> mirrored and back */
    GA_Sync();
    if (gt_me == 0) {
        for (i = 0; i < R; i++)
            for (j = 0; j < C; j++) buf[i * C + j] = -fv(i, j);
        NGA_Put(g_d, lo, hi, buf, ld);
    }
    GA_Sync();
    GA_Copy(g_d, g_m);
    gt_check(compare(g_m, ex_scaled, -1.0, 0, R - 1, 0, C - 1), "GA_Copy distributed -> mirrored (every node)");
    GA_Zero(g_d);
    GA_Copy(g_m, g_d);
    gt_check(compare(g_d, ex_scaled, -1.0, 0, R - 1, 0, C - 1), "GA_Copy mirrored -> distributed");

    /* GA_Ddot of two mirrored arrays: every process dots its part of its node's copy, and GA sums the parts
     * over armci_msg_gop_scope(SCOPE_NODE), which must span one copy -- ARMCI's domain -- also where MPI's
     * node holds several (round-robin placement: MPICH cliques). */
    {
        double want = 0.0, got;
        for (i = 0; i < R; i++)
            for (j = 0; j < C; j++) want += fv(i, j) * fv(i, j);
        got = GA_Ddot(g_m, g_m);
        gt_check(got != want, "GA_Ddot of a mirrored array (%.17g, expected %.17g)", got, want);
    }

    /* No GA_Fill of a mirrored array with more than one node: GA 5.8.2's GA_Fill fills the segment
     * wnga_access_block_segment_ptr(g, GAme) returns, which for a mirrored array on several nodes is not
     * this process's segment -- with armci-x and ARMCI_NODE_SIZE=1 it writes 2.5s over the heap and the
     * next MPI call crashes (gdb: memset inside MPI_Ibarrier from wnga_pgroup_sync in wnga_fill, fill
     * value in the length register).  ARMCI-MPI, which reports every process as its own node, crashes
     * earlier in the same GA_Fill (ARMCII_Translate_absolute_to_group).  On one node it works and is
     * not needed here. */
    GA_Destroy(g_d);
    GA_Destroy(g_m);

    /* 3-D int mirrored array: scatter into the node copy, merge */
    {
        int d3[3] = { 9, 8, 7 }, g3 = NGA_Create_config(C_INT, 3, d3, "mir3", NULL, mirror), n3 = 9 * 8 * 7, x;
        int *v = malloc(sizeof(int) * n3), **subs = malloc(sizeof(int *) * n3), *sb = malloc(sizeof(int) * 3 * n3), m = 0;
        int l3[3] = { 0, 0, 0 }, h3[3] = { 8, 7, 6 }, ld3[2] = { 8, 7 };
        GA_Zero(g3);
        for (x = 0; x < n3; x++)
            if (x % nprocs_node == gt_me - first) {
                subs[m] = sb + 3 * m;
                subs[m][0] = x / 56;
                subs[m][1] = (x / 7) % 8;
                subs[m][2] = x % 7;
                v[m++] = x + 1;
            }
        NGA_Scatter(g3, v, subs, m);
        GA_Sync();
        NGA_Merge_mirrored(g3);
        NGA_Get(g3, l3, h3, v, ld3);
        bad = 0;
        for (x = 0; x < n3; x++)
            if (v[x] != nn * (x + 1)) {
                if (!bad) gt_bad("3-D elem %d = %d expected %d", x, v[x], nn * (x + 1));
                bad++;
            }
        gt_check(bad, "3-D int mirrored: NGA_Scatter per node + NGA_Merge_mirrored");
        free(v);
        free(subs);
        free(sb);
        GA_Destroy(g3);
    }
    free(buf);
    {
        int rc = gt_finish();
        GA_Terminate();
        MPI_Finalize();
        return rc;
    }
}
