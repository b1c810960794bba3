// The MPI backend: every transfer to a target that reached_by_load_store (transfer/node_local.h) sends
// elsewhere moves here, through MPI RMA on the region's window -- contiguous, strided and I/O-vector
// put/get/accumulate and Rmw's fetch-and-add and swap --, with the same operations as the node-local backend.
// The dispatch (contig.cc, strided.cc, iov.cc, rmw.cc) validates the arguments, resolves the target, decides
// its locality once and the path or engine (transfer/engine_choice.h), then calls one function below with the
// resolved target and that choice; nothing here resolves or decides the locality again.  Every operation
// makes the ordering check of its range first (completion/ordering.h: prepare_op), notes what it left
// pending (note_issued) and completes locally (complete_local) or hands that to the request.
// The contiguous operations are inline here, as node_local.h's, and forced into the dispatch: on every
// contiguous call's path, where a call and its arguments cost more than the choice (benchmarks/contig_path.c
// counts them).  The engines behind the strided and vector operations are mpi_strided.cc and mpi_iov.cc, Rmw
// mpi_rmw.cc, what they all share mpi_backend.cc.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "acc/acc_types.h"
#include "base/error.h"
#include "base/state.h"
#include "completion/ordering.h"
#include "nb/request.h"
#include "topo/nodes.h"
#include "transfer/engine_choice.h"
#include "transfer/rma.h"
#include "transfer/rma_by_accumulate.h"
#include "transfer/staging.h"
#include "transfer/strided_shape.h"
#include "wait/wait.h"

