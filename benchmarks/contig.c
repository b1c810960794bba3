/*
 * contig.c -- contiguous ARMCI_Put / ARMCI_Get / ARMCI_Acc latency and bandwidth, 8 B .. 4 MiB.
 *
 * Variants (rank 0 -> last rank; each op is followed by what gives it its semantics):
 *   put        blocking ARMCI_Put (returns at local completion: source buffer reusable)
 *   put+fence  ARMCI_Put then ARMCI_Fence(target) (remote completion)
 *   get        blocking ARMCI_Get (data has arrived)
 *   acc        blocking ARMCI_Acc, ARMCI_ACC_DBL, scale 1.0 (local completion)
 *   acc+fence  ARMCI_Acc then ARMCI_Fence(target)
 *   memcpy     local memcpy of the same size between two private buffers (a floor)
 *
 * Each size is timed in `reps` repetitions of back-to-back operations (the count is calibrated so
 * that a repetition takes ~12 ms, ~4 ms with --quick); the reported value is the median time per
 * operation.  After each point the data are checked once: the target
 * checks what was put (or the exact accumulated sum), the origin checks what it got.
 */
#include "bench_common.h"

#define MAX_BYTES (4L * 1024 * 1024)

enum { OP_PUT, OP_PUT_FENCE, OP_GET, OP_ACC, OP_ACC_FENCE, OP_MEMCPY, NOPS };
static const char *op_names[NOPS] = { "put", "put+fence", "get", "acc", "acc+fence", "memcpy" };

static void **gmem;            /* ARMCI global memory, MAX_BYTES per rank */
static double *lsrc, *ldst;    /* private local buffers */
static double *lexp;           /* expected values */

struct op_arg {
    int op;
    long bytes;
};

static void run_ops(void *varg, int n)
{
    const struct op_arg *a = (const struct op_arg *)varg;
    int op = a->op;
    long bytes = a->bytes;
    double one = 1.0;
    void *rem = gmem[bench_target];
    int t = bench_target, b = (int)bytes, i;

    switch (op) {
    case OP_PUT:
        for (i = 0; i < n; i++)
            BENCH_ARMCI(ARMCI_Put(lsrc, rem, b, t));
        break;
    case OP_PUT_FENCE:
        for (i = 0; i < n; i++) {
            BENCH_ARMCI(ARMCI_Put(lsrc, rem, b, t));
            ARMCI_Fence(t);
        }
        break;
    case OP_GET:
        for (i = 0; i < n; i++)
            BENCH_ARMCI(ARMCI_Get(rem, ldst, b, t));
        break;
    case OP_ACC:
        for (i = 0; i < n; i++)
            BENCH_ARMCI(ARMCI_Acc(ARMCI_ACC_DBL, &one, lsrc, rem, b, t));
        break;
    case OP_ACC_FENCE:
        for (i = 0; i < n; i++) {
            BENCH_ARMCI(ARMCI_Acc(ARMCI_ACC_DBL, &one, lsrc, rem, b, t));
            ARMCI_Fence(t);
        }
        break;
    case OP_MEMCPY:
        for (i = 0; i < n; i++) {
            memcpy(ldst, lsrc, (size_t)bytes);
            __asm__ __volatile__("" ::: "memory"); /* keep every copy */
        }
        break;
    }
}

static void measure(int op, long bytes, unsigned seed)
{
    long nd = bytes / (long)sizeof(double), i, total = 0;
    double t = 0.0;
    struct op_arg arg;

    arg.op = op;
    arg.bytes = bytes;

    /* Set up: the target prepares its memory, the origin its buffers. */
    if (op != OP_MEMCPY && bench_me == bench_target)
        bench_fill_local(gmem, 0, nd, seed, op == OP_GET ? 0 : (op == OP_ACC || op == OP_ACC_FENCE ? 1 : 2));
    if (bench_me == bench_origin) {
        for (i = 0; i < nd; i++) {
            lsrc[i] = bench_pat(seed, (size_t)i);
            ldst[i] = -1.0;
        }
    }
    ARMCI_Barrier();

    if (bench_me == bench_origin) {
        t = bench_time_op(run_ops, &arg, op == OP_MEMCPY ? 1000000 : 20000, &total);
        if (op != OP_MEMCPY)
            ARMCI_Fence(bench_target); /* untimed: make everything visible for the check */
    }
    MPI_Bcast(&total, 1, MPI_LONG, bench_origin, MPI_COMM_WORLD);
    ARMCI_Barrier();

    /* Data check. */
    if ((op == OP_GET || op == OP_MEMCPY) && bench_me == bench_origin) {
        for (i = 0; i < nd; i++)
            lexp[i] = bench_pat(seed, (size_t)i);
        bench_check_array(op == OP_GET ? "get data" : "memcpy data", bytes, ldst, lexp, (size_t)nd);
    } else if (op != OP_GET && op != OP_MEMCPY && bench_me == bench_target) {
        int acc = (op == OP_ACC || op == OP_ACC_FENCE);
        for (i = 0; i < nd; i++)
            lexp[i] = acc ? (double)total * bench_pat(seed, (size_t)i) : bench_pat(seed, (size_t)i);
        ARMCI_Access_begin(gmem[bench_me]);
        bench_check_array(acc ? "accumulated sum" : "put data", bytes, (double *)gmem[bench_me], lexp,
                          (size_t)nd);
        ARMCI_Access_end(gmem[bench_me]);
    }

    if (bench_me == bench_origin)
        bench_report_xfer("contig", op_names[op], bytes, t);
    ARMCI_Barrier();
}

int main(int argc, char **argv)
{
    long sizes[32];
    int nsizes, s, op;

    bench_init(&argc, &argv, "contig");
    nsizes = bench_sizes(sizes, bench_quick);

    gmem = bench_armci_malloc(MAX_BYTES);
    lsrc = (double *)bench_local_malloc(MAX_BYTES);
    ldst = (double *)bench_local_malloc(MAX_BYTES);
    lexp = (double *)malloc(MAX_BYTES);
    if (!lexp)
        bench_fatal(__FILE__, __LINE__, "malloc failed");

    for (op = 0; op < NOPS; op++)
        for (s = 0; s < nsizes; s++)
            measure(op, sizes[s], (unsigned)(op * 64 + s));

    free(lexp);
    BENCH_ARMCI(ARMCI_Free_local(ldst));
    BENCH_ARMCI(ARMCI_Free_local(lsrc));
    bench_armci_free(gmem);
    return bench_finish();
}
