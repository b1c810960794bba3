/*
 * gasuite.h - helpers shared by the re-created GA test-suite programs in tests/gasuite/.
 *
 * Builds on tests/ga/gatest.h (collective PASS/FAIL checks, "N passed, N failed", deterministic
 * generator) and adds what GA's own tests exercise beyond it: all seven GA element types
 * (int, long, long long, float, double, single and double complex), N-dimensional index helpers
 * and MA initialisation with the sizes GA's test programs use.
 *
 * Values used by the tests are small integers (|v| < 2^20), exact in every type including float.
 */
#ifndef GASUITE_H
#define GASUITE_H

#include "gatest.h"

#define GS_MAXDIM 7

static const int gs_all_types[7] = { C_INT, C_LONG, C_LONGLONG, C_FLOAT, C_DBL, C_SCPL, C_DCPL };

GT_API int gs_is_cplx(int t) { return t == C_SCPL || t == C_DCPL; }

GT_API size_t gs_tsize(int t)
{
    switch (t) {
    case C_INT: return sizeof(int);
    case C_LONG: return sizeof(long);
    case C_LONGLONG: return sizeof(long long);
    case C_FLOAT: return sizeof(float);
    case C_DBL: return sizeof(double);
    case C_SCPL: return sizeof(SingleComplex);
    case C_DCPL: return sizeof(DoubleComplex);
    }
    GA_Error("gs_tsize: unsupported type", t);
    return 0;
}

GT_API const char *gs_tname(int t)
{
    switch (t) {
    case C_INT: return "int";
    case C_LONG: return "long";
    case C_LONGLONG: return "longlong";
    case C_FLOAT: return "float";
    case C_DBL: return "double";
    case C_SCPL: return "scomplex";
    case C_DCPL: return "dcomplex";
    }
    return "?";
}

GT_API void gs_set(int t, void *buf, long k, double re, double im)
{
    switch (t) {
    case C_INT: ((int *)buf)[k] = (int)re; break;
    case C_LONG: ((long *)buf)[k] = (long)re; break;
    case C_LONGLONG: ((long long *)buf)[k] = (long long)re; break;
    case C_FLOAT: ((float *)buf)[k] = (float)re; break;
    case C_DBL: ((double *)buf)[k] = re; break;
    case C_SCPL: ((SingleComplex *)buf)[k].real = (float)re; ((SingleComplex *)buf)[k].imag = (float)im; break;
    case C_DCPL: ((DoubleComplex *)buf)[k].real = re; ((DoubleComplex *)buf)[k].imag = im; break;
    }
}

GT_API void gs_get(int t, const void *buf, long k, double *re, double *im)
{
    *re = *im = 0.0;
    switch (t) {
    case C_INT: *re = ((const int *)buf)[k]; break;
    case C_LONG: *re = (double)((const long *)buf)[k]; break;
    case C_LONGLONG: *re = (double)((const long long *)buf)[k]; break;
    case C_FLOAT: *re = ((const float *)buf)[k]; break;
    case C_DBL: *re = ((const double *)buf)[k]; break;
    case C_SCPL: *re = ((const SingleComplex *)buf)[k].real; *im = ((const SingleComplex *)buf)[k].imag; break;
    case C_DCPL: *re = ((const DoubleComplex *)buf)[k].real; *im = ((const DoubleComplex *)buf)[k].imag; break;
    }
}

/* 1 if element k differs from (re, im); im ignored for real types */
GT_API int gs_diff(int t, const void *buf, long k, double re, double im)
{
    double r, i;
    gs_get(t, buf, k, &r, &i);
    if (!gs_is_cplx(t)) im = 0.0;
    return r != re || i != im;
}

/* a scalar of type t (alpha arguments) */
typedef union {
    int i;
    long l;
    long long ll;
    float f;
    double d;
    SingleComplex c;
    DoubleComplex z;
} gs_scalar;

GT_API gs_scalar gs_make_scalar(int t, double re, double im)
{
    gs_scalar s;
    memset(&s, 0, sizeof s);
    gs_set(t, &s, 0, re, im);
    return s;
}

/* alpha * (re, im) in the arithmetic of type t (real types ignore the imaginary parts) */
GT_API void gs_scale(int t, double ar, double ai, double re, double im, double *outr, double *outi)
{
    if (gs_is_cplx(t)) {
        *outr = ar * re - ai * im;
        *outi = ar * im + ai * re;
    } else {
        *outr = ar * re;
        *outi = 0.0;
    }
}

/* ---- N-dimensional helpers (C order: the last index runs fastest) ---- */
GT_API long gs_lin(int ndim, const int *dims, const int *idx)
{
    long x = 0;
    int d;
    for (d = 0; d < ndim; d++) x = x * dims[d] + idx[d];
    return x;
}

GT_API long gs_count(int ndim, const int *lo, const int *hi)
{
    long n = 1;
    int d;
    for (d = 0; d < ndim; d++) n *= hi[d] - lo[d] + 1;
    return n;
}

/* advance idx through the box [lo, hi]; returns 0 after the last element */
GT_API int gs_next(int ndim, int *idx, const int *lo, const int *hi)
{
    int d;
    for (d = ndim - 1; d >= 0; d--) {
        if (++idx[d] <= hi[d]) return 1;
        idx[d] = lo[d];
    }
    return 0;
}

/* random sub-box of dims */
GT_API void gs_rand_box(gt_rng *r, int ndim, const int *dims, int *lo, int *hi)
{
    int d;
    for (d = 0; d < ndim; d++) {
        int a = gt_rng_int(r, 0, dims[d] - 1), b = gt_rng_int(r, 0, dims[d] - 1);
        lo[d] = a < b ? a : b;
        hi[d] = a < b ? b : a;
    }
}

/* leading dimensions of a dense buffer holding the box [lo, hi] (ndim-1 entries) */
GT_API void gs_box_ld(int ndim, const int *lo, const int *hi, int *ld)
{
    int d;
    for (d = 0; d < ndim - 1; d++) ld[d] = hi[d + 1] - lo[d + 1] + 1;
}

/* MA as GA's test programs set it up (test.F: heap 400*400*4 + fudge, stack 400*400 words) */
GT_API void gs_ma_init(int type, long stack, long heap)
{
    if (!MA_init(type, stack, heap)) GA_Error("MA_init failed", (int)heap);
}

/* world-collective init used by every gasuite program */
GT_API void gs_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    GA_Initialize();
    gt_setup();
    gs_ma_init(C_DBL, 400 * 400, 400 * 400 * 4 + 100);
}

#endif /* GASUITE_H */
