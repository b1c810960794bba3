// The node-local path: targets whose slice is mapped into this process (same node, ARMCI_SHM=1) are
// reached by load/store instead of MPI.  Every transfer function resolves the target first and asks
// `mapped()`; the MPI engines see only what is left.
//
// Memory ordering (x86-64 TSO and weaker models alike): a node-local put/acc is complete -- locally and
// remotely -- when its stores are done; a release fence orders them before anything this process does
// next (a flag store, an MPI call), and the acquire fence in front of a node-local get orders its loads
// after what this process observed before.  Visibility to *other* processes' plain loads needs their
// synchronisation: ARMCI_Barrier (MPI_Barrier + MPI_Win_sync on the shared window), a flag read through
// ARMCI, or Access_begin (MPI_Win_sync).  See doc/design.md for the full argument.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "acc/acc_types.h"
#include "gmr/gmr.h"

namespace armcix {

// Address of the resolved remote location in this process, or nullptr if it is not mapped here.
inline char* mapped(const GmrRef& r) {
  char* p = r.gmr->local_ptr(r.win_rank);
  return p ? p + r.disp : nullptr;
}

// True if accumulates to this target may use load/store (the allocation lives on one node, so no MPI
// accumulate can touch the same location concurrently).
inline bool local_atomics(const GmrRef& r) {
  return !r.gmr->atomics_via_mpi;
}

inline void after_local_store() {
  std::atomic_thread_fence(std::memory_order_release);
}

inline void before_local_load() {
  std::atomic_thread_fence(std::memory_order_acquire);
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

// dst[i] += scale * src[i] under the target slice's lock.
void local_accumulate(const GmrRef& r, const AccType& t, const void* scale, const void* src, std::size_t bytes);

}  // namespace armcix
