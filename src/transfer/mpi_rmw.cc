// The MPI backend's Rmw (transfer/mpi_backend.h): fetch-and-add and swap (int and long) as MPI_Fetch_and_op
// or MPI_Rget_accumulate with MPI_SUM / MPI_REPLACE.  MPI makes these atomic with respect to each other and to
// every accumulate on the same location, which is exactly ARMCI's promise.  Correctness on MPICH 4.0 depends
// on the window kind: its shared-memory atomics on MPI_Win_allocate windows are broken (MPICH issue 6110), so
// our default windows come from MPI_Win_create, whose atomics MPICH performs correctly (see doc/design.md).
#include "topo/nodes.h"
#include "transfer/mpi_backend.h"

namespace armcix {

// Fetch-and-add to another node completes by its own request, as ARMCI-MPI's does on MPICH: over the network
// MPICH's MPI_Win_flush_local costs more than the wait for the fetched value (the same as for blocking gets,
// transfer/mpi_backend.h, mpi_get; doc/performance.md).  Swaps keep the flush: a request completes only the fetch
// (ARMCI-MPI adds a full flush for them).
template <typename T>
T mpi_rmw(const char* call, const GmrRef& r, MPI_Datatype type, T operand, bool is_swap, int proc) {
  prepare_op(r.gmr, r.win_rank, XferOp::Acc, r.disp, r.disp + static_cast<MPI_Aint>(sizeof(T)));
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

template int mpi_rmw<int>(const char*, const GmrRef&, MPI_Datatype, int, bool, int);
template long mpi_rmw<long>(const char*, const GmrRef&, MPI_Datatype, long, bool, int);

}  // namespace armcix
