// Contiguous put / get / accumulate: the path of each (choose_contig), then the node-local backend
// (transfer/node_local.h) or MPI.
#include <cstring>
#include <vector>

#include "acc/acc_types.h"
#include "base/error.h"
#include "base/state.h"
#include "completion/ordering.h"
#include "nb/request.h"
#include "topo/nodes.h"
#include "transfer/rma_by_accumulate.h"
#include "transfer/engine_choice.h"
#include "transfer/node_local.h"
#include "transfer/paths.h"
#include "transfer/rma.h"
#include "transfer/staging.h"
#include "wait/wait.h"

namespace armcix {

namespace {

void check_args(const char* call, const void* src, const void* dst, int bytes, int proc) {
  require_initialized(call);
  check_rank(call, "proc", proc);
  ARMCIX_REQUIRE(bytes >= 0, call, "argument 'bytes' = %d is negative", bytes);
  if (bytes > 0) {
    ARMCIX_REQUIRE(src != nullptr, call, "argument 'src' is NULL");
    ARMCIX_REQUIRE(dst != nullptr, call, "argument 'dst' is NULL");
  }
}

}  // namespace

void check_remote(const char* call, const char* arg, const void* addr, int bytes, int proc) {
  require_initialized(call);
  check_rank(call, "proc", proc);
  ARMCIX_REQUIRE(addr != nullptr, call, "argument '%s' is NULL", arg);
  gmr_resolve(call, arg, proc, addr, static_cast<std::size_t>(bytes));
}

void put(const char* call, const void* src, void* dst, int bytes, int proc, Request* req) {
  check_args(call, src, dst, bytes, proc);
  if (bytes == 0) return;
  GmrRef r = gmr_resolve(call, "dst", proc, dst, bytes);
  const MPI_Aint lo = r.disp, hi = r.disp + bytes;
  const ContigPath path = contig_path(r, XferOp::Put, bytes, proc, req);
  profile_path(path);
  if (path == ContigPath::Local) return local_put(r, src, static_cast<std::size_t>(bytes));
  if (path == ContigPath::OrderedPut) {
    prepare_ordered_put(r.gmr, r.win_rank, lo, hi);
    void* copy = hold_put_copy(r.gmr, r.win_rank, src, static_cast<std::size_t>(bytes));
    ARMCIX_MPI(MPI_Accumulate(copy, bytes, MPI_BYTE, mpi_target(r.gmr, r.win_rank), mpi_disp(r.gmr, r.win_rank, lo),
                              bytes, MPI_BYTE, MPI_REPLACE, r.gmr->win));
    note_ordered_put(r.gmr, r.win_rank, lo, hi);
    return;
  }
  prepare_op(r.gmr, r.win_rank, XferOp::Put, lo, hi);
  if (path == ContigPath::HeldCopy) {  // complete with the pair's next flush
    void* copy = hold_put_copy(r.gmr, r.win_rank, src, static_cast<std::size_t>(bytes));
    ARMCIX_MPI(MPI_Put(copy, bytes, MPI_BYTE, mpi_target(r.gmr, r.win_rank), mpi_disp(r.gmr, r.win_rank, lo), bytes,
                       MPI_BYTE, r.gmr->win));
    note_issued(r.gmr, r.win_rank, XferOp::Put, lo, hi);
    return;
  }
  Staged origin = stage_origin(src, bytes);  // ContigPath::Flushed
  ARMCIX_MPI(put_or_replace(rma_by_accumulate(proc), origin.ptr, bytes, MPI_BYTE, mpi_target(r.gmr, r.win_rank),
                            mpi_disp(r.gmr, r.win_rank, lo), bytes, MPI_BYTE, r.gmr->win));
  note_issued(r.gmr, r.win_rank, XferOp::Put, lo, hi);
  complete_local(r.gmr, r.win_rank, req);
  origin.hand_to(req);
}

void get(const char* call, const void* src, void* dst, int bytes, int proc, Request* req) {
  check_args(call, src, dst, bytes, proc);
  if (bytes == 0) return;
  GmrRef r = gmr_resolve(call, "src", proc, src, bytes);
  const MPI_Aint lo = r.disp, hi = r.disp + bytes;
  const ContigPath path = contig_path(r, XferOp::Get, bytes, proc, req);
  profile_path(path);
  if (path == ContigPath::Local) return local_get(r, dst, static_cast<std::size_t>(bytes));
  prepare_op(r.gmr, r.win_rank, XferOp::Get, lo, hi);
  // A get from my own slice through MPI (ARMCI_SHM=0) may complete in place without MPI's progress engine
  // (Open MPI's osc ucx), and so may waiting for its request, so a process polling its own memory this way
  // for a flag another node puts there never served that put, and hung
  // (doc/user-guide.md, "MPI work-arounds by version").  As for ARMCI_Rmw (sync/rmw.cc) and the strided and
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

void put_flag(const char* call, int* flag, int value, int proc) {
  fence_proc(proc);  // the data is remotely complete before the flag can be seen
  put(call, &value, flag, sizeof(int), proc, nullptr);
}

void acc(const char* call, int datatype, const void* scale, const void* src, void* dst, int bytes, int proc,
         Request* req) {
  check_args(call, src, dst, bytes, proc);
  const AccType& t = acc_type(call, datatype);
  ARMCIX_REQUIRE(scale != nullptr, call, "argument 'scale' is NULL");
  ARMCIX_REQUIRE(bytes % t.elem_bytes == 0, call,
                 "argument 'bytes' = %d is not a multiple of the %s element "
                 "size (%d)",
                 bytes, t.name, t.elem_bytes);
  if (bytes == 0) return;
  GmrRef r = gmr_resolve(call, "dst", proc, dst, bytes);
  const ContigPath path = contig_path(r, XferOp::Acc, bytes, proc, req);
  profile_path(path);
  if (path == ContigPath::Local) return local_acc(r, t, scale, src, static_cast<std::size_t>(bytes));
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
  auto for_each_piece = [&](auto&& issue) {
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

}  // namespace armcix
