// Strided put / get / accumulate, the dispatch: validate the arguments and build the shape (make_shape),
// resolve the remote side, decide its locality once (target_path) and the engine from it (choose_strided in
// transfer/engine_choice.h), then the node-local backend (local_strided, transfer/node_local.h), the contiguous
// operation on the target so placed when there is one segment after all (contig_put / contig_get / contig_acc,
// transfer/paths.h), or the MPI backend's engines (mpi_strided, transfer/mpi_strided.cc).
#include <cstring>

#include "acc/acc_types.h"
#include "base/error.h"
#include "base/state.h"
#include "completion/ordering.h"
#include "transfer/engine_choice.h"
#include "transfer/paths.h"
#include "transfer/rma.h"
#include "transfer/rma_by_accumulate.h"
#include "transfer/strided_shape.h"

namespace armcix {

StridedShape make_shape(const char* call, const int* local_stride, const char* local_name, const int* remote_stride,
                        const char* remote_name, const int* count, int levels) {
  // ARMCI_MAX_STRIDE_LEVEL itself is legal, as in classic ARMCI (count[] then has 9 entries).
  ARMCIX_REQUIRE(levels >= 0 && levels <= ARMCI_MAX_STRIDE_LEVEL, call,
                 "argument 'stride_levels' = %d is out of range (0..%d)", levels, ARMCI_MAX_STRIDE_LEVEL);
  ARMCIX_REQUIRE(count != nullptr, call, "argument 'count' is NULL");
  if (levels > 0) {
    ARMCIX_REQUIRE(local_stride != nullptr, call, "argument '%s' is NULL", local_name);
    ARMCIX_REQUIRE(remote_stride != nullptr, call, "argument '%s' is NULL", remote_name);
  }
  StridedShape s;
  s.levels = levels;
  s.nseg = 1;
  for (int i = 0; i <= levels; ++i) {
    ARMCIX_REQUIRE(count[i] >= 0, call, "argument 'count[%d]' = %d is negative", i, count[i]);
    s.count[i] = count[i];
    if (i > 0) s.nseg *= static_cast<std::size_t>(count[i]);
  }
  // Each level's stride must clear the block below it, or segments would overlap (a put would write the
  // same remote bytes twice in one operation).  Levels with a count of 1 never use their stride.
  std::size_t lext = static_cast<std::size_t>(count[0]), rext = lext;
  for (int i = 1; i <= levels; ++i) {
    long ls = local_stride[i - 1], rs = remote_stride[i - 1];
    if (count[i] > 1) {
      ARMCIX_REQUIRE(ls >= 0 && static_cast<std::size_t>(ls) >= lext, call,
                     "argument '%s[%d]' = %ld is smaller than the %zu-byte block it strides over", local_name, i - 1,
                     ls, lext);
      ARMCIX_REQUIRE(rs >= 0 && static_cast<std::size_t>(rs) >= rext, call,
                     "argument '%s[%d]' = %ld is smaller than the %zu-byte block it strides over", remote_name, i - 1,
                     rs, rext);
      lext += static_cast<std::size_t>(count[i] - 1) * static_cast<std::size_t>(ls);
      rext += static_cast<std::size_t>(count[i] - 1) * static_cast<std::size_t>(rs);
    }
    s.lstride[i - 1] = ls;
    s.rstride[i - 1] = rs;
  }
  s.lextent = lext;
  s.rextent = rext;
  return s;
}

namespace {

// An accumulate's type and scale, checked against the bytes of its segments (puts and gets have none).
struct AccSide {
  const AccType* type = nullptr;
  const void* scale = nullptr;
};
AccSide checked_acc(const char* call, XferOp op, const AccArgs* accargs, int segment_bytes) {
  if (op != XferOp::Acc) return {};
  AccSide a{&acc_type(call, accargs->datatype), accargs->scale};
  ARMCIX_REQUIRE(a.scale != nullptr, call, "argument 'scale' is NULL");
  ARMCIX_REQUIRE(segment_bytes % a.type->elem_bytes == 0, call,
                 "argument 'count[0]' = %d is not a multiple of the %s element size (%d)", segment_bytes, a.type->name,
                 a.type->elem_bytes);
  return a;
}

// Which of src and dst is this process's and which the target's.
struct Sides {
  char* local;
  char* remote;
  const char* remote_name;
};
Sides sides_of(XferOp op, const void* src, void* dst) {
  char* const s = static_cast<char*>(const_cast<void*>(src));
  char* const d = static_cast<char*>(dst);
  return op == XferOp::Get ? Sides{d, s, "src_ptr"} : Sides{s, d, "dst_ptr"};
}

// One segment to a target resolved and placed elsewhere than here (engine Contiguous): the contiguous operation.
void contiguous(const char* call, XferOp op, const AccSide& a, const GmrRef& r, TargetPath path, char* local, int bytes,
                int proc, Request* req) {
  switch (op) {
    case XferOp::Put:
      return contig_put(r, path, local, bytes, proc, req);
    case XferOp::Get:
      return contig_get(call, r, path, local, bytes, proc, req);
    case XferOp::Acc:
      return contig_acc(call, r, path, *a.type, a.scale, local, bytes, proc, req);
  }
}

// Stride levels 0 (GA's 1-D sections), or a count of 1 at every level above the segment (one column of a 2-D
// section, one element), is one segment: validated as make_shape and strided() below would (the same
// messages, in the same order), then the operation strided() ends in for it: the node-local backend (engine
// Local) or the contiguous operation on the target (engine Contiguous).  Without the shape, the engine choice
// and their copies, a node-local 8-byte ARMCI_GetS costs about what ARMCI_Get does (benchmarks/local_get_ir.c).
void one_segment(const char* call, XferOp op, const AccArgs* accargs, const void* src, void* dst, int bytes, int proc,
                 Request* req) {
  ARMCIX_REQUIRE(bytes >= 0, call, "argument 'count[0]' = %d is negative", bytes);
  const AccSide a = checked_acc(call, op, accargs, bytes);
  if (bytes == 0) return;
  ARMCIX_REQUIRE(src != nullptr, call, "argument 'src_ptr' is NULL");
  ARMCIX_REQUIRE(dst != nullptr, call, "argument 'dst_ptr' is NULL");
  const Sides sd = sides_of(op, src, dst);
  const GmrRef r = resolve_target(call, sd.remote_name, proc, sd.remote, static_cast<std::size_t>(bytes));
  const TargetPath path = target_path(r, op, proc);
  if (path == TargetPath::NodeLocal) {
    profile_path(StridedEngine::Local);
    switch (op) {
      case XferOp::Put:
        return local_put(r, sd.local, static_cast<std::size_t>(bytes));
      case XferOp::Get:
        return local_get(r, sd.local, static_cast<std::size_t>(bytes));
      case XferOp::Acc:
        return local_acc(r, *a.type, a.scale, sd.local, static_cast<std::size_t>(bytes));
    }
    return;
  }
  profile_path(StridedEngine::Contiguous);
  contiguous(call, op, a, r, path, sd.local, bytes, proc, req);
}

// Whether every level above the segment repeats once (make_shape would fold them away; their strides are never
// used, only required to be non-NULL).
inline bool single_segment(const int* count, int levels) {
  for (int i = 1; i <= levels; ++i)
    if (count[i] != 1) return false;
  return true;
}

// Every other call: the shape, then an engine.  Apart, so that one_segment's callers do not set up its frame.
[[gnu::noinline]] void shaped(const char* call, XferOp op, const AccArgs* accargs, const void* src,
                              const int* src_stride, void* dst, const int* dst_stride, const int* count, int levels,
                              int proc, Request* req) {
  const bool remote_is_dst = op != XferOp::Get;
  StridedShape s = remote_is_dst
                       ? make_shape(call, src_stride, "src_stride_arr", dst_stride, "dst_stride_arr", count, levels)
                       : make_shape(call, dst_stride, "dst_stride_arr", src_stride, "src_stride_arr", count, levels);
  const AccSide a = checked_acc(call, op, accargs, count[0]);
  if (s.empty()) return;
  ARMCIX_REQUIRE(src != nullptr, call, "argument 'src_ptr' is NULL");
  ARMCIX_REQUIRE(dst != nullptr, call, "argument 'dst_ptr' is NULL");
  ARMCIX_REQUIRE(s.total_bytes() <= static_cast<std::size_t>(INT32_MAX), call,
                 "transfer of %zu bytes exceeds the 2 GiB an ARMCI call can move", s.total_bytes());
  fold_contiguous_levels(s);
  const Sides sd = sides_of(op, src, dst);
  const GmrRef r = resolve_target(call, sd.remote_name, proc, sd.remote, s.rextent);
  const TargetPath path = target_path(r, op, proc);
  const StridedEngine engine =
      choose_strided(s, op, rt().config, path, path == TargetPath::OtherNode && rma_by_accumulate(proc));
  profile_path(engine);
  // A strided get from my own slice through MPI pokes MPI's progress, as mpi_get does (transfer/mpi_backend.h):
  // Open MPI's osc ucx completes it in place, and a process polling its memory this way never served a put
  // from another node (ARMCI_SHM=0, 2 simulated hosts: hung at once).  local_strided and mpi_get poke
  // themselves.
  if (op == XferOp::Get && proc == rt().me && engine != StridedEngine::Local && engine != StridedEngine::Contiguous)
    poke_progress(r.gmr);
  switch (engine) {
    case StridedEngine::Local:
      return local_strided(op, a.type, a.scale, s, sd.local, r);
    case StridedEngine::Contiguous:  // one segment after folding
      return contiguous(call, op, a, r, path, sd.local, s.count[0], proc, req);
    default:  // Direct, Iov, Pack, PackStream
      return mpi_strided(engine, op, a.type, a.scale, s, sd.local, r, req);
  }
}

}  // namespace

void strided(const char* call, XferOp op, const AccArgs* accargs, const void* src, const int* src_stride, void* dst,
             const int* dst_stride, const int* count, int levels, int proc, Request* req) {
  require_initialized(call);
  check_rank(call, "proc", proc);
  if (count != nullptr && levels >= 0 && levels <= ARMCI_MAX_STRIDE_LEVEL && single_segment(count, levels) &&
      (levels == 0 || (src_stride != nullptr && dst_stride != nullptr)))
    return one_segment(call, op, accargs, src, dst, count[0], proc, req);
  shaped(call, op, accargs, src, src_stride, dst, dst_stride, count, levels, proc, req);
}

void local_strided_copy(const char* call, void* ptr, int levels, const int* stride, const int* count, char* buf,
                        bool to_buffer) {
  ARMCIX_REQUIRE(ptr != nullptr, call, "argument 'ptr' is NULL");
  ARMCIX_REQUIRE(buf != nullptr, call, "argument 'buf' is NULL");
  StridedShape s = make_shape(call, stride, "stride_arr", stride, "stride_arr", count, levels);
  if (s.empty()) return;
  char* base = static_cast<char*>(ptr);
  const std::size_t seg = s.count[0];
  for_each_segment(s, [&](long off, long) {
    if (to_buffer)
      std::memcpy(buf, base + off, seg);
    else
      std::memcpy(base + off, buf, seg);
    buf += seg;
  });
}

}  // namespace armcix
