/*
 * ga_demo.c - a small but complete Global Arrays program (meant for 4 ranks,
 * works with any number). Every step computes something, checks it against
 * a closed form or a local reference, and prints one summary line.
 *
 *   1. put      : 200x200 matrix A(i,j) = (i mod 17) - (j mod 13)/2 written
 *                 by all ranks as 16 tiles that do not line up with the
 *                 array's distribution; read back with NGA_Get
 *   2. acc      : every rank r adds (r+1)*W with W(i,j) = (i+j) mod 3 using
 *                 NGA_Acc; result must be A + nproc(nproc+1)/2 * W
 *   3. dgemm    : C = A*B with GA_Dgemm, B(i,j) = (i*j mod 5) - 2, checked
 *                 against a local triple loop
 *   4. reduce   : GA_Ddot(A,B), GA_Norm1(A), GA_Norm_infinity(A) against
 *                 local references (GA 5.8 computes entrywise norms for
 *                 2-D arrays: sum |a_ij| and max |a_ij|)
 *   5. tasks    : pi = integral_0^1 4/(1+x^2) dx by the midpoint rule, split
 *                 into tasks handed out dynamically with NGA_Read_inc; each
 *                 task's partial sum is stored with NGA_Put and a "done"
 *                 counter is bumped with NGA_Acc; every task must run exactly
 *                 once and the total must match a sequential sum bit for bit
 *
 * Ends with "ga_demo: ALL CHECKS PASSED" (exit 0) or
 * "ga_demo: N CHECKS FAILED" (exit 1).
 *
 * Build: mpicc ga_demo.c -lga -l<armci> <scalapack/lapack/blas> -lm
 * Run:   mpiexec -n 4 ./ga_demo
 */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ga.h"
#include "macdecls.h"

#define N 200
#define NTASK 200
#define NPOINT 2000000
#define PI_REF 3.14159265358979323846

static int me, nproc, nfail;

static double Aval(int i, int j) { return (double)(i % 17) - 0.5 * (j % 13); }
static double Wval(int i, int j) { return (double)((i + j) % 3); }
static double Bval(int i, int j) { return (double)((i * j) % 5 - 2); }

/* Collective: combine the local error with GA_Dgop, print one line. */
static void report(const char *step, const char *what, double err, double tol,
                   double t0)
{
    double e = err, t = MPI_Wtime() - t0;
    int ok;
    if (!(e == e)) e = INFINITY;
    GA_Dgop(&e, 1, "max");
    GA_Dgop(&t, 1, "max");
    ok = e <= tol;
    if (!ok) nfail++;
    if (me == 0) {
        printf("%-7s %s: max error %.1e %s  (%.2f s)\n", step, what, e, ok ? "OK" : "FAILED", t);
        fflush(stdout);
    }
}

/* midpoint-rule partial sum for task t (points [t*NPOINT/NTASK, ...)) */
static double task_sum(long t)
{
    long k, k0 = t * (NPOINT / NTASK), k1 = k0 + NPOINT / NTASK;
    double h = 1.0 / NPOINT, s = 0.0;
    for (k = k0; k < k1; k++) {
        double x = (k + 0.5) * h;
        s += 4.0 / (1.0 + x * x);
    }
    return s * h;
}

