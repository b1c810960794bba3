/*
 * pgtest.c - re-creation of GA 5.8's processor-group tests (global/testing/pgtest.c, pg2test.c,
 * simple_groups.c, simple_groups_comm.c) for armci-x, beyond what tests/ga/ga_groups.c covers.
 *
 *   - a group listing every rank in reverse order (GA sorts the list) and a two-rank group {last, 0}: arrays on them
 *     (NGA_Create_config), put/get/acc by members, GA_Pgroup_absolute_id, NGA_Locate owners in
 *     group numbering, GA_Pgroup_dgop / GA_Pgroup_igop / GA_Pgroup_sync
 *   - GA_MPI_Comm_pgroup: the group's MPI communicator (GA reads ARMCI_Group.comm) has the group's
 *     size and rank order, and an MPI_Allreduce on it agrees with GA_Pgroup_igop
 *   - nested groups (pg2test): GA_Pgroup_split of the world, GA_Pgroup_set_default to the half,
 *     GA_Pgroup_split again; arrays, GA_Dgemm and dgop on the innermost group; default restored
 *   - both halves work at once: group arrays in each half, and accumulates from both halves into
 *     one world array between group syncs
 *   - 12 create/use/destroy cycles of groups with rotating membership (ARMCI_Group_create/free and
 *     ARMCI_Malloc_group/Free_group underneath)
 * Group creation calls are made by every rank (collective over the default group).
 */
#include "gasuite.h"
#include "ga-mpi.h"

static double gv(int tag, int i, int j) { return tag * 10000.0 + i * 100 + j; }

/* array on group p: members put/get/acc; returns bad count (0 on non-members) */
static long group_array_ops(int p, int tag, int n0, int n1)
{
    int dims[2] = { n0, n1 }, g, lo[2], hi[2], ld[1] = { n1 }, me = GA_Pgroup_nodeid(p), np = GA_Pgroup_nnodes(p), i, j;
    double *buf = malloc(sizeof(double) * n0 * n1), one = 1.0;
    long bad = 0;
    g = NGA_Create_config(C_DBL, 2, dims, "grp", NULL, p);
    GA_Zero(g);
    /* member k writes rows k, k+np, ... */
    for (i = me; i < n0; i += np) {
        for (j = 0; j < n1; j++) buf[j] = gv(tag, i, j);
        lo[0] = hi[0] = i;
        lo[1] = 0;
        hi[1] = n1 - 1;
        NGA_Put(g, lo, hi, buf, ld);
    }
    GA_Pgroup_sync(p);
    for (i = 0; i < n0 * n1; i++) buf[i] = 1.0;
    lo[0] = lo[1] = 0;
    hi[0] = n0 - 1;
    hi[1] = n1 - 1;
    NGA_Acc(g, lo, hi, buf, ld, &one);
    GA_Pgroup_sync(p);
    NGA_Get(g, lo, hi, buf, ld);
    for (i = 0; i < n0; i++)
        for (j = 0; j < n1; j++)
            if (buf[i * n1 + j] != gv(tag, i, j) + np) {
                if (!bad) gt_bad("group %d (%d,%d) = %g expected %g", tag, i, j, buf[i * n1 + j], gv(tag, i, j) + np);
                bad++;
            }
    /* ownership in group numbering */
    {
        int map[4 * 64], procs[64], k, nown;
        nown = NGA_Locate_region(g, lo, hi, map, procs);
        for (k = 0; k < nown; k++)
            if (procs[k] < 0 || procs[k] >= np) bad++;
        {
            int l2[2], h2[2];
            NGA_Distribution(g, me, l2, h2);
            if (l2[0] >= 0 && l2[0] <= h2[0]) {
                int sub[2] = { l2[0], l2[1] };
                if (NGA_Locate(g, sub) != me) {
                    gt_bad("NGA_Locate of my first element gives %d, I am %d", NGA_Locate(g, sub), me);
                    bad++;
                }
            }
        }
    }
    GA_Destroy(g);
    free(buf);
    return bad;
}

