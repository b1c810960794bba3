/*
 * ga_groups.c - GA processor groups (ARMCI_Group_create, ARMCI_Malloc_group,
 * armci_msg_group_* underneath).
 *
 * Checks:
 *   - GA_Pgroup_get_world / GA_Pgroup_get_default / nnodes / nodeid
 *   - GA_Pgroup_create of the even ranks and of the odd ranks;
 *     GA_Pgroup_nodeid / nnodes / GA_Pgroup_absolute_id
 *   - GA_Pgroup_dgop (+ and max), GA_Pgroup_igop, GA_Pgroup_lgop,
 *     GA_Pgroup_brdcst, GA_Pgroup_sync inside each group
 *   - 2-D double array on a group via NGA_Create_config: put/get/acc by the
 *     group members only, NGA_Distribution/NGA_Access on group ranks
 *   - NGA_Scatter/NGA_Gather on a group array
 *   - NGA_Read_inc on a group array: value set exact per group
 *   - GA_Create_handle + GA_Set_data + GA_Set_pgroup + GA_Allocate
 *   - GA_Pgroup_set_default: GA_Nnodes/GA_Nodeid/NGA_Create/GA_Sync/GA_Ddot
 *     and GA_Dgemm act on the group; restoring the world default
 *   - GA_Pgroup_split and GA_Pgroup_split_irreg sizes and ranks
 *   - a world array still works after all of the above; GA_Pgroup_destroy
 *
 * All GA_Pgroup_create/split calls are made by every rank (they are
 * collective over the default group); array operations on a group are made
 * by its members only.
 */
#include "gatest.h"

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

#define GR 23
#define GC 17

static double gval(int parity, int i, int j) { return parity * 10000.0 + i * 100 + j; }

