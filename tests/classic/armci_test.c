/*
 * Re-creation of Global Arrays' armci/testing/test.c ("ARMCI test program"), also shipped by ARMCI-MPI as
 * tests/contrib/armci-test.c.  Same calls and argument patterns: strided put/get of random patches of
 * 1..7-dimensional arrays (count[0] in bytes), strided accumulate to one target from everybody, vector
 * put/get/acc, fetch-and-add and swap counters in an irregular (zero-size on all but rank 0) allocation
 * freed with NULL, a lock-protected read-modify-write (test_memlock done with ARMCI mutexes, as ARMCI-MPI has
 * no ARMCI_Lockmem), register-originated put/get (ARMCI_PutValue* and ARMCI_GetValue*), aggregate non-blocking handles and
 * implicit (NULL) handles with ARMCI_WaitAll/WaitProc.  Synchronisation is MPI_Barrier (mp3.h's MP_BARRIER)
 * after ARMCI_AllFence, exactly as the original; local slices are initialised with plain stores.
 * Failure: ARMCI_Error (nonzero exit).  Written from knowledge of the original for the armci-x tests.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <armci.h>

#define MP_BARRIER() MPI_Barrier(MPI_COMM_WORLD)
#define MP_TIMER() MPI_Wtime()

#define DIM1 5
#define DIM2 3
#define DIM3 8
#define DIM4 9
#define DIM5 3
#define DIM6 2
#define DIM7 2
#define OFF 1
#define EDIM1 (DIM1 + OFF)
#define EDIM2 (DIM2 + OFF)
#define EDIM3 (DIM3 + OFF)
#define EDIM4 (DIM4 + OFF)
#define EDIM5 (DIM5 + OFF)
#define EDIM6 (DIM6 + OFF)
#define EDIM7 (DIM7 + OFF)

#define MAXDIMS 7
#define MAX_DIM_VAL 50
#define LOOP 200
#define BASE 100.
#define MAXPROC 8
#define TIMES 100
#define ELEMS 200
#define MAXELEMS 1000
#define MAX_REQUESTS MAXELEMS

#define ABS(a) (((a) < 0) ? -(a) : (a))
#define MAX(a, b) (((a) > (b)) ? (a) : (b))

static int nproc, me;
static int verbose = 0;

static int dimsA[MAXDIMS] = {DIM1, DIM2, DIM3, DIM4, DIM5, DIM6, DIM7};
static int dimsB[MAXDIMS] = {EDIM1, EDIM2, EDIM3, EDIM4, EDIM5, EDIM6, EDIM7};
static int loA[MAXDIMS], hiA[MAXDIMS];
static int loB[MAXDIMS], hiB[MAXDIMS];
static int loC[MAXDIMS], hiC[MAXDIMS];
static int count[MAXDIMS];
static int strideA[MAXDIMS], strideB[MAXDIMS];

static void create_array(void *a[], int elem_size, int ndim, int dims[])
{
  armci_size_t bytes = elem_size;
  int i, rc;
  for (i = 0; i < ndim; i++) bytes *= dims[i];
  rc = ARMCI_Malloc(a, bytes);
  if (rc != 0) ARMCI_Error("ARMCI_Malloc failed", rc);
  if (!a[me]) ARMCI_Error("ARMCI_Malloc returned NULL for my slice", 0);
}

static void destroy_array(void *ptr[])
{
  MP_BARRIER();
  if (ARMCI_Free(ptr[me])) ARMCI_Error("ARMCI_Free failed", 0);
}

static void get_range(int ndim, int dims[], int lo[], int hi[])
{
  int dim;
  for (dim = 0; dim < ndim; dim++) {
    int toss1 = rand() % dims[dim];
    int toss2 = rand() % dims[dim];
    if (toss1 < toss2) {
      lo[dim] = toss1;
      hi[dim] = toss2;
    } else {
      hi[dim] = toss1;
      lo[dim] = toss2;
    }
  }
}

static void new_range(int ndim, int dims[], int lo[], int hi[], int new_lo[], int new_hi[])
{
  int dim;
  for (dim = 0; dim < ndim; dim++) {
    int diff = hi[dim] - lo[dim] + 1;
    int range, toss;
    assert(diff <= dims[dim]);
    range = dims[dim] - diff;
    toss = (range > 0) ? rand() % range : lo[dim];
    new_lo[dim] = toss;
    new_hi[dim] = toss + diff - 1;
    assert(new_hi[dim] < dims[dim]);
  }
}

static void print_range(const char *pre, int ndim, int lo[], int hi[], const char *post)
{
  int i;
  printf("%s[", pre);
  for (i = 0; i < ndim; i++) {
    printf("%d:%d", lo[i], hi[i]);
    if (i == ndim - 1) printf("] %s", post);
    else printf(",");
  }
}

static void print_subscript(const char *pre, int ndim, int subscript[], const char *post)
{
  int i;
  printf("%s [", pre);
  for (i = 0; i < ndim; i++) {
    printf("%d", subscript[i]);
    if (i == ndim - 1) printf("] %s", post);
    else printf(",");
  }
}

static void update_subscript(int ndim, int subscript[], int lo[], int hi[], int dims[])
{
  int i;
  (void)dims;
  for (i = 0; i < ndim; i++) {
    if (subscript[i] < hi[i]) {
      subscript[i]++;
      return;
    }
    subscript[i] = lo[i];
  }
}

static int Index(int ndim, int subscript[], int dims[])
{
  int idx = 0, i, factor = 1;
  for (i = 0; i < ndim; i++) {
    idx += subscript[i] * factor;
    factor *= dims[i];
  }
  return idx;
}

static void init(double *a, int ndim, int elems, int dims[])
{
  int idx[MAXDIMS];
  int i, dim;
  for (i = 0; i < elems; i++) {
    int ix = i;
    double field = 1., val = 0.;
    for (dim = 0; dim < ndim; dim++) {
      idx[dim] = ix % dims[dim];
      ix /= dims[dim];
    }
    for (dim = 0; dim < ndim; dim++) {
      val += field * idx[dim];
      field *= BASE;
    }
    a[i] = val;
  }
}

static void compare_patches(double eps, int ndim, double *patch1, int lo1[], int hi1[], int dims1[],
                            double *patch2, int lo2[], int hi2[], int dims2[])
{
  int i, j, elems = 1;
  int subscr1[MAXDIMS], subscr2[MAXDIMS];
  int offset1 = 0, offset2 = 0;

  for (i = 0; i < ndim; i++) {
    int diff = hi1[i] - lo1[i];
    assert(diff == (hi2[i] - lo2[i]));
    assert(diff < dims1[i]);
    assert(diff < dims2[i]);
    elems *= diff + 1;
    subscr1[i] = lo1[i];
    subscr2[i] = lo2[i];
  }

  for (j = 0; j < elems; j++) {
    int idx1 = Index(ndim, subscr1, dims1);
    int idx2 = Index(ndim, subscr2, dims2);
    double diff, max;
    if (j == 0) {
      offset1 = idx1;
      offset2 = idx2;
    }
    idx1 -= offset1;
    idx2 -= offset2;
    diff = patch1[idx1] - patch2[idx2];
    max = MAX(ABS(patch1[idx1]), ABS(patch2[idx2]));
    if (max == 0. || max < eps) max = 1.;
    if (eps < ABS(diff) / max) {
      char msg[64];
      snprintf(msg, sizeof msg, "(proc=%d):%f", me, patch1[idx1]);
      print_subscript("ERROR: a", ndim, subscr1, msg);
      snprintf(msg, sizeof msg, "%f\n", patch2[idx2]);
      print_subscript(" b", ndim, subscr2, msg);
      fflush(stdout);
      ARMCI_Error("Bailing out", 0);
    }
    update_subscript(ndim, subscr1, lo1, hi1, dims1);
    update_subscript(ndim, subscr2, lo2, hi2, dims2);
  }
}

static void scale_patch(double alpha, int ndim, double *patch1, int lo1[], int hi1[], int dims1[])
{
  int i, j, elems = 1;
  int subscr1[MAXDIMS];
  int offset1 = 0;

  for (i = 0; i < ndim; i++) {
    elems *= hi1[i] - lo1[i] + 1;
    subscr1[i] = lo1[i];
  }
  for (j = 0; j < elems; j++) {
    int idx1 = Index(ndim, subscr1, dims1);
    if (j == 0) offset1 = idx1;
    idx1 -= offset1;
    patch1[idx1] *= alpha;
    update_subscript(ndim, subscr1, lo1, hi1, dims1);
  }
}

static void test_dim(int ndim)
{
  int dim, elems = 1;
  int i, j, proc;
  void *b[MAXPROC];
  void *a, *c;

  strideA[0] = sizeof(double);
  strideB[0] = sizeof(double);
  for (i = 0; i < ndim; i++) {
    strideA[i] *= dimsA[i];
    strideB[i] *= dimsB[i];
    if (i < ndim - 1) {
      strideA[i + 1] = strideA[i];
      strideB[i + 1] = strideB[i];
    }
    elems *= dimsA[i];
  }

  create_array(b, sizeof(double), ndim, dimsB);
  a = malloc(sizeof(double) * elems);
  assert(a);
  c = malloc(sizeof(double) * elems);
  assert(c);

  init((double *)a, ndim, elems, dimsA);

  if (me == 0) {
    printf("--------array[%d", dimsA[0]);
    for (dim = 1; dim < ndim; dim++) printf(",%d", dimsA[dim]);
    printf("]--------\n");
    fflush(stdout);
  }

  ARMCI_AllFence();
  MP_BARRIER();
  for (i = 0; i < LOOP; i++) {
    int idx1, idx2, idx3;
    get_range(ndim, dimsA, loA, hiA);
    new_range(ndim, dimsB, loA, hiA, loB, hiB);
    new_range(ndim, dimsA, loA, hiA, loC, hiC);

    proc = nproc - 1 - me;

    if (me == 0 && verbose) {
      print_range("local", ndim, loA, hiA, "-> ");
      print_range("remote", ndim, loB, hiB, "-> ");
      print_range("local", ndim, loC, hiC, "\n");
    }

    idx1 = Index(ndim, loA, dimsA);
    idx2 = Index(ndim, loB, dimsB);
    idx3 = Index(ndim, loC, dimsA);

    for (j = 0; j < ndim; j++) count[j] = hiA[j] - loA[j] + 1;
    count[0] *= sizeof(double); /* convert range to bytes at stride level zero */

    (void)ARMCI_PutS((double *)a + idx1, strideA, (double *)b[proc] + idx2, strideB, count, ndim - 1, proc);

    /* no ARMCI_Fence needed: consecutive operations targeting the same process are ordered */
    (void)ARMCI_GetS((double *)b[proc] + idx2, strideB, (double *)c + idx3, strideA, count, ndim - 1, proc);

    compare_patches(0., ndim, (double *)a + idx1, loA, hiA, dimsA, (double *)c + idx3, loC, hiC, dimsA);
  }

  free(c);
  destroy_array(b);
  free(a);
}

