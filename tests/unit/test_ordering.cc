// The ordering rule (completion/pending.h): when an operation must flush the pending ones first; and when a put goes
// ordered (transfer/engine_choice.h, choose_contig).  No MPI.
#include <gtest/gtest.h>

#include "completion/pending.h"
#include "transfer/engine_choice.h"

using armcix::choose_contig;
using armcix::conflicts;
using armcix::ContigFacts;
using armcix::ContigMpi;
using armcix::ContigPath;
using armcix::Pending;
using armcix::TargetPath;
using armcix::XferOp;

TEST(OrderingRule, NothingPendingNeverConflicts) {
  Pending p;
  for (XferOp op : {XferOp::Put, XferOp::Get, XferOp::Acc}) EXPECT_FALSE(conflicts(p, op, 0, 100));
}

TEST(OrderingRule, PutAfterOverlappingPutOrAcc) {
  Pending p;
  p.put.add(0, 8);
  EXPECT_TRUE(conflicts(p, XferOp::Put, 4, 12));
  EXPECT_FALSE(conflicts(p, XferOp::Put, 8, 16));  // [lo, hi): touching is not overlapping
  Pending q;
  q.acc.add(100, 200);
  EXPECT_TRUE(conflicts(q, XferOp::Put, 150, 151));
  EXPECT_FALSE(conflicts(q, XferOp::Put, 0, 100));
}

TEST(OrderingRule, AnyGetInFlightOrdersPutsAndAccumulates) {
  Pending p;
  p.get.add(0, 8);
  EXPECT_TRUE(conflicts(p, XferOp::Put, 1000, 1008));
  EXPECT_TRUE(conflicts(p, XferOp::Acc, 1000, 1008));
  EXPECT_FALSE(conflicts(p, XferOp::Get, 0, 8));  // get after get never conflicts
}

TEST(OrderingRule, AccAfterAccIsOrderedByMpi) {
  Pending p;
  p.acc.add(0, 8);
  EXPECT_FALSE(conflicts(p, XferOp::Acc, 0, 8));
  p.put.add(4, 6);
  EXPECT_TRUE(conflicts(p, XferOp::Acc, 0, 5));
  EXPECT_FALSE(conflicts(p, XferOp::Acc, 6, 8));
}

TEST(OrderingRule, GetAfterOverlappingPutOrAcc) {
  Pending p;
  p.put.add(0, 8);
  EXPECT_TRUE(conflicts(p, XferOp::Get, 7, 9));
  EXPECT_FALSE(conflicts(p, XferOp::Get, 8, 9));
  Pending q;
  q.acc.add(0, 8);
  EXPECT_TRUE(conflicts(q, XferOp::Get, 0, 1));
}

TEST(OrderingRule, RangesGrowToTheirBoundingRange) {
  Pending p;
  p.put.add(0, 8);
  p.put.add(100, 108);
  EXPECT_TRUE(conflicts(p, XferOp::Put, 50, 51));  // inside the bounding range: conservatively a conflict
  EXPECT_FALSE(conflicts(p, XferOp::Put, 108, 200));
}

// The ordered-put rule itself is choose_contig's (transfer/engine_choice.h); its input about the pair is
// overlaps_pending_put, given as transfer/paths.h's contig_facts gives it: a blocking put to another node.
static ContigPath put_path(const Pending& p, MPI_Aint lo, MPI_Aint hi) {
  ContigFacts f;
  f.op = XferOp::Put;
  f.bytes = static_cast<std::size_t>(hi - lo);
  f.path = TargetPath::OtherNode;
  f.blocking = true;
  f.overlaps_pending_put = armcix::overlaps_pending_put(p, lo, hi);
  return choose_contig(f, ContigMpi{});  // MPICH: ordered puts by accumulate
}

