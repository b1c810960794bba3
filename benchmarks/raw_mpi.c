/*
 * raw_mpi.c -- MPI-3 RMA floors for the ARMCI benchmarks (no ARMCI at all).
 *
 * Two kinds of window, each locked once with MPI_Win_lock_all(MPI_MODE_NOCHECK):
 *   create:  MPI_Win_create over memory from MPI_Alloc_mem
 *   alloc:   MPI_Win_allocate
 *
 * Variants (rank 0 -> last rank, param = bytes: 8 B and powers of 4 up to 4 MiB, value = median us
 * per operation):
 *   <win>:put+flush_local   MPI_Put + MPI_Win_flush_local   (floor of blocking ARMCI_Put)
 *   <win>:put+flush         MPI_Put + MPI_Win_flush         (floor of ARMCI_Put + ARMCI_Fence)
 *   <win>:get+flush         MPI_Get + MPI_Win_flush         (floor of ARMCI_Get)
 *   <win>:acc+flush_local   MPI_Accumulate(MPI_SUM, MPI_DOUBLE) + MPI_Win_flush_local
 *   <win>:fop_long, <win>:fop_int   MPI_Fetch_and_op(MPI_SUM) + MPI_Win_flush (param 8 / 4)
 *
 * Data checks: put/get/accumulate data are verified (failures exit non-zero: that would be a
 * broken MPI).  Fetch-and-op is checked uncontended (the fetched sequence and the final value) and
 * contended (all ranks on one counter, untimed).  Wrong fetch-and-op results are NOT fatal: MPICH 4.0.x is known to compute
 * atomics wrongly on some windows (MPICH issue 6110), so a wrong value prints a WARNING line
 * and a row "RESULT raw_mpi <win>:fop_<type>_WRONG <param> <n_wrong> count".
 */
#define BENCH_NO_ARMCI
#include "bench_common.h"

#define MAX_BYTES (4L * 1024 * 1024)

enum { OP_PUT_FL, OP_PUT_F, OP_GET, OP_ACC_FL, NOPS };
static const char *op_names[NOPS] = { "put+flush_local", "put+flush", "get+flush", "acc+flush_local" };

static MPI_Win win;
static double *wbase;          /* this rank's window memory */
static double *lsrc, *ldst, *lexp;

struct op_arg {
    int op;
    int count; /* doubles */
};

static void run_ops(void *varg, int n)
{
    const struct op_arg *a = (const struct op_arg *)varg;
    int t = bench_target, i;

    switch (a->op) {
    case OP_PUT_FL:
        for (i = 0; i < n; i++) {
            BENCH_MPI(MPI_Put(lsrc, a->count, MPI_DOUBLE, t, 0, a->count, MPI_DOUBLE, win));
            BENCH_MPI(MPI_Win_flush_local(t, win));
        }
        break;
    case OP_PUT_F:
        for (i = 0; i < n; i++) {
            BENCH_MPI(MPI_Put(lsrc, a->count, MPI_DOUBLE, t, 0, a->count, MPI_DOUBLE, win));
            BENCH_MPI(MPI_Win_flush(t, win));
        }
        break;
    case OP_GET:
        for (i = 0; i < n; i++) {
            BENCH_MPI(MPI_Get(ldst, a->count, MPI_DOUBLE, t, 0, a->count, MPI_DOUBLE, win));
            BENCH_MPI(MPI_Win_flush(t, win));
        }
        break;
    case OP_ACC_FL:
        for (i = 0; i < n; i++) {
            BENCH_MPI(MPI_Accumulate(lsrc, a->count, MPI_DOUBLE, t, 0, a->count, MPI_DOUBLE, MPI_SUM, win));
            BENCH_MPI(MPI_Win_flush_local(t, win));
        }
        break;
    }
}

/* Owner-side access to its own window memory (inside the lock_all epoch). */
static void fill_own(long nd, unsigned seed, int mode)
{
    long i;
    BENCH_MPI(MPI_Win_sync(win));
    for (i = 0; i < nd; i++)
        wbase[i] = mode == 0 ? bench_pat(seed, (size_t)i) : (mode == 1 ? 0.0 : -1.0);
    BENCH_MPI(MPI_Win_sync(win));
}

