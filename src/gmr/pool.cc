// An allocation served without new windows: a reused segment of a freed region (shm/segment_cache.h's cache)
// or a block of the member set's pool.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "base/error.h"
#include "shm/segment.h"
#include "base/state.h"
#include "base/window.h"
#include "gmr/gmr.h"
#include "gmr/gmr_internal.h"
#include "shm/segment_cache.h"
#include "groups/group.h"
#include "progress/progress_ranks.h"
#include "topo/nodes.h"
#include "wait/wait.h"

namespace armcix {

namespace {

// After a member zeroed its slice of a reused segment: the zeros are visible to every peer before any of
// them returns from the allocation (memory barrier, barrier, memory barrier).  A reused window spanning
// nodes is synchronised too: other nodes reach the slice through it.  (Pool blocks need none of this: they
// are zeroed when freed, take_pool_block.)
void publish_zeroed_slices(const char* call, Gmr* g) {
  ARMCIX_MPI(MPI_Win_sync(g->shm_win));
  if (g->win != MPI_WIN_NULL) ARMCIX_MPI(MPI_Win_sync(g->win));
  MPI_Request req;
  ARMCIX_MPI(MPI_Ibarrier(g->comm, &req));
  wait_for(call, &req);
  ARMCIX_MPI(MPI_Win_sync(g->shm_win));
  if (g->win != MPI_WIN_NULL) ARMCIX_MPI(MPI_Win_sync(g->win));
}

}  // namespace

// Reuses a cached segment of a freed region on the same members whose slices hold `sizes`
// (shm/segment_cache.h), with its MPI window if the members span nodes.  The caller's slice is zeroed, as
// fresh shared memory is, and the barrier keeps every rank from touching a peer's slice before its owner
// has cleared it.  No late operation of the freed region can land after the zeroing: every member
// completed its operations at the free (flush), before the allocation's gather that precedes this.
bool adopt_cached_segment(const char* call, Gmr* g, const std::vector<MPI_Aint>& sizes) {
  CachedSlices c;
  if (!shm_cache_take(g->members(), sizes, &c)) return false;
  g->shm_win = c.shm_win;
  g->win = c.win;
  g->atomics_via_mpi = c.win != MPI_WIN_NULL;
  g->node_start = std::move(c.node_start);
  g->capacity = std::move(c.capacity);
  g->owner_base = std::move(c.owner_base);  // base(r) is NULL for empty slices whatever this holds
  if (sizes[g->my_rank] > 0) std::memset(g->local_ptr(g->my_rank), 0, static_cast<std::size_t>(sizes[g->my_rank]));
  publish_zeroed_slices(call, g);
  return true;
}

namespace {

// Adds a segment of `slice_bytes` per member to the member set's pool (shm/segment_cache.h).  Collective over
// the group.
void add_pool_segment(const char* call, const Gmr* g, const ARMCI_Group* group, bool node_only, MPI_Aint slice_bytes) {
  Gmr seg;
  seg.nranks = group->size;
  const MPI_Aint here = static_cast<MPI_Aint>(node_comm_of(group).node_to_group.size());
  map_node_slices(call, &seg, group, slice_bytes - kSliceHeader, g->size(g->my_rank), slice_bytes * here);
  // Free blocks must be zero, their lock words above all.  Fresh shared pages are, but MPICH serves a
  // one-process node communicator from the heap (MPI_Win_allocate_shared on such a communicator returned
  // recycled, non-zero memory: seen under MPICH cliques with ARMCI_NODE_SIZE=2, where every rank is a node of
  // its own).  Such a segment is zeroed block by block as its blocks first reach further (take_pool_block),
  // not all at once here: a short-lived group of members alone on their nodes paid a 512 KiB memset per
  // group (benchmarks/scale.c's group_cycle), and a one-rank-per-node job a first ARMCI_Malloc faulting in
  // the whole slice.  Whether a segment starts zeroed is decided from the node map, the same on every member.
  // NodePath.PoolGrowsSegmentBySegmentUpToItsCapacity checks every block it gets for zeros, in both layouts.
  const bool zeroed = !some_member_alone(group);
  ARMCIX_MPI(MPI_Win_sync(seg.shm_win));
  std::vector<MPI_Aint> owners(group->size);
  MPI_Aint mine = reinterpret_cast<MPI_Aint>((*seg.node_start)[g->ranks->node_index[group->rank]]);
  MPI_Request req;
  ARMCIX_MPI(MPI_Iallgather(&mine, 1, MPI_AINT, owners.data(), 1, MPI_AINT, group->comm, &req));
  wait_for(call, &req);
  auto start_owner = std::make_shared<std::vector<char*>>(group->size);
  for (int r = 0; r < group->size; ++r) (*start_owner)[r] = reinterpret_cast<char*>(owners[r]);
  MPI_Win win = MPI_WIN_NULL;
  if (!node_only) {  // the segment's one window for every block (ARMCI_SPANNING_POOL)
    MPI_Info info;
    ARMCIX_MPI(MPI_Info_create(&info));
    ARMCIX_MPI(MPI_Info_set(info, "accumulate_ordering", "rar,raw,war,waw"));  // as every region window
    MPI_Comm win_comm = shm_cache_window_comm(g->members(), group->comm);
    run_window_collective(win_comm, [&] {
      ARMCIX_MPI_WINDOW(MPI_Win_create(reinterpret_cast<void*>(mine), slice_bytes, 1, info, win_comm, &win));
    });
    ARMCIX_MPI(MPI_Info_free(&info));
    require_unified_model(call, win, "the pool segment's RMA window");
    ARMCIX_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    ARMCIX_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    ++g_windows_created;
  }
  index_pool(start_owner, g->ranks, slice_bytes);
  shm_pool_add(g->members(), seg.shm_win, win, seg.node_start, std::move(start_owner), slice_bytes, zeroed);
}

}  // namespace

// Serves a small allocation from its member set's pool (shm/segment_cache.h), adding a segment when no segment
// has room and the pool may still grow.  False (on every member alike: the decision uses only shared data)
// when the largest slice is too big for a pool block or the pool is full.  Unlike adopt_cached_segment,
// neither zeroing nor a barrier: free blocks are kept zero (below).
bool take_pool_block(const char* call, Gmr* g, const ARMCI_Group* group, MPI_Aint largest, MPI_Aint node_room,
                     bool node_only) {
  if (largest > shm_pool_max_block()) return false;
  const MPI_Aint block = kSliceHeader + (largest + kSliceHeader - 1) / kSliceHeader * kSliceHeader;
  PoolBlock b;
  if (!shm_pool_take(g->members(), block, &b)) {
    const MPI_Aint slice_bytes = shm_pool_next_slice(g->members(), block, node_room);
    if (slice_bytes == 0) return false;
    add_pool_segment(call, g, group, node_only, slice_bytes);
    ARMCIX_REQUIRE(shm_pool_take(g->members(), block, &b), call, "internal error: a new pool segment has no room");
  }
  g->shm_win = b.shm_win;
  g->win = b.win;
  g->atomics_via_mpi = b.win != MPI_WIN_NULL;
  g->win_offset = b.offset + kSliceHeader;
  g->pool_offset = b.offset;
  g->pool_block = block;
  g->node_start = std::move(b.start_local);
  g->node_offset = b.offset;
  g->pool_owner_start = std::move(b.start_owner);
  // Usually no zeroing and no barrier here: every free block of every member's pool slice is kept zero
  // (fresh pages, and each member zeroes its part of a block when the block is freed, gmr_destroy).  A member
  // zeroed before it entered this allocation's gather, which everyone passed before getting here; the
  // MPI_Win_sync pairs with the one after that zeroing.  Saves one barrier per small ARMCI_Malloc, which
  // on an oversubscribed machine waits for a time slice of every member.
  // The exception: a block that reaches past its segment's high-water mark in a segment that did not start
  // zeroed (add_pool_segment).  A member alone on its node zeroes its part of that stretch, and nobody may
  // use the block before every member has: a barrier, on every member alike (the mark is replicated).
  if (b.zero_to > b.zero_from) {
    if (g->node_start->size() == 1)
      std::memset((*g->node_start)[0] + b.zero_from, 0, static_cast<std::size_t>(b.zero_to - b.zero_from));
    ARMCIX_MPI(MPI_Win_sync(g->shm_win));
    if (g->win != MPI_WIN_NULL) ARMCIX_MPI(MPI_Win_sync(g->win));
    if (group->size > 1) {
      MPI_Request req;
      ARMCIX_MPI(MPI_Ibarrier(group->comm, &req));
      wait_for(call, &req);
    }
    return true;
  }
  ARMCIX_MPI(MPI_Win_sync(g->shm_win));
  return true;
}

}  // namespace armcix
