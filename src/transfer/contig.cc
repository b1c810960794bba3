// Contiguous put / get / accumulate.
#include <cstring>
#include <vector>

#include "acc/acc_types.h"
#include "base/error.h"
#include "base/state.h"
#include "gmr/ordering.h"
#include "nb/request.h"
#include "shm/node_path.h"
#include "topo/nodes.h"
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

// Blocking operations to another node complete by their own request (MPI_Rget / MPI_Raccumulate +
// MPI_Wait) instead of MPI_Win_flush_local: MPICH over UCX implements flush_local as a UCX endpoint flush,
// one more round trip after the data moved, while the request completes as soon as the get's data has
// arrived or the accumulate's origin buffer is free (what MPI and ARMCI ask of a blocking call;
// doc/performance.md, "Cost model to another node").  Non-blocking ones under an explicit handle do the
// same, the handle's wait completing the request (request_completes_by_mpi).
bool completes_by_request(int proc, const Request* req) {
  return req == nullptr && !on_my_node(proc);
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
  if (char* p = mapped(r)) {
    prepare_op(r.gmr, r.win_rank, XferOp::Put, r.disp, r.disp + bytes);
    std::memcpy(p, src, bytes);
    after_local_store();
    return;
  }
  if (prepare_put(r.gmr, r.win_rank, r.disp, r.disp + bytes, !on_my_node(proc))) {
    // From a copy held until the pair's next flush (gmr/ordering.h): nothing to wait for here, and nothing
    // for a request to complete.
    void* copy = hold_put_copy(r.gmr, r.win_rank, src, static_cast<std::size_t>(bytes));
    ARMCIX_MPI(MPI_Accumulate(copy, bytes, MPI_BYTE, mpi_target(r.gmr, r.win_rank), mpi_disp(r.gmr, r.win_rank, r.disp),
                              bytes, MPI_BYTE, MPI_REPLACE, r.gmr->win));
    note_ordered_put(r.gmr, r.win_rank, r.disp, r.disp + bytes);
    return;
  }
  if (req == nullptr && bytes <= kOrderedPutMaxBytes && plain_puts_from_held_copies() && !on_my_node(proc)) {
    // Blocking put to another node on Open MPI: from a held copy as well, so that it needs no local
    // completion (gmr/ordering.h); remote completion comes with the pair's next flush.
    void* copy = hold_put_copy(r.gmr, r.win_rank, src, static_cast<std::size_t>(bytes));
    ARMCIX_MPI(MPI_Put(copy, bytes, MPI_BYTE, mpi_target(r.gmr, r.win_rank), mpi_disp(r.gmr, r.win_rank, r.disp), bytes,
                       MPI_BYTE, r.gmr->win));
    note_issued(r.gmr, r.win_rank, XferOp::Put, r.disp, r.disp + bytes);
    return;
  }
  Staged origin = stage_origin(src, bytes);
  ARMCIX_MPI(MPI_Put(origin.ptr, bytes, MPI_BYTE, mpi_target(r.gmr, r.win_rank), mpi_disp(r.gmr, r.win_rank, r.disp),
                     bytes, MPI_BYTE, r.gmr->win));
  note_issued(r.gmr, r.win_rank, XferOp::Put, r.disp, r.disp + bytes);
  complete_local(r.gmr, r.win_rank, req);
  origin.hand_to(req);
}