static void measure(const char *wname, int op, long bytes, unsigned seed)
{
    struct op_arg a;
    long nd = bytes / (long)sizeof(double), i, total = 0;
    double t = 0.0;
    char variant[64];

    a.op = op;
    a.count = (int)nd;
    if (bench_me == bench_target)
        fill_own(nd, seed, op == OP_GET ? 0 : (op == OP_ACC_FL ? 1 : 2));
    if (bench_me == bench_origin)
        for (i = 0; i < nd; i++) {
            lsrc[i] = bench_pat(seed, (size_t)i);
            ldst[i] = -1.0;
        }
    MPI_Barrier(MPI_COMM_WORLD);
    if (bench_me == bench_origin) {
        t = bench_time_op(run_ops, &a, 20000, &total);
        BENCH_MPI(MPI_Win_flush(bench_target, win));
    }
    MPI_Bcast(&total, 1, MPI_LONG, bench_origin, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);

    snprintf(variant, sizeof variant, "%s:%s", wname, op_names[op]);
    if (op == OP_GET && bench_me == bench_origin) {
        for (i = 0; i < nd; i++)
            lexp[i] = bench_pat(seed, (size_t)i);
        bench_check_array(variant, bytes, ldst, lexp, (size_t)nd);
    } else if (op != OP_GET && bench_me == bench_target) {
        for (i = 0; i < nd; i++)
            lexp[i] = (op == OP_ACC_FL ? (double)total : 1.0) * bench_pat(seed, (size_t)i);
        BENCH_MPI(MPI_Win_sync(win));
        bench_check_array(variant, bytes, wbase, lexp, (size_t)nd);
    }
    if (bench_me == bench_origin)
        bench_report_xfer("raw_mpi", variant, bytes, t);
    MPI_Barrier(MPI_COMM_WORLD);
}

struct fop_arg {
    int is_long;
    long next, bad, first_bad_got, first_bad_exp;
};

static void run_fop(void *varg, int n)
{
    struct fop_arg *a = (struct fop_arg *)varg;
    int i, t = bench_target;
    for (i = 0; i < n; i++) {
        long got;
        if (a->is_long) {
            long one = 1, old = -7;
            BENCH_MPI(MPI_Fetch_and_op(&one, &old, MPI_LONG, t, 0, MPI_SUM, win));
            BENCH_MPI(MPI_Win_flush(t, win));
            got = old;
        } else {
            int one = 1, old = -7;
            BENCH_MPI(MPI_Fetch_and_op(&one, &old, MPI_INT, t, 0, MPI_SUM, win));
            BENCH_MPI(MPI_Win_flush(t, win));
            got = old;
        }
        if (got != a->next && a->bad++ == 0) {
            a->first_bad_got = got;
            a->first_bad_exp = a->next;
        }
        a->next++;
    }
}