static void test_acc(int ndim)
{
  int dim, elems = 1;
  int i, proc;
  void *b[MAXPROC];
  void *a, *c;
  double alpha = 0.1, scale;
  int idx1, idx2;

  strideA[0] = sizeof(double);
  strideB[0] = sizeof(double);
  for (i = 0; i < ndim; i++) {
    strideA[i] *= dimsA[i];
    strideB[i] *= dimsB[i];
    if (i < ndim - 1) {
      strideA[i + 1] = strideA[i];
      strideB[i + 1] = strideB[i];
    }
    elems *= dimsA[i];

    /* patch coordinates: same on every processor */
    loA[i] = 0;
    hiA[i] = loA[i] + 1;
    loB[i] = dimsB[i] - 2;
    hiB[i] = loB[i] + 1;
    count[i] = hiA[i] - loA[i] + 1;
  }

  create_array(b, sizeof(double), ndim, dimsB);
  a = malloc(sizeof(double) * elems);
  assert(a);
  c = malloc(sizeof(double) * elems);
  assert(c);

  init((double *)a, ndim, elems, dimsA);

  if (me == 0) {
    printf("--------array[%d", dimsA[0]);
    for (dim = 1; dim < ndim; dim++) printf(",%d", dimsA[dim]);
    printf("]--------\n");
    fflush(stdout);
  }

  idx1 = Index(ndim, loA, dimsA);
  idx2 = Index(ndim, loB, dimsB);
  count[0] *= sizeof(double);

  /* initialize all elements of array b to zero (plain stores into my slice) */
  elems = 1;
  for (i = 0; i < ndim; i++) elems *= dimsB[i];
  for (i = 0; i < elems; i++) ((double *)b[me])[i] = 0.;

  if (me == 0) {
    print_range("patch", ndim, loA, hiA, " -> ");
    print_range("patch", ndim, loB, hiB, "\n");
    fflush(stdout);
  }

  proc = 0;
  ARMCI_AllFence();
  MP_BARRIER();
  for (i = 0; i < TIMES * nproc; i++) {
    int rc = ARMCI_AccS(ARMCI_ACC_DBL, &alpha, (double *)a + idx1, strideA, (double *)b[proc] + idx2, strideB,
                        count, ndim - 1, proc);
    assert(rc == 0);
  }

  ARMCI_AllFence();
  MP_BARRIER();

  /* copy my patch into local array c */
  if (ARMCI_GetS((double *)b[proc] + idx2, strideB, (double *)c + idx1, strideA, count, ndim - 1, proc))
    ARMCI_Error("ARMCI_GetS failed", 0);

  scale = alpha * TIMES * nproc * nproc;
  scale_patch(scale, ndim, (double *)a + idx1, loA, hiA, dimsA);

  compare_patches(.0001, ndim, (double *)a + idx1, loA, hiA, dimsA, (double *)c + idx1, loA, hiA, dimsA);
  MP_BARRIER();

  if (0 == me) {
    printf(" OK\n\n");
    fflush(stdout);
  }

  free(c);
  destroy_array(b);
  free(a);
}

