#include "gmr/gmr.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <tuple>
#include <utility>

#include <unistd.h>

#include "base/alloc_stats.h"
#include "base/error.h"
#include "shm/segment.h"
#include "base/state.h"
#include "base/thread_lock.h"
#include "base/window.h"
#include "checks/collective_check.h"
#include "gmr/gmr_internal.h"
#include "gmr/members_busy.h"
#include "gmr/region_plan.h"
#include "shm/segment_cache.h"
#include "groups/group.h"
#include "progress/progress_ranks.h"
#include "runtime/modules.h"
#include "topo/nodes.h"
#include "wait/wait.h"

namespace armcix {

namespace {

// Key (absolute rank, slice base).  Slices of one rank never overlap, so the region holding an address is
// the entry with the greatest key <= (rank, address).  A region of its own has an entry per non-empty
// slice; a pool (shm/segment_cache.h) has one per member, for all its blocks, which it finds by offset: a
// live pool block costs no per-rank entry (issue 30).
struct PoolIndex {
  std::shared_ptr<const RankMap> ranks;
  MPI_Aint slice_bytes = 0;
  std::map<MPI_Aint, Gmr*> blocks;  // block offset -> region
};
struct SliceOwner {
  Gmr* region;      // a region's own slice, or
  PoolIndex* pool;  // a member's slice of a pool segment (slice_bytes)
};
using SliceKey = std::pair<int, uintptr_t>;
std::map<SliceKey, SliceOwner> g_slices;
// The last region gmr_find found, as the address range of its slice on one process: GA's calls go to the
// same array again and again, and a hit costs a few compares instead of two tree searches (~70
// instructions of a node-local 8-byte get, benchmarks/local_get_ir.c).  Forgotten whenever the index
// changes (index_region, unindex_region, index_pool, unindex_pool, gmr_finalize).
struct LastFound {
  int proc = -1;
  uintptr_t lo = 0;     // the address of the region's first byte on proc
  uintptr_t bytes = 0;  // its size there
  Gmr* g = nullptr;
  int wr = -1;
};
LastFound g_last_found;
std::map<const void*, PoolIndex> g_pools;  // pool_owner_start table -> its blocks
std::vector<Gmr*> g_regions;
// Member set -> its rank translations, shared by the regions alive on it.
std::map<std::vector<int>, std::weak_ptr<const RankMap>> g_rank_maps;

std::shared_ptr<const RankMap> rank_map_of(const ARMCI_Group* group) {
  std::vector<int> members(group->grp_to_abs, group->grp_to_abs + group->size);
  auto it = g_rank_maps.find(members);
  if (it != g_rank_maps.end())
    if (std::shared_ptr<const RankMap> m = it->second.lock()) return m;
  const Runtime& r = rt();
  auto m = std::make_shared<RankMap>();
  m->grp_to_abs = members;
  m->abs_to_grp.assign(group->abs_to_grp, group->abs_to_grp + r.nproc);
  m->node_index.assign(group->size, -1);
  for (int wr = 0; wr < group->size; ++wr)  // node communicators order node members by group rank
    if (r.node_of[members[wr]] == r.node_of[r.me]) m->node_index[wr] = m->node_size++;
  g_rank_maps[std::move(members)] = m;
  return m;
}
}  // namespace

uint64_t g_windows_created = 0;  // allocations that made new windows (not reuse): for tests

namespace {

uint64_t g_next_serial = 1;           // the next allocation number (equal on all members: collectives run in one order)
// ARMCI_Malloc_local blocks: the address returned -> MPI_Alloc_mem's, so that Free_local can check its argument
// and free what MPI gave.
std::map<void*, void*> g_local_allocations;
std::vector<void (*)(Gmr*)> g_release_hooks;

void run_release_hooks(Gmr* g) {
  for (auto fn : g_release_hooks) fn(g);
}

void index_region(Gmr* g) {
  attach_pending(g);  // the window is known by now
  g_last_found = {};
  if (g->pool_offset >= 0) {
    g_pools.at(g->pool_owner_start.get()).blocks[g->pool_offset] = g;
  } else {
    for (int r = 0; r < g->nranks; ++r)
      if (g->size(r) > 0) g_slices[{g->abs_rank_of(r), reinterpret_cast<uintptr_t>(g->base(r))}] = {g, nullptr};
  }
  g_regions.push_back(g);
}

void unindex_region(Gmr* g) {
  g_last_found = {};
  if (g->pool_offset >= 0) {
    g_pools.at(g->pool_owner_start.get()).blocks.erase(g->pool_offset);
  } else {
    for (int r = 0; r < g->nranks; ++r)
      if (g->size(r) > 0) g_slices.erase({g->abs_rank_of(r), reinterpret_cast<uintptr_t>(g->base(r))});
  }
  g_regions.erase(std::find(g_regions.begin(), g_regions.end(), g));
}

}  // namespace

// A new pool segment: its members' slices go into the index once, for every block it will serve.
void index_pool(const std::shared_ptr<const std::vector<char*>>& owner_start, std::shared_ptr<const RankMap> ranks,
                MPI_Aint slice_bytes) {
  g_last_found = {};
  PoolIndex& p = g_pools[owner_start.get()];
  p.ranks = std::move(ranks);
  p.slice_bytes = slice_bytes;
  for (std::size_t r = 0; r < owner_start->size(); ++r)
    g_slices[{p.ranks->grp_to_abs[r], reinterpret_cast<uintptr_t>((*owner_start)[r])}] = {nullptr, &p};
}

namespace {

// A released pool segment (shm_pool_release) leaves the index.
void unindex_pool(const std::vector<char*>* owner_start) {
  g_last_found = {};
  auto it = g_pools.find(owner_start);
  ARMCIX_REQUIRE(it != g_pools.end() && it->second.blocks.empty(), "ARMCI_Group_free",
                 "internal error: a released pool segment is not indexed, or still has blocks");
  for (std::size_t r = 0; r < owner_start->size(); ++r)
    g_slices.erase({it->second.ranks->grp_to_abs[r], reinterpret_cast<uintptr_t>((*owner_start)[r])});
  g_pools.erase(it);
}

// The last live group on these members is being freed (groups/group.h; collective over the members, every one
// of which holds the same regions, cache and pool): cached segments go; the pool, the window communicator and
// the rank translations go too unless a region on these members is still live (a region outliving its group
// is the program's to free with ARMCI_Free_group, which then needs them).
void members_released(const ARMCI_Group* group) {
  MembersBusy busy("ARMCI_Group_free", group->grp_to_abs, group->size);
  const std::vector<int> members(group->grp_to_abs, group->grp_to_abs + group->size);
  shm_cache_release(members);
  if (std::any_of(g_regions.begin(), g_regions.end(), [&](const Gmr* g) { return g->members() == members; })) return;
  for (const auto& owner_start : shm_pool_release(members)) unindex_pool(owner_start.get());
  shm_window_comm_release(members);
  auto it = g_rank_maps.find(members);
  if (it != g_rank_maps.end() && it->second.expired()) g_rank_maps.erase(it);
}

void release_region(Gmr* g) {
  run_release_hooks(g);
  // A pool block's windows are its pool segment's, freed with the pool (shm_cache_clear), never here: a
  // spanning pool's window was unlocked twice at ARMCI_Finalize when a block was still live (NWChem across
  // hosts with ARMCI_SPANNING_POOL=1: "Wrong synchronization of RMA calls").
  if (g->pool_offset >= 0) g->shm_win = g->win = MPI_WIN_NULL;
  if (!g->proxy_rank.empty()) {
    release_proxied(g);
  } else if (g->win != MPI_WIN_NULL) {
    ARMCIX_MPI(MPI_Win_unlock_all(g->win));
    ApiUnlocked unlocked;  // collective: the region is out of the tables, nobody else reaches it
    ARMCIX_MPI(MPI_Win_free(&g->win));
  }
  if (g->shm_win != MPI_WIN_NULL) {
    ARMCIX_MPI(MPI_Win_unlock_all(g->shm_win));
    ApiUnlocked unlocked;
    ARMCIX_MPI(MPI_Win_free(&g->shm_win));
  }
  if (g->alloc_mem) ARMCIX_MPI(MPI_Free_mem(g->alloc_mem));
  delete g;
}

// What the members of an ARMCI_Malloc agree on: every slice size, its extremes, the region's serial and how
// far the member set's pool may grow on the most constrained node.  When every member asked the same (GA's
// regular distributions) no per-member vector is made: a pooled ARMCI_Malloc then costs no memory or time in
// proportion to the group.
struct AgreedSizes {
  std::vector<MPI_Aint> each;  // group rank -> slice bytes; empty when uniform
  MPI_Aint largest = 0, smallest = 0;
  MPI_Aint serial = 0;     // the largest proposed: the same on every member
  MPI_Aint node_room = 0;  // the smallest pool_node_room of the members
  bool uniform() const { return largest == smallest; }
  MPI_Aint of(int r) const { return each.empty() ? largest : each[r]; }
  // Every member's size (the paths that give a region segments of its own keep per-member state anyway).
  std::vector<MPI_Aint> all(int members) const { return each.empty() ? std::vector<MPI_Aint>(members, largest) : each; }
};

// Fails if the slices on my node add up to more than my node can hold (`limit`; every process of a node reads
// the same).  Each process checks its own node, so those of an overfull node fail (ARMCI_Error ends the job).
// Equal sizes are checked from the member count on my node (RankMap::node_size); only a failure, or sizes
// that differ, look at the members one by one.
void check_node_capacity(const char* call, const ARMCI_Group* group, const AgreedSizes& sizes, int members_here,
                         MPI_Aint limit) {
  if (sizes.uniform() && (members_here == 0 || sizes.largest <= limit / members_here)) return;
  const Runtime& r = rt();
  const int my_node = r.node_of[r.me];
  MPI_Aint sum = 0;
  int first_rank = -1;  // lowest absolute rank of the group on my node
  for (int g = 0; g < group->size; ++g) {
    const int abs = group->grp_to_abs[g];
    if (r.node_of[abs] != my_node) continue;
    if (first_rank < 0) first_rank = abs;
    const MPI_Aint size = sizes.of(g);
    sum = size > limit - sum ? limit + 1 : sum + size;  // saturate instead of overflowing
    if (sum > limit) {
      const bool own = size > limit;
      fail(call,
           "argument 'bytes' = %ld on process %d: %s more than the %ld bytes the node of process %d can hold "
           "(RAM + swap%s)",
           static_cast<long>(size), abs, own ? "is" : "brings the slices on its node to", static_cast<long>(limit),
           first_rank, r.config.shm ? ", and the size of /dev/shm" : "");
    }
  }
}

// The pool slices (per member, in all) my node can give this member set: half of what the node holds
// (node_memory_limit: RAM + swap, and /dev/shm) shared among the set's `members_here` on it (RankMap).  A pool segment
// may be up to twice what the program asked for (its capacity doubles), and its pages are backed only as they are
// touched; where /dev/shm is small (a container's 64 MiB) a segment beyond it would be mapped fine and fail with SIGBUS
// at first touch, so the pool stops growing there and larger regions get a segment of their own, whose size
// check_node_capacity has checked.  Nodes may differ: the members agree on the minimum (agree_on_sizes), since every
// member must make the same pool decision.
MPI_Aint pool_node_room(int members_here) {
  return node_memory_limit(true) / 2 / std::max(members_here, 1);
}

// One allreduce of (largest size, -smallest size, serial, -node room) whatever the size of the group, and
// only when sizes differ an allgather of 8 bytes per member (GA's arrays whose blocks do not divide evenly).
// The allreduce also carries the ARMCI_CHECK_COLLECTIVES agreement.  The extremes come from the allreduce,
// so nobody scans the sizes again for them.  With back-off: every rank is here before the window
// collectives after it spin.
AgreedSizes agree_on_sizes(const char* call, const ARMCI_Group* group, const RankMap& ranks, MPI_Aint mine) {
  long agreed[kReducePayload];
  collective_reduce(call, Collective::Malloc, group->comm, "", kAnyObject,
                    {static_cast<long>(mine), -static_cast<long>(mine), static_cast<long>(g_next_serial),
                     -static_cast<long>(pool_node_room(ranks.node_size))},
                    agreed);
  AgreedSizes a;
  a.largest = static_cast<MPI_Aint>(agreed[0]);
  a.smallest = static_cast<MPI_Aint>(-agreed[1]);
  a.serial = static_cast<MPI_Aint>(agreed[2]);
  a.node_room = static_cast<MPI_Aint>(-agreed[3]);
  if (a.uniform()) return a;
  std::vector<long> all(group->size);
  const long my_size = static_cast<long>(mine);
  collective_allgather(call, group->comm, &my_size, 1, all.data());
  a.each.assign(all.begin(), all.end());
  return a;
}

// The live region on these members with this serial, or nullptr.  Serials of one member list are unique
// (MembersBusy); not the communicator: a group with the same members may free it, its own gone (group_freed).
Gmr* region_by_serial(uint64_t serial, const ARMCI_Group* group) {
  auto it = std::find_if(g_regions.rbegin(), g_regions.rend(), [&](const Gmr* g) {
    return g->serial == serial && g->nranks == group->size &&
           std::equal(g->members().begin(), g->members().end(), group->grp_to_abs);
  });
  return it == g_regions.rend() ? nullptr : *it;
}

// ARMCI_Group_free of a group with live regions (collective over its members, all holding them): they take one
// duplicate of its communicator, for their free or release's barriers (pool blocks, progress ranks).
void group_freed(const ARMCI_Group* group) {
  auto on_group = [&](const Gmr* g) { return g->comm == group->comm; };
  if (std::none_of(g_regions.begin(), g_regions.end(), on_group)) return;
  MembersBusy busy("ARMCI_Group_free", group->grp_to_abs, group->size);
  MPI_Comm dup;
  MPI_Request req;
  ARMCIX_MPI(MPI_Comm_idup(group->comm, &dup, &req));
  wait_for("ARMCI_Group_free", &req);
  auto own = std::shared_ptr<MPI_Comm>(new MPI_Comm(dup), [](MPI_Comm* c) {
    ARMCIX_MPI(MPI_Comm_free(c));
    delete c;
  });
  for (Gmr* g : g_regions)
    if (on_group(g)) std::tie(g->comm, g->own_comm) = std::tie(dup, own);
}

}  // namespace

GmrRef gmr_find(int proc, const void* addr) {
  uintptr_t a = reinterpret_cast<uintptr_t>(addr);
  if (proc == g_last_found.proc && a - g_last_found.lo < g_last_found.bytes)  // unsigned: also below lo
    return {g_last_found.g, g_last_found.wr, static_cast<MPI_Aint>(a - g_last_found.lo)};
  auto it = g_slices.upper_bound({proc, a});
  if (it == g_slices.begin()) return {nullptr, -1, 0};
  --it;
  if (it->first.first != proc) return {nullptr, -1, 0};
  // Unsigned: an address far above the slice (a garbage or wrapped pointer such as 0xABAB...AB or
  // ~0 - 7) is more than 2^63 bytes past its base, which as a signed offset would be negative and pass.
  uintptr_t off = a - it->first.second;
  Gmr* g = it->second.region;
  if (!g) {  // a pool slice: the block at or below the offset
    const PoolIndex& pool = *it->second.pool;
    if (off >= static_cast<uintptr_t>(pool.slice_bytes)) return {nullptr, -1, 0};
    auto b = pool.blocks.upper_bound(static_cast<MPI_Aint>(off));
    if (b == pool.blocks.begin()) return {nullptr, -1, 0};
    --b;
    const uintptr_t data = static_cast<uintptr_t>(b->first + kSliceHeader);
    if (off < data) return {nullptr, -1, 0};  // in the block's lock word
    g = b->second;
    off -= data;
  }
  int wr = g->win_rank_of(proc);
  if (off >= static_cast<uintptr_t>(g->size(wr))) return {nullptr, -1, 0};
  g_last_found = {proc, a - off, static_cast<uintptr_t>(g->size(wr)), g, wr};
  return {g, wr, static_cast<MPI_Aint>(off)};
}

GmrRef gmr_resolve(const char* call, const char* arg, int proc, const void* addr, std::size_t bytes) {
  GmrRef ref = gmr_find(proc, addr);
  if (__builtin_expect(ref.gmr == nullptr, 0))
    fail(call, "argument '%s' = %p is not inside memory allocated with ARMCI_Malloc on process %d", arg, addr, proc);
  if (__builtin_expect(static_cast<std::size_t>(ref.gmr->size(ref.win_rank) - ref.disp) < bytes, 0))
    fail(call,
         "argument '%s' = %p: %zu bytes run past the end of the allocation on process %d "
         "(%ld bytes left in it)",
         arg, addr, bytes, proc, static_cast<long>(ref.gmr->size(ref.win_rank) - ref.disp));
  return ref;
}

namespace {
void count_own_region(MPI_Aint mine) {
  ++g_alloc_stats.own_regions;
  alloc_stats_add(g_alloc_stats.own_live, g_alloc_stats.own_live_peak, static_cast<uint64_t>(mine));
}
}  // namespace

void gmr_create(const char* call, void** base_ptrs, armci_size_t bytes, const ARMCI_Group* group) {
  check_group(call, group, true);
  ARMCIX_REQUIRE(base_ptrs != nullptr, call, "argument 'ptr_arr' is NULL");
  ARMCIX_REQUIRE(bytes >= 0, call, "argument 'bytes' = %ld is negative", static_cast<long>(bytes));
  const Config& cfg = rt().config;
  MembersBusy busy(call, group->grp_to_abs, group->size);

  MPI_Aint mine = static_cast<MPI_Aint>(bytes);
  std::shared_ptr<const RankMap> ranks = rank_map_of(group);
  const AgreedSizes agreed = agree_on_sizes(call, group, *ranks, mine);
  check_node_capacity(call, group, agreed, ranks->node_size, static_cast<MPI_Aint>(node_memory_limit(cfg.shm)));
  if (agreed.largest == 0) {  // nothing to expose: no window, every base is NULL, ARMCI_Free(NULL) is a no-op
    std::fill(base_ptrs, base_ptrs + group->size, nullptr);
    return;
  }

  auto* g = new Gmr;
  g->comm = group->comm;
  g->nranks = group->size;
  g->my_rank = group->rank;
  g->serial = static_cast<uint64_t>(agreed.serial);  // the same on every member (ARMCI_CHECK_COLLECTIVES names it)
  // Never lowered: another thread's allocation on another group may have moved it on during the collective.
  g_next_serial = std::max(g_next_serial, g->serial + 1);
  g->ranks = std::move(ranks);
  if (agreed.uniform())
    g->uniform_size = agreed.largest;
  else
    g->sizes = agreed.each;

  const bool node_only = group_is_node_local(group->grp_to_abs, group->size);
  const RegionPlan plan = plan_region({cfg.shm, node_only, progress_ranks_on(), cfg.spanning_pool, cfg.window_kind});
  const bool pooled = plan.pooled && take_pool_block(call, g, group, agreed.largest, agreed.node_room, node_only);
  if (!pooled) count_own_region(mine);
  if (pooled || (plan.reusable && adopt_cached_segment(call, g, agreed.all(group->size)))) {
    for (int r = 0; r < g->nranks; ++r) base_ptrs[r] = g->base(r);
    index_region(g);
    return;
  }
  ++g_windows_created;

  MPI_Info info;
  ARMCIX_MPI(MPI_Info_create(&info));
  // Accumulates from one origin must stay ordered (location consistency without a flush between them).
  ARMCIX_MPI(MPI_Info_set(info, "accumulate_ordering", "rar,raw,war,waw"));
  void* base = nullptr;
  switch (plan.memory) {
    case RegionMemory::ProxiedSegments:
      base = map_proxied_slices(call, g, group, mine);
      g->atomics_via_mpi = true;
      break;
    case RegionMemory::NodeSegments:
    case RegionMemory::NodeSegmentsExposed: {
      // The segment may be reused after ARMCI_Free (shm/segment_cache.h): its slices get a size class (the same
      // on every member, computed from the gathered sizes), so that later, slightly larger allocations fit.
      const MPI_Aint capacity = shm_slice_class(mine);
      MPI_Aint node_bytes = 0;
      for (const int gr : node_comm_of(group).node_to_group)
        node_bytes += shm_slice_class(agreed.of(gr)) + kSliceHeader;
      base = map_node_slices(call, g, group, capacity, mine, node_bytes);
      // A group inside one node needs no MPI window at all; one that spans nodes exposes the same memory
      // (the whole capacity, for reuse) to the other nodes.  Every member computes the same answer, so the
      // collective below is matched.
      g->atomics_via_mpi = plan.memory == RegionMemory::NodeSegmentsExposed;
      if (g->atomics_via_mpi) {
        MPI_Comm win_comm = shm_cache_window_comm(g->members(), group->comm);  // not group->comm: see there
        run_window_collective(win_comm,
                              [&] { ARMCIX_MPI_WINDOW(MPI_Win_create(base, capacity, 1, info, win_comm, &g->win)); });
      }
      break;
    }
    case RegionMemory::WinAllocate:
      run_window_collective(group->comm, [&] {
        check_allocation(call, MPI_Win_allocate(mine, 1, info, group->comm, &base, &g->win), "MPI_Win_allocate", mine);
      });
      break;
    case RegionMemory::WinCreate: {
      RmaWindow w = create_rma_window(mine, 1, info, group->comm);
      base = w.base;
      g->alloc_mem = w.alloc_mem;
      g->win = w.win;
      break;
    }
  }
  if (g->win != MPI_WIN_NULL) require_unified_model(call, g->win, "the allocation's RMA window");
  ARMCIX_MPI(MPI_Info_free(&info));
  if (mine == 0) base = nullptr;
  if (g->win != MPI_WIN_NULL && g->proxy_rank.empty()) {
    ARMCIX_MPI(MPI_Win_set_errhandler(g->win, MPI_ERRORS_RETURN));
    ARMCIX_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, g->win));
  }

  std::vector<MPI_Aint> bases(g->nranks);
  MPI_Aint my_base = reinterpret_cast<MPI_Aint>(base);
  MPI_Request req;
  ARMCIX_MPI(MPI_Iallgather(&my_base, 1, MPI_AINT, bases.data(), 1, MPI_AINT, group->comm, &req));
  wait_for(call, &req);
  g->owner_base.resize(g->nranks);
  for (int r = 0; r < g->nranks; ++r) {
    g->owner_base[r] = reinterpret_cast<char*>(bases[r]);
    base_ptrs[r] = g->base(r);
  }
  if (plan.reusable) {
    g->capacity.resize(g->nranks);
    for (int r = 0; r < g->nranks; ++r) g->capacity[r] = shm_slice_class(agreed.of(r));
  }
  index_region(g);
}

