// What this process's ARMCI_Malloc regions hold, reported by the profile (ARMCI_PROFILE=1,
// profile/profiler.cc): the pool's bytes in live blocks against the bytes its segments map, so that a user
// sees what a run's allocation pattern costs beyond its live data (free runs too small for the next block,
// segments that double), and what went to regions outside the pool.  Always counted: a few additions per
// ARMCI_Malloc and ARMCI_Free, which are collective and never concurrent.  Bytes are this process's slices.
#pragma once

#include <cstdint>

namespace armcix {

struct AllocStats {
  uint64_t pool_segments = 0;  // pool segments made (shm/segment_cache.h)
  uint64_t pool_blocks = 0;    // pool blocks handed out
  uint64_t pool_mapped = 0;    // my slices of the pool's segments, now and at most
  uint64_t pool_mapped_peak = 0;
  uint64_t pool_live = 0;  // my part of the live blocks (each block's lock-word header included)
  uint64_t pool_live_peak = 0;
  uint64_t own_regions = 0;  // regions with a segment or window of their own (outside the pool)
  uint64_t own_live = 0;     // my slices of those, as asked, now and at most
  uint64_t own_live_peak = 0;
};
constexpr int kAllocStatsFields = sizeof(AllocStats) / sizeof(uint64_t);
static_assert(sizeof(AllocStats) % sizeof(uint64_t) == 0, "AllocStats is sent as uint64_t fields");

extern AllocStats g_alloc_stats;

inline void alloc_stats_add(uint64_t& now, uint64_t& peak, uint64_t bytes) {
  now += bytes;
  if (now > peak) peak = now;
}
inline void alloc_stats_sub(uint64_t& now, uint64_t bytes) {
  now = now > bytes ? now - bytes : 0;
}

}  // namespace armcix