static void test_vector(void)
{
  int ndim = 2;
  int elems = 1;
  int i, j, proc, loop;
  void *b[MAXPROC];
  void *a, *c;
  armci_giov_t dsc[2];
  void *psrc[MAX_DIM_VAL], *pdst[MAX_DIM_VAL];

  for (i = 0; i < ndim; i++) elems *= dimsA[i];
  create_array(b, sizeof(double), ndim, dimsB);
  a = malloc(sizeof(double) * elems);
  assert(a);
  c = malloc(sizeof(double) * elems);
  assert(c);
  init((double *)a, ndim, elems, dimsA);

  if (me == 0) {
    printf("--------array[%d,%d]--------\n", dimsA[0], dimsA[1]);
    fflush(stdout);
  }

  ARMCI_AllFence();
  MP_BARRIER();
  for (loop = 0; loop < LOOP; loop++) {
    int idx1, idx2, idx3, ncols;
    get_range(ndim, dimsA, loA, hiA);
    new_range(ndim, dimsB, loA, hiA, loB, hiB);
    new_range(ndim, dimsA, loA, hiA, loC, hiC);
    proc = nproc - 1 - me;

    if (me == 0 && verbose) {
      print_range("local", ndim, loA, hiA, "-> ");
      print_range("remote", ndim, loB, hiB, "-> ");
      print_range("local", ndim, loC, hiC, "\n");
    }

    idx1 = Index(ndim, loA, dimsA);
    idx2 = Index(ndim, loB, dimsB);
    idx3 = Index(ndim, loC, dimsA);
    ncols = hiA[1] - loA[1] + 1;

    /* two descriptor sets: the first column, and the remaining columns (possibly none) */
    dsc[0].bytes = (hiA[0] - loA[0] + 1) * sizeof(double);
    dsc[0].src_ptr_array = &psrc[0];
    dsc[0].dst_ptr_array = &pdst[0];
    dsc[0].ptr_array_len = 1;
    dsc[1].bytes = dsc[0].bytes;
    dsc[1].src_ptr_array = &psrc[1];
    dsc[1].dst_ptr_array = &pdst[1];
    dsc[1].ptr_array_len = ncols - 1;
    for (j = 0; j < ncols; j++) {
      psrc[j] = (double *)a + idx1 + j * dimsA[0];
      pdst[j] = (double *)b[proc] + idx2 + j * dimsB[0];
    }
    if (ARMCI_PutV(dsc, 2, proc)) ARMCI_Error("ARMCI_PutV failed", 0);

    for (j = 0; j < ncols; j++) {
      psrc[j] = (double *)b[proc] + idx2 + j * dimsB[0];
      pdst[j] = (double *)c + idx3 + j * dimsA[0];
    }
    if (ARMCI_GetV(dsc, 2, proc)) ARMCI_Error("ARMCI_GetV failed", 0);

    compare_patches(0., ndim, (double *)a + idx1, loA, hiA, dimsA, (double *)c + idx3, loC, hiC, dimsA);
  }

  free(c);
  destroy_array(b);
  free(a);
  if (me == 0) {
    printf(" OK\n\n");
    fflush(stdout);
  }
}

