// GMR: global memory regions.  Every ARMCI_Malloc creates one MPI window over the allocating group; the
// table translates an ARMCI global address (absolute rank, virtual address) into (region, window rank,
// displacement) in O(log n) of the number of regions.
#pragma once

#include <armci.h>
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "progress/progress_ranks.h"

namespace armcix {

class PendingTargets;  // completion/pending.h: a window's ordering state, which the table only holds

// Bytes in front of every shared slice: the slice's accumulate lock word, padded to a cache line so the
// user's data keeps the allocator's alignment and the lock does not share a line with it.
constexpr MPI_Aint kSliceHeader = 64;

// The rank translations of one member set, shared by every region allocated on it (and by its pool): a
// live region keeps no per-rank translation table of its own (issue 30).
struct RankMap {
  std::vector<int> grp_to_abs;  // window rank -> absolute rank
  std::vector<int> abs_to_grp;  // absolute rank -> window rank (-1: not a member)
  std::vector<int> node_index;  // window rank -> its index among the members on my node (-1: on another)
  int node_size = 0;            // members on my node
};

struct Gmr {
  MPI_Win win = MPI_WIN_NULL;     // RMA window over the whole group (MPI_WIN_NULL if every member
                                  // is reachable by load/store: then no MPI operation is ever needed)
  MPI_Comm comm = MPI_COMM_NULL;  // the allocating group's communicator (owned by the group), or own_comm's
  int nranks = 0;                 // window group size
  int my_rank = -1;               // my rank in the window group
  std::shared_ptr<const RankMap> ranks;  // the member set's translations (shared)
  void* alloc_mem = nullptr;      // memory from MPI_Alloc_mem (window kind "create"), freed with the region
  // Set when the group is freed before the region (ARMCI_Group_free): a duplicate of its communicator, shared
  // by the group's live regions and freed with the last of them.
  std::shared_ptr<MPI_Comm> own_comm;

  // Slices.  A region of its own keeps every slice's base (owner_base: in its owner's address space); a pool
  // block (below) derives it from the pool's table and its offset.  Sizes: one for all when every member
  // asked the same (GA's regular distributions), else one per window rank.
  std::vector<char*> owner_base;
  std::vector<MPI_Aint> sizes;  // empty: every slice has uniform_size bytes
  MPI_Aint uniform_size = 0;

  // Node-local path (src/shm): the slices of node peers mapped into this process, by node index
  // (RankMap::node_index): each entry is the slice's start (its lock word, user data kSliceHeader after), or
  // nullptr for an empty slice; shared with the pool for pool blocks (then node_offset is the block's offset).
  MPI_Win shm_win = MPI_WIN_NULL;  // MPI_Win_allocate_shared over my node's members of the group
  std::shared_ptr<const std::vector<char*>> node_start;  // nullptr: nothing mapped
  MPI_Aint node_offset = 0;
  bool atomics_via_mpi = false;  // group spans nodes: every acc/Rmw goes through MPI (doc/design.md)
  // Shared segments (ARMCI_SHM=1, no progress ranks): what the segment holds, so that ARMCI_Free can keep
  // it, and a spanning group's window, for reuse (shm/segment_cache.h).  capacity[r] >= size(r).  Empty:
  // released at ARMCI_Free.
  std::vector<MPI_Aint> capacity;
  // Progress ranks (progress/progress_ranks.h), region spanning nodes: `win` is the runtime's proxy window
  // (borrowed, not freed with the region), and window rank r's slice is reached at process proxy_rank[r]
  // of that window, displacement proxy_base[r] + offset.  Empty otherwise: MPI targets are window ranks.
  std::vector<int> proxy_rank;
  std::vector<MPI_Aint> proxy_base;
  std::vector<std::pair<char*, std::size_t>> posix_maps;  // POSIX segments mapped here (munmap on release)
  MPI_Aint my_proxy_disp = 0;                             // my segment at my progress rank (0: none)
  // Small node-only region served from its member set's pool (shm/segment_cache.h): the block's offset and
  // length in every member's pool slice, and the pool slices' starts in their owners' address spaces;
  // shm_win is then the pool's and not the region's own.
  MPI_Aint pool_offset = -1;
  MPI_Aint pool_block = 0;
  std::shared_ptr<const std::vector<char*>> pool_owner_start;
  // Where the region's slices start in `win`'s displacements: 0 for a window of its own, the block's data
  // offset for a block of a pool spanning nodes (ARMCI_SPANNING_POOL=1: one window for all the pool's blocks).
  MPI_Aint win_offset = 0;
  // The MPI targets of `win` with operations not yet complete, by MPI target and window displacement
  // (mpi_target, mpi_disp): one object for every region on the same window -- the blocks of a pool segment
  // spanning nodes, the regions served by progress ranks -- since MPI completes and orders per (window,
  // target), not per region (completion/ordering.h).  Never null once the region is indexed.
  std::shared_ptr<PendingTargets> pending;
  unsigned access_depth = 0;  // nesting of ARMCI_Access_begin on my own slice
  uint64_t serial = 0;        // allocation number, equal on every member (ARMCI_CHECK_COLLECTIVES)

