#include "gmr/region_plan.h"

namespace armcix {

namespace {

RegionMemory fresh_memory(const RegionFacts& f) {
  if (!f.shm) return f.window_kind == WindowKind::Allocate ? RegionMemory::WinAllocate : RegionMemory::WinCreate;
  if (f.node_only) return RegionMemory::NodeSegments;
  return f.progress_ranks ? RegionMemory::ProxiedSegments : RegionMemory::NodeSegmentsExposed;
}

}  // namespace

RegionPlan plan_region(const RegionFacts& f) {
  RegionPlan p;
  p.pooled = f.node_only || (f.shm && !f.progress_ranks && f.spanning_pool);
  p.reusable = f.shm && (f.node_only || !f.progress_ranks);
  p.memory = fresh_memory(f);
  return p;
}

}  // namespace armcix