static void test_vector_acc(void)
{
  int elems = ELEMS, ndim = 1, cnt;
  int i, j, proc, rc;
  void *b[MAXPROC];
  void *psrc[ELEMS], *pdst[ELEMS];
  void *a, *c;
  double alpha = 0.1, scale;
  armci_giov_t dsc;
  int lo = 0, hi = ELEMS - 1;

  create_array(b, sizeof(double), 1, &elems);
  a = malloc(sizeof(double) * elems);
  assert(a);
  c = malloc(sizeof(double) * elems);
  assert(c);

  init((double *)a, ndim, elems, &elems);

  if (me == 0) {
    printf("--------array[%d]--------\n", elems);
    fflush(stdout);
  }

  /* only proc 0 is the target; initialize all elements of b to zero */
  for (i = 0; i < elems; i++) ((double *)b[me])[i] = 0.;

  dsc.bytes = sizeof(double);
  dsc.src_ptr_array = psrc;
  dsc.dst_ptr_array = pdst;
  dsc.ptr_array_len = elems / 2;

  MP_BARRIER();
  proc = 0;
  for (i = 0; i < TIMES * nproc; i++) {
    /* accumulate even elements */
    for (j = 0, cnt = 0; j < elems; j += 2, cnt++) {
      psrc[cnt] = (double *)a + j;
      pdst[cnt] = (double *)b[proc] + j;
    }
    rc = ARMCI_AccV(ARMCI_ACC_DBL, &alpha, &dsc, 1, proc);
    assert(rc == 0);

    /* accumulate odd elements */
    for (j = 1, cnt = 0; j < elems; j += 2, cnt++) {
      psrc[cnt] = (double *)a + j;
      pdst[cnt] = (double *)b[proc] + j;
    }
    rc = ARMCI_AccV(ARMCI_ACC_DBL, &alpha, &dsc, 1, proc);
    assert(rc == 0);
  }

  ARMCI_AllFence();
  MP_BARRIER();

  if (ARMCI_Get(b[proc], c, elems * sizeof(double), proc)) ARMCI_Error("ARMCI_Get failed", 0);

  scale = alpha * TIMES * nproc * nproc;
  scale_patch(scale, ndim, (double *)a, &lo, &hi, &elems);
  compare_patches(.0001, ndim, (double *)a, &lo, &hi, &elems, (double *)c, &lo, &hi, &elems);
  MP_BARRIER();

  if (0 == me) {
    printf(" OK\n\n");
    fflush(stdout);
  }

  free(c);
  destroy_array(b);
  free(a);
}

static void test_fetch_add(void)
{
  int rc, bytes, i, val, times = 0;
  int *arr[MAXPROC];

  /* shared variable is located on processor 0 */
  bytes = me == 0 ? sizeof(int) : 0;
  rc = ARMCI_Malloc((void **)arr, bytes);
  assert(rc == 0);
  for (i = 1; i < nproc; i++)
    if (arr[i] != NULL) ARMCI_Error("ARMCI_Malloc: zero-size slice has a non-NULL pointer", i);
  MP_BARRIER();

  if (me == 0) *arr[0] = 0; /* initialization */

  MP_BARRIER();

  /* show what everybody gets */
  rc = ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &val, arr[0], 1, 0);
  assert(rc == 0);

  for (i = 0; i < nproc; i++) {
    if (i == me) {
      printf("process %d got value of %d\n", i, val);
      fflush(stdout);
    }
    MP_BARRIER();
  }

  if (me == 0) {
    printf("\nIncrement the shared counter until reaches %d\n", LOOP);
    fflush(stdout);
  }

  MP_BARRIER();

  /* now increment the counter value until reaches LOOP */
  while (val < LOOP) {
    rc = ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &val, arr[0], 1, 0);
    assert(rc == 0);
    times++;
  }

  for (i = 0; i < nproc; i++) {
    if (i == me) {
      printf("process %d incremented the counter %d times value=%d\n", i, times, val);
      fflush(stdout);
    }
    MP_BARRIER();
  }

  if (me == 0) *arr[0] = 0; /* set it back to 0 */
  if (me == 0) {
    printf("\nNow everybody increments the counter %d times\n", LOOP);
    fflush(stdout);
  }

  ARMCI_Fence(0);
  MP_BARRIER();

  for (i = 0; i < LOOP; i++) {
    rc = ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &val, arr[0], 1, 0);
    assert(rc == 0);
  }

  ARMCI_Fence(0);
  MP_BARRIER();

  if (me == 0) {
    printf("The final value is %d, should be %d.\n\n", *arr[0], LOOP * nproc);
    fflush(stdout);
    if (*arr[0] != LOOP * nproc) ARMCI_Error("failed ...", *arr[0]);
  }

  ARMCI_Free(arr[me]);
}

