// I/O-vector put / get / accumulate (armci_giov_t descriptors) and its engines (ARMCI_IOV_METHOD; which one
// runs is choose_iov() in transfer/engine_choice.h):
//   CONSRV   one blocking operation per segment; takes anything, including overlapping segments and
//            segments in several allocations (a non-blocking call is complete when it returns);
//   BATCHED  all operations of a descriptor, one completion (ARMCI_IOV_BATCHED_LIMIT caps ops per flush);
//   DIRECT   one operation with indexed datatypes on both sides;
//   AUTO     checks the descriptor (one allocation? written side free of overlap, by the AVL conflict tree)
//            and uses DIRECT when safe, CONSRV otherwise.  Safe by default, unlike ARMCI-MPI.
#include <cstdint>
#include <cstring>
#include <vector>

#include "acc/acc_types.h"
#include "base/error.h"
#include "base/state.h"
#include "completion/ordering.h"
#include "nb/request.h"
#include "transfer/conflict_tree.h"
#include "transfer/datatypes.h"
#include "transfer/engine_choice.h"
#include "transfer/node_local.h"
#include "transfer/paths.h"
#include "transfer/rma.h"
#include "transfer/staging.h"

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

// The single region every remote segment lies in, or gmr == nullptr if they span several.  Fails (naming
// the segment) if a segment is in none.
GmrRef single_region(const char* call, const Desc& d, int proc, int idx) {
  char arg[64];
  std::snprintf(arg, sizeof arg, "iov[%d].%s[0]", idx, d.remote_name);
  GmrRef first = gmr_resolve(call, arg, proc, d.remote[0], d.bytes);
  Gmr* g = first.gmr;
  const char* lo = g->base(first.win_rank);
  const char* hi = lo + g->size(first.win_rank);
  bool single = true;
  for (int i = 1; i < d.n; ++i) {
    const char* p = static_cast<const char*>(d.remote[i]);
    if (p >= lo && p + d.bytes <= hi) continue;
    std::snprintf(arg, sizeof arg, "iov[%d].%s[%d]", idx, d.remote_name, i);
    gmr_resolve(call, arg, proc, p, d.bytes);  // fails if outside every allocation
    single = false;
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

void issue_one(XferOp op, const AccType* t, void* local, const GmrRef& r, int bytes) {
  MPI_Datatype elem = t ? t->mpi_elem : MPI_BYTE;
  int n = t ? bytes / t->elem_bytes * t->mpi_per_elem : bytes;
  switch (op) {
    case XferOp::Put:
      ARMCIX_MPI(MPI_Put(local, n, elem, mpi_target(r.gmr, r.win_rank), mpi_disp(r.gmr, r.win_rank, r.disp), n, elem,
                         r.gmr->win));
      break;
    case XferOp::Get:
      ARMCIX_MPI(MPI_Get(local, n, elem, mpi_target(r.gmr, r.win_rank), mpi_disp(r.gmr, r.win_rank, r.disp), n, elem,
                         r.gmr->win));
      break;
    case XferOp::Acc:
      ARMCIX_MPI(MPI_Accumulate(local, n, elem, mpi_target(r.gmr, r.win_rank), mpi_disp(r.gmr, r.win_rank, r.disp), n,
                                elem, MPI_SUM, r.gmr->win));
      break;
  }
}

// Per segment: contiguous op through the common path (ordering flushes overlapping puts between segments).
void consrv_engine(const char* call, XferOp op, const AccArgs* a, const Desc& d, int proc) {
  for (int i = 0; i < d.n; ++i) {
    switch (op) {
      case XferOp::Put:
        put(call, d.local[i], d.remote[i], d.bytes, proc, nullptr);
        break;
      case XferOp::Get:
        get(call, d.remote[i], d.local[i], d.bytes, proc, nullptr);
        break;
      case XferOp::Acc:
        acc(call, a->datatype, a->scale, d.local[i], d.remote[i], d.bytes, proc, nullptr);
        break;
    }
  }
}

// Private copies of the local side when needed: scaled sources (acc), staged buffers (COPY method), and
// every accumulate source when `pack_every_acc` (the DIRECT engine, below).  Returns nullptr when the user's
// buffers can be used directly.
std::unique_ptr<char[]> pack_local(XferOp op, const AccType* t, const void* scale, const Desc& d, bool* scatter_after,
                                   bool pack_every_acc = false) {
  bool stage = false;
  for (int i = 0; i < d.n && !stage; ++i) stage = must_stage(d.local[i]);
  *scatter_after = op == XferOp::Get && stage;
  bool scale_needed = op == XferOp::Acc && (pack_every_acc || !scale_is_one(*t, scale));
  if (!stage && !scale_needed) return nullptr;
  auto buf = new_buffer(static_cast<std::size_t>(d.n) * d.bytes);
  if (op == XferOp::Get) return buf;
  for (int i = 0; i < d.n; ++i) {
    char* out = buf.get() + static_cast<std::size_t>(i) * d.bytes;
    if (op == XferOp::Acc)
      scale_copy(*t, scale, d.local[i], out, d.bytes);
    else
      std::memcpy(out, d.local[i], d.bytes);
  }
  return buf;
}

void finish_packed(std::unique_ptr<char[]> buf, bool scatter, const Desc& d, Request* req) {
  if (!buf) return;
  if (!scatter) {
    if (req) request_keep(req, std::move(buf));
    return;
  }
  std::vector<void*> dsts(d.local, d.local + d.n);
  const char* in = buf.get();
  int bytes = d.bytes;
  auto copy_out = [dsts, in, bytes] {
    for (std::size_t i = 0; i < dsts.size(); ++i) std::memcpy(dsts[i], in + i * bytes, bytes);
  };
  if (req) {
    request_on_complete(req, copy_out);
    request_keep(req, std::move(buf));
  } else {
    copy_out();
  }
}

void batched_engine(XferOp op, const AccType* t, const void* scale, const Desc& d, const GmrRef& r0, int proc,
                    Request* req) {
  Gmr* g = r0.gmr;
  const int wr = r0.win_rank;
  const char* base = g->base(wr);
  const int limit = rt().config.iov_batched_limit;
  bool scatter = false;
  auto packed = pack_local(op, t, scale, d, &scatter);
  MPI_Aint lo, hi;
  remote_span(d, base, &lo, &hi);
  prepare_op(g, wr, op, lo, hi);
  int since_flush = 0;
  for (int i = 0; i < d.n; ++i) {
    GmrRef r{g, wr, static_cast<const char*>(d.remote[i]) - base};
    void* local = packed ? packed.get() + static_cast<std::size_t>(i) * d.bytes : d.local[i];
    issue_one(op, t, local, r, d.bytes);
    if (limit > 0 && ++since_flush == limit) {
      flush_local_pair(g, wr);
      since_flush = 0;
    }
  }
  (void)proc;
  complete_local(g, wr, req);
  note_issued(g, wr, op, lo, hi, req != nullptr);
  finish_packed(std::move(packed), scatter, d, req);
}

void direct_engine(XferOp op, const AccType* t, const void* scale, const Desc& d, const GmrRef& r0, Request* req) {
  Gmr* g = r0.gmr;
  const int wr = r0.win_rank;
  const char* base = g->base(wr);
  MPI_Datatype elem = t ? t->mpi_elem : MPI_BYTE;
  int per_seg = t ? d.bytes / t->elem_bytes * t->mpi_per_elem : d.bytes;
  std::vector<MPI_Aint> displs(d.n);
  for (int i = 0; i < d.n; ++i) displs[i] = static_cast<const char*>(d.remote[i]) - base;
  OwnedType rtype = indexed_type(elem, per_seg, displs.data(), d.n);
  bool scatter = false;
  // An accumulate's origin is always one contiguous buffer here, never the user's segments as an hindexed
  // type from MPI_BOTTOM: Open MPI 4.1's osc ucx (its only one-sided path between hosts without RDMA)
  // crashes in the local reduction of such an accumulate (mca_op_avx under ompi_osc_ucx_accumulate;
  // IovRandom.AccVEveryType across 2 simulated hosts).  MPI reads a non-contiguous accumulate origin through
  // a pack anyway.
  auto packed = pack_local(op, t, scale, d, &scatter, /*pack_every_acc=*/true);
  void* origin;
  int ocount;
  MPI_Datatype otype;
  OwnedType ltype;
  if (packed) {
    origin = packed.get();
    ocount = d.n * per_seg;
    otype = elem;
  } else {
    for (int i = 0; i < d.n; ++i) MPI_Get_address(d.local[i], &displs[i]);
    ltype = indexed_type(elem, per_seg, displs.data(), d.n);
    origin = MPI_BOTTOM;
    ocount = 1;
    otype = ltype.get();
  }
  MPI_Aint lo, hi;
  remote_span(d, base, &lo, &hi);
  prepare_op(g, wr, op, lo, hi);
  switch (op) {
    case XferOp::Put:
      ARMCIX_MPI(MPI_Put(origin, ocount, otype, mpi_target(g, wr), mpi_disp(g, wr, 0), 1, rtype.get(), g->win));
      break;
    case XferOp::Get:
      ARMCIX_MPI(MPI_Get(origin, ocount, otype, mpi_target(g, wr), mpi_disp(g, wr, 0), 1, rtype.get(), g->win));
      break;
    case XferOp::Acc:
      ARMCIX_MPI(MPI_Accumulate(origin, ocount, otype, mpi_target(g, wr), mpi_disp(g, wr, 0), 1, rtype.get(), MPI_SUM,
                                g->win));
      break;
  }
  complete_local(g, wr, req);
  note_issued(g, wr, op, lo, hi, req != nullptr);
  finish_packed(std::move(packed), scatter, d, req);
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
  GmrRef r;
  IovEngine engine;
  bool moves;  // false: the descriptor moves nothing
};

// Validates descriptor `idx`, finds out what the engine choice needs to know and chooses the engine; fails
// for a choice that rejects the descriptor.  False if the descriptor moves nothing.
bool plan_descriptor(const char* call, XferOp op, const AccType* t, const armci_giov_t& v, int idx, int proc,
                     Planned* out) {
  Desc& d = out->d;
  if (!read_descriptor(call, op, t, v, idx, &d)) return false;
  out->r = single_region(call, d, proc, idx);
  const GmrRef& r = out->r;
  const Config& cfg = rt().config;
  IovFacts f;
  f.one_region = r.gmr != nullptr;
  f.node_local = f.one_region && reached_by_load_store(r, op);
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

// Issues one planned descriptor through its engine.
void issue_descriptor(const char* call, XferOp op, const AccArgs* a, const AccType* t, const Planned& p, int proc,
                      Request* req) {
  const Desc& d = p.d;
  const GmrRef& r = p.r;
  const void* scale = a ? a->scale : nullptr;
  profile_path(p.engine);
  // A vector get from my own slice through MPI pokes MPI's progress, as get() does (transfer/contig.cc; the
  // conservative engine goes through get(), local_iov pokes itself).
  if (op == XferOp::Get && proc == rt().me && r.gmr != nullptr &&
      (p.engine == IovEngine::Batched || p.engine == IovEngine::Direct))
    poke_progress(r.gmr);
  switch (p.engine) {
    case IovEngine::Local: {  // one allocation: the segments in order, one ordering check for the span
      MPI_Aint lo, hi;
      remote_span(d, r.gmr->base(r.win_rank), &lo, &hi);
      return local_iov(op, t, scale, d.local, d.remote, d.n, d.bytes, r, lo, hi);
    }
    case IovEngine::Consrv:
      return consrv_engine(call, op, a, d, proc);
    case IovEngine::Batched:
      return batched_engine(op, t, scale, d, r, proc, req);
    case IovEngine::Direct:
      return direct_engine(op, t, scale, d, r, req);
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
