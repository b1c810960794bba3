// The ordering state of one region: per target, the operations MPI has not yet completed remotely, and
// the rule that decides when a new operation must flush them first.  Kept free of MPI calls and of the
// region table so that the rule is unit-tested on its own (tests/unit/test_ordering.cc); gmr/ordering.h
// applies it to regions.
//
// MPI leaves conflicting accesses within one flush interval undefined, and ARMCI promises location
// consistency, so an operation whose range conflicts with a pending one first flushes the pair.  The
// pending operations are kept as bounding byte ranges of target displacements per kind.
#pragma once

#include <mpi.h>

namespace armcix {

// The one operation enum: what the API asks for (rma.h), what the ordering rule and the engine choice
// (transfer/engine_choice.h) decide on.
enum class XferOp { Put, Get, Acc };

struct ByteRange {
  MPI_Aint lo = 0, hi = 0;  // [lo, hi)
  bool empty() const { return hi <= lo; }
  bool overlaps(MPI_Aint a, MPI_Aint b) const { return !empty() && a < hi && lo < b; }
  void add(MPI_Aint a, MPI_Aint b) {
    if (empty()) {
      lo = a, hi = b;
    } else {
      lo = a < lo ? a : lo;
      hi = b > hi ? b : hi;
    }
  }
};

struct Pending {
  ByteRange put;  // puts issued since the last flush
  ByteRange acc;  // accumulates issued since the last flush
  ByteRange get;  // gets issued and not yet locally complete (non-blocking gets)
  bool any() const { return !put.empty() || !acc.empty() || !get.empty(); }
};

// True if an operation of `kind` on target bytes [lo, hi) must wait for the pending ones (gmr/ordering.h
// explains the rules):
//   put  after an overlapping put or acc, or after any get in flight;
//   acc  after an overlapping put, or after any get in flight (acc after acc is ordered by MPI);
//   get  after an overlapping put or acc (get after get never conflicts).
inline bool conflicts(const Pending& p, XferOp kind, MPI_Aint lo, MPI_Aint hi) {
  switch (kind) {
    case XferOp::Put:
      return !p.get.empty() || p.put.overlaps(lo, hi) || p.acc.overlaps(lo, hi);
    case XferOp::Acc:
      return !p.get.empty() || p.put.overlaps(lo, hi);
    case XferOp::Get:
      return p.put.overlaps(lo, hi) || p.acc.overlaps(lo, hi);
  }
  return true;
}

}  // namespace armcix
