/*
 * progress.c -- asynchronous progress: how long an operation aimed at a computing target takes to
 * complete, and what small operations cost when nobody computes.
 *
 * Roles: rank 0 is the origin, the last program rank the target (on another host under
 * tools/simhosts.sh --hosts 2).  Run it in the three modes of doc/performance.md ("Asynchronous
 * progress"): default (1 rank per host), ARMCI_PROGRESS_THREAD=1 (the library starts MPI with
 * MPI_THREAD_MULTIPLE: this program lets ARMCI_Init start MPI), ARMCI_PROGRESS_RANKS=1 (2 ranks per host).
 *
 * Availability, per operation (get 8 B, accumulate 8 B, fetch-and-add, lock + unlock of a mutex held by
 * the target's rank), reps times: after a barrier the target computes for W ms without calling ARMCI or
 * MPI; the origin waits D ms, then issues the operation and times it to completion.
 *     RESULT progress avail_<op> W <t_ms> ms        median completion time
 *     RESULT progress availfrac_<op> W <1 - t/(W - D)> frac   1: completes at once, 0: waits for the target
 * Latency (nobody computes; the target waits in ARMCI_Barrier), median of iters operations back to back:
 *     RESULT progress lat_<op> 8 <t_us> us       get, put+fence, acc+fence, fetch-and-add
 * and their mean and tail (a stream's cost is its mean: a few stalled operations raise it far above the
 * median; benchmarks/min_latency.c reports means):
 *     RESULT progress latmean_<op> 8 <t_us> us
 *     RESULT progress latp90_<op> 8 <t_us> us    (also latp99_<op>, latmax_<op>)
 *
 * usage: progress [--window MS] [--delay MS] [--reps N] [--iters N]
 */
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, np, target;

static double now(void) { return MPI_Wtime(); }

/* Busy for ms milliseconds without calling ARMCI or MPI (MPI_Wtime is a clock read in MPICH). */
static void compute_for(double ms)
{
    const double end = now() + ms * 1e-3;
    volatile double x = 1.0;
    while (now() < end)
        for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

enum Op { OP_GET, OP_ACC, OP_RMW, OP_LOCK, OP_PUT, NOPS };
static const char *op_name[NOPS] = {"get", "acc", "rmw", "lock", "put"};

static void do_op(enum Op op, void **ptrs)
{
    long value = 1, scale = 1, fetched = 0;
    switch (op) {
    case OP_GET:
        ARMCI_Get(ptrs[target], &value, sizeof value, target);
        break;
    case OP_ACC:
        ARMCI_Acc(ARMCI_ACC_LNG, &scale, &value, (long *)ptrs[target] + 1, sizeof value, target);
        ARMCI_Fence(target);
        break;
    case OP_RMW:
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &fetched, (long *)ptrs[target] + 2, 1, target);
        break;
    case OP_LOCK:
        ARMCI_Lock(0, target);
        ARMCI_Unlock(0, target);
        break;
    case OP_PUT:
        ARMCI_Put(&value, (long *)ptrs[target] + 3, sizeof value, target);
        ARMCI_Fence(target);
        break;
    default:
        break;
    }
}

int main(int argc, char **argv)
{
    double window_ms = 200, delay_ms = 20;
    int reps = 5, iters = 200;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--window") && i + 1 < argc) window_ms = atof(argv[++i]);
        else if (!strcmp(argv[i], "--delay") && i + 1 < argc) delay_ms = atof(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: progress [--window MS] [--delay MS] [--reps N] [--iters N]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 1000 || iters < 1 || window_ms <= delay_ms) {
        fprintf(stderr, "progress: bad arguments\n");
        return 2;
    }
    ARMCI_Init(); /* starts MPI: with ARMCI_PROGRESS_THREAD=1 at MPI_THREAD_MULTIPLE */
    me = armci_msg_me();
    np = armci_msg_nproc();
    target = np - 1;
    void **ptrs = malloc(sizeof(void *) * np);
    ARMCI_Malloc(ptrs, 8 * sizeof(long));
    memset(ptrs[me], 0, 8 * sizeof(long));
    ARMCI_Create_mutexes(1);
    ARMCI_Barrier();
    if (me == 0)
        printf("# progress: %d program ranks, origin 0, target %d, window %.0f ms, origin starts %.0f ms "
               "into it, %d reps; latency %d iters\n",
               np, target, window_ms, delay_ms, reps, iters);

    double *t = malloc(sizeof(double) * (reps > iters ? reps : iters));
    for (int op = OP_GET; op <= OP_LOCK; ++op) {
        for (int r = 0; r < reps; ++r) {
            ARMCI_Barrier();
            if (me == target && np > 1) {
                compute_for(window_ms);
            } else if (me == 0) {
                compute_for(delay_ms);
                double t0 = now();
                do_op((enum Op)op, ptrs);
                t[r] = now() - t0;
            }
            ARMCI_Barrier();
        }
        if (me == 0) {
            double m = median(t, reps) * 1e3;
            printf("RESULT progress avail_%s %.0f %.3f ms\n", op_name[op], window_ms, m);
            printf("RESULT progress availfrac_%s %.0f %.3f frac\n", op_name[op], window_ms,
                   1.0 - m / (window_ms - delay_ms));
            fflush(stdout);
        }
    }
    for (int op = OP_GET; op < NOPS; ++op) {
        if (op == OP_LOCK) continue;
        ARMCI_Barrier();
        if (me == 0) {
            for (int i = 0; i < 10; ++i) do_op((enum Op)op, ptrs); /* warm-up */
            for (int i = 0; i < iters; ++i) {
                double t0 = now();
                do_op((enum Op)op, ptrs);
                t[i] = now() - t0;
            }
            double sum = 0;
            for (int i = 0; i < iters; ++i) sum += t[i];
            printf("RESULT progress lat_%s 8 %.2f us\n", op_name[op], median(t, iters) * 1e6);
            /* median() sorted t */
            printf("RESULT progress latmean_%s 8 %.2f us\n", op_name[op], sum / iters * 1e6);
            printf("RESULT progress latp90_%s 8 %.2f us\n", op_name[op], t[(iters * 9) / 10] * 1e6);
            printf("RESULT progress latp99_%s 8 %.2f us\n", op_name[op], t[(iters * 99) / 100] * 1e6);
            printf("RESULT progress latmax_%s 8 %.2f us\n", op_name[op], t[iters - 1] * 1e6);
            fflush(stdout);
        }
        ARMCI_Barrier();
    }
    ARMCI_Destroy_mutexes();
    ARMCI_Free(ptrs[me]);
    free(ptrs);
    free(t);
    ARMCI_Finalize();
    return 0;
}
