// The ordering state of one MPI window: per MPI target, the operations MPI has not yet completed remotely, and
// the rule that decides when a new operation must flush them first.  Kept free of MPI calls and of the
// region table so that the rule is unit-tested on its own (tests/unit/test_ordering.cc); completion/ordering.h
// applies it to regions.
//
// MPI leaves conflicting accesses within one flush interval undefined, and ARMCI promises location
// consistency, so an operation whose range conflicts with a pending one first flushes the pair.  The
// pending operations are kept as bounding byte ranges of target displacements per kind.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

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
  ByteRange rep;  // puts issued as MPI_Accumulate(MPI_REPLACE) since the last flush (ordered puts, below)
  int rgets = 0;  // non-blocking gets completed by their own MPI request (MPI_Rget), issued since the last
                  // flush and not yet waited for; they count as gets in flight
  // The pair's current flush interval, unique within its window (PendingTargets hands them out): a request
  // that waits for its MPI_Rget after a flush already completed it (and dropped or renewed the entry) must
  // not count it off again.
  unsigned epoch = 0;
  bool gets_in_flight() const { return !get.empty() || rgets > 0; }
  bool any() const { return !put.empty() || !acc.empty() || gets_in_flight() || !rep.empty(); }
};

// The ordering state of one MPI window (shared by the regions on it, gmr.h): an entry only for the MPI targets
// with something pending, so that a live region costs the same at 4 ranks as at 100,000 (issue 30; a dense
// vector cost 72 B per rank and region).  A flat vector searched linearly: a window has few targets pending
// between flushes (a flush drops its target's entry, a fence or barrier all of them), and the search is cheap
// beside any MPI call.
class PendingTargets {
 public:
  // The target's state, or nullptr if nothing is pending there.
  const Pending* find(int wr) const {
    for (const Entry& e : entries_)
      if (e.wr == wr) return &e.p;
    return nullptr;
  }
  // The target's state, created empty (with a fresh epoch) if nothing was pending there.
  Pending& touch(int wr) {
    for (Entry& e : entries_)
      if (e.wr == wr) return e.p;
    entries_.push_back(Entry{wr, Pending{}});
    entries_.back().p.epoch = ++last_epoch_;
    return entries_.back().p;
  }
  // Gives the target's entry a new epoch (its MPI_Rgets completed: requests still waiting find it moved on).
  void renew_epoch(Pending& p) { p.epoch = ++last_epoch_; }
  // Drops the target's entry if nothing is pending there any more.
  void drop_if_idle(int wr) {
    for (std::size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].wr == wr) {
        if (!entries_[i].p.any()) erase_at(i);
        return;
      }
  }
  // Everything issued to the target is complete (a flush of the pair).
  void complete(int wr) {
    for (std::size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].wr == wr) return erase_at(i);
  }
  void complete_all() {
    entries_.clear();
    if (entries_.capacity() > 8) entries_.shrink_to_fit();  // a burst to many targets keeps nothing
  }
  // Number of targets with something pending.
  int count() const { return static_cast<int>(entries_.size()); }
  template <class F>
  void for_each_target(F fn) const {
    for (const Entry& e : entries_) fn(e.wr);
  }

 private:
  struct Entry {
    int wr;
    Pending p;
  };
  void erase_at(std::size_t i) {
    entries_[i] = entries_.back();
    entries_.pop_back();
  }
  std::vector<Entry> entries_;
  unsigned last_epoch_ = 0;
};

// True if an operation of `kind` on target bytes [lo, hi) must wait for the pending ones (completion/ordering.h
// explains the rules):
//   put  after an overlapping put or acc, or after any get in flight;
//   acc  after an overlapping put, or after any get in flight (acc after acc is ordered by MPI);
//   get  after an overlapping put or acc (get after get never conflicts).
// An ordered put (MPI_Accumulate with MPI_REPLACE) counts as a put for the others, but is itself an
// accumulate: MPI orders it after an earlier ordered put to the same location (accumulate_ordering waw, same
// op), so it conflicts only with an overlapping plain put or accumulate of another op (the windows keep the
// default accumulate_ops same_op_no_op), or with any get in flight.
inline bool conflicts(const Pending& p, XferOp kind, MPI_Aint lo, MPI_Aint hi) {
  switch (kind) {
    case XferOp::Put:
      return p.gets_in_flight() || p.put.overlaps(lo, hi) || p.acc.overlaps(lo, hi) || p.rep.overlaps(lo, hi);
    case XferOp::Acc:
      return p.gets_in_flight() || p.put.overlaps(lo, hi) || p.rep.overlaps(lo, hi);
    case XferOp::Get:
      return p.put.overlaps(lo, hi) || p.acc.overlaps(lo, hi) || p.rep.overlaps(lo, hi);
  }
  return true;
}
inline bool ordered_put_conflicts(const Pending& p, MPI_Aint lo, MPI_Aint hi) {
  return p.gets_in_flight() || p.put.overlaps(lo, hi) || p.acc.overlaps(lo, hi);
}

// Ordered puts.  A put that overlaps an earlier put still pending would cost a flush -- a round trip to the
// target, which between nodes is most of the put's time -- so a small one goes as MPI_Accumulate(MPI_REPLACE)
// instead: the first such put still flushes once (a plain MPI_Put and an accumulate may not meet in one
// flush interval), every later one to the same bytes streams without a round trip, as ARMCI-MPI's puts do
// (ARMCI-MPI leaves the overlapping MPI_Puts unordered in one epoch, which MPI makes undefined).  Large
// puts stay plain: MPI implementations move big accumulates through the target's CPU, and next to the
// transfer time a round trip no longer counts (the limit's measurements: doc/performance.md,
// "Ordered puts: the size limit"; the limit is kContigAuto.small_max_bytes, completion/path_tuning.h).  The rule is
// transfer/engine_choice.h's choose_contig; this is the fact about the pair it needs.
// A put on [lo, hi) overlaps a put or ordered put pending on the pair.
inline bool overlaps_pending_put(const Pending& p, MPI_Aint lo, MPI_Aint hi) {
  return p.put.overlaps(lo, hi) || p.rep.overlaps(lo, hi);
}

}  // namespace armcix