static long group_collectives(int p)
{
    int me = GA_Pgroup_nodeid(p), np = GA_Pgroup_nnodes(p), iv[2], k, rank, size, sum;
    double dv[2];
    long bad = 0;
    MPI_Comm comm = GA_MPI_Comm_pgroup(p);
    dv[0] = me + 1;
    dv[1] = -me;
    GA_Pgroup_dgop(p, dv, 1, "+");
    GA_Pgroup_dgop(p, dv + 1, 1, "min");
    if (dv[0] != np * (np + 1) / 2.0 || dv[1] != -(np - 1)) {
        gt_bad("GA_Pgroup_dgop: + %g min %g", dv[0], dv[1]);
        bad++;
    }
    iv[0] = GA_Pgroup_absolute_id(p, me);
    iv[1] = 1;
    GA_Pgroup_igop(p, iv, 2, "+");
    sum = 0;
    for (k = 0; k < np; k++) sum += GA_Pgroup_absolute_id(p, k);
    if (iv[1] != np || iv[0] != sum || GA_Pgroup_absolute_id(p, me) != gt_me) {
        gt_bad("GA_Pgroup_igop %d %d (expected %d %d), absolute_id(me) %d", iv[0], iv[1], sum, np,
               GA_Pgroup_absolute_id(p, me));
        bad++;
    }
    if (comm == MPI_COMM_NULL) return bad + 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank != me || size != np) {
        gt_bad("GA_MPI_Comm_pgroup: rank %d size %d, group says %d of %d", rank, size, me, np);
        bad++;
    }
    k = gt_me;
    MPI_Allreduce(MPI_IN_PLACE, &k, 1, MPI_INT, MPI_SUM, comm);
    if (k != sum) {
        gt_bad("MPI_Allreduce on GA_MPI_Comm_pgroup: %d expected %d", k, sum);
        bad++;
    }
    return bad;
}

