/*
 * ga_ports.c -- what NWChem's coupled-cluster codes ask of Global Arrays, timed through GA calls only, so that
 * one source runs on every ARMCI port GA builds (MPI-PR, MPI-TS, MPI3, armci-x, ARMCI-MPI: tools/ga-ports.sh,
 * benchmarks/ga_ports.sh; issue 58).  No MPI_COMM_WORLD anywhere: GA's MPI-PR port takes the last rank of each
 * node as its progress rank, so GA_Nnodes() is smaller than the MPI job.
 *
 *   ga_ports [LABEL] [SCALE]      LABEL names the port in the output; SCALE (default 1) multiplies the calls
 *
 * Every rank works at once, as in a CC run.  Each rank owns one 256 x 256 block of doubles (rows r*256 ...
 * of a (nproc*256) x 256 array, irregular distribution) and moves tiles of k x k (k = 8, 32, 64, 128, 256)
 * from the block of its partner: the rank with its own index on the next node (GA_Cluster_*), or the next
 * rank when there is one node.  Every rank is the partner of exactly one, so puts and accumulates never
 * overlap.
 *   get   NGA_Get of the tile                         check: the partner's values (in a buffer spoiled before)
 *   put   NGA_Put of the tile, then GA_Fence           check: read back after GA_Sync
 *   acc   NGA_Acc (alpha 1) of the tile, then GA_Fence check: put value + (calls + 1) * increment (a warm-up)
 *   read_inc  NGA_Read_inc of one counter on rank 0, by every rank at once;
 *             check: the counter ends at the number of calls and the values handed out sum to 0+1+...+(N-1)
 *   sync  GA_Sync
 *   task  a CC-like task loop: NGA_Read_inc takes task t, NGA_Get of A's tile (64 x 64) in block t % P and
 *         of B's in block (t / P) % P, C_tile = A_tile x B_tile locally, NGA_Acc of C_tile into C's block
 *         (i + j) % P; 20 tasks per rank; check: C against its exact value
 *   taskcomm  the same loop's time per task outside the local multiply (the counter, gets, accumulate and their
 *         waits): what the ARMCI port adds to a task.  The multiply is the same code on every port, but on a
 *         shared virtual machine its speed changes by up to 2x from one run to the next (the host's other
 *         load), which the task row carries along and this one does not
 * Columns: us per call (mean over ranks; max over ranks), MB/s per rank from the mean, the check.  Each line
 * that carries a result starts with "row"; the driver (benchmarks/ga_ports.sh) takes the mean column.
 * A failed check prints "CHECK FAILED" and makes the exit status 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ga.h"
#include "macdecls.h"

#define BLK 256
#define TASK_K 64

static int me, nproc, failed;

static double value(int owner, int r, int c)
{
    return owner * 1000000.0 + r * 1000.0 + c;
}

static double incr(int r, int c)
{
    return (double)((r + 2 * c) % 7 + 1);
}

/* Mean and max of x over the ranks. */
static void over_ranks(double x, double *mean, double *max)
{
    double s = x, m = x;
    GA_Dgop(&s, 1, "+");
    GA_Dgop(&m, 1, "max");
    *mean = s / nproc;
    *max = m;
}

static void row(const char *op, const char *size, long bytes, long calls, double secs, int bad)
{
    double mean, max, b = bad;
    over_ranks(secs / (calls > 0 ? calls : 1) * 1e6, &mean, &max);
    GA_Dgop(&b, 1, "+");
    if (b > 0)
        failed = 1;
    if (me == 0) {
        if (bytes > 0)
            printf("row %-9s %-8s %8ld %6ld %11.2f %11.2f %9.1f  %s\n", op, size, bytes, calls, mean, max,
                   bytes / mean, b > 0 ? "CHECK FAILED" : "ok");
        else
            printf("row %-9s %-8s %8s %6ld %11.2f %11.2f %9s  %s\n", op, size, "-", calls, mean, max, "-",
                   b > 0 ? "CHECK FAILED" : "ok");
        fflush(stdout);
    }
}