#define LOCKED -1
static void test_swap(void)
{
  int rc, bytes, i, val, whatever = -8999;
  int *arr[MAXPROC];

  bytes = me == 0 ? sizeof(int) : 0;
  rc = ARMCI_Malloc((void **)arr, bytes);
  assert(rc == 0);
  MP_BARRIER();

  if (me == 0) *arr[0] = 0; /* initialization */

  ARMCI_AllFence();
  MP_BARRIER();
  for (i = 0; i < LOOP; i++) {
    val = LOCKED;
    do {
      rc = ARMCI_Rmw(ARMCI_SWAP, &val, arr[0], whatever, 0);
      assert(rc == 0);
    } while (val == LOCKED);
    val++;
    rc = ARMCI_Rmw(ARMCI_SWAP, &val, arr[0], whatever, 0);
    assert(rc == 0);
  }

  ARMCI_AllFence();
  MP_BARRIER();

  if (me == 0) {
    printf("The final value is %d, should be %d.\n\n", *arr[0], LOOP * nproc);
    fflush(stdout);
    if (*arr[0] != LOOP * nproc) ARMCI_Error("failed ...", *arr[0]);
  }

  ARMCI_Free(arr[me]);
}

/* test_memlock: processes update a shared array under a lock, with get-modify-put.  The original used
 * ARMCI_Lockmem; ARMCI-MPI has mutexes only, so the critical section is ARMCI_Lock(0, 0). */
#define MEMLOCK_N 64
#define MEMLOCK_ITERS 30
static void test_memlock(void)
{
  int *arr[MAXPROC];
  int buf[MEMLOCK_N];
  int i, j, rc;
  int elems = MEMLOCK_N;

  create_array((void **)arr, sizeof(int), 1, &elems);
  for (i = 0; i < MEMLOCK_N; i++) arr[me][i] = 0;
  rc = ARMCI_Create_mutexes(1);
  if (rc) ARMCI_Error("ARMCI_Create_mutexes failed", rc);
  ARMCI_AllFence();
  MP_BARRIER();

  for (i = 0; i < MEMLOCK_ITERS; i++) {
    int first = (i * 7 + me * 3) % (MEMLOCK_N / 2); /* overlapping ranges from all processes */
    int len = MEMLOCK_N / 2;
    ARMCI_Lock(0, 0);
    ARMCI_Get(&arr[0][first], buf, len * sizeof(int), 0);
    for (j = 0; j < len; j++) buf[j]++;
    ARMCI_Put(buf, &arr[0][first], len * sizeof(int), 0);
    ARMCI_Unlock(0, 0);
  }
  ARMCI_AllFence();
  MP_BARRIER();

  if (me == 0) {
    int expect[MEMLOCK_N], p;
    memset(expect, 0, sizeof expect);
    for (p = 0; p < nproc; p++)
      for (i = 0; i < MEMLOCK_ITERS; i++) {
        int first = (i * 7 + p * 3) % (MEMLOCK_N / 2);
        for (j = 0; j < MEMLOCK_N / 2; j++) expect[first + j]++;
      }
    for (j = 0; j < MEMLOCK_N; j++)
      if (arr[0][j] != expect[j]) {
        printf("memlock: element %d is %d, expected %d\n", j, arr[0][j], expect[j]);
        fflush(stdout);
        ARMCI_Error("memlock test failed", j);
      }
    printf(" OK\n\n");
    fflush(stdout);
  }
  MP_BARRIER();
  ARMCI_Destroy_mutexes();
  destroy_array((void **)arr);
}

/* register-originated put/get: ARMCI_PutValue{Int,Long,Float,Double} and ARMCI_GetValue* */
static void test_rput(void)
{
  int i, j;
  int elems[2] = {MAXPROC, 100};
  int *idst[MAXPROC];
  long *ldst[MAXPROC];
  float *fdst[MAXPROC];
  double *ddst[MAXPROC];

  create_array((void **)idst, sizeof(int), 2, elems);
  create_array((void **)ldst, sizeof(long), 2, elems);
  create_array((void **)fdst, sizeof(float), 2, elems);
  create_array((void **)ddst, sizeof(double), 2, elems);
  for (i = 0; i < elems[0] * elems[1]; i++) {
    idst[me][i] = 0;
    ldst[me][i] = 0;
    fdst[me][i] = 0.0f;
    ddst[me][i] = 0.0;
  }
  ARMCI_AllFence();
  MP_BARRIER();

  for (i = 0; i < nproc; i++) {
    int p = (me + i) % nproc;
    for (j = 0; j < elems[1]; j++) {
      int off = me * elems[1] + j;
      ARMCI_PutValueInt(me * 100000 + j * 3 + 1, &idst[p][off], p);
      ARMCI_PutValueLong((long)(me + 1) * 10000000000L + j, &ldst[p][off], p);
      ARMCI_PutValueFloat((float)(me * 1000 + j) + 0.5f, &fdst[p][off], p);
      ARMCI_PutValueDouble((me * 1000 + j) * 1.001, &ddst[p][off], p);
    }
  }
  ARMCI_AllFence();
  MP_BARRIER();

  for (i = 0; i < nproc; i++)
    for (j = 0; j < elems[1]; j++) {
      int off = i * elems[1] + j;
      if (idst[me][off] != i * 100000 + j * 3 + 1) ARMCI_Error("Integer register-originated put failed", off);
      if (ldst[me][off] != (long)(i + 1) * 10000000000L + j) ARMCI_Error("Long register-originated put failed", off);
      if (fdst[me][off] != (float)(i * 1000 + j) + 0.5f) ARMCI_Error("Float register-originated put failed", off);
      if (ABS(ddst[me][off] - (i * 1000 + j) * 1.001) > 1e-9) ARMCI_Error("Double register-originated put failed", off);
    }
  MP_BARRIER();
  if (me == 0) {
    printf("  register-originated put ..O.K.\n");
    fflush(stdout);
  }

  for (i = 0; i < nproc; i++) {
    int p = (me + i) % nproc;
    for (j = 0; j < elems[1]; j++) {
      int q = (j + p) % nproc; /* writer of the element read */
      int off = q * elems[1] + j;
      int iv = ARMCI_GetValueInt(&idst[p][off], p);
      long lv = ARMCI_GetValueLong(&ldst[p][off], p);
      float fv = ARMCI_GetValueFloat(&fdst[p][off], p);
      double dv = ARMCI_GetValueDouble(&ddst[p][off], p);
      if (iv != q * 100000 + j * 3 + 1) ARMCI_Error("Integer register-originated get failed", iv);
      if (lv != (long)(q + 1) * 10000000000L + j) ARMCI_Error("Long register-originated get failed", (int)lv);
      if (fv != (float)(q * 1000 + j) + 0.5f) ARMCI_Error("Float register-originated get failed", off);
      if (ABS(dv - (q * 1000 + j) * 1.001) > 1e-9) ARMCI_Error("Double register-originated get failed", off);
    }
  }
  MP_BARRIER();
  if (me == 0) {
    printf("  register-originated get ..O.K.\n\n");
    fflush(stdout);
  }

  destroy_array((void **)ddst);
  destroy_array((void **)fdst);
  destroy_array((void **)ldst);
  destroy_array((void **)idst);
}