int main(int argc, char **argv)
{
    int dims[2] = { N, N }, gA, gB, gC, lo[2], hi[2], ld[1], i, j, l;
    double *a, *ref, err, t0, tstart;
    const int tile[5] = { 0, 37, 101, 150, N };   /* deliberately uneven */

    MPI_Init(&argc, &argv);
    GA_Initialize();
    if (!MA_init(C_DBL, 1000000, 4000000)) GA_Error("MA_init failed", 0);
    me = GA_Nodeid();
    nproc = GA_Nnodes();
    tstart = MPI_Wtime();
    if (me == 0)
        printf("ga_demo: %d ranks, Global Arrays %d.%d.%d, %dx%d doubles\n", nproc,
               GA_VERSION_MAJOR, GA_VERSION_MINOR, GA_VERSION_PATCH, N, N);

    a = malloc(sizeof(double) * N * N);
    ref = malloc(sizeof(double) * N * N);

    gA = NGA_Create(C_DBL, 2, dims, "A", NULL);
    gB = NGA_Create(C_DBL, 2, dims, "B", NULL);
    gC = NGA_Create(C_DBL, 2, dims, "C", NULL);
    if (!gA || !gB || !gC) GA_Error("NGA_Create failed", 0);
    GA_Zero(gA);

    /* ---- 1. put: 4x4 tiles, tile k written by rank k % nproc ---- */
    t0 = MPI_Wtime();
    {
        int ti, tj, k = 0;
        for (ti = 0; ti < 4; ti++)
            for (tj = 0; tj < 4; tj++, k++) {
                if (k % nproc != me) continue;
                lo[0] = tile[ti]; hi[0] = tile[ti + 1] - 1;
                lo[1] = tile[tj]; hi[1] = tile[tj + 1] - 1;
                ld[0] = hi[1] - lo[1] + 1;
                for (i = lo[0]; i <= hi[0]; i++)
                    for (j = lo[1]; j <= hi[1]; j++)
                        a[(i - lo[0]) * ld[0] + (j - lo[1])] = Aval(i, j);
                NGA_Put(gA, lo, hi, a, ld);
            }
    }
    GA_Sync();
    lo[0] = lo[1] = 0; hi[0] = hi[1] = N - 1; ld[0] = N;
    NGA_Get(gA, lo, hi, a, ld);
    err = 0;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) err = fmax(err, fabs(a[i * N + j] - Aval(i, j)));
    report("put", "16 uneven tiles from all ranks, NGA_Get of 200x200", err, 0.0, t0);

    /* ---- 2. acc: every rank adds (r+1)*W over the whole matrix ---- */
    t0 = MPI_Wtime();
    GA_Sync();
    {
        double alpha = me + 1.0;
        for (i = 0; i < N; i++)
            for (j = 0; j < N; j++) a[i * N + j] = Wval(i, j);
        /* split in two overlapping halves to exercise several owners */
        lo[0] = 0; hi[0] = N / 2 - 1;
        NGA_Acc(gA, lo, hi, a, ld, &alpha);
        lo[0] = N / 2; hi[0] = N - 1;
        NGA_Acc(gA, lo, hi, a + (N / 2) * N, ld, &alpha);
    }
    GA_Sync();
    lo[0] = 0; hi[0] = N - 1;
    NGA_Get(gA, lo, hi, a, ld);
    err = 0;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            ref[i * N + j] = Aval(i, j) + 0.5 * nproc * (nproc + 1) * Wval(i, j);
            err = fmax(err, fabs(a[i * N + j] - ref[i * N + j]));
        }
    report("acc", "NGA_Acc from every rank, A + n(n+1)/2*W", err, 0.0, t0);
    /* from here on a[] holds the final A (== ref) */

    /* ---- 3. dgemm: C = A * B ---- */
    t0 = MPI_Wtime();
    {
        double *b = malloc(sizeof(double) * N * N), *c = malloc(sizeof(double) * N * N);
        NGA_Distribution(gB, me, lo, hi);
        if (lo[0] >= 0 && hi[0] >= lo[0]) {
            double *p;
            NGA_Access(gB, lo, hi, &p, ld);
            for (i = lo[0]; i <= hi[0]; i++)
                for (j = lo[1]; j <= hi[1]; j++)
                    p[(i - lo[0]) * ld[0] + (j - lo[1])] = Bval(i, j);
            NGA_Release_update(gB, lo, hi);
        }
        GA_Sync();
        GA_Dgemm('N', 'N', N, N, N, 1.0, gA, gB, 0.0, gC);
        GA_Sync();
        lo[0] = lo[1] = 0; hi[0] = hi[1] = N - 1; ld[0] = N;
        NGA_Get(gC, lo, hi, c, ld);
        for (i = 0; i < N; i++)
            for (j = 0; j < N; j++) b[i * N + j] = Bval(i, j);
        err = 0;
        /* each rank checks a different set of rows of the product */
        for (i = me; i < N; i += nproc)
            for (j = 0; j < N; j++) {
                double s = 0;
                for (l = 0; l < N; l++) s += a[i * N + l] * b[l * N + j];
                err = fmax(err, fabs(c[i * N + j] - s));
            }
        report("dgemm", "GA_Dgemm C=A*B 200x200x200 vs local reference", err, 1e-9, t0);

        /* ---- 4. reductions ---- */
        t0 = MPI_Wtime();
        {
            double dot = 0, n1 = 0, ninf = 0, gdot, gn1 = -1, gninf = -1;
            for (i = 0; i < N * N; i++) dot += a[i] * b[i];
            /* NB: for a 2-D array GA 5.8 computes the ENTRYWISE norms,
             * GA_Norm1 = sum |a_ij| and GA_Norm_infinity = max |a_ij|, not
             * the operator norms (max column / row sum). */
            for (i = 0; i < N * N; i++) {
                n1 += fabs(a[i]);
                ninf = fmax(ninf, fabs(a[i]));
            }
            gdot = GA_Ddot(gA, gB);
            GA_Norm1(gA, &gn1);
            GA_Norm_infinity(gA, &gninf);
            if (me == 0)
                printf("        A.B = %.1f   sum|A| = %.1f   max|A| = %.1f\n", gdot, gn1, gninf);
            report("reduce", "GA_Ddot, GA_Norm1 (sum|a|), GA_Norm_infinity (max|a|) vs local",
                   fmax(fabs(gdot - dot) / fmax(1.0, fabs(dot)),
                        fmax(fabs(gn1 - n1) / n1, fabs(gninf - ninf) / ninf)),
                   1e-12, t0);
        }
        free(b); free(c);
    }

    /* ---- 5. dynamic task farm with NGA_Read_inc ---- */
    t0 = MPI_Wtime();
    {
        int one = 1, ntask = NTASK, zero = 0, gCnt, gRes, gDone, mine = 0;
        double res[NTASK], done[NTASK], pi = 0, seq = 0, e2 = 0, cnt;
        long t;
        gCnt = NGA_Create(C_LONG, 1, &one, "task counter", NULL);
        gRes = NGA_Create(C_DBL, 1, &ntask, "task results", NULL);
        gDone = NGA_Create(C_DBL, 1, &ntask, "task done", NULL);
        GA_Zero(gCnt); GA_Zero(gRes); GA_Zero(gDone);
        GA_Sync();
        while ((t = NGA_Read_inc(gCnt, &zero, 1)) < NTASK) {
            int ti = (int)t, l1 = 1;
            double s = task_sum(t), unit = 1.0, alpha = 1.0;
            NGA_Put(gRes, &ti, &ti, &s, &l1);
            NGA_Acc(gDone, &ti, &ti, &unit, &l1, &alpha);
            mine++;
        }
        GA_Sync();
        lo[0] = 0; hi[0] = NTASK - 1;
        NGA_Get(gRes, lo, hi, res, ld);
        NGA_Get(gDone, lo, hi, done, ld);
        for (i = 0; i < NTASK; i++) {
            pi += res[i];
            seq += task_sum(i);                 /* same order => bitwise equal */
            e2 = fmax(e2, fabs(done[i] - 1.0));
        }
        cnt = mine;
        {
            double counts[64] = { 0 };
            if (nproc <= 64) counts[me] = cnt;
            GA_Dgop(counts, nproc <= 64 ? nproc : 1, "+");
            if (me == 0) {
                printf("        pi ~= %.15f (error %.1e), tasks per rank:", pi, fabs(pi - PI_REF));
                for (i = 0; i < nproc && i < 64; i++) printf(" %.0f", counts[i]);
                printf("\n");
            }
        }
        report("tasks", "200 tasks via NGA_Read_inc, each done exactly once", e2, 0.0, t0);
        report("tasks", "pi: task sum == sequential sum (bitwise)", fabs(pi - seq), 0.0, t0);
        report("tasks", "pi: midpoint rule vs exact pi", fabs(pi - PI_REF), 1e-10, t0);
        GA_Sync();
        GA_Destroy(gDone); GA_Destroy(gRes); GA_Destroy(gCnt);
    }

    GA_Sync();
    GA_Destroy(gC); GA_Destroy(gB); GA_Destroy(gA);
    free(a); free(ref);
    if (me == 0) printf("ga_demo: total %.2f s\n", MPI_Wtime() - tstart);
    GA_Terminate();
    if (me == 0) {
        if (nfail == 0) printf("ga_demo: ALL CHECKS PASSED\n");
        else printf("ga_demo: %d CHECKS FAILED\n", nfail);
        fflush(stdout);
    }
    MPI_Finalize();
    return nfail ? 1 : 0;
}
