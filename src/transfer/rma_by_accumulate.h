// Puts and gets to another node as accumulates (ARMCI_RMA_BY_ACCUMULATE): MPI_Accumulate with MPI_REPLACE
// for a put, MPI_Get_accumulate with MPI_NO_OP for a get, as ARMCI-MPI issues every put and get (its
// ARMCI_RMA_ATOMICITY, on by default).  Where the network has no remote memory access (TCP), MPICH over UCX
// moves MPI_Put and MPI_Get through the target's CPU anyway, and by a slower protocol than an accumulate's
// active messages, above all for large transfers, derived target types and a target that computes
// (doc/performance.md, "Against GA's own ports").  With RDMA, puts and gets need no target CPU and stay as
// they are: runtime/resolve.cc decides.  The held-copy and ordered-put paths (small blocking puts) are
// unchanged, and so are vector transfers (transfer/iov.cc).
#pragma once

#include <mpi.h>

#include <cstddef>

#include "base/state.h"
#include "completion/path_tuning.h"
#include "completion/pending.h"  // XferOp
#include "topo/nodes.h"

namespace armcix {

// Whether puts and gets to absolute rank `proc` go as accumulates: to another node only, when
// ARMCI_RMA_BY_ACCUMULATE resolved to 1 (runtime/resolve.cc, resolve_rma_by_accumulate).
inline bool rma_by_accumulate(int proc) { return rt().resolved.rma_by_accumulate == 1 && !on_my_node(proc); }
// The same for a get of `bytes` in all: from kContigAuto.get_by_acc_min_bytes up (completion/path_tuning.h).
inline bool get_by_accumulate(std::size_t bytes, int proc) {
  return bytes >= kContigAuto.get_by_acc_min_bytes && rma_by_accumulate(proc);
}
// Whichever of the two applies to `op` (a put or a get of `bytes` in all).
inline bool rma_by_accumulate(XferOp op, std::size_t bytes, int proc) {
  return op == XferOp::Get ? get_by_accumulate(bytes, proc) : rma_by_accumulate(proc);
}

inline int put_or_replace(bool by_acc, const void* origin, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
                          int tcount, MPI_Datatype ttype, MPI_Win win) {
  return by_acc ? MPI_Accumulate(origin, ocount, otype, target, disp, tcount, ttype, MPI_REPLACE, win)
                : MPI_Put(origin, ocount, otype, target, disp, tcount, ttype, win);
}

inline int get_or_no_op(bool by_acc, void* result, int rcount, MPI_Datatype rtype, int target, MPI_Aint disp,
                        int tcount, MPI_Datatype ttype, MPI_Win win) {
  return by_acc ? MPI_Get_accumulate(nullptr, 0, MPI_BYTE, result, rcount, rtype, target, disp, tcount, ttype,
                                     MPI_NO_OP, win)
                : MPI_Get(result, rcount, rtype, target, disp, tcount, ttype, win);
}

inline int rget_or_no_op(bool by_acc, void* result, int rcount, MPI_Datatype rtype, int target, MPI_Aint disp,
                         int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request* req) {
  return by_acc ? MPI_Rget_accumulate(nullptr, 0, MPI_BYTE, result, rcount, rtype, target, disp, tcount, ttype,
                                      MPI_NO_OP, win, req)
                : MPI_Rget(result, rcount, rtype, target, disp, tcount, ttype, win, req);
}

}  // namespace armcix
