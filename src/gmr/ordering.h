// Completion and ordering on top of MPI-3 passive target (one MPI_Win_lock_all per window for its life).
//
// ARMCI promises: a blocking put/acc is locally complete on return; ARMCI_Fence(p) makes everything issued
// to p remotely complete; and location consistency -- an origin sees its own operations to a location in
// issue order.  MPI orders nothing between flushes except accumulates (accumulate_ordering), and makes
// conflicting accesses in one flush interval undefined.  So we flush lazily: each (region, target) pair
// keeps the bounding byte ranges of its puts and accumulates since the last flush and of its gets still in
// flight (non-blocking), and an operation flushes the pair first only if it conflicts:
//   put  after an overlapping put or acc, or after any get in flight;
//   acc  after an overlapping put, or after any get in flight (acc after acc is ordered by MPI);
//   get  after an overlapping put or acc (get after get never conflicts)
// (conflicts() in gmr/pending.h, the state it reads; this header applies it to regions).
// "Any get in flight" rather than "an overlapping one": with MPICH 4.0.2 (ch4:ucx) MPI_Win_flush_local no
// longer completes an MPI_Get once a put to the same target follows it in the same flush interval.
// Disjoint puts to one target therefore stream without round trips; a put followed by a fence costs one
// flush, as in MPI; a put followed by an overlapping get costs one flush, which MPI needs too.
#pragma once

#include <cstddef>

#include "gmr/gmr.h"

