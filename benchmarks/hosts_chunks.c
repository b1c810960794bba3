/*
 * hosts_chunks.c -- raw MPI-3 (no ARMCI): how a strided transfer and a large accumulate are best issued to
 * another node.  The evidence behind PACK_STREAM (src/transfer/engine_choice.h) and the 32 KiB accumulate
 * pieces (kContigAuto.acc_piece_bytes, src/completion/path_tuning.h); doc/performance.md, "Strided and large
 * accumulates between hosts".
 *
 * Rank 0 issues to the last rank (which waits in MPI_Barrier) on an MPI_Win_create window over
 * MPI_Alloc_mem memory, under one MPI_Win_lock_all, each variant K times per repetition; variants alternate
 * within a repetition; prints per variant the min / median / max over the repetitions of the time per call:
 *   CHUNKS <op> <shape> <variant> min <us> med <us> max <us>
 * Strided: nseg runs of 1 KiB every 2 KiB on both sides (as benchmarks/strided.c), each call completed
 * locally (MPI_Win_flush_local, as a blocking ARMCI call):
 *   typed-hvec(contig)  one operation, nested hvector of a contiguous run on both sides (armci-x before)
 *   typed-subarray      one operation, subarray on both sides (ARMCI-MPI's DIRECT)
 *   packed-32K-stream   origin packed (get: landed packed, copied out), one operation per 32 KiB chunk with
 *                       an hvector target, all in flight, one completion (armci-x PACK_STREAM)
 * acc+fence: one contiguous accumulate of doubles + MPI_Win_flush_local + MPI_Win_flush (ARMCI_Acc +
 * ARMCI_Fence), whole, as 32 KiB pieces, or as equal pieces of at most 56 KiB (armci-x,
 * kContigAuto.acc_piece_bytes).
 *
 *   mpicc.mpich -O2 benchmarks/hosts_chunks.c -o hosts_chunks
 *   UCX_TLS=tcp,self tools/simhosts.sh --hosts 2 -n 2 ./hosts_chunks
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NREP 9
#define SEG 1024
#define STRIDE 2048
#define CHUNK 32768
#define MAXSEG 1024

enum { OP_PUT, OP_GET, OP_ACC };
enum { V_HVEC, V_SUB, V_STREAM, NV };
static const char* op_names[] = {"put", "get", "acc"};
static const char* v_names[NV] = {"typed-hvec(contig)", "typed-subarray", "packed-32K-stream"};

static MPI_Win win;
static int target;
static char *loc, *pk;

static MPI_Datatype hvec_contig(MPI_Datatype elem, int per, int n) {
  MPI_Datatype c, t;
  MPI_Type_contiguous(per, elem, &c);
  MPI_Type_create_hvector(n, 1, STRIDE, c, &t);
  MPI_Type_free(&c);
  MPI_Type_commit(&t);
  return t;
}

static MPI_Datatype subarray(MPI_Datatype elem, int esize, int n) {
  int sizes[2] = {n, STRIDE / esize}, sub[2] = {n, SEG / esize}, starts[2] = {0, 0};
  MPI_Datatype t;
  MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, elem, &t);
  MPI_Type_commit(&t);
  return t;
}

static void issue(int op, void* o, int ocount, MPI_Datatype otype, MPI_Aint disp, MPI_Datatype ttype) {
  if (op == OP_PUT)
    MPI_Put(o, ocount, otype, target, disp, 1, ttype, win);
  else if (op == OP_GET)
    MPI_Get(o, ocount, otype, target, disp, 1, ttype, win);
  else
    MPI_Accumulate(o, ocount, otype, target, disp, 1, ttype, MPI_SUM, win);
}

static void one_call(int op, int v, int n, MPI_Datatype hv, MPI_Datatype sa) {
  MPI_Datatype elem = op == OP_ACC ? MPI_DOUBLE : MPI_BYTE;
  int esize = op == OP_ACC ? 8 : 1, per = SEG / esize, spc = CHUNK / SEG, i;
  if (v == V_HVEC || v == V_SUB) {
    MPI_Datatype t = v == V_HVEC ? hv : sa;
    issue(op, loc, 1, t, 0, t);
    MPI_Win_flush_local(target, win);
    return;
  }
  if (op != OP_GET)
    for (i = 0; i < n; i++) memcpy(pk + (long)i * SEG, loc + (long)i * STRIDE, SEG);
  for (int first = 0; first < n; first += spc) {
    int m = n - first < spc ? n - first : spc;
    MPI_Datatype t;
    MPI_Type_create_hvector(m, per, STRIDE, elem, &t);
    MPI_Type_commit(&t);
    issue(op, pk + (long)first * SEG, m * per, elem, (MPI_Aint)first * STRIDE, t);
    MPI_Type_free(&t);
  }
  MPI_Win_flush_local(target, win);
  if (op == OP_GET)
    for (i = 0; i < n; i++) memcpy(loc + (long)i * STRIDE, pk + (long)i * SEG, SEG);
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
  int me, np;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  target = np - 1;
  long bytes = 2L * MAXSEG * STRIDE;
  char* base;
  MPI_Alloc_mem(bytes, MPI_INFO_NULL, &base);
  memset(base, 0, bytes);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "accumulate_ordering", "rar,raw,war,waw");
  MPI_Win_create(base, bytes, 1, info, MPI_COMM_WORLD, &win);
  MPI_Info_free(&info);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  loc = calloc(bytes, 1);
  pk = calloc(bytes, 1);

  static const int nsegs[] = {16, 256, 1024};
  for (int op = OP_PUT; op <= OP_ACC; op++)
    for (int ni = 0; ni < 3; ni++) {
      int n = nsegs[ni], K = n >= 1024 ? 4 : n >= 256 ? 10 : 40;
      MPI_Datatype elem = op == OP_ACC ? MPI_DOUBLE : MPI_BYTE;
      int esize = op == OP_ACC ? 8 : 1;
      MPI_Datatype hv = hvec_contig(elem, SEG / esize, n), sa = subarray(elem, esize, n);
      double v[NV][NREP];
      for (int r = 0; r < NREP; r++)
        for (int var = 0; var < NV; var++) {
          MPI_Barrier(MPI_COMM_WORLD);
          if (me != 0) continue;
          double t0 = MPI_Wtime();
          for (int k = 0; k < K; k++) one_call(op, var, n, hv, sa);
          v[var][r] = (MPI_Wtime() - t0) / K * 1e6;
          MPI_Win_flush(target, win);
        }
      if (me == 0)
        for (int var = 0; var < NV; var++) {
          sort(v[var], NREP);
          printf("CHUNKS %s %dx%d %-20s min %8.1f med %8.1f max %8.1f\n", op_names[op], n, SEG, v_names[var], v[var][0],
                 v[var][NREP / 2], v[var][NREP - 1]);
        }
      MPI_Type_free(&hv);
      MPI_Type_free(&sa);
    }

  static const long sizes[] = {65536, 262144, 1048576};
  for (int si = 0; si < 3; si++) {
    long n = sizes[si];
    int K = n >= 1048576 ? 4 : n >= 262144 ? 10 : 40;
    double v[3][NREP];
    static const char* names[3] = {"whole", "32K-pieces", "equal<=56K-pieces"};
    for (int r = 0; r < NREP; r++)
      for (int var = 0; var < 3; var++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (me != 0) continue;
        long piece = var == 0 ? n : var == 1 ? CHUNK : 0;
        if (var == 2) {
          long pieces = (n + 56 * 1024 - 1) / (56 * 1024);
          piece = (n / 8 + pieces - 1) / pieces * 8;
        }
        double t0 = MPI_Wtime();
        for (int k = 0; k < K; k++) {
          for (long o = 0; o < n; o += piece) {
            long m = n - o < piece ? n - o : piece;
            MPI_Accumulate(loc + o, (int)(m / 8), MPI_DOUBLE, target, o, (int)(m / 8), MPI_DOUBLE, MPI_SUM, win);
          }
          MPI_Win_flush_local(target, win);
          MPI_Win_flush(target, win);
        }
        v[var][r] = (MPI_Wtime() - t0) / K * 1e6;
      }
    if (me == 0)
      for (int var = 0; var < 3; var++) {
        sort(v[var], NREP);
        printf("CHUNKS acc+fence %ld %-20s min %8.1f med %8.1f max %8.1f\n", n, names[var], v[var][0], v[var][NREP / 2],
               v[var][NREP - 1]);
      }
  }
  if (me == 0) fflush(stdout);
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  MPI_Free_mem(base);
  free(loc);
  free(pk);
  MPI_Finalize();
  return 0;
}
