// The node-local backend: every transfer to a target whose slice is mapped into this process (same node,
// ARMCI_SHM=1) moves by load/store here -- contiguous, strided and I/O-vector put/get/accumulate and Rmw's
// fetch-and-add and swap -- and nowhere else; the MPI backend (transfer/mpi_backend.h) has the same operations
// through MPI.  The dispatch (contig.cc, strided.cc, iov.cc, rmw.cc) asks reached_by_load_store() once per
// operation, after the target is resolved, and calls one backend or the other.  Every function below makes the
// ordering check of the range it touches (completion/ordering.h: an earlier MPI operation on the same bytes,
// such as an accumulate to a region spanning nodes, completes first), then moves the bytes between the fences
// of shm/access.h.
#pragma once

#include <cstddef>
#include <cstring>

#include "acc/acc_types.h"
#include "completion/ordering.h"
#include "gmr/gmr.h"
#include "shm/access.h"
#include "transfer/strided_shape.h"

namespace armcix {

// Address of the resolved remote location in this process, or nullptr if it is not mapped here.
inline char* mapped(const GmrRef& r) {
  char* p = r.gmr->local_ptr(r.win_rank);
  return p ? p + r.disp : nullptr;
}

// True if accumulates to this target may use load/store (the allocation lives on one node, so no MPI
// accumulate can touch the same location concurrently).
inline bool local_atomics(const GmrRef& r) {
  return !r.gmr->atomics_via_mpi;
}

// The locality decision: whether an operation of `op` on r's slice takes this backend (the slice is mapped
// here and, for an accumulate or Rmw, its atomics may use load/store) or MPI.
inline bool reached_by_load_store(const GmrRef& r, XferOp op) {
  return mapped(r) && (op != XferOp::Acc || local_atomics(r));
}

// ---- Contiguous -------------------------------------------------------------------------------------------

inline void local_put(const GmrRef& r, const void* src, std::size_t bytes) {
  prepare_op(r.gmr, r.win_rank, XferOp::Put, r.disp, r.disp + static_cast<MPI_Aint>(bytes));
  before_local_store();
  std::memcpy(mapped(r), src, bytes);
  after_local_store();
}

inline void local_get(const GmrRef& r, void* dst, std::size_t bytes) {
  prepare_op(r.gmr, r.win_rank, XferOp::Get, r.disp, r.disp + static_cast<MPI_Aint>(bytes));
  poke_progress(r.gmr);
  before_local_load();
  std::memcpy(dst, mapped(r), bytes);
  after_local_load();
}

// dst[i] += scale * src[i] under the target slice's lock.
void local_acc(const GmrRef& r, const AccType& t, const void* scale, const void* src, std::size_t bytes);

// ---- Strided and I/O vector -------------------------------------------------------------------------------

// Segment by segment with loads and stores; `local` is the local side's base (src of put/acc, dst of get),
// r the remote side's; t and scale only for accumulates.
void local_strided(XferOp op, const AccType* t, const void* scale, const StridedShape& s, char* local, const GmrRef& r);

// The n segments of `bytes` each, local[i] <-> remote[i], in order (so overlap needs no check), all in r's
// slice (remote[i] are addresses in its owner's space), whose bytes [lo, hi) they span: one ordering check
// for the whole span.
void local_iov(XferOp op, const AccType* t, const void* scale, void* const* local, void* const* remote, int n,
               int bytes, const GmrRef& r, MPI_Aint lo, MPI_Aint hi);

// ---- Rmw --------------------------------------------------------------------------------------------------

// Fetch-and-add (`is_swap` false) or swap of `operand` with the word at r; returns the old value.  Hardware
// atomics: every Rmw on this allocation comes from this node, so they all meet here.  The slice lock makes
// them atomic with node-local accumulates too, as MPI's atomics are with MPI accumulates on the other path
// (an uncontended lock is two more atomic operations).
template <typename T>
T local_rmw(const GmrRef& r, T operand, bool is_swap) {
  prepare_op(r.gmr, r.win_rank, XferOp::Acc, r.disp, r.disp + static_cast<MPI_Aint>(sizeof(T)));
  SliceLock lock(r.gmr->slice_lock(r.win_rank));
  T* loc = reinterpret_cast<T*>(mapped(r));
  return is_swap ? __atomic_exchange_n(loc, operand, __ATOMIC_SEQ_CST)
                 : __atomic_fetch_add(loc, operand, __ATOMIC_SEQ_CST);
}

}  // namespace armcix
