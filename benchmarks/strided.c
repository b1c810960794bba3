/*
 * strided.c -- strided (ARMCI_PutS / GetS / AccS) and I/O-vector (ARMCI_PutV / GetV / AccV) latency.
 *
 * Strided: 2-D transfers of nseg segments of seglen bytes (count[0] = seglen, count[1] = nseg,
 * stride_levels = 1) with a stride of 2*seglen on both the local and the remote side, for
 * seglen = 16 B and 1 KiB and nseg = 1 .. 1024 (powers of 2; powers of 4 with --quick).
 * Variants: puts_16B, gets_16B, accs_16B, puts_1KiB, ...; param = nseg; value = time per call.
 *
 * I/O vectors: one armci_giov_t of 10,000 segments of 8 B, every other double on both sides.
 * Variants putv_8B, getv_8B, accv_8B; param = 10000.
 *
 * Blocking calls (local completion for put/acc).  Each point's data are checked once, including
 * that the gaps between segments were left untouched.
 */
#include "bench_common.h"

#define MAX_REGION (2L * 1024 * 1024) /* 2 * 1 KiB * 1024 segments */
#define IOV_NSEG 10000
#define IOV_SEG 8

enum { OP_PUTS, OP_GETS, OP_ACCS, OP_PUTV, OP_GETV, OP_ACCV, NOPS };
static const char *op_names[NOPS] = { "puts", "gets", "accs", "putv", "getv", "accv" };

static void **gmem;
static double *lsrc, *ldst, *lexp;

struct op_arg {
    int op;
    int seglen, nseg;
    int stride[1], count[2];
    armci_giov_t iov;
};

static void run_ops(void *varg, int n)
{
    struct op_arg *a = (struct op_arg *)varg;
    double one = 1.0;
    void *rem = gmem[bench_target];
    int t = bench_target, i;

    switch (a->op) {
    case OP_PUTS:
        for (i = 0; i < n; i++)
            BENCH_ARMCI(ARMCI_PutS(lsrc, a->stride, rem, a->stride, a->count, 1, t));
        break;
    case OP_GETS:
        for (i = 0; i < n; i++)
            BENCH_ARMCI(ARMCI_GetS(rem, a->stride, ldst, a->stride, a->count, 1, t));
        break;
    case OP_ACCS:
        for (i = 0; i < n; i++)
            BENCH_ARMCI(ARMCI_AccS(ARMCI_ACC_DBL, &one, lsrc, a->stride, rem, a->stride, a->count, 1, t));
        break;
    case OP_PUTV:
        for (i = 0; i < n; i++)
            BENCH_ARMCI(ARMCI_PutV(&a->iov, 1, t));
        break;
    case OP_GETV:
        for (i = 0; i < n; i++)
            BENCH_ARMCI(ARMCI_GetV(&a->iov, 1, t));
        break;
    case OP_ACCV:
        for (i = 0; i < n; i++)
            BENCH_ARMCI(ARMCI_AccV(ARMCI_ACC_DBL, &one, &a->iov, 1, t));
        break;
    }
}