/* The partner: the rank with this rank's index on the next node, or the next rank on one node. */
static int partner_of(int p)
{
    int nodes = GA_Cluster_nnodes();
    if (nodes > 1) {
        int node = GA_Cluster_proc_nodeid(p), first = GA_Cluster_procid(node, 0);
        int next = (node + 1) % nodes, there = GA_Cluster_nprocs(next);
        return GA_Cluster_procid(next, (p - first) % there);
    }
    return (p + 1) % nproc;
}

static int create_blocked(int type, int rows_per_rank, int cols, const char *name)
{
    int dims[2] = {nproc * rows_per_rank, cols}, block[2] = {nproc, 1}, *map, g, p;
    map = (int *)malloc(sizeof(int) * (nproc + 1));
    for (p = 0; p < nproc; p++)
        map[p] = p * rows_per_rank;
    map[nproc] = 0;
    g = NGA_Create_irreg(type, 2, dims, (char *)name, block, map);
    free(map);
    if (!g)
        GA_Error("NGA_Create_irreg failed", 0);
    return g;
}

static void tiles(int g, int partner, double *buf, double *chk, int k, long calls)
{
    int lo[2] = {partner * BLK, 0}, hi[2] = {partner * BLK + k - 1, k - 1}, ld = k, mylo[2], myhi[2];
    int r, c, bad;
    long i;
    long bytes = (long)k * k * (long)sizeof(double);
    double t, one = 1.0;
    char size[16];
    snprintf(size, sizeof size, "%dx%d", k, k);

    /* Every rank (re)writes its own block. */
    mylo[0] = me * BLK, mylo[1] = 0, myhi[0] = me * BLK + BLK - 1, myhi[1] = BLK - 1;
    {
        double *own = (double *)malloc(sizeof(double) * BLK * BLK);
        int ldo = BLK;
        for (r = 0; r < BLK; r++)
            for (c = 0; c < BLK; c++)
                own[r * BLK + c] = value(me, r, c);
        NGA_Put(g, mylo, myhi, own, &ldo);
        free(own);
    }
    GA_Sync();

    /* get */
    NGA_Get(g, lo, hi, buf, &ld); /* warm-up */
    GA_Sync();
    /* The check must see the timed gets' data, not the warm-up's: a get that returned before its data
       arrived would otherwise pass. */
    memset(buf, 0xff, (size_t)bytes);
    t = GA_Wtime();
    for (i = 0; i < calls; i++)
        NGA_Get(g, lo, hi, buf, &ld);
    t = GA_Wtime() - t;
    bad = 0;
    for (r = 0; r < k; r++)
        for (c = 0; c < k; c++)
            bad |= buf[r * k + c] != value(partner, r, c);
    row("get", size, bytes, calls, t, bad);

    /* put */
    for (r = 0; r < k; r++)
        for (c = 0; c < k; c++)
            buf[r * k + c] = value(partner, r, c) + 0.5;
    NGA_Put(g, lo, hi, buf, &ld);
    GA_Sync();
    GA_Init_fence();
    t = GA_Wtime();
    for (i = 0; i < calls; i++)
        NGA_Put(g, lo, hi, buf, &ld);
    GA_Fence();
    t = GA_Wtime() - t;
    GA_Sync();
    NGA_Get(g, lo, hi, chk, &ld);
    bad = memcmp(chk, buf, (size_t)bytes) != 0;
    row("put", size, bytes, calls, t, bad);

    /* acc */
    for (r = 0; r < k; r++)
        for (c = 0; c < k; c++)
            buf[r * k + c] = incr(r, c);
    NGA_Acc(g, lo, hi, buf, &ld, &one); /* warm-up, counted in the check */
    GA_Sync();
    GA_Init_fence();
    t = GA_Wtime();
    for (i = 0; i < calls; i++)
        NGA_Acc(g, lo, hi, buf, &ld, &one);
    GA_Fence();
    t = GA_Wtime() - t;
    GA_Sync();
    NGA_Get(g, lo, hi, chk, &ld);
    bad = 0;
    for (r = 0; r < k; r++)
        for (c = 0; c < k; c++)
            bad |= chk[r * k + c] != value(partner, r, c) + 0.5 + (double)(calls + 1) * incr(r, c);
    row("acc", size, bytes, calls, t, bad);
}

