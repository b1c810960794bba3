/*
 * ga_patch.c -- Global Arrays patch operations on top of the ARMCI under test (Debian's prebuilt
 * libga-mpich.a, linked against armci-x or ARMCI-MPI by benchmarks/compare.sh).
 *
 * A 2-D array of doubles, 1024 x 1024, distributed by GA over the ranks.  Rank 0 moves a k x k patch
 * that lies in the last rank's block (so it is remote), k = 1 .. 256; param = bytes = 8 k^2:
 *   put  NGA_Put      (GA makes it an ARMCI_PutS: k segments of 8k bytes)
 *   get  NGA_Get
 *   acc  NGA_Acc      (alpha = 1.0)
 * Time per call in us, and MB/s from 64 KiB up.  The other ranks wait in MPI_Barrier meanwhile (which
 * also gives MPI progress to libraries whose RMA needs the target's progress engine).
 *
 * GA_PATCH_ACC_ONLY=1 in the environment times only the accumulates, at k >= 64 (the put still sets the
 * values the check needs): a quick A/B of the large accumulate paths.
 *
 * Data checks: after the put loop the patch is read back and compared; after the accumulate loop
 * the patch must hold put-value + (number of accumulates) * increment.
 */
#define BENCH_NO_ARMCI
#include "bench_common.h"

#include "ga.h"
#include "macdecls.h"

#define DIM 1024
#define MAX_K 256

typedef struct {
    int g_a;
    int lo[2], hi[2], ld;
    double *buf;
} patch_t;

static void do_put(void *arg, int n)
{
    patch_t *p = (patch_t *)arg;
    int i;
    for (i = 0; i < n; i++)
        NGA_Put(p->g_a, p->lo, p->hi, p->buf, &p->ld);
}

static void do_get(void *arg, int n)
{
    patch_t *p = (patch_t *)arg;
    int i;
    for (i = 0; i < n; i++)
        NGA_Get(p->g_a, p->lo, p->hi, p->buf, &p->ld);
}

static void do_acc(void *arg, int n)
{
    patch_t *p = (patch_t *)arg;
    double alpha = 1.0;
    int i;
    for (i = 0; i < n; i++)
        NGA_Acc(p->g_a, p->lo, p->hi, p->buf, &p->ld, &alpha);
}

int main(int argc, char **argv)
{
    int dims[2] = {DIM, DIM}, tlo[2], thi[2], k, i;
    patch_t p;
    double *check;
    const char *acc_only_env = getenv("GA_PATCH_ACC_ONLY");
    int acc_only = acc_only_env && acc_only_env[0] == '1';

    bench_init(&argc, &argv, "ga_patch");
    GA_Initialize();
    if (!MA_init(C_DBL, 1000000, 4000000))
        bench_fatal(__FILE__, __LINE__, "MA_init failed");
    p.g_a = NGA_Create(C_DBL, 2, dims, "bench", NULL);
    if (!p.g_a)
        bench_fatal(__FILE__, __LINE__, "NGA_Create failed");
    GA_Zero(p.g_a);
    NGA_Distribution(p.g_a, bench_target, tlo, thi);
    if (thi[0] - tlo[0] + 1 < MAX_K || thi[1] - tlo[1] + 1 < MAX_K)
        bench_fatal(__FILE__, __LINE__, "the target's block is smaller than %d x %d", MAX_K, MAX_K);
    p.buf = (double *)malloc((size_t)MAX_K * MAX_K * sizeof(double));
    check = (double *)malloc((size_t)MAX_K * MAX_K * sizeof(double));
    if (!p.buf || !check)
        bench_fatal(__FILE__, __LINE__, "malloc failed");

    for (k = 1; k <= MAX_K; k *= (k < 16 ? 2 : 4)) {
        long bytes = (long)k * k * (long)sizeof(double), accs = 0;
        double t;
        if (acc_only && k < 64)
            continue;
        p.lo[0] = tlo[0];
        p.lo[1] = tlo[1];
        p.hi[0] = tlo[0] + k - 1;
        p.hi[1] = tlo[1] + k - 1;
        p.ld = k;
        GA_Sync();
        if (bench_me == bench_origin) {
            for (i = 0; i < k * k; i++)
                p.buf[i] = bench_pat(7u + (unsigned)k, (size_t)i);
            if (acc_only) {
                NGA_Put(p.g_a, p.lo, p.hi, p.buf, &p.ld);
            } else {
                t = bench_time_op(do_put, &p, 1 << 16, NULL);
                bench_report_xfer("ga_patch", "put", bytes, t);
            }
            NGA_Get(p.g_a, p.lo, p.hi, check, &p.ld);
            bench_check_array("ga_patch put", bytes, check, p.buf, (size_t)k * k);

            if (!acc_only) {
                t = bench_time_op(do_get, &p, 1 << 16, NULL);
                bench_report_xfer("ga_patch", "get", bytes, t);
                bench_check_array("ga_patch get", bytes, p.buf, check, (size_t)k * k);
            }

            for (i = 0; i < k * k; i++)
                p.buf[i] = 1.0;
            t = bench_time_op(do_acc, &p, 1 << 16, &accs);
            bench_report_xfer("ga_patch", "acc", bytes, t);
            NGA_Get(p.g_a, p.lo, p.hi, p.buf, &p.ld);
            for (i = 0; i < k * k; i++)
                check[i] += (double)accs;
            bench_check_array("ga_patch acc", bytes, p.buf, check, (size_t)k * k);
            fflush(stdout);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(p.buf);
    free(check);
    GA_Destroy(p.g_a);
    GA_Terminate();
    return bench_finish();
}