static void test_aggregate(int dryrun)
{
  int i, j, rc, bytes, elems[2] = {MAXPROC, MAXELEMS};
  double *ddst_put[MAXPROC];
  double *ddst_get[MAXPROC];
  double *dsrc[MAXPROC];
  armci_hdl_t aggr_hdl_put[MAXPROC];
  armci_hdl_t aggr_hdl_get[MAXPROC];
  armci_hdl_t hdl_put[MAXELEMS];
  armci_giov_t darr;
  static void *src_ptr[MAX_REQUESTS], *dst_ptr[MAX_REQUESTS];
  int start = 0, end = 0;
  double start_time;

  create_array((void **)ddst_put, sizeof(double), 2, elems);
  create_array((void **)ddst_get, sizeof(double), 2, elems);
  create_array((void **)dsrc, sizeof(double), 1, &elems[1]);

  for (i = 0; i < elems[1]; i++) dsrc[me][i] = i * 1.001 * (me + 1);
  for (i = 0; i < elems[0] * elems[1]; i++) {
    ddst_put[me][i] = 0.0;
    ddst_get[me][i] = 0.0;
  }

  MP_BARRIER();

  /* only proc 0 does the work */
  if (me == 0) {
    if (!dryrun) printf("Transferring %d doubles (Not an array of %d doubles)\n", MAXELEMS, MAXELEMS);

    for (i = 0; i < elems[1]; i++) ARMCI_INIT_HANDLE(&hdl_put[i]);
    for (i = 0; i < nproc; i++) ARMCI_INIT_HANDLE(&aggr_hdl_put[i]);
    for (i = 0; i < nproc; i++) ARMCI_INIT_HANDLE(&aggr_hdl_get[i]);
    for (i = 0; i < nproc; i++) ARMCI_SET_AGGREGATE_HANDLE(&aggr_hdl_put[i]);
    for (i = 0; i < nproc; i++) ARMCI_SET_AGGREGATE_HANDLE(&aggr_hdl_get[i]);

    bytes = sizeof(double);

    /* **************** PUT **************** */
    start_time = MP_TIMER();
    start = 0;
    end = elems[1];
    for (i = 1; i < nproc; i++) {
      for (j = start; j < end; j++)
        ARMCI_NbPutValueDouble(dsrc[me][j], &ddst_put[i][me * elems[1] + j], i, &hdl_put[j]);
      for (j = start; j < end; j++) ARMCI_Wait(&hdl_put[j]);
    }
    if (!dryrun) printf("%d: Value Put time = %.2es\n", me, MP_TIMER() - start_time);

    /* vector put */
    start_time = MP_TIMER();
    for (i = 1; i < nproc; i++) {
      for (j = start; j < end; j++) {
        src_ptr[j] = (void *)&dsrc[me][j];
        dst_ptr[j] = (void *)&ddst_put[i][me * elems[1] + j];
      }
      darr.src_ptr_array = src_ptr;
      darr.dst_ptr_array = dst_ptr;
      darr.bytes = sizeof(double);
      darr.ptr_array_len = elems[1];
      if ((rc = ARMCI_NbPutV(&darr, 1, i, &hdl_put[i]))) ARMCI_Error("armci_nbputv failed\n", rc);
    }
    for (i = 1; i < nproc; i++) ARMCI_Wait(&hdl_put[i]);
    if (!dryrun) printf("%d: Vector Put time = %.2es\n", me, MP_TIMER() - start_time);

    /* regular put */
    start_time = MP_TIMER();
    for (i = 1; i < nproc; i++) {
      for (j = start; j < end; j++) {
        if ((rc = ARMCI_NbPut(&dsrc[me][j], &ddst_put[i][me * elems[1] + j], bytes, i, &hdl_put[j])))
          ARMCI_Error("armci_nbput failed\n", rc);
      }
      for (j = start; j < end; j++) ARMCI_Wait(&hdl_put[j]);
    }
    if (!dryrun) printf("%d: Regular Put time = %.2es\n", me, MP_TIMER() - start_time);

    /* aggregate put */
    start_time = MP_TIMER();
    for (i = 1; i < nproc; i++) {
      for (j = start; j < end; j++) {
        if ((rc = ARMCI_NbPut(&dsrc[me][j], &ddst_put[i][me * elems[1] + j], bytes, i, &aggr_hdl_put[i])))
          ARMCI_Error("armci_nbput failed\n", rc);
      }
    }
    for (i = 1; i < nproc; i++) ARMCI_Wait(&aggr_hdl_put[i]);
    if (!dryrun) printf("%d: Aggregate Put time = %.2es\n\n", me, MP_TIMER() - start_time);

    /* **************** GET **************** */
    /* vector get */
    start_time = MP_TIMER();
    for (i = 1; i < nproc; i++) {
      for (j = start; j < end; j++) {
        src_ptr[j] = (void *)&dsrc[i][j];
        dst_ptr[j] = (void *)&ddst_get[me][i * elems[1] + j];
      }
      darr.src_ptr_array = src_ptr;
      darr.dst_ptr_array = dst_ptr;
      darr.bytes = sizeof(double);
      darr.ptr_array_len = elems[1];
      if ((rc = ARMCI_NbGetV(&darr, 1, i, &hdl_put[i]))) ARMCI_Error("armci_nbgetv failed\n", rc);
      ARMCI_Wait(&hdl_put[i]);
    }
    if (!dryrun) printf("%d: Vector Get time = %.2es\n", me, MP_TIMER() - start_time);

    /* regular get */
    start_time = MP_TIMER();
    for (i = 1; i < nproc; i++) {
      for (j = start; j < end; j++) {
        if ((rc = ARMCI_NbGet(&dsrc[i][j], &ddst_get[me][i * elems[1] + j], bytes, i, &hdl_put[j])))
          ARMCI_Error("armci_nbget failed\n", rc);
      }
      for (j = start; j < end; j++) ARMCI_Wait(&hdl_put[j]);
    }
    if (!dryrun) printf("%d: Regular Get time = %.2es\n", me, MP_TIMER() - start_time);

    /* aggregate get */
    start_time = MP_TIMER();
    for (i = 1; i < nproc; i++) {
      for (j = start; j < end; j++)
        ARMCI_NbGet(&dsrc[i][j], &ddst_get[me][i * elems[1] + j], bytes, i, &aggr_hdl_get[i]);
    }
    for (i = 1; i < nproc; i++) ARMCI_Wait(&aggr_hdl_get[i]);
    if (!dryrun) printf("%d: Aggregate Get time = %.2es\n", me, MP_TIMER() - start_time);
  }

  MP_BARRIER();
  ARMCI_AllFence();
  MP_BARRIER();

  /* Verify */
  if (!(me == 0))
    for (j = 0; j < elems[1]; j++) {
      if (ABS(ddst_put[me][j] - j * 1.001) > 0.1) {
        printf("%d: ddst_put[%d] = %f, expected %f\n", me, j, ddst_put[me][j], j * 1.001);
        fflush(stdout);
        ARMCI_Error("aggregate put failed...1", 0);
      }
    }
  MP_BARRIER();
  if (!dryrun)
    if (me == 0) printf("\n  aggregate put ..O.K.\n");
  fflush(stdout);

  if (me == 0) {
    for (i = 1; i < nproc; i++) {
      for (j = 0; j < elems[1]; j++) {
        if (ABS(ddst_get[me][i * elems[1] + j] - j * 1.001 * (i + 1)) > 0.1) {
          ARMCI_Error("aggregate get failed...1", 0);
        }
      }
    }
  }
  MP_BARRIER();
  if (!dryrun)
    if (me == 0) printf("  aggregate get ..O.K.\n\n");

  ARMCI_AllFence();
  MP_BARRIER();

  if (!dryrun)
    if (me == 0) {
      printf("O.K.\n");
      fflush(stdout);
    }
  destroy_array((void **)ddst_put);
  destroy_array((void **)ddst_get);
  destroy_array((void **)dsrc);
}

