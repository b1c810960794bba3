// Completion and ordering on top of MPI-3 passive target (one MPI_Win_lock_all per window for its life).
//
// ARMCI promises: a blocking put/acc is locally complete on return; ARMCI_Fence(p) makes everything issued
// to p remotely complete; and location consistency -- an origin sees its own operations to a location in
// issue order.  MPI orders nothing between flushes except accumulates (accumulate_ordering), and makes
// conflicting accesses in one flush interval undefined.  So we flush lazily: each (MPI window, MPI target)
// pair keeps the bounding byte ranges, in the window's displacements, of its puts and accumulates since the
// last flush and of its gets still in flight (non-blocking), and an operation flushes the pair first only if
// it conflicts:
//   put  after an overlapping put or acc, or after any get in flight;
//   acc  after an overlapping put, or after any get in flight (acc after acc is ordered by MPI);
//   get  after an overlapping put or acc (get after get never conflicts)
// (conflicts() in completion/pending.h, the state it reads; this header applies it to regions).
// "Any get in flight" rather than "an overlapping one": with MPICH 4.0.2 (ch4:ucx) MPI_Win_flush_local no
// longer completes an MPI_Get once a put to the same target follows it in the same flush interval.
// Per window and MPI target, not per region: regions share a window (the blocks of a pool segment spanning
// nodes, every region served by progress ranks on the proxy window, whose MPI target is the serving progress
// rank), and a get from one of them was left incomplete by a put to another at the same target (stale gets
// after ARMCI_WaitProc, and the late get then wrote into a buffer the program had freed).  The functions
// below take (region, window rank, region displacements) and translate them with mpi_target and mpi_disp.
// Disjoint puts to one target therefore stream without round trips; a put followed by a fence costs one
// flush, as in MPI; a put followed by an overlapping get costs one flush, which MPI needs too.
#pragma once

#include <cstddef>

#include "base/state.h"
#include "completion/path_tuning.h"  // kContigAuto: the bounds of held copies
#include "completion/pending.h"
#include "gmr/gmr.h"

