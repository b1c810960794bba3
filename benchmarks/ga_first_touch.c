/*
 * ga_first_touch.c -- GA's perf2 (global/testing/perf2.c) pattern three times over, to tell the cost of a
 * first touch from the cost of a transfer (issue 58).  perf2 times each section size once, in a fresh
 * process, on memory its target never touched: the first get of a size reaches pages no process has
 * mapped yet, and rank 0 takes a page fault per new page (the page is made, zeroed and mapped).  Which
 * sizes reach new pages depends on where the array's data starts in its page, so the same port's row can be
 * 20x slower or faster than another's for no reason in its transfer path (perf2 strided 128x128 get: armci-x
 * 64 us, MPI-PR 28; 142x142: 14 against 62).  Pass 0 here is perf2's; passes 1 and 2 repeat it on touched
 * memory.
 *
 *   ga_first_touch [PASSES]        (default 3) on 2+ GA ranks; rank 0 times, rank 1's block is the target
 *
 * Per pass and section (k x k doubles, as perf2: a 1-D section of k*k doubles and a 2-D k x k section of a
 * 640-column array; loop = max(2, 640 / k) calls, alternately 128 elements further in every dimension and in
 * the buffer; perf2 refills its 3.2 MB buffer before each op, so do we): us per NGA_Get and per NGA_Put.
 * The buffer is ARMCI_Malloc_local's, as perf2's.  Check: after the last pass, the last 2-D put's values are
 * read back from rank 1's block (exit 1, "WRONG").
 *   cc -O2 -I<GA prefix>/include benchmarks/ga_first_touch.c -L<GA prefix>/lib -lga <the port's ARMCI libs> \
 *       -llapack -lblas -lgfortran -lm        (tools/ga-ports.sh records the libs in ga-ports.done)
 */
#include <ga.h>
#include <macdecls.h>
#include <armci.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define SIZE 640 /* perf2's: at least the largest k + 128 */
enum { OP_GET, OP_PUT };

static void fill(double *buf, double v) {
    for (int i = 0; i < SIZE * SIZE; ++i) buf[i] = v + i;
}

/* perf2's time_op: `loop` calls on rank 1's block, alternately 128 elements further. */
static double time_op(int g_a, int ndim, double *buf, int k, int loop, int op) {
    int lo[2], hi[2], ld = k, bal = 0;
    NGA_Distribution(g_a, 1, lo, hi);
    if (ndim == 1) {
        hi[0] = lo[0] + k * k - 1;
    } else {
        hi[0] = lo[0] + k - 1;
        hi[1] = lo[1] + k - 1;
    }
    const double t0 = MPI_Wtime();
    for (int i = 0; i < loop; ++i) {
        if (op == OP_GET) NGA_Get(g_a, lo, hi, buf, &ld);
        else NGA_Put(g_a, lo, hi, buf, &ld);
        const int d = bal ? -128 : 128;
        for (int j = 0; j < ndim; ++j) {
            lo[j] += d;
            hi[j] += d;
        }
        buf += d;
        bal = !bal;
    }
    return (MPI_Wtime() - t0) / loop;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    GA_Initialize();
    MA_init(C_DBL, 1000, 1000);
    const int me = GA_Nodeid(), np = GA_Nnodes(), passes = argc > 1 ? atoi(argv[1]) : 3;
    if (np < 2 || passes < 1) GA_Error("ga_first_touch: needs 2 or more GA ranks and PASSES >= 1", np);
    int shape1 = SIZE * SIZE * np, dist1 = SIZE * SIZE;
    int shape2[2] = {SIZE * np, SIZE}, dist2[2] = {SIZE, SIZE};
    const int g1 = NGA_Create(C_DBL, 1, &shape1, "1d", &dist1);
    const int g2 = NGA_Create(C_DBL, 2, shape2, "2d", dist2);
    const int ks[] = {16, 64, 104, 128, 142, 181, 256};
    const int nk = (int)(sizeof ks / sizeof *ks);
    int bad = 0;
    if (me == 0) {
        double *buf = ARMCI_Malloc_local(SIZE * SIZE * sizeof(double));
        if (!buf) GA_Error("ga_first_touch: ARMCI_Malloc_local failed", 0);
        printf("%-5s %-4s %-9s", "pass", "op", "section");
        for (int k = 0; k < nk; ++k) printf(" %8dx%-3d", ks[k], ks[k]);
        printf("   (us per call)\n");
        for (int pass = 0; pass < passes; ++pass)
            for (int ndim = 1; ndim <= 2; ++ndim)
                for (int op = OP_GET; op <= OP_PUT; ++op) {
                    printf("%-5d %-4s %-9s", pass, op == OP_GET ? "get" : "put", ndim == 1 ? "1-D" : "2-D");
                    for (int k = 0; k < nk; ++k) {
                        int loop = (int)sqrt((double)(SIZE * SIZE) / (ks[k] * ks[k]));
                        if (loop < 2) loop = 2;
                        fill(buf, 1000.0 * pass + k);
                        printf(" %12.2f", 1e6 * time_op(ndim == 1 ? g1 : g2, ndim, buf, ks[k], loop, op));
                    }
                    printf("\n");
                }
        /* The last 2-D put (k = 256, loop 2: the second call at +128) left buf+128's values there. */
        const int k = ks[nk - 1];
        int lo[2], hi[2], ld = k;
        NGA_Distribution(g2, 1, lo, hi);
        lo[0] += 128, lo[1] += 128, hi[0] = lo[0] + k - 1, hi[1] = lo[1] + k - 1;
        double *back = malloc(sizeof(double) * k * k);
        NGA_Get(g2, lo, hi, back, &ld);
        fill(buf, 1000.0 * (passes - 1) + nk - 1);
        for (int i = 0; i < k * k && !bad; ++i) bad = back[i] != buf[128 + i];
        printf("ga_first_touch: %s\n", bad ? "WRONG" : "data ok");
        free(back);
        ARMCI_Free_local(buf);
    }
    GA_Sync();
    GA_Destroy(g2);
    GA_Destroy(g1);
    GA_Terminate();
    MPI_Finalize();
    return bad;
}
