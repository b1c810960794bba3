// ARMCI_Rmw: fetch-and-add and swap (int and long) as MPI_Fetch_and_op with MPI_SUM / MPI_REPLACE.
// MPI makes these atomic with respect to each other and to every accumulate on the same location, which
// is exactly ARMCI's promise.  Correctness on MPICH 4.0 depends on the window kind: its
// shared-memory atomics on MPI_Win_allocate windows are broken (MPICH issue 6110), so our default windows
// come from MPI_Win_create, whose atomics MPICH performs correctly (see doc/design.md).
#include "sync/rmw.h"

#include <armci.h>

#include <cstdint>

#include "base/error.h"
#include "base/state.h"
#include "gmr/gmr.h"
#include "gmr/ordering.h"
#include "transfer/node_local.h"
#include "topo/nodes.h"
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

}  // namespace

int rmw(const char* call, int op, void* ploc, void* prem, int value, int proc) {
  require_initialized(call);
  check_rank(call, "proc", proc);
  ARMCIX_REQUIRE(op >= ARMCI_FETCH_AND_ADD && op <= ARMCI_SWAP_LONG, call,
                 "argument 'op' = %d is not an ARMCI_Rmw operation (ARMCI_FETCH_AND_ADD, ARMCI_FETCH_AND_ADD_LONG, "
                 "ARMCI_SWAP, ARMCI_SWAP_LONG)",
                 op);
  ARMCIX_REQUIRE(ploc != nullptr, call, "argument 'ploc' is NULL");
  ARMCIX_REQUIRE(prem != nullptr, call, "argument 'prem' is NULL");
  const bool is_long = op == ARMCI_FETCH_AND_ADD_LONG || op == ARMCI_SWAP_LONG;
  const bool is_swap = op == ARMCI_SWAP || op == ARMCI_SWAP_LONG;
  const int size = is_long ? static_cast<int>(sizeof(long)) : static_cast<int>(sizeof(int));
  ARMCIX_REQUIRE(reinterpret_cast<uintptr_t>(prem) % size == 0, call,
                 "argument 'prem' = %p is not aligned to the %d-byte operand", prem, size);
  GmrRef r = gmr_resolve(call, "prem", proc, prem, size);
  prepare_op(r.gmr, r.win_rank, XferOp::Acc, r.disp, r.disp + size);
  if (char* p = mapped(r); p && local_atomics(r)) {
    // Hardware atomics: every Rmw on this allocation comes from this node, so they all meet here.  The
    // slice lock makes them atomic with node-local accumulates too, as MPI's atomics are with MPI
    // accumulates on the other path (an uncontended lock is two more atomic operations).
    SliceLock lock(r.gmr->slice_lock(r.win_rank));
    if (is_long) {
      long* loc = reinterpret_cast<long*>(p);
      long v = is_swap ? __atomic_exchange_n(loc, *static_cast<long*>(ploc), __ATOMIC_SEQ_CST)
                       : __atomic_fetch_add(loc, static_cast<long>(value), __ATOMIC_SEQ_CST);
      *static_cast<long*>(ploc) = v;
    } else {
      int* loc = reinterpret_cast<int*>(p);
      int v = is_swap ? __atomic_exchange_n(loc, *static_cast<int*>(ploc), __ATOMIC_SEQ_CST)
                      : __atomic_fetch_add(loc, value, __ATOMIC_SEQ_CST);
      *static_cast<int*>(ploc) = v;
    }
    return 0;
  }
  if (is_long)
    *static_cast<long*>(ploc) =
        mpi_rmw<long>(call, r, MPI_LONG, is_swap ? *static_cast<long*>(ploc) : static_cast<long>(value), is_swap, proc);
  else
    *static_cast<int*>(ploc) =
        mpi_rmw<int>(call, r, MPI_INT, is_swap ? *static_cast<int*>(ploc) : value, is_swap, proc);
  // The fetched value proves the operation happened at the target: nothing is left pending.
  return 0;
}

}  // namespace armcix
