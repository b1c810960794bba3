// The MPI backend's I/O-vector engines (ARMCI_IOV_METHOD; which one runs is choose_iov() in
// transfer/engine_choice.h, called by the dispatch, iov.cc, which also runs the conservative engine, CONSRV,
// as one contiguous operation per segment):
//   BATCHED  all operations of a descriptor, one completion (ARMCI_IOV_BATCHED_LIMIT caps ops per flush);
//   DIRECT   one operation with indexed datatypes on both sides.
#include <cstring>
#include <memory>
#include <vector>

#include "transfer/datatypes.h"
#include "transfer/mpi_backend.h"

namespace armcix {

namespace {

struct Desc {           // one descriptor's segments, seen from this operation's point of view
  void* const* local;   // local addresses (src of put/acc, dst of get)
  void* const* remote;  // remote addresses, all in one slice
  int bytes;
  int n;
};

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

void batched_engine(XferOp op, const AccType* t, const void* scale, const Desc& d, const GmrRef& r0, MPI_Aint lo,
                    MPI_Aint hi, Request* req) {
  Gmr* g = r0.gmr;
  const int wr = r0.win_rank;
  const char* base = g->base(wr);
  const int limit = rt().config.iov_batched_limit;
  bool scatter = false;
  auto packed = pack_local(op, t, scale, d, &scatter);
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
  complete_local(g, wr, req);
  note_issued(g, wr, op, lo, hi, req != nullptr);
  finish_packed(std::move(packed), scatter, d, req);
}

void direct_engine(XferOp op, const AccType* t, const void* scale, const Desc& d, const GmrRef& r0, MPI_Aint lo,
                   MPI_Aint hi, Request* req) {
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

}  // namespace

void mpi_iov(IovEngine engine, XferOp op, const AccType* t, const void* scale, void* const* local, void* const* remote,
             int n, int bytes, const GmrRef& r, MPI_Aint lo, MPI_Aint hi, Request* req) {
  const Desc d{local, remote, bytes, n};
  switch (engine) {
    case IovEngine::Batched:
      return batched_engine(op, t, scale, d, r, lo, hi, req);
    case IovEngine::Direct:
      return direct_engine(op, t, scale, d, r, lo, hi, req);
    case IovEngine::Local:
    case IovEngine::Consrv:
    case IovEngine::RejectOverlap:
    case IovEngine::RejectSeveralRegions:
      break;  // the dispatch's (iov.cc): never here
  }
}

}  // namespace armcix