static double a_val(int p, int r, int c)
{
    (void)c;
    return p + 1 + r % 3;
}

static double b_val(int q, int r, int c)
{
    (void)r;
    return q + 1 + c % 5;
}

/* The task loop; returns through row(). */
static void task_loop(long per_rank)
{
    int ga = create_blocked(C_DBL, TASK_K, TASK_K, "A"), gb = create_blocked(C_DBL, TASK_K, TASK_K, "B");
    int gc = create_blocked(C_DBL, TASK_K, TASK_K, "C"), cdims[1] = {1}, zero[1] = {0};
    int gcnt = NGA_Create(C_LONG, 1, cdims, "tasks", NULL);
    int lo[2], hi[2], ld = TASK_K, r, c, l, bad = 0;
    long ntasks = per_rank * nproc, t, done = 0;
    double *a = (double *)malloc(sizeof(double) * TASK_K * TASK_K);
    double *b = (double *)malloc(sizeof(double) * TASK_K * TASK_K);
    double *cm = (double *)malloc(sizeof(double) * TASK_K * TASK_K);
    double one = 1.0, secs, multiply = 0, m0;
    long *hits = (long *)calloc((size_t)nproc * nproc, sizeof(long));

    GA_Zero(gc);
    GA_Zero(gcnt);
    lo[0] = me * TASK_K, lo[1] = 0, hi[0] = me * TASK_K + TASK_K - 1, hi[1] = TASK_K - 1;
    for (r = 0; r < TASK_K; r++)
        for (c = 0; c < TASK_K; c++)
            a[r * TASK_K + c] = a_val(me, r, c), b[r * TASK_K + c] = b_val(me, r, c);
    NGA_Put(ga, lo, hi, a, &ld);
    NGA_Put(gb, lo, hi, b, &ld);
    GA_Sync();

    GA_Init_fence();
    secs = GA_Wtime();
    while ((t = NGA_Read_inc(gcnt, zero, 1)) < ntasks) {
        int i = (int)(t % nproc), j = (int)((t / nproc) % nproc), dst = (i + j) % nproc;
        lo[0] = i * TASK_K, hi[0] = i * TASK_K + TASK_K - 1;
        NGA_Get(ga, lo, hi, a, &ld);
        lo[0] = j * TASK_K, hi[0] = j * TASK_K + TASK_K - 1;
        NGA_Get(gb, lo, hi, b, &ld);
        m0 = GA_Wtime();
        for (r = 0; r < TASK_K; r++)
            for (c = 0; c < TASK_K; c++) {
                double s = 0;
                for (l = 0; l < TASK_K; l++)
                    s += a[r * TASK_K + l] * b[l * TASK_K + c];
                cm[r * TASK_K + c] = s;
            }
        multiply += GA_Wtime() - m0;
        lo[0] = dst * TASK_K, hi[0] = dst * TASK_K + TASK_K - 1;
        NGA_Acc(gc, lo, hi, cm, &ld, &one);
        done++;
    }
    GA_Fence();
    secs = GA_Wtime() - secs;
    GA_Sync();

    /* C's block of this rank: the sum over the tasks that landed here of 64 * a(i, r) * b(j, c). */
    for (t = 0; t < ntasks; t++) {
        int i = (int)(t % nproc), j = (int)((t / nproc) % nproc);
        if ((i + j) % nproc == me)
            hits[i * nproc + j]++;
    }
    lo[0] = me * TASK_K, hi[0] = me * TASK_K + TASK_K - 1;
    NGA_Get(gc, lo, hi, cm, &ld);
    for (r = 0; r < TASK_K; r++)
        for (c = 0; c < TASK_K; c++) {
            double want = 0;
            int i, j;
            for (i = 0; i < nproc; i++)
                for (j = 0; j < nproc; j++)
                    if (hits[i * nproc + j])
                        want += hits[i * nproc + j] * (double)TASK_K * a_val(i, r, c) * b_val(j, r, c);
            bad |= cm[r * TASK_K + c] != want;
        }
    {
        double d = (double)done;
        GA_Dgop(&d, 1, "+");
        bad |= (long)d != ntasks;
    }
    /* us per task: this rank's loop time over the tasks it did ("calls": rank 0's count). */
    row("task", "64x64", -1, done, secs, bad);
    row("taskcomm", "64x64", -1, done, secs - multiply, bad);
    {
        double mean, max;
        over_ranks(secs, &mean, &max);
        if (me == 0)
            printf("row %-9s %-8s %8s %6ld %11.2f %11.2f %9s  %s\n", "taskloop", "total", "-", ntasks, mean * 1e6,
                   max * 1e6, "-", "(whole loop, us)");
    }
    free(hits);
    free(a), free(b), free(cm);
    GA_Destroy(gcnt);
    GA_Destroy(gc), GA_Destroy(gb), GA_Destroy(ga);
}