int main(int argc, char **argv)
{
    int world, dflt, neven, nodd, *even, *odd, g_even, g_odd = -1, mygrp, parity,
        grank, gsize, i, k, rc;
    long bad;

    MPI_Init(&argc, &argv);
    GA_Initialize();
    gt_ma_init();
    gt_setup();
    if (gt_me == 0) printf("ga_groups: %d ranks\n", gt_np);

    world = GA_Pgroup_get_world();
    dflt = GA_Pgroup_get_default();
    gt_check(!(world == dflt && GA_Pgroup_nnodes(world) == gt_np &&
               GA_Pgroup_nodeid(world) == gt_me),
             "GA_Pgroup_get_world == get_default, nnodes/nodeid match MPI");

    neven = (gt_np + 1) / 2;
    nodd = gt_np / 2;
    even = malloc(sizeof(int) * (neven + 1));
    odd = malloc(sizeof(int) * (nodd + 1));
    for (i = 0; i < neven; i++) even[i] = 2 * i;
    for (i = 0; i < nodd; i++) odd[i] = 2 * i + 1;
    g_even = GA_Pgroup_create(even, neven);
    if (nodd > 0) g_odd = GA_Pgroup_create(odd, nodd);
    parity = gt_me % 2;
    mygrp = parity ? g_odd : g_even;
    grank = gt_me / 2;
    gsize = parity ? nodd : neven;

    bad = 0;
    if (GA_Pgroup_nodeid(mygrp) != grank) gt_bad("nodeid %d != %d", GA_Pgroup_nodeid(mygrp), grank);
    if (GA_Pgroup_nnodes(mygrp) != gsize) gt_bad("nnodes %d != %d", GA_Pgroup_nnodes(mygrp), gsize);
    for (k = 0; k < gsize; k++)
        if (GA_Pgroup_absolute_id(mygrp, k) != 2 * k + parity) bad++;
    gt_check(bad, "GA_Pgroup_create even(%d)/odd(%d): nodeid, nnodes, absolute_id", neven, nodd);

    /* ---- collectives inside the group ---- */
    {
        double x[2] = { gt_me + 1.0, (double)gt_me }, esum = 0, emax = 0;
        int ix = gt_me + 1, iesum = 0;
        long lx = 1000000000L * (gt_me + 1), lesum = 0;
        char msg[32];
        for (k = 0; k < gsize; k++) {
            int w = 2 * k + parity;
            esum += w + 1; iesum += w + 1; lesum += 1000000000L * (w + 1);
            if (w > emax) emax = w;
        }
        GA_Pgroup_dgop(mygrp, x, 1, "+");
        GA_Pgroup_dgop(mygrp, x + 1, 1, "max");
        GA_Pgroup_igop(mygrp, &ix, 1, "+");
        GA_Pgroup_lgop(mygrp, &lx, 1, "+");
        bad = (x[0] != esum) + (x[1] != emax) + (ix != iesum) + (lx != lesum);
        gt_check(bad, "GA_Pgroup_dgop(+,max)/igop/lgop inside even/odd groups");

        memset(msg, 0, sizeof msg);
        if (grank == 0) snprintf(msg, sizeof msg, "from world rank %d", gt_me);
        GA_Pgroup_brdcst(mygrp, msg, (int)sizeof msg, 0);
        {
            char want[32];
            memset(want, 0, sizeof want);
            snprintf(want, sizeof want, "from world rank %d", parity);
            gt_check(memcmp(msg, want, sizeof msg) != 0, "GA_Pgroup_brdcst from group rank 0");
        }
        GA_Pgroup_sync(mygrp);
    }

    gt_flush();
    /* ---- array on the group via NGA_Create_config ---- */
    {
        int dims[2] = { GR, GC }, ga, lo[2], hi[2], ld[1], j;
        double *buf = malloc(sizeof(double) * GR * GC);
        double *expv = malloc(sizeof(double) * GR * GC);
        long bad_put = 0, bad_acc = 0, bad_acc_local = 0;

        ga = NGA_Create_config(C_DBL, 2, dims, "grparr", NULL, mygrp);
        GA_Zero(ga);
        /* members put shifted row bands */
        lo[0] = grank == 0 ? 0 : grank * GR / gsize + 1;
        hi[0] = (grank + 1 == gsize ? GR : (grank + 1) * GR / gsize + 1) - 1;
        lo[1] = 0; hi[1] = GC - 1; ld[0] = GC;
        for (i = lo[0]; i <= hi[0]; i++)
            for (j = 0; j < GC; j++) buf[(i - lo[0]) * GC + j] = gval(parity, i, j);
        if (lo[0] <= hi[0]) NGA_Put(ga, lo, hi, buf, ld);
        GA_Pgroup_sync(mygrp);
        lo[0] = 0; hi[0] = GR - 1;
        NGA_Get(ga, lo, hi, buf, ld);
        for (i = 0; i < GR * GC; i++) {
            expv[i] = gval(parity, i / GC, i % GC);
            if (buf[i] != expv[i]) bad_put++;
        }
        GA_Pgroup_sync(mygrp);
        /* every member accumulates its group rank+1 over a sub-rectangle */
        {
            int alo[2] = { 1 + grank % 3, 2 }, ahi[2] = { GR - 2, GC - 1 - grank % 4 }, ald[1];
            double alpha = grank + 1.0;
            ald[0] = ahi[1] - alo[1] + 1;
            for (i = 0; i < (ahi[0] - alo[0] + 1) * ald[0]; i++) buf[i] = 1.0;
            NGA_Acc(ga, alo, ahi, buf, ald, &alpha);
            for (k = 0; k < gsize; k++)
                for (i = 1 + k % 3; i <= GR - 2; i++)
                    for (j = 2; j <= GC - 1 - k % 4; j++) expv[i * GC + j] += k + 1.0;
        }
        GA_Pgroup_sync(mygrp);
        NGA_Get(ga, lo, hi, buf, ld);
        for (i = 0; i < GR * GC; i++) if (buf[i] != expv[i]) bad_acc++;
        /* local block by group rank */
        NGA_Distribution(ga, grank, lo, hi);
        if (lo[0] >= 0 && hi[0] >= lo[0] && hi[1] >= lo[1]) {
            double *p;
            NGA_Access(ga, lo, hi, &p, ld);
            for (i = lo[0]; i <= hi[0]; i++)
                for (j = lo[1]; j <= hi[1]; j++)
                    if (p[(i - lo[0]) * ld[0] + (j - lo[1])] != expv[i * GC + j]) bad_acc_local++;
            NGA_Release(ga, lo, hi);
        }
        GA_Pgroup_sync(mygrp);
        gt_check(bad_put, "NGA_Create_config on group: put by members, get full %dx%d", GR, GC);
        gt_check(bad_acc, "group array: NGA_Acc from every member, exact");
        gt_check(bad_acc_local, "group array: NGA_Distribution(group rank) + NGA_Access local block");

        /* Ddot on the group array: sum of squares */
        {
            double d = GA_Ddot(ga, ga), e = 0;
            for (i = 0; i < GR * GC; i++) e += expv[i] * expv[i];
            gt_check(d != e, "GA_Ddot on a group array (%.0f)", e);
        }
        /* NGA_Scatter/NGA_Gather on the group array (ARMCI_PutV/GetV with
         * group ranks translated to world ranks) */
        GA_Pgroup_sync(mygrp);   /* GA_Ddot above reads what we overwrite */
        {
            int *sp[GR * 8], sb[GR * 8 * 2], m;
            double vals[GR * 8];
            bad = 0;
            for (i = 0; i < GR; i++) {
                sb[2 * i] = i; sb[2 * i + 1] = (5 * i + grank) % GC;
                sp[i] = sb + 2 * i;
                vals[i] = -(parity * 1000.0 + i * GC + sb[2 * i + 1]);
            }
            NGA_Scatter(ga, vals, sp, GR);
            GA_Pgroup_sync(mygrp);
            m = 0;
            for (k = 0; k < gsize && k < 8; k++)
                for (i = 0; i < GR; i++) {
                    sb[2 * m] = i; sb[2 * m + 1] = (5 * i + k) % GC;
                    sp[m] = sb + 2 * m;
                    m++;
                }
            NGA_Gather(ga, vals, sp, m);
            for (i = 0; i < m; i++)
                if (vals[i] != -(parity * 1000.0 + sb[2 * i] * GC + sb[2 * i + 1])) bad++;
            GA_Pgroup_sync(mygrp);
            gt_check(bad, "group array: NGA_Scatter by every member, NGA_Gather of all members' cells");
        }
        GA_Destroy(ga);
        free(buf); free(expv);
    }

    gt_flush();
    /* ---- NGA_Read_inc on a group array ---- */
    {
        const int K = gt_np <= 2 ? 30 : 10;
        int one = 2, gc, sub = 1, n;
        long *mine = malloc(sizeof(long) * (K + 1)), *all = malloc(sizeof(long) * (K + 1) * gt_np);
        long *sel = malloc(sizeof(long) * K * gt_np);
        gc = NGA_Create_config(C_LONG, 1, &one, "grpctr", NULL, mygrp);
        GA_Zero(gc);
        GA_Pgroup_sync(mygrp);
        mine[0] = parity;
        for (k = 0; k < K; k++) mine[k + 1] = NGA_Read_inc(gc, &sub, 1);
        MPI_Allgather(mine, K + 1, MPI_LONG, all, K + 1, MPI_LONG, MPI_COMM_WORLD);
        n = 0;
        for (i = 0; i < gt_np; i++)
            if (all[i * (K + 1)] == parity)
                for (k = 0; k < K; k++) sel[n++] = all[i * (K + 1) + k + 1];
        qsort(sel, n, sizeof(long), cmp_long);
        bad = n != gsize * K;
        for (i = 0; i < n; i++) if (sel[i] != i) { bad++; break; }
        GA_Pgroup_sync(mygrp);
        GA_Destroy(gc);
        gt_check(bad, "NGA_Read_inc on group arrays: %d increments per member, exact per group", K);
        free(mine); free(all); free(sel);
    }

    /* ---- GA_Create_handle / GA_Set_pgroup / GA_Allocate ---- */
    {
        int h = GA_Create_handle(), dims[1] = { 37 }, lo, hi, ld = 1, v[37], ok;
        GA_Set_data(h, 1, dims, C_INT);
        GA_Set_pgroup(h, mygrp);
        ok = GA_Allocate(h);
        bad = !ok;
        if (ok) {
            int fill = 5 + parity;
            GA_Fill(h, &fill);
            GA_Pgroup_sync(mygrp);
            if (grank == gsize - 1) {         /* last member overwrites a range */
                int w[10];
                for (i = 0; i < 10; i++) w[i] = 100 * (parity + 1) + i;
                lo = 13; hi = 22;
                NGA_Put(h, &lo, &hi, w, &ld);
            }
            GA_Pgroup_sync(mygrp);
            lo = 0; hi = 36;
            NGA_Get(h, &lo, &hi, v, &ld);
            for (i = 0; i < 37; i++) {
                int e = (i >= 13 && i <= 22) ? 100 * (parity + 1) + i - 13 : 5 + parity;
                if (v[i] != e) bad++;
            }
            GA_Pgroup_sync(mygrp);
            GA_Destroy(h);
        }
        gt_check(bad, "GA_Create_handle/GA_Set_data/GA_Set_pgroup/GA_Allocate on group, fill/put/get");
    }

    gt_flush();
    /* ---- default group switched to my group ---- */
    {
        int n0, n1, gd, dims[1] = { 41 }, lo, hi, ld = 1;
        double d, e = 0;
        GA_Pgroup_set_default(mygrp);
        n0 = GA_Nnodes(); n1 = GA_Nodeid();
        bad = (n0 != gsize) + (n1 != grank) + (GA_Pgroup_get_default() != mygrp);
        gd = NGA_Create(C_DBL, 1, dims, "dflt", NULL);     /* lives on my group */
        GA_Zero(gd);
        GA_Sync();                                          /* syncs my group only */
        if (n1 == 0) {
            double w[41];
            for (i = 0; i < 41; i++) w[i] = i % 5 + parity;
            lo = 0; hi = 40;
            NGA_Put(gd, &lo, &hi, w, &ld);
        }
        GA_Sync();
        d = GA_Ddot(gd, gd);
        for (i = 0; i < 41; i++) e += (double)(i % 5 + parity) * (i % 5 + parity);
        if (d != e) bad++;
        GA_Destroy(gd);

        /* GA_Dgemm with every array on the (default) group */
        {
            int dm[2] = { 14, 11 }, dn[2] = { 11, 9 }, dc[2] = { 14, 9 }, gA, gB, gC;
            int l2[2] = { 0, 0 }, h2[2], ld2[1], j, l;
            double A[14 * 11], B[11 * 9], Cm[14 * 9], err = 0;
            for (i = 0; i < 14 * 11; i++) A[i] = (i * 7 + parity) % 9 - 4;
            for (i = 0; i < 11 * 9; i++) B[i] = (i * 5) % 7 - 3;
            gA = NGA_Create(C_DBL, 2, dm, "gA", NULL);
            gB = NGA_Create(C_DBL, 2, dn, "gB", NULL);
            gC = NGA_Create(C_DBL, 2, dc, "gC", NULL);
            if (n1 == 0) {
                h2[0] = 13; h2[1] = 10; ld2[0] = 11; NGA_Put(gA, l2, h2, A, ld2);
                h2[0] = 10; h2[1] = 8;  ld2[0] = 9;  NGA_Put(gB, l2, h2, B, ld2);
            }
            GA_Sync();
            GA_Dgemm('N', 'N', 14, 9, 11, 1.0, gA, gB, 0.0, gC);
            GA_Sync();
            h2[0] = 13; h2[1] = 8; ld2[0] = 9;
            NGA_Get(gC, l2, h2, Cm, ld2);
            GA_Sync();           /* default group == my group here */
            for (i = 0; i < 14; i++)
                for (j = 0; j < 9; j++) {
                    double sacc = 0;
                    for (l = 0; l < 11; l++) sacc += A[i * 11 + l] * B[l * 9 + j];
                    if (fabs(sacc - Cm[i * 9 + j]) > err) err = fabs(sacc - Cm[i * 9 + j]);
                }
            GA_Destroy(gC); GA_Destroy(gB); GA_Destroy(gA);
            if (err > 1e-12) gt_bad("dgemm on group max err %g", err);
        }
        GA_Pgroup_set_default(world);
        if (GA_Nnodes() != gt_np || GA_Nodeid() != gt_me || GA_Pgroup_get_default() != world) bad++;
        gt_check(bad, "GA_Pgroup_set_default(group): GA_Nnodes/Nodeid, NGA_Create, GA_Sync, GA_Ddot, GA_Dgemm; world restored");
    }

    gt_flush();
    /* ---- split / split_irreg ---- */
    {
        int s2 = GA_Pgroup_split(world, gt_np >= 2 ? 2 : 1), color = gt_me % 3, s3, ncol = 0;
        int n2 = GA_Pgroup_nnodes(s2), r2 = GA_Pgroup_nodeid(s2);
        int expected_n2 = -1, first2;
        int ngrp = gt_np >= 2 ? 2 : 1;
        /* GA_Pgroup_split: contiguous blocks, the first nproc%num_group
         * blocks get one extra rank (observed with GA 5.8) */
        int per = gt_np / ngrp, rem = gt_np % ngrp, blk;
        first2 = 0;
        for (blk = 0; blk < ngrp; blk++) {
            int sz = per + (blk < rem);
            if (gt_me < first2 + sz) { expected_n2 = sz; break; }
            first2 += sz;
        }
        bad = 0;
        if (n2 != expected_n2 || r2 != gt_me - first2) {
            gt_bad("split: nnodes %d rank %d, expected %d %d", n2, r2, expected_n2, gt_me - first2);
        }
        {
            double x = 1.0;
            GA_Pgroup_dgop(s2, &x, 1, "+");
            if (x != n2) bad++;
        }
        gt_check(bad, "GA_Pgroup_split(world, %d): sizes, ranks, dgop over the split group", ngrp);

        s3 = GA_Pgroup_split_irreg(world, color);
        for (i = 0; i < gt_np; i++) if (i % 3 == color) ncol++;
        bad = (GA_Pgroup_nnodes(s3) != ncol) + (GA_Pgroup_nodeid(s3) != gt_me / 3);
        {
            int x = gt_me;
            GA_Pgroup_igop(s3, &x, 1, "max");
            {
                int emax = -1;
                for (i = 0; i < gt_np; i++) if (i % 3 == color && i > emax) emax = i;
                if (x != emax) bad++;
            }
        }
        gt_check(bad, "GA_Pgroup_split_irreg(world, rank%%3): sizes, ranks, igop max");
        GA_Pgroup_sync(s3);
        GA_Pgroup_sync(s2);
    }

    /* ---- world array still fine; destroy groups ---- */
    {
        int dims[1] = { 64 }, g = NGA_Create(C_LONG, 1, dims, "world", NULL), lo = 0, hi = 63, ld = 1;
        long v[64], x = 3;
        GA_Fill(g, &x);
        GA_Sync();
        NGA_Get(g, &lo, &hi, v, &ld);
        bad = 0;
        for (i = 0; i < 64; i++) if (v[i] != 3) bad++;
        GA_Sync();
        GA_Destroy(g);
        gt_check(bad, "world array after group operations");
    }
    bad = !GA_Pgroup_destroy(g_even);
    if (g_odd >= 0 && !GA_Pgroup_destroy(g_odd)) bad++;
    gt_check(bad, "GA_Pgroup_destroy of even and odd groups");

    free(even); free(odd);
    gt_flush();
    if (gt_me == 0) printf("ga_groups: elapsed %.2f s\n", gt_elapsed());
    GA_Terminate();
    rc = gt_finish();
    MPI_Finalize();
    return rc;
}