namespace armcix {

// The target of an operation at (proc, addr): the region table's lookup (gmr_resolve, gmr/gmr.h: region, window
// rank, displacement; fails naming `call` and `arg`), handed to the transfer layer here together with the
// (window, MPI target) pair the functions below keep the state of (r.gmr's window, mpi_target(r.gmr,
// r.win_rank)), so that the transfer layer asks this layer about a target and reads the table only beneath it.
inline GmrRef resolve_target(const char* call, const char* arg, int proc, const void* addr, std::size_t bytes) {
  return gmr_resolve(call, arg, proc, addr, bytes);
}

// The two completions of everything issued to (g->win, mpi_target(g, wr)), side by side (each wakes the
// serving progress rank first): remote (MPI_Win_flush; the pair's pending state and held copies go) and local
// (MPI_Win_flush_local: origin buffers reusable, gets arrived).
void flush_pair(Gmr* g, int wr);
void flush_local_pair(Gmr* g, int wr);
void fence_proc(int proc);  // ARMCI_Fence
void fence_all();           // ARMCI_AllFence

// What the MPI library in use makes cheapest between nodes (used by transfer/engine_choice.h's choose_contig):
// whether a put overlapping a pending one goes as MPI_Accumulate(MPI_REPLACE) -- not on Open MPI, whose
// osc ucx makes an accumulate a lock + get + put + unlock at the target (doc/performance.md, "Open MPI between
// hosts") --, and whether a small blocking accumulate goes from a held copy (ARMCI_ACC_HELD_COPY; auto: not
// on Open MPI, which completes it at the target before returning anyway).
bool ordered_puts_by_accumulate();
inline bool accs_from_held_copies() {
  return rt().resolved.acc_held_copy == 1;  // runtime/resolve.cc, resolve_acc_held_copy
}

inline void prepare_ordered_put(Gmr* g, int wr, MPI_Aint lo, MPI_Aint hi);
inline void note_ordered_put(Gmr* g, int wr, MPI_Aint lo, MPI_Aint hi);

// Call before issuing an operation of `kind` on target bytes [lo, hi) of window rank wr.  `put_as_acc`: a put
// goes as MPI_Accumulate(MPI_REPLACE) (ARMCI_RMA_BY_ACCUMULATE), which makes it an ordered put (below); ignored
// for gets and accumulates.
inline void prepare_op(Gmr* g, int wr, XferOp kind, MPI_Aint lo, MPI_Aint hi, bool put_as_acc = false) {
  if (kind == XferOp::Put && put_as_acc) return prepare_ordered_put(g, wr, lo, hi);
  const Pending* p = g->pending->find(mpi_target(g, wr));
  if (p && conflicts(*p, kind, mpi_disp(g, wr, lo), mpi_disp(g, wr, hi))) flush_pair(g, wr);
}

// Whether a put on [lo, hi) of (g, wr) overlaps a put or ordered put still pending there: it would cost a
// flush as a plain MPI_Put, and may go as an ordered put (completion/pending.h; the choice: transfer/engine_choice.h).
inline bool overlaps_pending_put(const Gmr* g, int wr, MPI_Aint lo, MPI_Aint hi) {
  const Pending* p = g->pending->find(mpi_target(g, wr));
  return p && overlaps_pending_put(*p, mpi_disp(g, wr, lo), mpi_disp(g, wr, hi));
}

// Call before issuing an ordered put on [lo, hi) (instead of prepare_op): flushes the pair only if even the
// ordered put would conflict.
inline void prepare_ordered_put(Gmr* g, int wr, MPI_Aint lo, MPI_Aint hi) {
  const Pending* p = g->pending->find(mpi_target(g, wr));
  if (p && ordered_put_conflicts(*p, mpi_disp(g, wr, lo), mpi_disp(g, wr, hi))) flush_pair(g, wr);
}

// Origin copies of ordered puts.  An ordered put to another node goes as an MPI_Accumulate from a copy of
// the origin bytes that the library keeps until the next flush of its (window, MPI target) pair (remote
// completion, which implies local completion), so that the put returns without waiting for MPI's local
// completion: that is the accumulate's round trip through the target's CPU (MPICH's active-message path over
// UCX), where a blocking ARMCI put only promises that the caller may reuse its buffer.  Returns the copy to
// hand to MPI.  Bounded: when the pair holds kContigAuto.held_copies_per_target copies, or all pairs together
// more than kContigAuto.held_copy_bytes (completion/path_tuning.h), the pairs concerned are flushed first (the
// state of (g, wr) may be reset then).
void* hold_put_copy(Gmr* g, int wr, const void* src, std::size_t bytes);
// The same space, uninitialised, for the caller to fill (a scaled or packed accumulate origin).
void* hold_copy_space(Gmr* g, int wr, std::size_t bytes);
std::size_t held_put_copy_bytes();  // for tests: bytes held in origin copies, all pairs

// After issuing an ordered put on [lo, hi).
inline void note_ordered_put(Gmr* g, int wr, MPI_Aint lo, MPI_Aint hi) {
  g->pending->touch(mpi_target(g, wr)).rep.add(mpi_disp(g, wr, lo), mpi_disp(g, wr, hi));
}

// Call after issuing an MPI operation on [lo, hi).  `in_flight`: a get whose local completion is deferred
// to a non-blocking request (a blocking get is complete before anything else is issued).  `put_as_acc`: as
// for prepare_op.
inline void note_issued(Gmr* g, int wr, XferOp kind, MPI_Aint lo, MPI_Aint hi, bool in_flight = false,
                        bool put_as_acc = false) {
  if (kind == XferOp::Put && put_as_acc) return note_ordered_put(g, wr, lo, hi);
  if (kind == XferOp::Get && !in_flight) return;
  Pending& p = g->pending->touch(mpi_target(g, wr));
  (kind == XferOp::Put ? p.put : kind == XferOp::Acc ? p.acc : p.get).add(mpi_disp(g, wr, lo), mpi_disp(g, wr, hi));
}

// After MPI_Win_flush_local on (g, wr): the gets in flight at its MPI target, from any region of the
// window, have completed.
inline void note_locally_complete(Gmr* g, int wr) {
  PendingTargets& pt = *g->pending;
  const int target = mpi_target(g, wr);
  const Pending* found = pt.find(target);
  if (!found || !found->gets_in_flight()) return;
  Pending& p = pt.touch(target);
  p.get = ByteRange{};
  if (p.rgets > 0) {  // their requests find the epoch moved on (note_request_get_done)
    p.rgets = 0;
    pt.renew_epoch(p);
  }
  pt.drop_if_idle(target);
}

// A non-blocking get completed by its own MPI request was issued to (g, wr): a get in flight until
// note_request_get_done(g, wr, <the epoch returned>) or a flush of the pair.
inline unsigned note_request_get(Gmr* g, int wr) {
  Pending& p = g->pending->touch(mpi_target(g, wr));
  ++p.rgets;
  return p.epoch;
}
inline void note_request_get_done(Gmr* g, int wr, unsigned epoch) {
  PendingTargets& pt = *g->pending;
  const int target = mpi_target(g, wr);
  const Pending* found = pt.find(target);
  if (!found || found->epoch != epoch || found->rgets == 0) return;  // a flush completed it already
  Pending& p = pt.touch(target);
  if (--p.rgets == 0) pt.drop_if_idle(target);
}

}  // namespace armcix