/* Implicit (NULL) handles, completed by ARMCI_WaitAll / ARMCI_WaitProc; user handles interleaved. */
static void test_implicit(void)
{
  int i, j, k, rc, elems[2] = {MAXPROC, MAXELEMS};
  double *ddst_put[MAXPROC];
  double *ddst_get[MAXPROC];
  double *dsrc;
  armci_hdl_t usr_hdl[MAXPROC];
  int range = MAXELEMS / 10;

  create_array((void **)ddst_put, sizeof(double), 2, elems);
  create_array((void **)ddst_get, sizeof(double), 2, elems);
  dsrc = (double *)ARMCI_Malloc_local(sizeof(double) * elems[1]);
  if (!dsrc) ARMCI_Error("ARMCI_Malloc_local failed", 0);

  for (i = 0; i < elems[1]; i++) dsrc[i] = i * 1.001 * (me + 1);
  for (i = 0; i < elems[0] * elems[1]; i++) {
    ddst_put[me][i] = 0.0;
    ddst_get[me][i] = -1.0;
  }

  MP_BARRIER();
  for (i = 0; i < nproc; i++) ARMCI_INIT_HANDLE(&usr_hdl[i]);

  for (i = 0; i < nproc; i++) {
    int p = (me + i) % nproc;
    for (k = 0; k < elems[1]; k += range) {
      if ((k / range) % 3 == 0) {
        rc = ARMCI_NbPut(&dsrc[k], &ddst_put[p][me * elems[1] + k], range * sizeof(double), p, NULL);
      } else {
        /* strided with a NULL handle: 2 x (range/2) doubles */
        int stride = (range / 2) * sizeof(double);
        int cnt[2];
        cnt[0] = (range / 2) * sizeof(double);
        cnt[1] = 2;
        rc = ARMCI_NbPutS(&dsrc[k], &stride, &ddst_put[p][me * elems[1] + k], &stride, cnt, 1, p, NULL);
      }
      if (rc) ARMCI_Error("implicit nb put failed", rc);
    }
  }
  ARMCI_WaitAll();
  ARMCI_AllFence();
  MP_BARRIER();

  for (i = 0; i < nproc; i++)
    for (j = 0; j < elems[1]; j++)
      if (ABS(ddst_put[me][i * elems[1] + j] - j * 1.001 * (i + 1)) > 0.1) {
        printf("%d: implicit put: element [%d][%d] = %f, expected %f\n", me, i, j, ddst_put[me][i * elems[1] + j],
               j * 1.001 * (i + 1));
        fflush(stdout);
        ARMCI_Error("implicit put failed", j);
      }
  MP_BARRIER();
  if (me == 0) {
    printf("  implicit put ..O.K.\n");
    fflush(stdout);
  }

  /* gets: half through NULL handles completed per target with ARMCI_WaitProc, half through user handles */
  for (i = 0; i < nproc; i++) {
    int p = (me + i) % nproc;
    if (i % 2 == 0) {
      for (k = 0; k < elems[1]; k += range)
        ARMCI_NbGet(&ddst_put[p][me * elems[1] + k], &ddst_get[me][p * elems[1] + k], range * sizeof(double), p, NULL);
      ARMCI_WaitProc(p);
    } else {
      ARMCI_NbGet(&ddst_put[p][me * elems[1]], &ddst_get[me][p * elems[1]], elems[1] * sizeof(double), p, &usr_hdl[p]);
    }
  }
  for (i = 0; i < nproc; i++)
    if (i % 2 == 1) ARMCI_Wait(&usr_hdl[(me + i) % nproc]);

  for (i = 0; i < nproc; i++)
    for (j = 0; j < elems[1]; j++)
      if (ABS(ddst_get[me][i * elems[1] + j] - j * 1.001 * (me + 1)) > 0.1) {
        printf("%d: implicit get: element [%d][%d] = %f, expected %f\n", me, i, j, ddst_get[me][i * elems[1] + j],
               j * 1.001 * (me + 1));
        fflush(stdout);
        ARMCI_Error("implicit get failed", j);
      }
  MP_BARRIER();
  if (me == 0) {
    printf("  implicit get ..O.K.\n\n");
    fflush(stdout);
  }

  ARMCI_Free_local(dsrc);
  destroy_array((void **)ddst_put);
  destroy_array((void **)ddst_get);
}