static void measure_fop(const char *wname, int is_long)
{
    struct fop_arg a;
    long total = 0, final = -1;
    double t = 0.0;
    char variant[64];
    int wrong;

    memset(&a, 0, sizeof a);
    a.is_long = is_long;
    if (bench_me == bench_target) {
        BENCH_MPI(MPI_Win_sync(win));
        memset(wbase, 0, 16);
        BENCH_MPI(MPI_Win_sync(win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (bench_me == bench_origin)
        t = bench_time_op(run_fop, &a, 20000, &total);
    MPI_Bcast(&total, 1, MPI_LONG, bench_origin, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (bench_me == bench_target) {
        BENCH_MPI(MPI_Win_sync(win));
        final = is_long ? *(long *)wbase : (long)*(int *)wbase;
    }
    MPI_Bcast(&final, 1, MPI_LONG, bench_target, MPI_COMM_WORLD);
    MPI_Bcast(&a.bad, 1, MPI_LONG, bench_origin, MPI_COMM_WORLD);

    snprintf(variant, sizeof variant, "%s:fop_%s", wname, is_long ? "long" : "int");
    bench_result("raw_mpi", variant, is_long ? 8 : 4, t * 1e6, "us");
    bench_human("%-8s %-26s %10.3f us/op  (%ld ops, final %ld)", "raw_mpi", variant, t * 1e6, total, final);
    wrong = (a.bad != 0 || final != total);
    if (wrong && bench_me == 0) {
        char wv[80];
        printf("WARNING raw_mpi %s: MPI_Fetch_and_op computed wrong values (%ld wrong fetches, first "
               "got %ld expected %ld; final %ld, expected %ld) -- known MPICH 4.0.x atomics bug, not "
               "counted as a failure\n", variant, a.bad, a.first_bad_got, a.first_bad_exp, final, total);
        snprintf(wv, sizeof wv, "%s_WRONG", variant);
        bench_result("raw_mpi", wv, is_long ? 8 : 4, (double)(a.bad ? a.bad : 1), "count");
    }

    /* Untimed contended check: every rank adds 1 FOP_CHECK times to the same counter. */
    if (bench_np > 1) {
        enum { FOP_CHECK = 2000 };
        long expect = (long)FOP_CHECK * bench_np, bad_local = 0, bad_all = 0, last = -1;
        int i;
        MPI_Barrier(MPI_COMM_WORLD);
        if (bench_me == bench_target) {
            BENCH_MPI(MPI_Win_sync(win));
            memset(wbase, 0, 16);
            BENCH_MPI(MPI_Win_sync(win));
        }
        MPI_Barrier(MPI_COMM_WORLD);
        for (i = 0; i < FOP_CHECK; i++) {
            long got;
            if (is_long) {
                long one = 1, old = -7;
                BENCH_MPI(MPI_Fetch_and_op(&one, &old, MPI_LONG, bench_target, 0, MPI_SUM, win));
                BENCH_MPI(MPI_Win_flush(bench_target, win));
                got = old;
            } else {
                int one = 1, old = -7;
                BENCH_MPI(MPI_Fetch_and_op(&one, &old, MPI_INT, bench_target, 0, MPI_SUM, win));
                BENCH_MPI(MPI_Win_flush(bench_target, win));
                got = old;
            }
            if (got <= last || got < 0 || got >= expect)
                bad_local++;
            last = got;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (bench_me == bench_target) {
            BENCH_MPI(MPI_Win_sync(win));
            final = is_long ? *(long *)wbase : (long)*(int *)wbase;
        }
        MPI_Bcast(&final, 1, MPI_LONG, bench_target, MPI_COMM_WORLD);
        MPI_Allreduce(&bad_local, &bad_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if ((bad_all || final != expect) && bench_me == 0) {
            char wv[80];
            printf("WARNING raw_mpi %s: contended MPI_Fetch_and_op by %d ranks wrong (%ld bad fetches; "
                   "final %ld, expected %ld) -- known MPICH 4.0.x atomics bug, not counted as a "
                   "failure\n", variant, bench_np, bad_all, final, expect);
            snprintf(wv, sizeof wv, "%s_contended_WRONG", variant);
            bench_result("raw_mpi", wv, is_long ? 8 : 4, (double)(bad_all ? bad_all : 1), "count");
        } else {
            bench_human("%-8s %-26s contended check: %d ranks x %d -> %ld ok", "raw_mpi", variant,
                        bench_np, (int)FOP_CHECK, final);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    long sizes[32];
    int nsizes, s, op, w;
    unsigned seed = 0;

    bench_init(&argc, &argv, "raw_mpi");
    nsizes = bench_sizes(sizes, 1); /* 8 B and powers of 4: floors need not be dense */

    BENCH_MPI(MPI_Alloc_mem(MAX_BYTES, MPI_INFO_NULL, &lsrc));
    BENCH_MPI(MPI_Alloc_mem(MAX_BYTES, MPI_INFO_NULL, &ldst));
    lexp = (double *)malloc(MAX_BYTES);
    if (!lexp)
        bench_fatal(__FILE__, __LINE__, "malloc failed");

    for (w = 0; w < 2; w++) {
        const char *wname = w == 0 ? "create" : "alloc";
        double *mem = NULL;
        if (w == 0) {
            BENCH_MPI(MPI_Alloc_mem(MAX_BYTES, MPI_INFO_NULL, &mem));
            BENCH_MPI(MPI_Win_create(mem, MAX_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
            wbase = mem;
        } else {
            BENCH_MPI(MPI_Win_allocate(MAX_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbase, &win));
        }
        BENCH_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));

        for (op = 0; op < NOPS; op++)
            for (s = 0; s < nsizes; s++)
                measure(wname, op, sizes[s], seed++);
        measure_fop(wname, 1);
        measure_fop(wname, 0);

        BENCH_MPI(MPI_Win_unlock_all(win));
        BENCH_MPI(MPI_Win_free(&win));
        if (mem)
            BENCH_MPI(MPI_Free_mem(mem));
    }

    free(lexp);
    BENCH_MPI(MPI_Free_mem(ldst));
    BENCH_MPI(MPI_Free_mem(lsrc));
    return bench_finish();
}