int main(int argc, char **argv)
{
    int world, *list, k, p_rev, p_two = -1, in_two;
    long bad;
    gs_init(&argc, &argv);
    world = GA_Pgroup_get_world();
    gt_note("processor groups: %d ranks", gt_np);

    /* reversed group */
    list = malloc(sizeof(int) * gt_np);
    for (k = 0; k < gt_np; k++) list[k] = gt_np - 1 - k;
    p_rev = GA_Pgroup_create(list, gt_np);
    bad = 0;
    /* GA sorts the list: group ranks follow world order whatever order the list is given in */
    if (GA_Pgroup_nodeid(p_rev) != gt_me) {
        gt_bad("GA_Pgroup_nodeid %d in the reversed group, expected %d", GA_Pgroup_nodeid(p_rev), gt_me);
        bad++;
    }
    bad += group_collectives(p_rev);
    gt_check(bad, "reversed group: nodeid, absolute_id, dgop/igop, GA_MPI_Comm_pgroup");
    gt_check(group_array_ops(p_rev, 1, 23, 19), "reversed group: array put/acc/get, NGA_Locate in group ranks");

    /* two-rank group {last, 0} */
    in_two = gt_np > 1 && (gt_me == 0 || gt_me == gt_np - 1);
    if (gt_np > 1) {
        list[0] = gt_np - 1;
        list[1] = 0;
        p_two = GA_Pgroup_create(list, 2);
    }
    bad = 0;
    if (in_two) {
        bad += group_collectives(p_two);
        bad += group_array_ops(p_two, 2, 17, 21);
    }
    gt_check(bad, "group {last, 0}: collectives and array ops by members only");

    /* both halves at once: group arrays plus accumulates into one world array */
    {
        int half = GA_Pgroup_split(world, gt_np > 1 ? 2 : 1), dims[2] = { 32, 24 }, gw, lo[2], hi[2], ld[1] = { 24 }, i;
        double *buf = malloc(sizeof(double) * 32 * 24), one = 1.0;
        int mytag = gt_me < (gt_np + 1) / 2 ? 3 : 4;
        gw = NGA_Create(C_DBL, 2, dims, "world", NULL);
        GA_Zero(gw);
        bad = group_array_ops(half, mytag, 20, 14) + group_collectives(half);
        for (i = 0; i < 32 * 24; i++) buf[i] = mytag;
        lo[0] = lo[1] = 0;
        hi[0] = 31;
        hi[1] = 23;
        for (i = 0; i < 3; i++) {
            NGA_Acc(gw, lo, hi, buf, ld, &one);
            GA_Pgroup_sync(half);
        }
        GA_Sync();
        NGA_Get(gw, lo, hi, buf, ld);
        {
            int n3 = 0, n4 = 0;
            double e;
            for (i = 0; i < gt_np; i++) (i < (gt_np + 1) / 2 ? n3++ : n4++);
            e = 3.0 * (3 * n3 + 4 * n4);
            for (i = 0; i < 32 * 24; i++)
                if (buf[i] != e) {
                    if (!bad) gt_bad("world elem %d = %g expected %g", i, buf[i], e);
                    bad++;
                }
        }
        gt_check(bad, "two halves concurrently: group arrays + accumulates into a world array");
        GA_Destroy(gw);
        free(buf);

        /* nested: default = my half, split it again */
        GA_Pgroup_set_default(half);
        bad = 0;
        if (GA_Nnodes() != GA_Pgroup_nnodes(half) || GA_Nodeid() != GA_Pgroup_nodeid(half)) bad++;
        if (GA_Pgroup_nnodes(half) >= 2) {
            int quarter = GA_Pgroup_split(half, 2), n = 24, d[2] = { n, n }, ga, gb, gc, l2[2] = { 0, 0 },
                h2[2] = { n - 1, n - 1 }, ld2[1] = { n }, a, b, c;
            double *A = malloc(sizeof(double) * n * n), *B = malloc(sizeof(double) * n * n), *Cm = malloc(sizeof(double) * n * n);
            GA_Pgroup_set_default(quarter);
            bad += group_collectives(quarter);
            ga = NGA_Create(C_DBL, 2, d, "A", NULL);
            gb = NGA_Create(C_DBL, 2, d, "B", NULL);
            gc = NGA_Create(C_DBL, 2, d, "C", NULL);
            for (a = 0; a < n; a++)
                for (b = 0; b < n; b++) {
                    A[a * n + b] = (a + 2 * b) % 5 - 2;
                    B[a * n + b] = (3 * a + b) % 7 - 3;
                }
            if (GA_Nodeid() == 0) {
                NGA_Put(ga, l2, h2, A, ld2);
                NGA_Put(gb, l2, h2, B, ld2);
            }
            GA_Sync();
            GA_Dgemm('N', 'N', n, n, n, 1.0, ga, gb, 0.0, gc);
            NGA_Get(gc, l2, h2, Cm, ld2);
            /* GA's C binding works on the transposed Fortran view: C = A*B in row-major as well */
            for (a = 0; a < n; a++)
                for (b = 0; b < n; b++) {
                    double s = 0;
                    for (c = 0; c < n; c++) s += A[a * n + c] * B[c * n + b];
                    if (Cm[a * n + b] != s) {
                        if (!bad) gt_bad("nested dgemm (%d,%d) = %g expected %g", a, b, Cm[a * n + b], s);
                        bad++;
                    }
                }
            GA_Destroy(gc);
            GA_Destroy(gb);
            GA_Destroy(ga);
            free(A);
            free(B);
            free(Cm);
            GA_Pgroup_set_default(half);
            GA_Pgroup_destroy(quarter);
        }
        GA_Pgroup_set_default(world);
        if (GA_Nnodes() != gt_np) bad++;
        gt_check(bad, "nested groups: split, set_default, split again, GA_Dgemm on the inner group");
        GA_Pgroup_destroy(half);
    }

    /* create/use/destroy cycles with rotating membership */
    bad = 0;
    for (k = 0; k < 12; k++) {
        int n = 1 + k % gt_np, i, p, member = 0;
        for (i = 0; i < n; i++) {
            list[i] = (k + i * 3) % gt_np;
            if (list[i] == gt_me) member = 1;
        }
        /* make the list duplicate-free (3 and gt_np may share factors) */
        {
            int m = 0, j, dup;
            for (i = 0; i < n; i++) {
                dup = 0;
                for (j = 0; j < m; j++)
                    if (list[j] == list[i]) dup = 1;
                if (!dup) list[m++] = list[i];
            }
            n = m;
            member = 0;
            for (i = 0; i < n; i++)
                if (list[i] == gt_me) member = 1;
        }
        p = GA_Pgroup_create(list, n);
        if (member) bad += group_array_ops(p, 10 + k, 9 + k, 7 + k) + group_collectives(p);
        GA_Pgroup_destroy(p);
    }
    gt_check(bad, "12 group create/use/destroy cycles with rotating membership");

    if (p_two >= 0) GA_Pgroup_destroy(p_two);
    GA_Pgroup_destroy(p_rev);
    free(list);
    {
        int rc = gt_finish();
        GA_Terminate();
        MPI_Finalize();
        return rc;
    }
}
