/*
 * hosts_acc.c -- raw MPI-3 (no ARMCI): how a Global Arrays accumulate patch (NGA_Acc of a k x k double tile:
 * k runs of 8k bytes, contiguous at the origin, every STRIDE bytes at the target) is best issued to another
 * node.  The evidence behind the engine AUTO picks for large strided accumulates between nodes
 * (src/transfer/engine_choice.h, src/base/path_tuning.h); benchmarks/results/2026-12-07-large-acc-between-nodes.md.
 *
 * Rank 0 issues to the last rank, which waits in MPI_Barrier (as in benchmarks/ga_patch.c), on MPI_Win_create
 * windows over MPI_Alloc_mem memory, each variant K times back to back per repetition; variants alternate
 * within a repetition, and each repetition ends with MPI_Win_flush inside the timed region (so that the target's
 * work counts, as it does for a stream of calls); prints per variant the min / median / max over the
 * repetitions of the time per call:
 *   ACC <k> <variant> min <us> med <us> max <us>
 * Each call completes locally (MPI_Win_flush_local, as a blocking ARMCI call) unless the variant says otherwise:
 *   sub/sub        one MPI_Accumulate, subarray types on both sides (ARMCI-MPI 0.3.1's DIRECT)
 *   contig/hvec    one MPI_Accumulate, contiguous doubles at the origin, an hvector at the target
 *   hvec/hvec      one MPI_Accumulate, hvector on both sides (armci-x's DIRECT)
 *   stream-<C>K    packed by memcpy into a buffer, one MPI_Accumulate per C KiB of runs with an hvector
 *                  target, all in flight, one completion (armci-x's PACK_STREAM at C = 32)
 *   split-<C>K     like stream but no packing: the contiguous origin cut at run boundaries
 *   iov            one contiguous MPI_Accumulate per run, one completion (armci-x's IOV)
 *   excl-lock      sub/sub under MPI_Win_lock(MPI_LOCK_EXCLUSIVE) / MPI_Win_unlock per call (another window)
 *   shared-lock    the same with MPI_LOCK_SHARED
 *   +flush         contig/hvec completed remotely (MPI_Win_flush) instead of locally
 *   getacc         contig/hvec as MPI_Get_accumulate into a result buffer
 *   racc+wait      contig/hvec as MPI_Raccumulate + MPI_Wait
 *
 * --only NAME,NAME,... runs only those variants; --calls K calls per repetition; --no-flush-timed leaves the
 * repetition's closing MPI_Win_flush out of the timed region (as benchmarks/ga_patch.c times a burst).
 *
 *   mpicc.mpich -O2 benchmarks/hosts_acc.c -o hosts_acc
 *   MPIR_CVAR_NUM_CLIQUES=2 mpiexec.mpich -n 2 ./hosts_acc [--stride BYTES] [--k K,K,...] [--reps N]
 *   UCX_TLS=tcp,self tools/simhosts.sh --hosts 2 -n 2 ./hosts_acc
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXK 512

static MPI_Win win, win2;
static int target;
static char *loc, *pk, *res;
static long stride = 8192;

enum { V_SUB, V_CONTIG, V_HVEC, V_S32, V_S64, V_S128, V_S256, V_SPLIT64, V_SPLIT128, V_IOV, V_EXCL, V_SHARED,
       V_FLUSH, V_GETACC, V_RACC, NV };
static const char* names[NV] = {"sub/sub", "contig/hvec", "hvec/hvec", "stream-32K", "stream-64K", "stream-128K",
                                "stream-256K", "split-64K", "split-128K", "iov", "excl-lock", "shared-lock",
                                "+flush", "getacc", "racc+wait"};

static void check(int err, const char* what) {
  if (err != MPI_SUCCESS) {
    fprintf(stderr, "hosts_acc: %s failed (%d)\n", what, err);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}
#define CK(call) check((call), #call)

static MPI_Datatype commit(MPI_Datatype t) {
  CK(MPI_Type_commit(&t));
  return t;
}

static MPI_Datatype subarray(int k, long str) {
  int sizes[2] = {k, (int)(str / 8)}, sub[2] = {k, k}, starts[2] = {0, 0};
  MPI_Datatype t;
  CK(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &t));
  return commit(t);
}

static MPI_Datatype hvec(int n, int k, long str) {
  MPI_Datatype t;
  CK(MPI_Type_create_hvector(n, k, str, MPI_DOUBLE, &t));
  return commit(t);
}

static void chunks(int k, int chunk, int pack) {
  long seg = 8L * k;
  int per = chunk / seg > 0 ? (int)(chunk / seg) : 1;
  if (pack) memcpy(pk, loc, (size_t)k * seg);  // the GA origin is contiguous: one memcpy is the pack loop
  for (int first = 0; first < k; first += per) {
    int m = k - first < per ? k - first : per;
    MPI_Datatype t = hvec(m, k, stride);
    CK(MPI_Accumulate((pack ? pk : loc) + first * seg, m * k, MPI_DOUBLE, target, (MPI_Aint)first * stride, 1, t,
                      MPI_SUM, win));
    CK(MPI_Type_free(&t));
  }
  CK(MPI_Win_flush_local(target, win));
}

static void one_call(int v, int k, MPI_Datatype sa_o, MPI_Datatype sa_t, MPI_Datatype hv_o, MPI_Datatype hv_t) {
  MPI_Request rq;
  switch (v) {
    case V_SUB:
      CK(MPI_Accumulate(loc, 1, sa_o, target, 0, 1, sa_t, MPI_SUM, win));
      break;
    case V_CONTIG:
    case V_FLUSH:
      CK(MPI_Accumulate(loc, k * k, MPI_DOUBLE, target, 0, 1, hv_t, MPI_SUM, win));
      if (v == V_FLUSH) CK(MPI_Win_flush(target, win));
      break;
    case V_HVEC:
      CK(MPI_Accumulate(loc, 1, hv_o, target, 0, 1, hv_t, MPI_SUM, win));
      break;
    case V_S32: chunks(k, 32768, 1); return;
    case V_S64: chunks(k, 65536, 1); return;
    case V_S128: chunks(k, 131072, 1); return;
    case V_S256: chunks(k, 262144, 1); return;
    case V_SPLIT64: chunks(k, 65536, 0); return;
    case V_SPLIT128: chunks(k, 131072, 0); return;
    case V_IOV:
      for (int i = 0; i < k; i++)
        CK(MPI_Accumulate(loc + 8L * k * i, k, MPI_DOUBLE, target, i * stride, k, MPI_DOUBLE, MPI_SUM, win));
      break;
    case V_EXCL:
    case V_SHARED:
      CK(MPI_Win_lock(v == V_EXCL ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, target, 0, win2));
      CK(MPI_Accumulate(loc, 1, sa_o, target, 0, 1, sa_t, MPI_SUM, win2));
      CK(MPI_Win_unlock(target, win2));
      return;
    case V_GETACC:
      CK(MPI_Get_accumulate(loc, k * k, MPI_DOUBLE, res, k * k, MPI_DOUBLE, target, 0, 1, hv_t, MPI_SUM, win));
      break;
    case V_RACC:
      CK(MPI_Raccumulate(loc, k * k, MPI_DOUBLE, target, 0, 1, hv_t, MPI_SUM, win, &rq));
      CK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
      return;
  }
  CK(MPI_Win_flush_local(target, win));
}

static void sort(double* a, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && a[j - 1] > a[j]; j--) {
      double x = a[j];
      a[j] = a[j - 1];
      a[j - 1] = x;
    }
}

int main(int argc, char** argv) {
  int me, np, nrep = 7, ks[16] = {64, 128, 256}, nk = 3, use[NV], kcalls = 0, flush_in_time = 1;
  for (int i = 0; i < NV; i++) use[i] = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--stride") && i + 1 < argc) stride = atol(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) nrep = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--calls") && i + 1 < argc) kcalls = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--no-flush-timed")) flush_in_time = 0;
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) {  // a comma-separated list of variant names
      char* list = argv[++i];
      for (int v = 0; v < NV; v++) {
        use[v] = 0;
        for (char *s = list, *e; *s; s = *e ? e + 1 : e) {
          e = strchr(s, ',');
          if (!e) e = s + strlen(s);
          if ((size_t)(e - s) == strlen(names[v]) && !strncmp(s, names[v], e - s)) use[v] = 1;
        }
      }
    } else if (!strcmp(argv[i], "--k") && i + 1 < argc) {
      nk = 0;
      for (char* s = strtok(argv[++i], ","); s && nk < 16; s = strtok(NULL, ",")) ks[nk++] = atoi(s);
    }
  }
  if (nrep > 64) nrep = 64;
  target = np - 1;
  long bytes = (long)MAXK * stride;
  char *base, *base2;
  CK(MPI_Alloc_mem(bytes, MPI_INFO_NULL, &base));
  CK(MPI_Alloc_mem(bytes, MPI_INFO_NULL, &base2));
  memset(base, 0, bytes);
  memset(base2, 0, bytes);
  MPI_Info info;
  CK(MPI_Info_create(&info));
  CK(MPI_Info_set(info, "accumulate_ordering", "rar,raw,war,waw"));
  CK(MPI_Win_create(base, bytes, 1, info, MPI_COMM_WORLD, &win));
  CK(MPI_Win_create(base2, bytes, 1, info, MPI_COMM_WORLD, &win2));
  CK(MPI_Info_free(&info));
  CK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  CK(MPI_Win_set_errhandler(win2, MPI_ERRORS_RETURN));
  CK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  loc = calloc(bytes, 1);
  pk = calloc(bytes, 1);
  res = calloc(bytes, 1);
  if (!loc || !pk || !res) MPI_Abort(MPI_COMM_WORLD, 1);
  // Touch every page: untouched calloc memory is the shared zero page, and a zero-copy send from it (UCX
  // rendezvous registers the origin) faulted it in call after call: one 512 KiB MPI_Accumulate took ~940 us
  // across cliques from untouched memory, ~100 us as GA's written buffer.
  for (long i = 0; i < bytes / 8; i++) ((double*)loc)[i] = 1.0;
  memset(pk, 1, bytes);
  memset(res, 1, bytes);
  if (me == 0) printf("# hosts_acc: %d ranks, target stride %ld bytes, %d repetitions\n", np, stride, nrep);

  for (int ki = 0; ki < nk; ki++) {
    int k = ks[ki];
    if (k > MAXK || 8L * k > stride) continue;
    long total = 8L * k * k;
    int K = kcalls > 0 ? kcalls : total >= 262144 ? 20 : total >= 65536 ? 60 : 200;
    MPI_Datatype sa_t = subarray(k, stride), sa_o = subarray(k, 8L * k);
    MPI_Datatype hv_t = hvec(k, k, stride), hv_o = hvec(k, k, 8L * k);
    static double v[NV][64];
    for (int r = 0; r < nrep; r++)
      for (int var = 0; var < NV; var++) {
        if (!use[var]) continue;
        CK(MPI_Barrier(MPI_COMM_WORLD));
        if (me != 0) continue;
        one_call(var, k, sa_o, sa_t, hv_o, hv_t);  // warm-up
        double t0 = MPI_Wtime();
        for (int i = 0; i < K; i++) one_call(var, k, sa_o, sa_t, hv_o, hv_t);
        if (flush_in_time) CK(MPI_Win_flush(target, win));  // the target's work counts, as in a stream of calls
        v[var][r] = (MPI_Wtime() - t0) / K * 1e6;
        if (!flush_in_time) CK(MPI_Win_flush(target, win));
      }
    if (me == 0)
      for (int var = 0; var < NV; var++) {
        if (!use[var]) continue;
        sort(v[var], nrep);
        printf("ACC %d %-12s min %8.1f med %8.1f max %8.1f\n", k, names[var], v[var][0], v[var][nrep / 2],
               v[var][nrep - 1]);
      }
    fflush(stdout);
    CK(MPI_Type_free(&sa_t));
    CK(MPI_Type_free(&sa_o));
    CK(MPI_Type_free(&hv_t));
    CK(MPI_Type_free(&hv_o));
  }
  CK(MPI_Win_unlock_all(win));
  CK(MPI_Win_free(&win));
  CK(MPI_Win_free(&win2));
  CK(MPI_Free_mem(base));
  CK(MPI_Free_mem(base2));
  free(loc);
  free(pk);
  free(res);
  MPI_Finalize();
  return 0;
}
