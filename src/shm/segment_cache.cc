#include "shm/segment_cache.h"

#include <algorithm>
#include <deque>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>

#include "base/alloc_stats.h"
#include "base/error.h"
#include "base/state.h"
#include "base/thread_lock.h"

namespace armcix {

namespace {

// Member set -> its cached segments, oldest first.  std::map: shm_cache_clear visits the sets in the same
// order on every rank, so ranks in several sets never wait for each other in different windows.
std::map<std::vector<int>, std::deque<CachedSlices>> g_cache;

struct PoolSegment {
  MPI_Win shm_win = MPI_WIN_NULL;
  MPI_Win win = MPI_WIN_NULL;  // spanning nodes: one window over every member's slice of this segment
  MPI_Aint slice_bytes = 0;
  std::shared_ptr<const std::vector<char*>> start_local, start_owner;
  std::map<MPI_Aint, MPI_Aint> free;  // offset -> length of each free run, runs never adjacent
  MPI_Aint zeroed_to = 0;             // slice bytes below this are zero when free (blocks are zeroed when freed)
};
std::map<std::vector<int>, std::vector<PoolSegment>> g_pools;  // member set -> its segments, oldest first
std::map<std::vector<int>, MPI_Comm> g_window_comms;           // member set -> shm_cache_window_comm's duplicate

MPI_Aint total(const std::vector<MPI_Aint>& v) {
  return std::accumulate(v.begin(), v.end(), MPI_Aint{0});
}

// Collective over the members: the spanning window over all of them, then the shared window over each node's.
// Without the API lock (base/thread_lock.h): another thread of this process may be the one some member waits
// for, in a collective on another group.  The handles are taken out of the caller's entry first.
void release_windows(MPI_Win* win, MPI_Win* shm_win) {
  MPI_Win w = *win, s = *shm_win;
  *win = *shm_win = MPI_WIN_NULL;
  if (w != MPI_WIN_NULL) ARMCIX_MPI(MPI_Win_unlock_all(w));
  ARMCIX_MPI(MPI_Win_unlock_all(s));
  ApiUnlocked unlocked;
  if (w != MPI_WIN_NULL) ARMCIX_MPI(MPI_Win_free(&w));
  ARMCIX_MPI(MPI_Win_free(&s));
}
void release(CachedSlices& s) {
  release_windows(&s.win, &s.shm_win);
}

}  // namespace

MPI_Aint shm_slice_class(MPI_Aint bytes) {
  constexpr MPI_Aint kPage = 4096;
  constexpr MPI_Aint kPowerOfTwoUpTo = MPI_Aint{1} << 20;
  if (bytes <= 0) return 0;
  if (bytes <= kPage) return kPage;
  MPI_Aint p = kPage;
  while (p < bytes && p <= std::numeric_limits<MPI_Aint>::max() / 2) p <<= 1;
  if (p < bytes) return bytes;  // beyond any class (near the address-space limit): exact
  if (p <= kPowerOfTwoUpTo) return p;
  const MPI_Aint step = p / 16;  // p / 2 < bytes, so the step is below an eighth of bytes
  return (bytes + step - 1) / step * step;
}

bool shm_cache_take(const std::vector<int>& members, const std::vector<MPI_Aint>& sizes, CachedSlices* out) {
  auto it = g_cache.find(members);
  if (it == g_cache.end()) return false;
  std::deque<CachedSlices>& entries = it->second;
  // Best fit, and not wastefully large: a small array must not pin a segment many times its size.
  const MPI_Aint want = total(sizes);
  auto best = entries.end();
  MPI_Aint best_total = 0;
  for (auto e = entries.begin(); e != entries.end(); ++e) {
    bool fits = true;
    for (std::size_t r = 0; r < sizes.size() && fits; ++r) fits = e->capacity[r] >= sizes[r];
    const MPI_Aint have = total(e->capacity);
    if (!fits || have > 2 * want + (MPI_Aint{1} << 20)) continue;
    if (best == entries.end() || have < best_total) best = e, best_total = have;
  }
  if (best == entries.end()) return false;
  *out = std::move(*best);
  entries.erase(best);
  if (entries.empty()) g_cache.erase(it);
  return true;
}

// What the cache may hold per member set, summed over its members' slices (ARMCI_SEGMENT_CACHE_MB: every
// member has the same value, so all keep and release alike).
namespace {
MPI_Aint cache_limit() {
  return static_cast<MPI_Aint>(rt().config.segment_cache_mb) << 20;
}
}  // namespace

void shm_cache_put(const std::vector<int>& members, CachedSlices&& slices) {
  const MPI_Aint limit = cache_limit();
  if (total(slices.capacity) > limit) {
    release(slices);
    return;
  }
  std::deque<CachedSlices>& entries = g_cache[members];
  entries.push_back(std::move(slices));
  MPI_Aint bytes = 0;
  for (const CachedSlices& e : entries) bytes += total(e.capacity);
  while (entries.size() > kShmCacheEntries || bytes > limit) {
    bytes -= total(entries.front().capacity);
    release(entries.front());
    entries.pop_front();
  }
}

void shm_cache_clear() {
  for (auto& kv : g_cache)
    for (CachedSlices& e : kv.second) release(e);
  g_cache.clear();
  for (auto& kv : g_pools)
    for (PoolSegment& seg : kv.second) {
      release_windows(&seg.win, &seg.shm_win);
      alloc_stats_sub(g_alloc_stats.pool_mapped, static_cast<uint64_t>(seg.slice_bytes));
    }
  g_pools.clear();
  for (auto& kv : g_window_comms) ARMCIX_MPI(MPI_Comm_free(&kv.second));
  g_window_comms.clear();
}

void shm_cache_release(const std::vector<int>& members) {
  auto it = g_cache.find(members);
  if (it == g_cache.end()) return;
  for (CachedSlices& e : it->second) release(e);
  g_cache.erase(it);
}

std::vector<std::shared_ptr<const std::vector<char*>>> shm_pool_release(const std::vector<int>& members) {
  std::vector<std::shared_ptr<const std::vector<char*>>> owners;
  auto it = g_pools.find(members);
  if (it == g_pools.end()) return owners;
  for (PoolSegment& seg : it->second) {
    ARMCIX_REQUIRE(seg.free.size() == 1 && seg.free.begin()->first == 0 && seg.free.begin()->second == seg.slice_bytes,
                   "ARMCI_Group_free", "internal error: a pool segment with a live block was released");
    release_windows(&seg.win, &seg.shm_win);
    alloc_stats_sub(g_alloc_stats.pool_mapped, static_cast<uint64_t>(seg.slice_bytes));
    owners.push_back(std::move(seg.start_owner));
  }
  g_pools.erase(it);
  return owners;
}

void shm_window_comm_release(const std::vector<int>& members) {
  auto it = g_window_comms.find(members);
  if (it == g_window_comms.end()) return;
  ARMCIX_MPI(MPI_Comm_free(&it->second));
  g_window_comms.erase(it);
}

std::size_t shm_cache_entries(const std::vector<int>& members) {
  auto it = g_cache.find(members);
  return it == g_cache.end() ? 0 : it->second.size();
}

MPI_Comm shm_cache_window_comm(const std::vector<int>& members, MPI_Comm group_comm) {
  auto it = g_window_comms.find(members);
  if (it != g_window_comms.end()) return it->second;
  MPI_Comm dup;
  {
    ApiUnlocked unlocked;  // collective (release_windows); these members' entries are this thread's meanwhile
    ARMCIX_MPI(MPI_Comm_dup(group_comm, &dup));
  }
  g_window_comms[members] = dup;
  return dup;
}

MPI_Aint shm_pool_capacity() {
  return static_cast<MPI_Aint>(rt().config.pool_mb) << 20;
}

MPI_Aint shm_pool_max_block() {
  const int kb = rt().config.pool_block_kb;
  return kb == 0 ? shm_pool_capacity() : static_cast<MPI_Aint>(kb) << 10;
}

MPI_Aint shm_pool_next_slice(const std::vector<int>& members, MPI_Aint block, MPI_Aint node_room) {
  const MPI_Aint have = total(shm_pool_slices(members));
  const MPI_Aint room = std::min(shm_pool_capacity(), node_room) - have;
  MPI_Aint want = have == 0 ? kShmPoolFirstSlice : have;  // the capacity doubles
  if (want < block) want = (block + kShmPoolFirstSlice - 1) / kShmPoolFirstSlice * kShmPoolFirstSlice;
  const MPI_Aint next = want < room ? want : room;
  // A remainder smaller than the first slice, or than the block: full (for this block).
  return next >= kShmPoolFirstSlice && next >= block ? next : 0;
}

void shm_pool_add(const std::vector<int>& members, MPI_Win shm_win, MPI_Win win,
                  std::shared_ptr<const std::vector<char*>> start_local,
                  std::shared_ptr<const std::vector<char*>> start_owner, MPI_Aint slice_bytes, bool zeroed) {
  PoolSegment seg;
  seg.zeroed_to = zeroed ? slice_bytes : 0;
  seg.shm_win = shm_win;
  seg.win = win;
  seg.slice_bytes = slice_bytes;
  seg.start_local = std::move(start_local);
  seg.start_owner = std::move(start_owner);
  seg.free = {{0, slice_bytes}};
  g_pools[members].push_back(std::move(seg));
  ++g_alloc_stats.pool_segments;
  alloc_stats_add(g_alloc_stats.pool_mapped, g_alloc_stats.pool_mapped_peak, static_cast<uint64_t>(slice_bytes));
}

bool shm_pool_take(const std::vector<int>& members, MPI_Aint block, PoolBlock* out) {
  auto it = g_pools.find(members);
  if (it == g_pools.end()) return false;
  for (PoolSegment& seg : it->second)
    for (auto run = seg.free.begin(); run != seg.free.end(); ++run) {
      if (run->second < block) continue;
      const MPI_Aint offset = run->first, rest = run->second - block;
      seg.free.erase(run);
      if (rest > 0) seg.free[offset + block] = rest;
      out->shm_win = seg.shm_win;
      out->win = seg.win;
      out->offset = offset;
      out->start_local = seg.start_local;
      out->start_owner = seg.start_owner;
      out->zero_from = out->zero_to = 0;
      if (offset + block > seg.zeroed_to) {  // from the mark on, gap included: nothing above it was handed out
        out->zero_from = seg.zeroed_to;
        out->zero_to = seg.zeroed_to = offset + block;
      }
      ++g_alloc_stats.pool_blocks;
      alloc_stats_add(g_alloc_stats.pool_live, g_alloc_stats.pool_live_peak, static_cast<uint64_t>(block));
      return true;
    }
  return false;
}

void shm_pool_give_back(const std::vector<int>& members, MPI_Win shm_win, MPI_Aint offset, MPI_Aint block) {
  auto it = g_pools.find(members);
  ARMCIX_REQUIRE(it != g_pools.end(), "ARMCI_Free", "internal error: a pooled region outlived its pool");
  auto seg = std::find_if(it->second.begin(), it->second.end(),
                          [shm_win](const PoolSegment& s) { return s.shm_win == shm_win; });
  ARMCIX_REQUIRE(seg != it->second.end(), "ARMCI_Free", "internal error: a pooled region outlived its segment");
  std::map<MPI_Aint, MPI_Aint>& free = seg->free;
  auto next = free.lower_bound(offset);
  MPI_Aint start = offset, length = block;
  if (next != free.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      start = prev->first;
      length += prev->second;
      free.erase(prev);
    }
  }
  if (next != free.end() && next->first == offset + block) {
    length += next->second;
    free.erase(next);
  }
  free[start] = length;
  alloc_stats_sub(g_alloc_stats.pool_live, static_cast<uint64_t>(block));
}

std::vector<MPI_Aint> shm_pool_slices(const std::vector<int>& members) {
  std::vector<MPI_Aint> out;
  auto it = g_pools.find(members);
  if (it != g_pools.end())
    for (const PoolSegment& seg : it->second) out.push_back(seg.slice_bytes);
  return out;
}

}  // namespace armcix