namespace armcix {

void flush_pair(Gmr* g, int wr);  // remote completion of everything to (g, wr)
void fence_proc(int proc);        // ARMCI_Fence
void fence_all();                 // ARMCI_AllFence
void sync_all_windows();          // MPI_Win_sync on every window (load/store visibility, unified model)
void sync_region(Gmr* g);         // MPI_Win_sync on the windows of one region

// Whether puts to other nodes may go as ordered accumulates (prepare_put): not on Open MPI.
bool ordered_puts_by_accumulate();

// Whether a blocking put (up to kOrderedPutMaxBytes) to another node goes from a held copy (hold_put_copy)
// instead of waiting for local completion: on Open MPI only, whose osc ucx completes locally with a full
// flush, where MPICH's returns once an eager put has left (doc/performance.md, "Open MPI between hosts").
bool plain_puts_from_held_copies();

// Whether a blocking accumulate of at most kOrderedPutMaxBytes to another node goes from a held copy
// (hold_copy_space, filled with the scaled / packed origin) and returns without waiting for its local
// completion (ARMCI_ACC_HELD_COPY; auto: on except on Open MPI).  Why: on MPICH over UCX an accumulate
// completes locally only after a round trip through the target's CPU
// (doc/performance.md, "NWChem between hosts: accumulates from held copies").  The copies are freed with the
// pair's next flush (a fence, a barrier, a conflict, or the copy bounds below), as ordered puts' are.  Not on
// Open MPI: its osc ucx completes an accumulate at the target before returning anyway.
bool accs_from_held_copies();

// Whether this blocking accumulate of `bytes` to window rank wr's slice goes from a held copy: at most
// kOrderedPutMaxBytes, accs_from_held_copies(), and its MPI target is a process whose CPU the local
// completion would wait for -- a rank on another node, or the progress rank serving the slice, on this node
// too (with progress ranks every accumulate to a region spanning nodes goes to it, and it may be asleep).
bool acc_from_held_copy(const Gmr* g, int wr, std::size_t bytes);

// Call before issuing an operation of `kind` on target bytes [lo, hi) of window rank wr.
inline void prepare_op(Gmr* g, int wr, XferOp kind, MPI_Aint lo, MPI_Aint hi) {
  const Pending* p = g->pending.find(wr);
  if (p && conflicts(*p, kind, lo, hi)) flush_pair(g, wr);
}

// A put on [lo, hi): true if it goes as an ordered put (MPI_Accumulate with MPI_REPLACE, gmr/pending.h),
// after flushing the pair if even that would conflict; false after prepare_op() for a plain MPI_Put.
// Only to targets on other nodes (`across_network`): within a node the flush is a shared-memory handshake
// that costs no more than the accumulate (doc/performance.md, "Ordered puts: the size limit").  Not on Open
// MPI: its osc ucx makes every accumulate a lock + get + put + unlock on the target, dearer than flush + put
// (doc/performance.md, "Open MPI between hosts").
inline bool prepare_put(Gmr* g, int wr, MPI_Aint lo, MPI_Aint hi, bool across_network) {
  const Pending* p = g->pending.find(wr);
  if (across_network && p && put_goes_ordered(*p, lo, hi) && ordered_puts_by_accumulate()) {
    if (ordered_put_conflicts(*p, lo, hi)) flush_pair(g, wr);
    return true;
  }
  prepare_op(g, wr, XferOp::Put, lo, hi);
  return false;
}

// Origin copies of ordered puts.  An ordered put to another node goes as an MPI_Accumulate from a copy of
// the origin bytes that the library keeps until the pair's next flush (remote completion, which implies local
// completion), so that the put returns without waiting for MPI's local completion: that is the accumulate's
// round trip through the target's CPU (MPICH's active-message path over UCX), where a
// blocking ARMCI put only promises that the caller may reuse its buffer.  Returns the copy to hand to MPI.
// Bounded: when the pair holds kOrderedPutCopiesPerTarget copies, or all pairs together more than
// kOrderedPutCopyBytes, the pairs concerned are flushed first (the state of (g, wr) may be reset then).  The
// flush waits for the target's CPU to work through the accumulates, so the count bound is far above
// ARMCI_MAX_OUTSTANDING_PER_TARGET (doc/performance.md, "Ordered puts: the size limit").
constexpr int kOrderedPutCopiesPerTarget = 4096;
constexpr std::size_t kOrderedPutCopyBytes = 1 << 20;
void* hold_put_copy(Gmr* g, int wr, const void* src, std::size_t bytes);
// The same space, uninitialised, for the caller to fill (a scaled or packed accumulate origin).
void* hold_copy_space(Gmr* g, int wr, std::size_t bytes);
std::size_t held_put_copy_bytes();  // for tests: bytes held in origin copies, all pairs

// After issuing an ordered put on [lo, hi).
inline void note_ordered_put(Gmr* g, int wr, MPI_Aint lo, MPI_Aint hi) {
  g->pending.touch(wr).rep.add(lo, hi);
}

// Call after issuing an MPI operation on [lo, hi).  `in_flight`: a get whose local completion is deferred
// to a non-blocking request (a blocking get is complete before anything else is issued).
inline void note_issued(Gmr* g, int wr, XferOp kind, MPI_Aint lo, MPI_Aint hi, bool in_flight = false) {
  if (kind == XferOp::Get && !in_flight) return;
  Pending& p = g->pending.touch(wr);
  (kind == XferOp::Put ? p.put : kind == XferOp::Acc ? p.acc : p.get).add(lo, hi);
}

// After MPI_Win_flush_local on (g, wr): the gets in flight there have completed.
inline void note_locally_complete(Gmr* g, int wr) {
  const Pending* found = g->pending.find(wr);
  if (!found || !found->gets_in_flight()) return;
  Pending& p = g->pending.touch(wr);
  p.get = ByteRange{};
  if (p.rgets > 0) {  // their requests find the epoch moved on (note_request_get_done)
    p.rgets = 0;
    g->pending.renew_epoch(p);
  }
  g->pending.drop_if_idle(wr);
}

// A non-blocking get completed by its own MPI request was issued to (g, wr): a get in flight until
// note_request_get_done(g, wr, <the epoch returned>) or a flush of the pair.
inline unsigned note_request_get(Gmr* g, int wr) {
  Pending& p = g->pending.touch(wr);
  ++p.rgets;
  return p.epoch;
}
inline void note_request_get_done(Gmr* g, int wr, unsigned epoch) {
  const Pending* found = g->pending.find(wr);
  if (!found || found->epoch != epoch || found->rgets == 0) return;  // a flush completed it already
  Pending& p = g->pending.touch(wr);
  if (--p.rgets == 0) g->pending.drop_if_idle(wr);
}

}  // namespace armcix
