/*
 * sync.c -- atomics and mutexes.
 *
 *   fadd_int   ARMCI_Rmw(ARMCI_FETCH_AND_ADD, ...)       on an int counter
 *   fadd_long  ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, ...)  on a long counter
 *   lock       ARMCI_Lock(0, target) + ARMCI_Unlock(0, target)  (ARMCI_Create_mutexes(1))
 *
 * param = number of ranks hammering: 1 = uncontended (rank 0 on the last rank's counter or
 * mutex, the others wait in a barrier), N = contended (every rank on the same counter / mutex on
 * the last rank).  value = median time per operation as seen by one rank (for contended runs, of
 * the slowest rank).
 *
 * Data checks: the uncontended fetch-and-add must fetch 0, 1, 2, ... in order; contended, each
 * rank's fetched values must increase and all fetched values together must be exactly
 * {0, ..., T-1}-summing (sum T(T-1)/2) with final counter T; the mutex must protect a
 * non-atomic get-increment-put-fence sequence on a shared counter.
 */
#include "bench_common.h"

/* Offsets (bytes) inside each rank's global memory. */
#define OFF_INT 0
#define OFF_LONG 8
#define OFF_LOCKED 16
#define GMEM_BYTES 64

static void **gmem;

struct rmw_arg {
    int is_long;
    int contended;
    long next;   /* uncontended: value the next fetch must return */
    long last;   /* contended: last value this rank fetched (-1 before the first) */
    long sum;    /* contended: sum of the values this rank fetched */
    long bad;    /* fetched values that broke the rule */
    long first_bad_got, first_bad_exp;
};

static void *counter_addr(int is_long)
{
    return (char *)gmem[bench_target] + (is_long ? OFF_LONG : OFF_INT);
}

static void run_rmw(void *varg, int n)
{
    struct rmw_arg *a = (struct rmw_arg *)varg;
    void *rem = counter_addr(a->is_long);
    int i;

    for (i = 0; i < n; i++) {
        long got;
        if (a->is_long) {
            long old = -7;
            BENCH_ARMCI(ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, rem, 1, bench_target));
            got = old;
        } else {
            int old = -7;
            BENCH_ARMCI(ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, rem, 1, bench_target));
            got = old;
        }
        if (!a->contended) {
            if (got != a->next && a->bad++ == 0) {
                a->first_bad_got = got;
                a->first_bad_exp = a->next;
            }
            a->next++;
        } else {
            if (got <= a->last && a->bad++ == 0) {
                a->first_bad_got = got;
                a->first_bad_exp = a->last + 1;
            }
            a->last = got;
            a->sum += got;
        }
    }
}

static void zero_counters(void)
{
    if (bench_me == bench_target) {
        ARMCI_Access_begin(gmem[bench_me]);
        memset(gmem[bench_me], 0, GMEM_BYTES);
        ARMCI_Access_end(gmem[bench_me]);
    }
    ARMCI_Barrier();
}

static long read_counter(int is_long)
{
    /* Everyone reads the final value through ARMCI (after a barrier). */
    if (is_long)
        return ARMCI_GetValueLong(counter_addr(1), bench_target);
    return (long)ARMCI_GetValueInt(counter_addr(0), bench_target);
}