  int abs_rank_of(int wr) const { return ranks->grp_to_abs[wr]; }
  int win_rank_of(int abs) const { return ranks->abs_to_grp[abs]; }  // -1: not a member
  const std::vector<int>& members() const { return ranks->grp_to_abs; }
  MPI_Aint size(int wr) const { return sizes.empty() ? uniform_size : sizes[wr]; }
  // Window rank wr's slice in its owner's address space (what ARMCI_Malloc returned there); NULL if empty.
  char* base(int wr) const {
    if (size(wr) <= 0) return nullptr;
    if (pool_offset >= 0) return (*pool_owner_start)[wr] + pool_offset + kSliceHeader;
    return owner_base[wr];
  }
  // The slice's start (lock word) in MY address space; nullptr if not mapped here.
  char* node_slice(int wr) const {
    if (!node_start) return nullptr;
    const int ni = ranks->node_index[wr];
    if (ni < 0) return nullptr;
    char* s = (*node_start)[ni];
    return s ? s + node_offset : nullptr;
  }
  // Window rank wr's data mapped in MY address space (nullptr: not mapped), and its accumulate lock word.
  char* local_ptr(int wr) const {
    char* s = node_slice(wr);
    return s ? s + kSliceHeader : nullptr;
  }
  uint32_t* slice_lock(int wr) const { return reinterpret_cast<uint32_t*>(node_slice(wr)); }
};

// The MPI target process and displacement of window rank wr's slice at offset `disp`: the window rank
// itself, or with progress ranks the process serving it.  Every MPI operation on a region goes through these.
inline int mpi_target(const Gmr* g, int wr) {
  return g->proxy_rank.empty() ? wr : g->proxy_rank[wr];
}
inline MPI_Aint mpi_disp(const Gmr* g, int wr, MPI_Aint disp) {
  return g->proxy_rank.empty() ? g->win_offset + disp : g->proxy_base[wr] + disp;
}
// After issuing an operation on window rank wr's slice and before waiting for it: wakes the progress rank
// serving the slice if it sleeps and is reached through shared memory (progress/progress_ranks.h).
inline void wake_server(const Gmr* g, int wr) {
  if (!g->proxy_rank.empty()) proxy_wake(g->proxy_rank[wr]);
}
// The progress rank serving window rank wr's slice (rank in Runtime::all), -1 without progress ranks.
inline int server_of(const Gmr* g, int wr) {
  return g->proxy_rank.empty() ? -1 : g->proxy_rank[wr];
}
// The same before a flush of the whole window.
inline void wake_servers(const Gmr* g) {
  if (!g->proxy_rank.empty()) proxy_wake_all();
}

struct GmrRef {  // a resolved remote address
  Gmr* gmr;
  int win_rank;
  MPI_Aint disp;  // displacement from the target slice's base
};

// Finds the region holding [addr, addr + bytes) on absolute rank `proc`.  Fails naming `call` and `arg`
// when the address is in no region or the range runs past the end of the slice.
GmrRef gmr_resolve(const char* call, const char* arg, int proc, const void* addr, std::size_t bytes);
// As gmr_resolve, but returns gmr == nullptr instead of failing when addr is in no region.
GmrRef gmr_find(int proc, const void* addr);

// Collective allocation over `group`; fills base_ptrs[group rank].
void gmr_create(const char* call, void** base_ptrs, armci_size_t bytes, const ARMCI_Group* group);
// Collective free over `group`; ptr may be NULL on ranks whose slice was empty.
void gmr_destroy(const char* call, void* ptr, const ARMCI_Group* group);

// ARMCI_Malloc_local / ARMCI_Free_local: MPI memory (registered with the network where that matters, so a
// fast RMA origin); local_free accepts only what local_alloc returned (or NULL).
void* local_alloc(const char* call, armci_size_t bytes);
void local_free(const char* call, void* ptr);

// A process that polls its own memory with loads (ARMCI_GetValue on a flag, Access_begin/end) would never
// enter MPI; but MPI RMA aimed at it through a MPI_Win_create window (other nodes, or ARMCI_SHM=0) is
// serviced by its progress engine in MPICH, so the writer's flush would wait forever.  Regions with an MPI
// window therefore poke MPI's progress engine on these paths.
void poke_progress(const Gmr* g);

// ARMCI_Access_begin / ARMCI_Access_end on this process's slice holding `ptr`: nest (a region is not freed
// inside), make remote updates completed before visible to local loads / local stores visible to later RMA.
void access_begin(const char* call, void* ptr);
void access_end(const char* call, void* ptr);

// ARMCI_Access_begin / ARMCI_Access_end (above), fences and barriers: MPI_Win_sync on the windows of one region,
// of every region (load/store visibility, unified model).
void sync_region(Gmr* g);
void sync_all_windows();

// A new region's ordering state: the one of its window, shared with the other regions there.  Called as the
// region enters the table; defined by completion/ordering.cc, the layer above that owns that state (the
// declaration a higher folder fills in: doc/design.md, "Layers").
void attach_pending(Gmr* g);

// Adds `fn` to the functions called, in the order they were added, with each region just before it is
// released (non-blocking requests drop their references).  Adding the same function again has no effect.
void gmr_on_release(void (*fn)(Gmr*));

// How many allocations made new windows or segments instead of reusing freed ones (tests).
uint64_t gmr_windows_created();

// All live regions (for fences and barriers).
const std::vector<Gmr*>& gmr_all();
// gmr_finalize(): runtime/modules.h.

}  // namespace armcix
