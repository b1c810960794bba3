// Reuse of shared-memory segments (and, for groups spanning nodes, their MPI windows) between ARMCI_Free and
// the next ARMCI_Malloc.
//
// MPI_Win_allocate_shared and MPI_Win_free are collectives with internal barriers that MPICH busy-polls.
// With more ranks than cores each of them waits for descheduled peers, for tens of milliseconds
// (doc/design.md, "Segment reuse").  A region therefore keeps its segment when freed, and a later allocation on the
// same members whose every slice fits reuses it: one small collective instead of a window creation.  A group spanning
// nodes keeps its MPI_Win_create window too (created with each slice's capacity): across nodes each creation and free
// is a collective over the network, paid for every GA temporary.
//
// Every decision depends only on data all members share (the gathered sizes, the cache contents, which
// change only in collective calls on these members), so all members take, keep and evict the same
// segments at the same calls, as the collective MPI_Win_free on eviction requires.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace armcix {

struct CachedSlices {
  MPI_Win shm_win = MPI_WIN_NULL;  // the segment's shared window (in a lock_all epoch)
  MPI_Win win = MPI_WIN_NULL;      // group spanning nodes: the MPI_Win_create window over the same slices
                                   // (in a lock_all epoch), reused with them; MPI_WIN_NULL for node-only
  std::vector<MPI_Aint> capacity;  // group rank -> usable bytes of its slice
  std::vector<char*> owner_base;   // group rank -> the slice's address in its owner's address space
  std::shared_ptr<const std::vector<char*>> node_start;  // node index -> the slice's start here (Gmr)
};

// The best-fitting cached segment for `members` (absolute ranks, in group order) in which every slice r
// holds sizes[r] bytes, removed from the cache; false if there is none.
bool shm_cache_take(const std::vector<int>& members, const std::vector<MPI_Aint>& sizes, CachedSlices* out);

// Keeps a freed segment; frees the oldest ones (collective over the members) beyond the limits
// (kShmCacheEntries per member set, ARMCI_SEGMENT_CACHE_MB summed over their slices' capacities; 0 keeps none).
void shm_cache_put(const std::vector<int>& members, CachedSlices&& slices);

// Frees every cached segment (ARMCI_Finalize; collective, in the same order on every rank).
void shm_cache_clear();

// What a member set keeps between allocations -- cached segments, pool segments, the window communicator
// below -- lives until ARMCI_Finalize unless it is released when the last group on those members is freed
// (members_released in gmr.cc).  Without that, a program making many short-lived groups of different members
// (GA's per-node or per-task groups) would keep a 512 KiB pool segment per member and, for groups spanning
// nodes, an MPI window (~930 B per member in MPICH) and a communicator for each set it ever used.
// Collective over the members, in this order: the cached segments, the pool segments (every block free),
// then the window communicator (no window on it left).
void shm_cache_release(const std::vector<int>& members);
// Frees `members`' pool segments, whose blocks must all be free; returns each segment's owner table
// (PoolBlock::start_owner) so that the caller can drop the segment from its address index.
std::vector<std::shared_ptr<const std::vector<char*>>> shm_pool_release(const std::vector<int>& members);
void shm_window_comm_release(const std::vector<int>& members);
// How many freed segments of `members` the cache holds (tests).
std::size_t shm_cache_entries(const std::vector<int>& members);

// The communicator a window spanning nodes over `members` is created on: a duplicate of the group's made
// at the set's first such window (collective over `group_comm`; every member sees the same history, so
// all duplicate together) and kept until shm_cache_clear.  Why not the group's own communicator: MPICH 4
// ch4 names a window after the communicator it was created on (context id + a counter on that
// communicator, MPIDIG_generate_win_id), and routes accumulates and other active messages by that name.
// A cached window outlives its group (ARMCI_Group_free); a new group's communicator may then get the
// freed context id, its first window the cached window's name, and accumulates aimed at the new window
// land in the cached one (seen: GA's pgtest, groups {0,1} and {0,1,2} in turn, lost every accumulate).
MPI_Comm shm_cache_window_comm(const std::vector<int>& members, MPI_Comm group_comm);

// The bytes a node-only slice of `bytes` gets: a size class, so that a freed segment fits later
// allocations of similar, not only equal or smaller, sizes.  GA programs allocate many temporaries of
// slowly varying sizes, and with exact sizes many missed the cache, each miss one MPI_Win_allocate_shared
// (doc/design.md, "Segment reuse").  Classes:
// 0 stays 0; up to 4 KiB one page (slices are page-aligned anyway); up to 1 MiB the next power of two;
// above, the next multiple of a sixteenth of the next power of two (less than 12.5% more).  Only the slice's
// address range grows: the pages beyond what the program uses are never touched, so never backed.
MPI_Aint shm_slice_class(MPI_Aint bytes);