namespace armcix {

// Local completion of the operations just issued to (g, wr): now (flush_local_pair, completion/ordering.h, beside
// the remote completion flush_pair) or when `req` completes.
void complete_local(Gmr* g, int wr, Request* req);

// Whether a blocking accumulate of `bytes` through MPI to r's slice goes from a held copy: exactly when a
// contiguous one of that size would (the strided engines pack into the held copy).
bool acc_from_held_copy(const GmrRef& r, std::size_t bytes, int proc);
// Whether a put of `bytes` through MPI to r's slice goes ordered from a held copy (MPI_Accumulate(MPI_REPLACE),
// completed with the pair's next flush): exactly when a contiguous one of that size that overlaps nothing
// pending would (the strided engines pack into the held copy).
bool put_from_held_copy(const GmrRef& r, std::size_t bytes, int proc);

// ---- Contiguous: `path` is choose_contig's, never ContigPath::Local ----------------------------------------

[[gnu::always_inline]] inline void mpi_put(const GmrRef& r, ContigPath path, const void* src, int bytes, int proc,
                                           Request* req) {
  const MPI_Aint lo = r.disp, hi = r.disp + bytes;
  if (path == ContigPath::OrderedPut) {
    prepare_ordered_put(r.gmr, r.win_rank, lo, hi);
    void* copy = hold_put_copy(r.gmr, r.win_rank, src, static_cast<std::size_t>(bytes));
    ARMCIX_MPI(MPI_Accumulate(copy, bytes, MPI_BYTE, mpi_target(r.gmr, r.win_rank), mpi_disp(r.gmr, r.win_rank, lo),
                              bytes, MPI_BYTE, MPI_REPLACE, r.gmr->win));
    note_ordered_put(r.gmr, r.win_rank, lo, hi);
    return;
  }
  if (path == ContigPath::HeldCopy) {  // complete with the pair's next flush
    prepare_op(r.gmr, r.win_rank, XferOp::Put, lo, hi);
    void* copy = hold_put_copy(r.gmr, r.win_rank, src, static_cast<std::size_t>(bytes));
    ARMCIX_MPI(MPI_Put(copy, bytes, MPI_BYTE, mpi_target(r.gmr, r.win_rank), mpi_disp(r.gmr, r.win_rank, lo), bytes,
                       MPI_BYTE, r.gmr->win));
    note_issued(r.gmr, r.win_rank, XferOp::Put, lo, hi);
    return;
  }
  // ContigPath::Flushed.  A put that goes as MPI_Accumulate(MPI_REPLACE) is an ordered put to the pair's state:
  // a later one to the same bytes streams behind it without a flush.
  const bool by_acc = rma_by_accumulate(proc);
  prepare_op(r.gmr, r.win_rank, XferOp::Put, lo, hi, by_acc);
  Staged origin = stage_origin(src, bytes);
  ARMCIX_MPI(put_or_replace(by_acc, origin.ptr, bytes, MPI_BYTE, mpi_target(r.gmr, r.win_rank),
                            mpi_disp(r.gmr, r.win_rank, lo), bytes, MPI_BYTE, r.gmr->win));
  note_issued(r.gmr, r.win_rank, XferOp::Put, lo, hi, false, by_acc);
  complete_local(r.gmr, r.win_rank, req);
  origin.hand_to(req);
}

[[gnu::always_inline]] inline void mpi_get(const char* call, const GmrRef& r, ContigPath path, void* dst, int bytes,
                                           int proc, Request* req) {
  const MPI_Aint lo = r.disp, hi = r.disp + bytes;
  prepare_op(r.gmr, r.win_rank, XferOp::Get, lo, hi);
  // A get from my own slice through MPI (ARMCI_SHM=0) may complete in place without MPI's progress engine
  // (Open MPI's osc ucx), and so may waiting for its request, so a process polling its own memory this way
  // for a flag another node puts there never served that put, and hung
  // (doc/user-guide.md, "MPI work-arounds by version").  As for Rmw (mpi_rmw.cc) and the strided and
  // vector engines.
  if (proc == rt().me) poke_progress(r.gmr);
  Staged target = stage_result(dst, bytes);
  const bool by_acc = get_by_accumulate(static_cast<std::size_t>(bytes), proc);
  if (path == ContigPath::OwnRequest || path == ContigPath::HandleRequest) {
    MPI_Request mreq;
    ARMCIX_MPI(rget_or_no_op(by_acc, target.ptr, bytes, MPI_BYTE, mpi_target(r.gmr, r.win_rank),
                             mpi_disp(r.gmr, r.win_rank, lo), bytes, MPI_BYTE, r.gmr->win, &mreq));
    if (path == ContigPath::OwnRequest) {
      wait_for_served(call, &mreq, server_of(r.gmr, r.win_rank));
      target.copy_out_to(dst, bytes, nullptr);
      return;
    }
    wake_server(r.gmr, r.win_rank);
    request_add_mpi(req, mreq, MpiOpTarget{r.gmr, r.win_rank, true, note_request_get(r.gmr, r.win_rank)});
    target.copy_out_to(dst, bytes, req);
    return;
  }
  ARMCIX_MPI(get_or_no_op(by_acc, target.ptr, bytes, MPI_BYTE, mpi_target(r.gmr, r.win_rank),
                          mpi_disp(r.gmr, r.win_rank, lo), bytes, MPI_BYTE, r.gmr->win));
  complete_local(r.gmr, r.win_rank, req);
  note_issued(r.gmr, r.win_rank, XferOp::Get, lo, hi, req != nullptr);
  target.copy_out_to(dst, bytes, req);
}

// dst += scale * src, in pieces of at most kContigAuto.acc_piece_bytes to another node (transfer/rma.h).
[[gnu::always_inline]] inline void mpi_acc(const char* call, const GmrRef& r, ContigPath path, const AccType& t,
                                           const void* scale, const void* src, int bytes, int proc, Request* req) {
  prepare_op(r.gmr, r.win_rank, XferOp::Acc, r.disp, r.disp + bytes);
  // The scaled origin: in a held copy (completed and freed with the pair's next flush), else staged.
  Staged origin;
  if (path == ContigPath::HeldCopy) {
    origin.ptr = hold_copy_space(r.gmr, r.win_rank, static_cast<std::size_t>(bytes));
    if (scale_is_one(t, scale))
      std::memcpy(origin.ptr, src, static_cast<std::size_t>(bytes));
    else
      scale_copy(t, scale, src, origin.ptr, static_cast<std::size_t>(bytes));
  } else {
    origin = stage_scaled(t, scale, src, bytes);
  }
  // Equal pieces of at most kContigAuto.acc_piece_bytes to another node (transfer/rma.h).
  auto for_each_piece = [&](auto&& issue) __attribute__((always_inline)) {
    for_each_acc_piece(t, bytes, !on_my_node(proc), [&](MPI_Aint at, int len) {
      issue(static_cast<char*>(origin.ptr) + at, len, mpi_disp(r.gmr, r.win_rank, r.disp + at));
    });
  };
  switch (path) {
    case ContigPath::OwnRequest: {
      std::vector<MPI_Request> mreqs;
      for_each_piece([&](void* from, int len, MPI_Aint disp) {
        MPI_Request mreq;
        ARMCIX_MPI(MPI_Raccumulate(from, len, t.mpi_elem, mpi_target(r.gmr, r.win_rank), disp, len, t.mpi_elem, MPI_SUM,
                                   r.gmr->win, &mreq));
        mreqs.push_back(mreq);
      });
      note_issued(r.gmr, r.win_rank, XferOp::Acc, r.disp, r.disp + bytes);
      // All pieces are in flight; waiting for them in turn wakes the serving progress rank if it sleeps.
      for (MPI_Request& mreq : mreqs) wait_for_served(call, &mreq, server_of(r.gmr, r.win_rank));
      return;
    }
    case ContigPath::HandleRequest:
      for_each_piece([&](void* from, int len, MPI_Aint disp) {
        MPI_Request mreq;
        ARMCIX_MPI(MPI_Raccumulate(from, len, t.mpi_elem, mpi_target(r.gmr, r.win_rank), disp, len, t.mpi_elem, MPI_SUM,
                                   r.gmr->win, &mreq));
        request_add_mpi(req, mreq, MpiOpTarget{r.gmr, r.win_rank, false, 0});
      });
      note_issued(r.gmr, r.win_rank, XferOp::Acc, r.disp, r.disp + bytes);
      wake_server(r.gmr, r.win_rank);
      origin.hand_to(req);
      return;
    default:  // HeldCopy, Flushed
      for_each_piece([&](void* from, int len, MPI_Aint disp) {
        ARMCIX_MPI(MPI_Accumulate(from, len, t.mpi_elem, mpi_target(r.gmr, r.win_rank), disp, len, t.mpi_elem, MPI_SUM,
                                  r.gmr->win));
      });
      note_issued(r.gmr, r.win_rank, XferOp::Acc, r.disp, r.disp + bytes);
      if (path == ContigPath::HeldCopy) {
        wake_server(r.gmr, r.win_rank);
        return;
      }
      complete_local(r.gmr, r.win_rank, req);
      origin.hand_to(req);
  }
}

// ---- Strided and I/O vector ---------------------------------------------------------------------------------

// Through `engine` (choose_strided's: Direct, Iov, Pack or PackStream); `local` is the local side's base (src
// of put/acc, dst of get), r the remote side's; t and scale only for accumulates.
void mpi_strided(StridedEngine engine, XferOp op, const AccType* t, const void* scale, const StridedShape& s,
                 char* local, const GmrRef& r, Request* req);

// The n segments of `bytes` each, local[i] <-> remote[i], all in r's slice (remote[i] are addresses in its
// owner's space), whose bytes [lo, hi) they span, through `engine` (choose_iov's: Batched or Direct).
void mpi_iov(IovEngine engine, XferOp op, const AccType* t, const void* scale, void* const* local, void* const* remote,
             int n, int bytes, const GmrRef& r, MPI_Aint lo, MPI_Aint hi, Request* req);

// ---- Rmw ----------------------------------------------------------------------------------------------------

// Fetch-and-add (`is_swap` false) or swap of `operand` with the word at r, of MPI type `type` (int or long);
// returns the old value.  MPI makes it atomic with every MPI accumulate on the same word.
template <typename T>
T mpi_rmw(const char* call, const GmrRef& r, MPI_Datatype type, T operand, bool is_swap, int proc);

}  // namespace armcix
