// How the processes of one node touch each other's memory directly: the fences around node-local stores and
// loads, the pause hint for spin loops, and the spin lock on a slice's lock word.
//
// Memory ordering (x86-64 TSO and weaker models alike): a node-local put/acc is complete -- locally and
// remotely -- when its stores are done; a release fence orders them before anything this process does
// next (a flag store, an MPI call), and the acquire fence in front of a node-local get orders its loads
// after what this process observed before.  Visibility to *other* processes' plain loads needs their
// synchronisation: ARMCI_Barrier (MPI_Barrier + MPI_Win_sync on the shared window), a flag read through
// ARMCI, or Access_begin (MPI_Win_sync).  See doc/design.md for the full argument.
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

inline void after_local_store() {
  local_fence(std::memory_order_release);
}

inline void before_local_load() {
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