void gmr_destroy(const char* call, void* ptr, const ARMCI_Group* group) {
  check_group(call, group, true);
  MembersBusy busy(call, group->grp_to_abs, group->size);
  Gmr* g = nullptr;
  if (ptr) {
    GmrRef ref = gmr_find(rt().me, ptr);
    ARMCIX_REQUIRE(ref.gmr != nullptr, call, "argument 'ptr' = %p was not returned by ARMCI_Malloc", ptr);
    ARMCIX_REQUIRE(ref.disp == 0, call,
                   "argument 'ptr' = %p is inside an allocation but not its base "
                   "(base is %p)",
                   ptr, static_cast<void*>(ref.gmr->base(ref.win_rank)));
    // Compare membership, not communicator handles: a copy of the group, or another group with the same
    // members, frees the region just as well (the collective below runs on the members only).
    ARMCIX_REQUIRE(ref.gmr->nranks == group->size &&
                       std::equal(ref.gmr->members().begin(), ref.gmr->members().end(), group->grp_to_abs),
                   call, "argument 'ptr' = %p was allocated on a different group than the one freeing it", ptr);
    g = ref.gmr;
    ARMCIX_REQUIRE(g->access_depth == 0, call,
                   "allocation %p is freed between ARMCI_Access_begin and "
                   "ARMCI_Access_end",
                   ptr);
  }
  // Ranks whose slice was empty pass NULL: they learn the region's serial (the same on every member) from
  // those that hold a pointer, in one allreduce of a few longs whatever the size of the group (with
  // back-off: every rank is here before MPI_Win_free's barrier spins).  With ARMCI_CHECK_COLLECTIVES the
  // same allreduce verifies that every member frees the same allocation: otherwise the collectives below
  // would free different windows on different ranks.
  const long serial = g ? static_cast<long>(g->serial) : kAnyObject;
  long agreed[kReducePayload];
  collective_reduce(call, Collective::Free, group->comm, "allocation", serial,
                    {g ? serial : std::numeric_limits<long>::min(), 0, 0, 0}, agreed);
  if (agreed[0] == std::numeric_limits<long>::min()) return;  // every slice empty: nothing was allocated
  if (!g) {
    g = region_by_serial(static_cast<uint64_t>(agreed[0]), group);
    ARMCIX_REQUIRE(g != nullptr && g->nranks == group->size &&
                       std::equal(g->members().begin(), g->members().end(), group->grp_to_abs),
                   call, "ptr = NULL here, but the allocation the other processes free is unknown to this process");
  }
  unindex_region(g);
  if (g->pool_offset >= 0) {  // a pool block: back to the pool (every member is in this call)
    run_release_hooks(g);
    // Past the gather every member has finished its loads and stores on the region (node-only: nothing is
    // in flight), so my part of the block can be zeroed now for its next user (take_pool_block).  A member
    // with an empty slice got no pointer to its part, which is still zero.  A pool spanning nodes: first
    // every member completes its MPI operations (flush), and waits for all others to have done so.
    if (g->win != MPI_WIN_NULL) {
      ARMCIX_MPI(MPI_Win_flush_all(g->win));
      MPI_Request req;
      ARMCIX_MPI(MPI_Ibarrier(g->comm, &req));
      wait_for(call, &req);
    }
    if (g->size(g->my_rank) > 0) {
      std::memset(g->slice_lock(g->my_rank), 0, static_cast<std::size_t>(g->pool_block));
      ARMCIX_MPI(MPI_Win_sync(g->shm_win));
      if (g->win != MPI_WIN_NULL) ARMCIX_MPI(MPI_Win_sync(g->win));
    }
    shm_pool_give_back(g->members(), g->shm_win, g->pool_offset, g->pool_block);
    delete g;
    return;
  }
  alloc_stats_sub(g_alloc_stats.own_live, static_cast<uint64_t>(g->size(g->my_rank)));
  if (!g->capacity.empty()) {  // keep the segment (and window) for a later allocation on these members
    run_release_hooks(g);
    // Complete my operations at their targets now: the next owner of a slice zeroes it (after a gather
    // every member enters only after this), and no late operation may land after that.
    if (g->win != MPI_WIN_NULL) {
      wake_servers(g);
      ARMCIX_MPI(MPI_Win_flush_all(g->win));
    }
    CachedSlices c;
    c.shm_win = g->shm_win;
    c.win = g->win;
    c.capacity = std::move(g->capacity);
    c.owner_base = std::move(g->owner_base);
    c.node_start = std::move(g->node_start);
    shm_cache_put(g->members(), std::move(c));
    delete g;
    return;
  }
  release_region(g);  // unlock_all completes our operations; MPI_Win_free waits for everybody's
}

