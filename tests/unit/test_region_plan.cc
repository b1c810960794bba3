// Region plan (gmr/region_plan.h): every branch of plan_region, without MPI.
#include <gtest/gtest.h>

#include "gmr/region_plan.h"

using armcix::plan_region;
using armcix::RegionFacts;
using armcix::RegionMemory;
using armcix::RegionPlan;
using armcix::WindowKind;

namespace {

RegionFacts facts(bool shm, bool node_only, bool progress_ranks, bool spanning_pool = false,
                  WindowKind kind = WindowKind::Create) {
  return RegionFacts{shm, node_only, progress_ranks, spanning_pool, kind};
}

}  // namespace

TEST(RegionPlan, NodeOnlyRegionsArePooledReusableNodeSegments) {
  for (const bool progress_ranks : {false, true})
    for (const bool spanning_pool : {false, true})
      for (const WindowKind kind : {WindowKind::Create, WindowKind::Allocate}) {
        const RegionPlan p = plan_region(facts(true, true, progress_ranks, spanning_pool, kind));
        EXPECT_TRUE(p.pooled);
        EXPECT_TRUE(p.reusable);
        EXPECT_EQ(p.memory, RegionMemory::NodeSegments);
      }
}

TEST(RegionPlan, SpanningRegionsExposeNodeSegmentsThroughAWindow) {
  for (const WindowKind kind : {WindowKind::Create, WindowKind::Allocate}) {
    const RegionPlan p = plan_region(facts(true, false, false, false, kind));
    EXPECT_FALSE(p.pooled);  // ARMCI_SPANNING_POOL=0
    EXPECT_TRUE(p.reusable);
    EXPECT_EQ(p.memory, RegionMemory::NodeSegmentsExposed);
  }
}

TEST(RegionPlan, SpanningPoolPoolsSpanningRegions) {
  const RegionPlan p = plan_region(facts(true, false, false, true));
  EXPECT_TRUE(p.pooled);
  EXPECT_TRUE(p.reusable);
  EXPECT_EQ(p.memory, RegionMemory::NodeSegmentsExposed);
}

TEST(RegionPlan, ProgressRanksServeSpanningRegionsFromProxiedSegments) {
  for (const bool spanning_pool : {false, true}) {
    const RegionPlan p = plan_region(facts(true, false, true, spanning_pool));
    EXPECT_FALSE(p.pooled);    // the pool's window would be one of the region's own
    EXPECT_FALSE(p.reusable);  // no window of its own to keep
    EXPECT_EQ(p.memory, RegionMemory::ProxiedSegments);
  }
}

TEST(RegionPlan, WithoutShmTheWindowKindDecides) {
  for (const bool progress_ranks : {false, true})
    for (const bool spanning_pool : {false, true}) {
      const RegionPlan create = plan_region(facts(false, false, progress_ranks, spanning_pool, WindowKind::Create));
      EXPECT_FALSE(create.pooled);
      EXPECT_FALSE(create.reusable);
      EXPECT_EQ(create.memory, RegionMemory::WinCreate);
      const RegionPlan allocate = plan_region(facts(false, false, progress_ranks, spanning_pool, WindowKind::Allocate));
      EXPECT_FALSE(allocate.pooled);
      EXPECT_FALSE(allocate.reusable);
      EXPECT_EQ(allocate.memory, RegionMemory::WinAllocate);
    }
}
