// I/O-vector put / get / accumulate (armci_giov_t descriptors), the dispatch: validate every descriptor,
// resolve its remote segments, decide their locality once and the engine (ARMCI_IOV_METHOD; choose_iov() in
// transfer/engine_choice.h), then issue each descriptor through it:
//   local    one allocation mapped here: the node-local backend (local_iov, transfer/node_local.h);
//   CONSRV   one blocking contiguous operation per segment on the target resolved and placed here (contig_put /
//            contig_get / contig_acc, transfer/paths.h); takes anything, including overlapping segments and
//            segments in several allocations (a non-blocking call is complete when it returns);
//   BATCHED, DIRECT  the MPI backend (mpi_iov, transfer/mpi_iov.cc);
//   AUTO     checks the descriptor (one allocation? written side free of overlap, by the AVL conflict tree)
//            and uses DIRECT when safe, CONSRV otherwise.  Safe by default, unlike ARMCI-MPI.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acc/acc_types.h"
#include "base/error.h"
#include "base/state.h"
#include "completion/ordering.h"
#include "transfer/conflict_tree.h"
#include "transfer/engine_choice.h"
#include "transfer/paths.h"
#include "transfer/rma.h"

namespace armcix {

namespace {

struct Desc {     // one validated descriptor, seen from this operation's point of view
  void** local;   // local addresses (src of put/acc, dst of get)
  void** remote;  // remote addresses
  const char* local_name;
  const char* remote_name;
  int bytes;
  int n;
};

// The single region every remote segment lies in, or gmr == nullptr if they span several; then `each` gets
// every segment's target.  Fails (naming the segment) if a segment is in none.
GmrRef single_region(const char* call, const Desc& d, int proc, int idx, std::vector<GmrRef>* each) {
  char arg[64];
  std::snprintf(arg, sizeof arg, "iov[%d].%s[0]", idx, d.remote_name);
  GmrRef first = resolve_target(call, arg, proc, d.remote[0], d.bytes);
  Gmr* g = first.gmr;
  const char* lo = g->base(first.win_rank);
  const char* hi = lo + g->size(first.win_rank);
  bool single = true;
  for (int i = 1; i < d.n; ++i) {
    const char* p = static_cast<const char*>(d.remote[i]);
    const bool in_first = p >= lo && p + d.bytes <= hi;
    if (in_first && single) continue;
    if (single) {  // the first segment outside the first region: the ones before it are in that region
      single = false;
      each->reserve(static_cast<std::size_t>(d.n));
      for (int j = 0; j < i; ++j)
        each->push_back(GmrRef{g, first.win_rank, static_cast<const char*>(d.remote[j]) - lo});
    }
    if (in_first) {
      each->push_back(GmrRef{g, first.win_rank, p - lo});
      continue;
    }
    std::snprintf(arg, sizeof arg, "iov[%d].%s[%d]", idx, d.remote_name, i);
    each->push_back(resolve_target(call, arg, proc, p, d.bytes));  // fails if outside every allocation
  }
  if (!single) first.gmr = nullptr;
  return first;
}

// Index of a segment of `ptrs` that overlaps an earlier one (*other), or -1.
int first_overlap(void* const* ptrs, int n, int bytes, int* other) {
  int later = -1;
  return segments_overlap(ptrs, n, bytes, other, &later) ? later : -1;
}

// Bounding displacement range of a descriptor's remote segments in the slice starting at `base`.
void remote_span(const Desc& d, const char* base, MPI_Aint* lo, MPI_Aint* hi) {
  const char* min = static_cast<const char*>(d.remote[0]);
  const char* max = min;
  for (int i = 1; i < d.n; ++i) {
    const char* p = static_cast<const char*>(d.remote[i]);
    min = p < min ? p : min;
    max = p > max ? p : max;
  }
  *lo = min - base;
  *hi = max - base + d.bytes;
}

// Validates descriptor `idx` (naming `call`) and views it from this operation's side; false if it moves
// nothing.
bool read_descriptor(const char* call, XferOp op, const AccType* t, const armci_giov_t& v, int idx, Desc* out) {
  ARMCIX_REQUIRE(v.bytes >= 0, call, "argument 'iov[%d].bytes' = %d is negative", idx, v.bytes);
  ARMCIX_REQUIRE(v.ptr_array_len >= 0, call, "argument 'iov[%d].ptr_array_len' = %d is negative", idx, v.ptr_array_len);
  if (v.bytes == 0 || v.ptr_array_len == 0) return false;
  ARMCIX_REQUIRE(v.src_ptr_array != nullptr, call, "argument 'iov[%d].src_ptr_array' is NULL", idx);
  ARMCIX_REQUIRE(v.dst_ptr_array != nullptr, call, "argument 'iov[%d].dst_ptr_array' is NULL", idx);
  if (t)
    ARMCIX_REQUIRE(v.bytes % t->elem_bytes == 0, call,
                   "argument 'iov[%d].bytes' = %d is not a multiple of the %s "
                   "element size (%d)",
                   idx, v.bytes, t->name, t->elem_bytes);
  // The engines count a descriptor's elements in an int (MPI's counts), as the strided path caps a call.
  const long long total = static_cast<long long>(v.bytes) * v.ptr_array_len;
  ARMCIX_REQUIRE(total <= INT32_MAX, call,
                 "argument 'iov[%d]': %d segments of %d bytes (%lld bytes) exceed the 2 GiB an ARMCI call can move "
                 "in one descriptor",
                 idx, v.ptr_array_len, v.bytes, total);
  Desc& d = *out;
  bool remote_is_dst = op != XferOp::Get;
  d.local = remote_is_dst ? v.src_ptr_array : v.dst_ptr_array;
  d.remote = remote_is_dst ? v.dst_ptr_array : v.src_ptr_array;
  d.local_name = remote_is_dst ? "src_ptr_array" : "dst_ptr_array";
  d.remote_name = remote_is_dst ? "dst_ptr_array" : "src_ptr_array";
  d.bytes = v.bytes;
  d.n = v.ptr_array_len;
  for (int i = 0; i < d.n; ++i) {
    ARMCIX_REQUIRE(d.local[i] != nullptr, call, "argument 'iov[%d].%s[%d]' is NULL", idx, d.local_name, i);
    ARMCIX_REQUIRE(d.remote[i] != nullptr, call, "argument 'iov[%d].%s[%d]' is NULL", idx, d.remote_name, i);
  }
  return true;
}

// One descriptor, checked and with its engine chosen, not yet issued.
struct Planned {
  Desc d;
  GmrRef r;                                 // the one region's target (r.gmr == nullptr: the segments span several)
  std::vector<GmrRef> each;                 // ... and then each segment's
  TargetPath where = TargetPath::SameNode;  // the one region's locality, decided once
  IovEngine engine;
  bool moves;  // false: the descriptor moves nothing
};

// Validates descriptor `idx`, finds out what the engine choice needs to know and chooses the engine; fails
// for a choice that rejects the descriptor.  False if the descriptor moves nothing.
bool plan_descriptor(const char* call, XferOp op, const AccType* t, const armci_giov_t& v, int idx, int proc,
                     Planned* out) {
  Desc& d = out->d;
  if (!read_descriptor(call, op, t, v, idx, &d)) return false;
  out->r = single_region(call, d, proc, idx, &out->each);
  const GmrRef& r = out->r;
  const Config& cfg = rt().config;
  IovFacts f;
  f.one_region = r.gmr != nullptr;
  if (f.one_region) out->where = target_path(r, op, proc);
  f.node_local = f.one_region && out->where == TargetPath::NodeLocal;
  const IovChecks need = iov_checks_needed(op, cfg, f.one_region, f.node_local);
  // The side that gets written must not overlap itself within one flush interval: the remote side of a
  // put, the local side of a get.  Accumulates to overlapping locations are fine (MPI orders them).
  int other = -1, clash = -1;
  if (need.written_side) {
    clash = first_overlap(op == XferOp::Put ? d.remote : d.local, d.n, d.bytes, &other);
    f.written_overlaps = clash >= 0;
  }
  if (need.remote_side) {
    int ignored;
    f.remote_overlaps = first_overlap(d.remote, d.n, d.bytes, &ignored) >= 0;
  }
  out->engine = choose_iov(op, cfg, f);
  if (out->engine == IovEngine::RejectOverlap)
    fail(call, "segments %d and %d of 'iov[%d].%s' overlap; ARMCI_IOV_METHOD=%s cannot order them (use AUTO or CONSRV)",
         other, clash, idx, op == XferOp::Put ? d.remote_name : d.local_name, name_of(cfg.iov_method));
  if (out->engine == IovEngine::RejectSeveralRegions)
    fail(call, "the segments of 'iov[%d]' span several allocations; ARMCI_IOV_METHOD=%s needs one (use AUTO or CONSRV)",
         idx, name_of(cfg.iov_method));
  return true;
}

// CONSRV: per segment, one blocking contiguous operation on its target as plan_descriptor resolved it, whose
// locality is decided once, for the descriptor's one region or, when the segments span several, for each
// segment (the ordering check of each flushes overlapping puts between segments).
void consrv_engine(const char* call, XferOp op, const AccType* t, const void* scale, const Planned& p, int proc) {
  const Desc& d = p.d;
  const bool one_region = p.r.gmr != nullptr;
  const char* base = one_region ? p.r.gmr->base(p.r.win_rank) : nullptr;
  for (int i = 0; i < d.n; ++i) {
    const GmrRef r =
        one_region ? GmrRef{p.r.gmr, p.r.win_rank, static_cast<const char*>(d.remote[i]) - base} : p.each[i];
    const TargetPath where = one_region ? p.where : target_path(r, op, proc);
    switch (op) {
      case XferOp::Put:
        contig_put(r, where, d.local[i], d.bytes, proc, nullptr);
        break;
      case XferOp::Get:
        contig_get(call, r, where, d.local[i], d.bytes, proc, nullptr);
        break;
      case XferOp::Acc:
        contig_acc(call, r, where, *t, scale, d.local[i], d.bytes, proc, nullptr);
        break;
    }
  }
}

// Issues one planned descriptor through its engine.
void issue_descriptor(const char* call, XferOp op, const AccArgs* a, const AccType* t, const Planned& p, int proc,
                      Request* req) {
  const Desc& d = p.d;
  const GmrRef& r = p.r;
  const void* scale = a ? a->scale : nullptr;
  profile_path(p.engine);
  // A vector get from my own slice through MPI pokes MPI's progress, as mpi_get does (transfer/mpi_backend.h;
  // the conservative engine goes through it, local_iov pokes itself).
  if (op == XferOp::Get && proc == rt().me && r.gmr != nullptr &&
      (p.engine == IovEngine::Batched || p.engine == IovEngine::Direct))
    poke_progress(r.gmr);
  switch (p.engine) {
    case IovEngine::Local:  // one allocation: the segments in order, one ordering check for the span
    case IovEngine::Batched:
    case IovEngine::Direct: {
      MPI_Aint lo, hi;
      remote_span(d, r.gmr->base(r.win_rank), &lo, &hi);
      if (p.engine == IovEngine::Local) return local_iov(op, t, scale, d.local, d.remote, d.n, d.bytes, r, lo, hi);
      return mpi_iov(p.engine, op, t, scale, d.local, d.remote, d.n, d.bytes, r, lo, hi, req);
    }
    case IovEngine::Consrv:
      return consrv_engine(call, op, t, scale, p, proc);
    case IovEngine::RejectOverlap:
    case IovEngine::RejectSeveralRegions:
      break;  // failed in plan_descriptor
  }
}

}  // namespace

void iov(const char* call, XferOp op, const AccArgs* a, const armci_giov_t* desc, int len, int proc, Request* req) {
  require_initialized(call);
  check_rank(call, "proc", proc);
  ARMCIX_REQUIRE(len >= 0, call, "argument 'iov_len' = %d is negative", len);
  if (len == 0) return;
  ARMCIX_REQUIRE(desc != nullptr, call, "argument 'iov' is NULL");
  const AccType* t = nullptr;
  if (op == XferOp::Acc) {
    t = &acc_type(call, a->datatype);
    ARMCIX_REQUIRE(a->scale != nullptr, call, "argument 'scale' is NULL");
  }
  // Every descriptor is checked before any is issued: an error in a later one must not find the earlier
  // ones applied (an accumulate half done cannot be undone, and an error handler may return to the
  // program).  One descriptor, the common case, needs no table.
  Planned one;
  std::vector<Planned> many;
  Planned* plans = &one;
  if (len > 1) {
    many.resize(static_cast<std::size_t>(len));
    plans = many.data();
  }
  for (int i = 0; i < len; ++i) plans[i].moves = plan_descriptor(call, op, t, desc[i], i, proc, &plans[i]);
  for (int i = 0; i < len; ++i)
    if (plans[i].moves) issue_descriptor(call, op, a, t, plans[i], proc, req);
}

}  // namespace armcix