std::size_t page_bytes() {
  static const std::size_t bytes = [] {
    const long b = sysconf(_SC_PAGESIZE);
    return b > 0 ? static_cast<std::size_t>(b) : std::size_t{4096};
  }();
  return bytes;
}

void* local_alloc(const char* call, armci_size_t bytes) {
  require_initialized(call);
  ARMCIX_REQUIRE(bytes >= 0, call, "argument 'bytes' = %ld is negative", static_cast<long>(bytes));
  ARMCIX_REQUIRE(bytes <= node_memory_limit(false), call,
                 "argument 'bytes' = %ld is more than the %ld bytes this node can hold (RAM + swap)",
                 static_cast<long>(bytes), static_cast<long>(node_memory_limit(false)));
  // MPI memory: registered with the network where that matters, so it is a fast RMA origin.  Aligned to a
  // page from a page up (to a cache line below): MPI_Alloc_mem gives what malloc gives (MPICH 4.0.2 with
  // UCX: 16 bytes past a cache line), and a memcpy between such a buffer and a line-aligned ARMCI_Malloc
  // array runs 1.1-1.4x slower than between two aligned ones (GA's perf2 puts of 3 KB-1 MB, whose buffer
  // is ARMCI_Malloc_local's; MPI-PR's comes in whole pages).  The extra bytes are at most a page.
  const std::size_t want = static_cast<std::size_t>(bytes ? bytes : 1);
  const std::size_t align = want >= page_bytes() ? page_bytes() : 64;
  void* base = alloc_mem_or_fail(call, static_cast<MPI_Aint>(want + align - 1));
  void* p = align_up(base, align);
  g_local_allocations.emplace(p, base);
  return p;
}