/* One point: seglen-byte segments, nseg of them, every 2*seglen bytes on both sides. */
static void measure(int op, int seglen, int nseg, unsigned seed)
{
    struct op_arg a;
    long period = 2L * seglen / (long)sizeof(double); /* doubles per segment + gap */
    long data = (long)seglen / (long)sizeof(double);   /* doubles per segment        */
    long nd = period * nseg, i, total = 0;
    int is_get = (op == OP_GETS || op == OP_GETV), is_acc = (op == OP_ACCS || op == OP_ACCV);
    double t = 0.0;
    char variant[64];
    void **src_ptrs = NULL, **dst_ptrs = NULL;

    memset(&a, 0, sizeof a);
    a.op = op;
    a.seglen = seglen;
    a.nseg = nseg;
    a.stride[0] = 2 * seglen;
    a.count[0] = seglen;
    a.count[1] = nseg;
    if (op == OP_PUTV || op == OP_GETV || op == OP_ACCV) {
        src_ptrs = (void **)malloc((size_t)nseg * sizeof(void *));
        dst_ptrs = (void **)malloc((size_t)nseg * sizeof(void *));
        if (!src_ptrs || !dst_ptrs)
            bench_fatal(__FILE__, __LINE__, "malloc failed");
        for (i = 0; i < nseg; i++) {
            char *rem = (char *)gmem[bench_target] + i * 2L * seglen;
            char *loc = (char *)(is_get ? ldst : lsrc) + i * 2L * seglen;
            src_ptrs[i] = is_get ? (void *)rem : (void *)loc;
            dst_ptrs[i] = is_get ? (void *)loc : (void *)rem;
        }
        a.iov.src_ptr_array = src_ptrs;
        a.iov.dst_ptr_array = dst_ptrs;
        a.iov.bytes = seglen;
        a.iov.ptr_array_len = nseg;
    }

    /* Set up.  Remote memory: pattern everywhere (get), zeros (acc) or sentinel -1 (put).
     * Local: source = pattern everywhere (gaps too: copying a gap would show), destination = -1. */
    if (bench_me == bench_target)
        bench_fill_local(gmem, 0, nd, seed, is_get ? 0 : (is_acc ? 1 : 2));
    if (bench_me == bench_origin)
        for (i = 0; i < nd; i++) {
            lsrc[i] = bench_pat(seed, (size_t)i);
            ldst[i] = -1.0;
        }
    ARMCI_Barrier();

    if (bench_me == bench_origin) {
        t = bench_time_op(run_ops, &a, 20000, &total);
        ARMCI_Fence(bench_target);
    }
    MPI_Bcast(&total, 1, MPI_LONG, bench_origin, MPI_COMM_WORLD);
    ARMCI_Barrier();

    snprintf(variant, sizeof variant, "%s_%s", op_names[op],
             seglen >= 1024 ? "1KiB" : (seglen == 16 ? "16B" : "8B"));

    /* Data check: segments carry the (summed) pattern, gaps keep their initial value. */
    if ((is_get && bench_me == bench_origin) || (!is_get && bench_me == bench_target)) {
        double gap = is_acc ? 0.0 : -1.0;
        for (i = 0; i < nd; i++) {
            double p = bench_pat(seed, (size_t)i);
            lexp[i] = (i % period < data) ? (is_acc ? (double)total * p : p) : gap;
        }
        if (is_get) {
            bench_check_array(variant, nseg, ldst, lexp, (size_t)nd);
        } else {
            ARMCI_Access_begin(gmem[bench_me]);
            bench_check_array(variant, nseg, (double *)gmem[bench_me], lexp, (size_t)nd);
            ARMCI_Access_end(gmem[bench_me]);
        }
    }

    if (bench_me == bench_origin) {
        bench_result("strided", variant, nseg, t * 1e6, "us");
        bench_human("%-8s %-12s %6d x %4d B  %12.3f us  %8.1f MB/s", "strided", variant, nseg, seglen,
                    t * 1e6, t > 0 ? (double)nseg * seglen / t / 1e6 : 0.0);
    }
    free(src_ptrs);
    free(dst_ptrs);
    ARMCI_Barrier();
}

int main(int argc, char **argv)
{
    static const int seglens[2] = { 16, 1024 };
    int op, l, nseg;
    unsigned seed = 0;

    bench_init(&argc, &argv, "strided");

    gmem = bench_armci_malloc(MAX_REGION);
    lsrc = (double *)bench_local_malloc(MAX_REGION);
    ldst = (double *)bench_local_malloc(MAX_REGION);
    lexp = (double *)malloc(MAX_REGION);
    if (!lexp)
        bench_fatal(__FILE__, __LINE__, "malloc failed");

    for (l = 0; l < 2; l++)
        for (op = OP_PUTS; op <= OP_ACCS; op++)
            for (nseg = 1; nseg <= 1024; nseg *= (bench_quick ? 4 : 2))
                measure(op, seglens[l], nseg, seed++);
    for (op = OP_PUTV; op <= OP_ACCV; op++)
        measure(op, IOV_SEG, IOV_NSEG, seed++);

    free(lexp);
    BENCH_ARMCI(ARMCI_Free_local(ldst));
    BENCH_ARMCI(ARMCI_Free_local(lsrc));
    bench_armci_free(gmem);
    return bench_finish();
}