int main(int argc, char *argv[])
{
  int ndim;

  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (getenv("ARMCI_TEST_VERBOSE")) verbose = 1;

  if (nproc > MAXPROC && me == 0) ARMCI_Error("Test works for up to 8 processors\n", MAXPROC);

  if (me == 0) {
    printf("ARMCI test program (%d processes)\n", nproc);
    fflush(stdout);
  }

  ARMCI_Init();

  if (me == 0) {
    printf("\nTesting strided gets and puts\n");
    printf("(Only std output for process 0 is printed)\n\n");
    fflush(stdout);
  }
  for (ndim = 1; ndim <= MAXDIMS; ndim++) test_dim(ndim);
  ARMCI_AllFence();
  MP_BARRIER();

  if (me == 0) {
    printf("\nTesting atomic accumulate\n");
    fflush(stdout);
  }
  for (ndim = 1; ndim <= MAXDIMS; ndim++) test_acc(ndim);
  ARMCI_AllFence();
  MP_BARRIER();

  if (me == 0) {
    printf("\nTesting Vector Interface using triggered operations\n");
    fflush(stdout);
  }
  test_vector();
  if (me == 0) {
    printf("\nTesting Accumulate with Vector Interface\n");
    fflush(stdout);
  }
  test_vector_acc();
  ARMCI_AllFence();
  MP_BARRIER();

  if (me == 0) {
    printf("\nTesting atomic fetch&add\n");
    printf("(Std Output for all processes is printed)\n\n");
    fflush(stdout);
  }
  MP_BARRIER();
  test_fetch_add();
  ARMCI_AllFence();
  MP_BARRIER();

  if (me == 0) {
    printf("\nTesting atomic swap\n");
    fflush(stdout);
  }
  test_swap();
  ARMCI_AllFence();
  MP_BARRIER();

  if (me == 0) {
    printf("\nTesting memory locks (mutex-protected get-modify-put)\n");
    fflush(stdout);
  }
  test_memlock();
  ARMCI_AllFence();
  MP_BARRIER();

  if (me == 0) {
    printf("\nTesting register-originated put and get\n");
    fflush(stdout);
  }
  test_rput();
  ARMCI_AllFence();
  MP_BARRIER();

  if (me == 0) {
    printf("\nTesting aggregate put/get requests\n");
    fflush(stdout);
  }
  test_aggregate(1); /* cold start */
  test_aggregate(0); /* warm start */
  ARMCI_AllFence();
  MP_BARRIER();

  if (me == 0) {
    printf("\nTesting implicit handles\n");
    fflush(stdout);
  }
  test_implicit();
  ARMCI_AllFence();
  MP_BARRIER();

  ARMCI_Barrier();
  if (me == 0) {
    printf("All tests passed\n");
    fflush(stdout);
  }
  ARMCI_Finalize();
  MPI_Finalize();
  return 0;
}