void get(const char* call, const void* src, void* dst, int bytes, int proc, Request* req) {
  check_args(call, src, dst, bytes, proc);
  if (bytes == 0) return;
  GmrRef r = gmr_resolve(call, "src", proc, src, bytes);
  prepare_op(r.gmr, r.win_rank, XferOp::Get, r.disp, r.disp + bytes);
  if (const char* p = mapped(r)) {
    poke_progress(r.gmr);
    before_local_load();
    std::memcpy(dst, p, bytes);
    return;
  }
  // A get from my own slice through MPI (ARMCI_SHM=0) may complete in place without MPI's progress engine
  // (Open MPI's osc ucx), and so may waiting for its request, so a process polling its own memory this way
  // for a flag another node puts there never served that put, and hung
  // (doc/user-guide.md, "MPI work-arounds by version").  Every branch below, blocking or under a handle; the
  // node-local path pokes above.  As for ARMCI_Rmw (sync/rmw.cc) and the strided and vector engines.
  if (proc == rt().me) poke_progress(r.gmr);
  Staged target = stage_result(dst, bytes);
  if (completes_by_request(proc, req)) {
    MPI_Request mreq;
    ARMCIX_MPI(MPI_Rget(target.ptr, bytes, MPI_BYTE, mpi_target(r.gmr, r.win_rank), mpi_disp(r.gmr, r.win_rank, r.disp),
                        bytes, MPI_BYTE, r.gmr->win, &mreq));
    wait_for_served(call, &mreq, server_of(r.gmr, r.win_rank));
    target.copy_out_to(dst, bytes, nullptr);
    return;
  }
  if (request_completes_by_mpi(req, proc)) {  // the same, waited for by the handle (nb/request.h)
    MPI_Request mreq;
    ARMCIX_MPI(MPI_Rget(target.ptr, bytes, MPI_BYTE, mpi_target(r.gmr, r.win_rank), mpi_disp(r.gmr, r.win_rank, r.disp),
                        bytes, MPI_BYTE, r.gmr->win, &mreq));
    wake_server(r.gmr, r.win_rank);
    request_add_mpi(req, mreq, MpiOpTarget{r.gmr, r.win_rank, true, note_request_get(r.gmr, r.win_rank)});
    target.copy_out_to(dst, bytes, req);
    return;
  }
  ARMCIX_MPI(MPI_Get(target.ptr, bytes, MPI_BYTE, mpi_target(r.gmr, r.win_rank), mpi_disp(r.gmr, r.win_rank, r.disp),
                     bytes, MPI_BYTE, r.gmr->win));
  complete_local(r.gmr, r.win_rank, req);
  note_issued(r.gmr, r.win_rank, XferOp::Get, r.disp, r.disp + bytes, req != nullptr);
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
  prepare_op(r.gmr, r.win_rank, XferOp::Acc, r.disp, r.disp + bytes);
  if (mapped(r) && local_atomics(r)) {
    local_accumulate(r, t, scale, src, bytes);
    after_local_store();
    return;
  }
  const bool held_copy = req == nullptr && acc_from_held_copy(r.gmr, r.win_rank, static_cast<std::size_t>(bytes));
  // Held copy (gmr/ordering.h, accs_from_held_copies): the scaled origin goes to a copy the library keeps until
  // the pair's next flush, and the call returns without the accumulate's round trip through the target's CPU.
  Staged origin;
  if (held_copy) {
    origin.ptr = hold_copy_space(r.gmr, r.win_rank, static_cast<std::size_t>(bytes));
    if (scale_is_one(t, scale))
      std::memcpy(origin.ptr, src, static_cast<std::size_t>(bytes));
    else
      scale_copy(t, scale, src, origin.ptr, static_cast<std::size_t>(bytes));
  } else {
    origin = stage_scaled(t, scale, src, bytes);
  }
  // Equal pieces of at most kAccPieceBytes to another node (transfer/rma.h).
  auto for_each_piece = [&](auto&& issue) {
    for_each_acc_piece(t, bytes, !on_my_node(proc), [&](MPI_Aint at, int len) {
      issue(static_cast<char*>(origin.ptr) + at, len, mpi_disp(r.gmr, r.win_rank, r.disp + at));
    });
  };
  if (!held_copy && completes_by_request(proc, req)) {
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
  if (request_completes_by_mpi(req, proc)) {
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
  }
  for_each_piece([&](void* from, int len, MPI_Aint disp) {
    ARMCIX_MPI(MPI_Accumulate(from, len, t.mpi_elem, mpi_target(r.gmr, r.win_rank), disp, len, t.mpi_elem, MPI_SUM,
                              r.gmr->win));
  });
  note_issued(r.gmr, r.win_rank, XferOp::Acc, r.disp, r.disp + bytes);
  if (held_copy) {  // completes, and is freed, with the pair's next flush
    wake_server(r.gmr, r.win_rank);
    return;
  }
  complete_local(r.gmr, r.win_rank, req);
  origin.hand_to(req);
}

}  // namespace armcix
