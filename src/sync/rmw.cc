// ARMCI_Rmw: fetch-and-add and swap (int and long) as MPI_Fetch_and_op with MPI_SUM / MPI_REPLACE.
// MPI makes these atomic with respect to each other and to every accumulate on the same location, which
// is exactly ARMCI's promise.  Correctness on MPICH 4.0 depends on the window kind: its
// shared-memory atomics on MPI_Win_allocate windows are broken (MPICH issue 6110), so our default windows
// come from MPI_Win_create, whose atomics MPICH performs correctly (see doc/design.md).
#include "sync/rmw.h"

#include <armci.h>

#include <cstdint>

#include "acc/acc_types.h"
#include "base/error.h"
#include "base/state.h"
#include "gmr/gmr.h"
#include "completion/ordering.h"
#include "topo/nodes.h"
#include "transfer/node_local.h"
#include "wait/wait.h"

namespace armcix {

namespace {

// The MPI path of one Rmw: `operand` added to (or swapped with) the target's value, which it returns.
// Fetch-and-add to another node completes by its own request, as ARMCI-MPI's does on MPICH: over the network
// MPICH's MPI_Win_flush_local costs more than the wait for the fetched value (the same as for blocking gets,
// transfer/contig.cc; doc/performance.md).  Swaps keep the flush: a request completes only the fetch
// (ARMCI-MPI adds a full flush for them).
template <typename T>
T mpi_rmw(const char* call, const GmrRef& r, MPI_Datatype type, T operand, bool is_swap, int proc) {
  T old = 0;
  if (!is_swap && !on_my_node(proc)) {
    MPI_Request req;
    ARMCIX_MPI(MPI_Rget_accumulate(&operand, 1, type, &old, 1, type, mpi_target(r.gmr, r.win_rank),
                                   mpi_disp(r.gmr, r.win_rank, r.disp), 1, type, MPI_SUM, r.gmr->win, &req));
    wait_for(call, &req, HandOff::Never);  // my own operation, not a wait for others
    return old;
  }
  ARMCIX_MPI(MPI_Fetch_and_op(&operand, &old, type, mpi_target(r.gmr, r.win_rank), mpi_disp(r.gmr, r.win_rank, r.disp),
                              is_swap ? MPI_REPLACE : MPI_SUM, r.gmr->win));
  wake_server(r.gmr, r.win_rank);
  ARMCIX_MPI(MPI_Win_flush_local(mpi_target(r.gmr, r.win_rank), r.gmr->win));
  // On my own slice MPI may complete the operation in place without running its progress engine (Open MPI's
  // osc ucx: self transport), and a process that spins on ARMCI_Rmw to itself -- the owner taking a spin
  // lock in its own memory, as the classic test_swap does -- then never serves the other processes' atomics:
  // the holder's release never lands and every process spins forever (Open MPI between hosts;
  // doc/user-guide.md, "Known MPI problems on Debian 12").
  if (proc == rt().me) poke_progress(r.gmr);
  return old;
}

// The four operations: X(ENUM, element type as its accumulate type, swap?).  The operand types int and long
// are ARMCI_ACC_INT and ARMCI_ACC_LNG exactly -- the same C type and MPI datatype an accumulate of that type
// uses, which is what makes an Rmw atomic with accumulates on the same word (see above) -- so they come from
// acc/acc_types.h's list rather than from a list of their own.
#define ARMCIX_RMW_OPS(X)                           \
  X(ARMCI_FETCH_AND_ADD, ARMCI_ACC_INT, false)      \
  X(ARMCI_FETCH_AND_ADD_LONG, ARMCI_ACC_LNG, false) \
  X(ARMCI_SWAP, ARMCI_ACC_INT, true)                \
  X(ARMCI_SWAP_LONG, ARMCI_ACC_LNG, true)
static_assert(ARMCI_FETCH_AND_ADD == 0 && ARMCI_FETCH_AND_ADD_LONG == 1 && ARMCI_SWAP == 2 && ARMCI_SWAP_LONG == 3,
              "ARMCI_Rmw operations differ from ARMCI-MPI's ABI (include/armci.h)");

// One Rmw on an operand of accumulate type AccT; `op` already validated.
template <int AccT>
int rmw_typed(const char* call, bool is_swap, void* ploc, void* prem, int value, int proc) {
  using T = typename AccTraits<AccT>::type;
  static_assert(AccTraits<AccT>::mpi_per_elem == 1, "MPI atomics act on one MPI element");
  ARMCIX_REQUIRE(ploc != nullptr, call, "argument 'ploc' is NULL");
  ARMCIX_REQUIRE(prem != nullptr, call, "argument 'prem' is NULL");
  const int size = AccTraits<AccT>::elem_bytes;
  ARMCIX_REQUIRE(reinterpret_cast<uintptr_t>(prem) % size == 0, call,
                 "argument 'prem' = %p is not aligned to the %d-byte operand", prem, size);
  GmrRef r = gmr_resolve(call, "prem", proc, prem, size);
  T* const out = static_cast<T*>(ploc);
  // Fetch-and-add adds the int `value` (converted to long for the long operations); swap stores *ploc.
  const T operand = is_swap ? *out : static_cast<T>(value);
  if (reached_by_load_store(r, XferOp::Acc)) {
    *out = local_rmw<T>(r, operand, is_swap);
    return 0;
  }
  prepare_op(r.gmr, r.win_rank, XferOp::Acc, r.disp, r.disp + size);
  *out = mpi_rmw<T>(call, r, AccTraits<AccT>::mpi_elem(), operand, is_swap, proc);
  // The fetched value proves the operation happened at the target: nothing is left pending.
  return 0;
}

}  // namespace

int rmw(const char* call, int op, void* ploc, void* prem, int value, int proc) {
  require_initialized(call);
  check_rank(call, "proc", proc);
  switch (op) {
#define ARMCIX_RMW_CASE(e, acc, swap) \
  case e:                             \
    return rmw_typed<acc>(call, swap, ploc, prem, value, proc);
    ARMCIX_RMW_OPS(ARMCIX_RMW_CASE)
#undef ARMCIX_RMW_CASE
    default:
#define ARMCIX_RMW_NAME(e, acc, swap) " " #e
      fail(call, "argument 'op' = %d is not an ARMCI_Rmw operation (one of" ARMCIX_RMW_OPS(ARMCIX_RMW_NAME) ")", op);
#undef ARMCIX_RMW_NAME
  }
}

}  // namespace armcix