void local_free(const char* call, void* ptr) {
  require_initialized(call);
  if (!ptr) return;
  auto it = g_local_allocations.find(ptr);
  ARMCIX_REQUIRE(it != g_local_allocations.end(), call, "argument 'ptr' = %p was not returned by ARMCI_Malloc_local",
                 ptr);
  void* base = it->second;
  g_local_allocations.erase(it);
  ARMCIX_MPI(MPI_Free_mem(base));
}

void gmr_on_release(void (*fn)(Gmr*)) {
  if (std::find(g_release_hooks.begin(), g_release_hooks.end(), fn) == g_release_hooks.end())
    g_release_hooks.push_back(fn);
}

uint64_t gmr_windows_created() {
  return g_windows_created;
}

const std::vector<Gmr*>& gmr_all() {
  return g_regions;
}

void gmr_initialize() {
  g_alloc_stats = AllocStats{};
  on_group_freed(&group_freed);
  on_members_released(&members_released);
}

void gmr_finalize() {
  // Cached node communicators go with their group communicators; the keyval itself is freed here.
  // Regions the program did not free: MPI_Win_free is collective and every rank holds the same list in
  // the same order (allocation order), so releasing them here is safe.
  while (!g_regions.empty()) {
    Gmr* g = g_regions.front();
    unindex_region(g);
    release_region(g);
  }
  shm_cache_clear();
  g_slices.clear();  // the pools' entries
  g_last_found = {};
  g_pools.clear();
  g_rank_maps.clear();
  node_comm_keyval_free();
}

}  // namespace armcix
