// Where a new region's memory comes from and how MPI reaches it (gmr_create): a pure function of the settings
// and of where the members are, with no MPI and no global state, so that every branch is unit-tested
// (tests/unit/test_region_plan.cc).
#pragma once

#include "base/config.h"

namespace armcix {

// The memory of a region that is neither a pool block nor a reused segment (RegionPlan below).
enum class RegionMemory {
  ProxiedSegments,      // ARMCI_SHM=1, spanning nodes, progress ranks: POSIX segments that the progress
                        // ranks attach to their proxy window; no window of the region's own
  NodeSegments,         // ARMCI_SHM=1, one node: a shared-memory window per node, reached by load/store only
  NodeSegmentsExposed,  // ARMCI_SHM=1, spanning nodes: the same, exposed to other nodes by MPI_Win_create
  WinAllocate,          // ARMCI_SHM=0, ARMCI_USE_WIN_ALLOCATE=1: MPI_Win_allocate
  WinCreate,            // ARMCI_SHM=0: MPI_Alloc_mem + MPI_Win_create (base/window.h, create_rma_window)
};

// What the plan depends on.  Every member sees the same facts, so every member makes the same plan and
// the collectives that follow match.
struct RegionFacts {
  bool shm = false;                             // ARMCI_SHM
  bool node_only = false;                       // every member is on my node (never with ARMCI_SHM=0: topo/nodes.h)
  bool progress_ranks = false;                  // ARMCI_PROGRESS_RANKS in use (progress/progress_ranks.h)
  bool spanning_pool = false;                   // ARMCI_SPANNING_POOL
  WindowKind window_kind = WindowKind::Create;  // ARMCI_USE_WIN_ALLOCATE
};

struct RegionPlan {
  // Try the member set's pool first (small regions, shm/segment_cache.h): node-only regions always, regions
  // spanning nodes with ARMCI_SPANNING_POOL=1 (one window for the pool instead of one per region:
  // doc/performance.md, "Cost as jobs grow").
  bool pooled = false;
  // Try a cached segment of a freed region next, and cache this one's at ARMCI_Free: node-only segments,
  // and segments spanning nodes with their MPI_Win_create window (not with progress ranks, whose regions
  // have no window of their own).
  bool reusable = false;
  // Otherwise the memory is made fresh this way.
  RegionMemory memory = RegionMemory::WinCreate;
};

RegionPlan plan_region(const RegionFacts& f);

}  // namespace armcix
