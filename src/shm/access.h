// How the processes of one node touch each other's memory directly: the fences around node-local stores and
// loads, the pause hint for spin loops, and the spin lock on a slice's lock word.
//
// Memory ordering: a node-local put or accumulate has a release fence before its stores (what the program
// stored or loaded before, plain loads and stores of its own memory included, is ordered before them: a
// put or accumulate that writes a flag publishes the data written before it) and after them (they are
// ordered before anything the process does next, such as a flag store or an MPI call).  A node-local get
// has an acquire fence after its loads (a get that reads a flag orders every later load and store after
// it: "poll a flag with GetValue, then read") and before them (plain loads of a flag in the process's own
// memory, then a get).  On x86-64 (TSO) these fences cost nothing (a compiler barrier); on aarch64 and
// POWER they are barrier instructions, and only their position makes the flag idiom correct.
// Visibility to *other* processes' plain loads needs their synchronisation: ARMCI_Barrier (MPI_Barrier +
// MPI_Win_sync on the shared window), a flag read through ARMCI, or Access_begin (MPI_Win_sync).  See
// doc/design.md, "Ordering and memory model".
#pragma once

#include <atomic>
#include <cstdint>

namespace armcix {

// Test hook (tests/mpi/test_shm.cc): called after each of these fences with its order (release or
// acquire), so that a test can see where the fences stand relative to a transfer's loads and stores, which
// x86-64 (TSO) cannot show by reordering.  nullptr outside tests.
using LocalFenceHook = void (*)(std::memory_order order, void* arg);
extern LocalFenceHook g_local_fence_hook;
extern void* g_local_fence_hook_arg;
void set_local_fence_hook(LocalFenceHook hook, void* arg);

inline void local_fence(std::memory_order order) {
  std::atomic_thread_fence(order);
  if (__builtin_expect(g_local_fence_hook != nullptr, 0)) g_local_fence_hook(order, g_local_fence_hook_arg);
}

inline void before_local_store() {
  local_fence(std::memory_order_release);
}
inline void after_local_store() {
  local_fence(std::memory_order_release);
}
inline void before_local_load() {
  local_fence(std::memory_order_acquire);
}
inline void after_local_load() {
  local_fence(std::memory_order_acquire);
}

// Pause hint for spin loops on shared-memory words (slice locks, node-local mutexes).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spin lock on a slice's lock word (in shared memory).  Yields after a short spin: ranks are often
// oversubscribed, and spinning against a descheduled holder wastes its time slice.
class SliceLock {
 public:
  explicit SliceLock(uint32_t* word);
  ~SliceLock();
  SliceLock(const SliceLock&) = delete;
  SliceLock& operator=(const SliceLock&) = delete;

 private:
  uint32_t* word_;
};

}  // namespace armcix