// Pools: allocations share a few segments per member set, so that a new region needs no window at all
// (with size classes alone NWChem TCE water still made a window per rank for many of its small GA arrays;
// doc/design.md, "Segment reuse"), and so that across nodes MPI keeps its per-rank window state
// per segment, not per live array (a window of its own costs tens of KB per live allocation, pooled under
// 1 KB; doc/performance.md, "Large allocations").  A block takes the same offset in every member's slice of one segment
// (so one replicated allocator serves all, changed only in collective calls on these members, like the cache above).
//
// The pool grows: its first segment has slices of kShmPoolFirstSlice, each later one as much as all before
// it together (capacity doubles), or as much as a larger block needs, up to shm_pool_capacity() per member in
// all (ARMCI_POOL_MB, default 1 GiB) and to what the members' nodes can give (pool_node_room in gmr.cc).
// Slices up to shm_pool_max_block() (ARMCI_POOL_BLOCK_KB; by default the capacity) are pooled; larger ones,
// and those the full pool cannot hold, get a segment and, across nodes, an MPI window of their own.  The
// number of windows grows with log2 of the bytes live, not with the number of arrays, as in OpenSHMEM's
// symmetric heap but without a size fixed in advance.  On shared memory and TCP a segment's pages are
// backed as they are first touched, not when it is made (doc/performance.md, "Large allocations pooled");
// an RDMA network may pin a window's whole segment, at most twice what is live.  What the pool costs: a
// freed block stays mapped and resident (zeroed for its next user) until the member set is released, so a
// process keeps its peak of pooled bytes; returning the pages (MADV_REMOVE) under a live RDMA registration
// would leave the network card on the old pages.  Why not one segment of the whole capacity at once:
// MPICH's MPI_Win_allocate_shared takes time in proportion to its segment, untouched pages included, so a
// program's first small ARMCI_Malloc would pay for the whole capacity
// (doc/performance.md, "The first `ARMCI_Malloc`: the pool now grows").
struct PoolBlock {
  MPI_Win shm_win = MPI_WIN_NULL;  // the block's segment (shared by its blocks; freed by shm_cache_clear)
  MPI_Win win = MPI_WIN_NULL;      // members spanning nodes: the segment's one MPI_Win_create window over
                                   // every member's slice (in a lock_all epoch; freed by shm_cache_clear)
  MPI_Aint offset = -1;            // the block's offset in every member's slice of the segment
  std::shared_ptr<const std::vector<char*>> start_local;  // node index -> a slice's start in this process
  std::shared_ptr<const std::vector<char*>> start_owner;  // group rank -> its slice's start in its owner's space
  // Slice bytes [zero_from, zero_to) that a member whose slice is not known to start zeroed must zero before
  // anyone uses the block (empty unless the block reaches past what earlier blocks of its segment covered).
  MPI_Aint zero_from = 0, zero_to = 0;
};
// A free block of `block` bytes (first fit, oldest segment first), or false when no segment has one.
bool shm_pool_take(const std::vector<int>& members, MPI_Aint block, PoolBlock* out);
// The slice bytes of the next segment for `members`, one that holds a block of `block` bytes: as much as all
// segments before it together, or `block` rounded up to whole kShmPoolFirstSlice when that is more; 0 when
// what is left of shm_pool_capacity() cannot hold `block` (or is smaller than kShmPoolFirstSlice).
// `node_room` also bounds the pool's slices in all: what every member's node can give this member set's pool
// per member (pool_node_room in gmr.cc, the minimum over the members, agreed on by every member).
MPI_Aint shm_pool_next_slice(const std::vector<int>& members, MPI_Aint block, MPI_Aint node_room);
// Registers a new segment of `members`' pool; every slice is `slice_bytes` long (shm_pool_next_slice).
// `zeroed`: every member's slice starts zeroed (fresh shared pages); otherwise blocks are zeroed as the
// segment's high-water mark rises (PoolBlock::zero_from, zero_to), the same on every member.
void shm_pool_add(const std::vector<int>& members, MPI_Win shm_win, MPI_Win win,
                  std::shared_ptr<const std::vector<char*>> start_local,
                  std::shared_ptr<const std::vector<char*>> start_owner, MPI_Aint slice_bytes, bool zeroed);
// Returns a block taken with shm_pool_take from the segment whose shared window is `shm_win`.
void shm_pool_give_back(const std::vector<int>& members, MPI_Win shm_win, MPI_Aint offset, MPI_Aint block);
// The slice bytes of each of `members`' pool segments, oldest first (tests and the scale benchmark).
std::vector<MPI_Aint> shm_pool_slices(const std::vector<int>& members);

constexpr MPI_Aint kShmPoolFirstSlice = MPI_Aint{512} << 10;
// ARMCI_POOL_MB in bytes: what the pool's segments may add up to per member.
MPI_Aint shm_pool_capacity();
// ARMCI_POOL_BLOCK_KB in bytes: the largest slice the pool serves; by default (0) the whole capacity, so that
// every region that fits the pool comes from it, large GA arrays too
// (doc/performance.md, "Large allocations pooled by default").
MPI_Aint shm_pool_max_block();

constexpr std::size_t kShmCacheEntries = 32;

}  // namespace armcix