int main(int argc, char **argv)
{
    const char *label = argc > 1 ? argv[1] : "ga";
    double scale = argc > 2 ? atof(argv[2]) : 1.0;
    int ks[] = {8, 32, 64, 128, 256};
    long calls[] = {200, 200, 100, 40, 12};
    int g, x, partner, cdims[1] = {1}, zero[1] = {0}, gcnt, bad;
    double *buf, *chk, t, sum;
    long i, n_inc;

    MPI_Init(&argc, &argv);
    GA_Initialize();
    if (!MA_init(C_DBL, 1000000, 4000000))
        GA_Error("MA_init failed", 0);
    me = GA_Nodeid();
    nproc = GA_Nnodes();
    if (scale <= 0)
        scale = 1;
    partner = partner_of(me);
    if (me == 0) {
        printf("ga_ports: %s, %d GA ranks on %d node(s) (GA_Cluster_nnodes), rank 0's partner %d\n", label, nproc,
               GA_Cluster_nnodes(), partner);
        printf("row %-9s %-8s %8s %6s %11s %11s %9s  %s\n", "op", "tile", "bytes", "calls", "us(mean)", "us(max)",
               "MB/s", "check");
        fflush(stdout);
    }
    if (nproc < 2)
        GA_Error("ga_ports needs at least 2 GA ranks", nproc);

    g = create_blocked(C_DBL, BLK, BLK, "tiles");
    {
        int sub[2] = {partner * BLK, 0}, owner = NGA_Locate(g, sub);
        if (owner != partner)
            GA_Error("the partner's block is not where it should be", owner);
    }
    buf = (double *)malloc(sizeof(double) * BLK * BLK);
    chk = (double *)malloc(sizeof(double) * BLK * BLK);
    for (x = 0; x < 5; x++) {
        long n = (long)(calls[x] * scale);
        tiles(g, partner, buf, chk, ks[x], n > 0 ? n : 1);
    }
    GA_Destroy(g);

    /* read_inc: one counter on rank 0, every rank at once. */
    gcnt = NGA_Create(C_LONG, 1, cdims, "counter", NULL);
    GA_Zero(gcnt);
    n_inc = (long)(200 * scale);
    if (n_inc < 1)
        n_inc = 1;
    GA_Sync();
    sum = 0;
    t = GA_Wtime();
    for (i = 0; i < n_inc; i++)
        sum += (double)NGA_Read_inc(gcnt, zero, 1);
    t = GA_Wtime() - t;
    GA_Sync();
    GA_Dgop(&sum, 1, "+");
    {
        long total = n_inc * nproc, last = -1;
        int ld1[1] = {1};
        NGA_Get(gcnt, zero, zero, &last, ld1);
        bad = last != total || sum != (double)total * (double)(total - 1) / 2;
    }
    row("read_inc", "-", -1, n_inc, t, bad);
    GA_Destroy(gcnt);

    /* sync */
    GA_Sync();
    t = GA_Wtime();
    for (i = 0; i < n_inc; i++)
        GA_Sync();
    t = GA_Wtime() - t;
    row("sync", "-", -1, n_inc, t, 0);

    /* the task loop */
    {
        long per = (long)(20 * scale);
        task_loop(per > 0 ? per : 1);
    }

    free(buf);
    free(chk);
    if (me == 0)
        printf("ga_ports: %s: %s\n", label, failed ? "CHECK FAILED" : "all checks passed");
    GA_Terminate();
    MPI_Finalize();
    return failed ? 1 : 0;
}