static void bench_rmw(int is_long, int contended)
{
    struct rmw_arg a;
    const char *variant = is_long ? "fadd_long" : "fadd_int";
    long total = 0, all_total = 0, all_sum = 0, all_bad = 0, final;
    double t = 0.0;
    int participants = contended ? bench_np : 1;

    memset(&a, 0, sizeof a);
    a.is_long = is_long;
    a.contended = contended;
    a.last = -1;
    zero_counters();

    if (contended) {
        t = bench_time_collective(run_rmw, &a, 20000, &total);
    } else if (bench_me == bench_origin) {
        t = bench_time_op(run_rmw, &a, 20000, &total);
    }
    ARMCI_Barrier();

    final = read_counter(is_long);
    MPI_Allreduce(&total, &all_total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&a.sum, &all_sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&a.bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (a.bad)
        bench_check(0, "%s (%d ranks): %ld fetched value(s) out of order, first: got %ld, expected %s%ld",
                    variant, participants, a.bad, a.first_bad_got, contended ? ">= " : "",
                    a.first_bad_exp);
    if (bench_me == 0) {
        bench_check(final == all_total, "%s (%d ranks): final counter %ld, expected %ld", variant,
                    participants, final, all_total);
        if (contended)
            bench_check(all_sum == all_total * (all_total - 1) / 2,
                        "%s (%d ranks): fetched values sum to %ld, expected %ld (duplicates or lost "
                        "updates)", variant, participants, all_sum, all_total * (all_total - 1) / 2);
    }

    bench_result("sync", variant, participants, t * 1e6, "us");
    bench_human("%-8s %-12s %2d rank(s)  %10.3f us/op  (%ld ops, final counter %ld)", "sync", variant,
                participants, t * 1e6, all_total, final);
    ARMCI_Barrier();
}

static void run_lock(void *varg, int n)
{
    int i;
    (void)varg;
    for (i = 0; i < n; i++) {
        ARMCI_Lock(0, bench_target);
        ARMCI_Unlock(0, bench_target);
    }
}

static void bench_lock(int contended)
{
    double t = 0.0;
    long total = 0;
    int participants = contended ? bench_np : 1;

    ARMCI_Barrier();
    if (contended)
        t = bench_time_collective(run_lock, NULL, 20000, &total);
    else if (bench_me == bench_origin)
        t = bench_time_op(run_lock, NULL, 20000, &total);
    ARMCI_Barrier();
    bench_result("sync", "lock", participants, t * 1e6, "us");
    bench_human("%-8s %-12s %2d rank(s)  %10.3f us/lock+unlock", "sync", "lock", participants, t * 1e6);
}

/* Mutual exclusion check: every rank increments a shared counter non-atomically under the mutex. */
static void check_lock(void)
{
    int k, iters = bench_quick ? 50 : 200;
    long *rem = (long *)((char *)gmem[bench_target] + OFF_LOCKED), final;

    zero_counters();
    for (k = 0; k < iters; k++) {
        long v = -1;
        ARMCI_Lock(0, bench_target);
        BENCH_ARMCI(ARMCI_Get(rem, &v, (int)sizeof v, bench_target));
        v++;
        BENCH_ARMCI(ARMCI_Put(&v, rem, (int)sizeof v, bench_target));
        ARMCI_Fence(bench_target);
        ARMCI_Unlock(0, bench_target);
    }
    ARMCI_Barrier();
    final = ARMCI_GetValueLong(rem, bench_target);
    if (bench_me == 0) {
        bench_check(final == (long)iters * bench_np,
                    "lock: %d ranks x %d locked increments gave %ld, expected %ld", bench_np, iters,
                    final, (long)iters * bench_np);
        bench_human("%-8s %-12s %d ranks x %d locked get+put increments -> %ld", "sync", "lock-check",
                    bench_np, iters, final);
    }
    ARMCI_Barrier();
}

int main(int argc, char **argv)
{
    int is_long;

    bench_init(&argc, &argv, "sync");
    gmem = bench_armci_malloc(GMEM_BYTES);

    for (is_long = 0; is_long <= 1; is_long++) {
        bench_rmw(is_long, 0);
        if (bench_np > 1)
            bench_rmw(is_long, 1);
    }

    BENCH_ARMCI(ARMCI_Create_mutexes(1));
    bench_lock(0);
    if (bench_np > 1)
        bench_lock(1);
    check_lock();
    BENCH_ARMCI(ARMCI_Destroy_mutexes());

    bench_armci_free(gmem);
    return bench_finish();
}