TEST(OrderingRule, OnlyAPutOverlappingAnEarlierPutGoesOrdered) {
  const auto big = static_cast<MPI_Aint>(armcix::kContigAuto.small_max_bytes);
  Pending p;
  EXPECT_EQ(put_path(p, 0, 8), ContigPath::Flushed);
  p.put.add(0, 8);
  EXPECT_EQ(put_path(p, 4, 12), ContigPath::OrderedPut);
  EXPECT_EQ(put_path(p, 8, 16), ContigPath::Flushed);       // disjoint puts stream as plain puts
  EXPECT_EQ(put_path(p, 0, big), ContigPath::OrderedPut);   // up to the limit
  EXPECT_EQ(put_path(p, 0, big + 1), ContigPath::Flushed);  // large: a plain put after a flush
  Pending q;
  q.rep.add(0, 8);
  EXPECT_EQ(put_path(q, 0, 8), ContigPath::OrderedPut);
  Pending a;
  a.acc.add(0, 8);
  EXPECT_EQ(put_path(a, 0, 8), ContigPath::Flushed);  // after an accumulate of another op: flush, plain put
}

TEST(OrderingRule, OrderedPutsAreOrderedAmongThemselvesOnly) {
  using armcix::ordered_put_conflicts;
  Pending p;
  p.rep.add(0, 8);
  EXPECT_FALSE(ordered_put_conflicts(p, 0, 8));  // same op (MPI_REPLACE): accumulate_ordering waw
  EXPECT_TRUE(conflicts(p, XferOp::Put, 0, 8));  // a plain put may not meet it in one flush interval
  EXPECT_TRUE(conflicts(p, XferOp::Acc, 4, 5));  // nor an accumulate of another op (same_op_no_op)
  EXPECT_TRUE(conflicts(p, XferOp::Get, 7, 9));
  EXPECT_FALSE(conflicts(p, XferOp::Get, 8, 9));
  EXPECT_TRUE(p.any());
  Pending q;
  q.put.add(0, 8);
  EXPECT_TRUE(ordered_put_conflicts(q, 4, 12));  // the first ordered put after a plain one flushes once
  Pending r;
  r.get.add(100, 108);
  EXPECT_TRUE(ordered_put_conflicts(r, 0, 8));  // any get in flight, as for plain puts
}

// The per-region set of targets with something pending (issue 30: no per-rank state for idle targets).
using armcix::PendingTargets;

TEST(PendingTargets, HoldsOnlyTargetsWithSomethingPending) {
  PendingTargets t;
  EXPECT_EQ(t.count(), 0);
  EXPECT_EQ(t.find(7), nullptr);
  t.touch(7).put.add(0, 8);
  t.touch(99999).acc.add(16, 24);  // any window rank: nothing is sized by the group
  EXPECT_EQ(t.count(), 2);
  ASSERT_NE(t.find(7), nullptr);
  EXPECT_TRUE(conflicts(*t.find(7), XferOp::Get, 0, 4));
  EXPECT_EQ(t.find(8), nullptr);
  t.complete(7);
  EXPECT_EQ(t.find(7), nullptr);
  EXPECT_EQ(t.count(), 1);
  int seen = -1;
  t.for_each_target([&](int wr) { seen = wr; });
  EXPECT_EQ(seen, 99999);
  t.complete_all();
  EXPECT_EQ(t.count(), 0);
}

TEST(PendingTargets, IdleEntriesAreDroppedOnlyWhenNothingIsLeft) {
  PendingTargets t;
  Pending& p = t.touch(3);
  p.get.add(0, 8);
  p.put.add(100, 108);
  t.drop_if_idle(3);
  ASSERT_NE(t.find(3), nullptr);  // the put is still pending
  Pending& q = t.touch(3);
  q.put = armcix::ByteRange{};
  q.get = armcix::ByteRange{};
  t.drop_if_idle(3);
  EXPECT_EQ(t.find(3), nullptr);
}

TEST(PendingTargets, EpochsNeverRepeatWithinARegion) {
  // A request whose MPI_Rget a flush already completed carries the old epoch: the new entry of the same
  // target (after complete()) or a renewed one must not match it.
  PendingTargets t;
  Pending& p = t.touch(5);
  ++p.rgets;
  const unsigned first = p.epoch;
  t.complete(5);
  Pending& again = t.touch(5);
  EXPECT_NE(again.epoch, first);
  const unsigned second = again.epoch;
  t.renew_epoch(again);
  EXPECT_NE(again.epoch, second);
  EXPECT_NE(again.epoch, first);
}
