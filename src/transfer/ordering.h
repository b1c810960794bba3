// Completion and ordering on top of MPI-3 passive target (one MPI_Win_lock_all per window for its life).
//
// ARMCI promises: a blocking put/acc is locally complete on return; ARMCI_Fence(p) makes everything issued
// to p remotely complete; and location consistency -- an origin sees its own operations to a location in
// issue order.  MPI orders nothing between flushes except accumulates (accumulate_ordering), and makes
// conflicting accesses in one flush interval undefined.  So we flush lazily: after a put or accumulate the
// (region, target) pair is marked pending; the next operation to that pair that could conflict with it
// (anything but accumulate-after-accumulate) flushes first.  A put followed by a fence costs one flush,
// as in MPI; a put followed by a get to the same target costs one flush, which MPI needs too.
#pragma once

#include "gmr/gmr.h"

namespace armcix {

enum class OpKind { Put, Get, Acc };

// Call before issuing an operation of `kind` to window rank wr of g.
inline void prepare_op(Gmr* g, int wr, OpKind kind);
// Call after issuing a put/acc (marks the pair pending remote completion).
inline void note_issued(Gmr* g, int wr, OpKind kind);

void flush_pair(Gmr* g, int wr);   // remote completion of everything to (g, wr)
void fence_proc(int proc);        // ARMCI_Fence
void fence_all();                 // ARMCI_AllFence
void sync_all_windows();          // MPI_Win_sync on every window (load/store visibility, unified model)
void sync_region(Gmr* g);         // MPI_Win_sync on the windows of one region

inline void prepare_op(Gmr* g, int wr, OpKind kind) {
  Pending p = g->pending[wr];
  if (p == Pending::None) return;
  if (kind == OpKind::Acc && p == Pending::Acc) return;  // accumulates from one origin stay ordered
  flush_pair(g, wr);
}

inline void note_issued(Gmr* g, int wr, OpKind kind) {
  if (kind == OpKind::Get) return;  // a get completed locally has read the target
  Pending now = kind == OpKind::Put ? Pending::Put : Pending::Acc;
  if (g->pending[wr] == Pending::None) ++g->pending_count;
  // A put issued after pending accumulates was preceded by a flush (prepare_op), so `now` describes all
  // unflushed work on the pair.
  g->pending[wr] = now;
}

}  // namespace armcix
