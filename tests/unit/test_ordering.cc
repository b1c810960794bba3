// The ordering rule (gmr/pending.h): when an operation must flush the pending ones first.  No MPI.
#include <gtest/gtest.h>

#include "gmr/pending.h"

using armcix::conflicts;
using armcix::Pending;
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
