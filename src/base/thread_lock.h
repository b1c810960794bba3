// Serialisation of the library for multi-threaded programs.  When ARMCI runs at MPI_THREAD_MULTIPLE
// (ARMCI_Init_thread(MPI_THREAD_MULTIPLE), or MPI already initialised at that level by the application),
// every API entry point holds one process-wide lock while it runs, so the library's tables (regions,
// requests, pending flushes, mutex sets, profiler) are only ever touched by one thread at a time.  At
// any lower level the guard is one predictable branch on a flag and costs nothing measurable.
//
// Waits for other processes (barriers, collective allocation, mutex hand-offs) release the lock while
// they wait (ApiUnlocked), so that a thread blocked in ARMCI_Lock or ARMCI_Barrier does not stop the
// process's other threads -- which may be the ones that must act (unlock, reach the barrier) for the
// wait to end.  Code that releases the lock must not keep references into shared tables across the
// wait; the callers of wait_for() hold only their own objects.
//
// The lock is recursive per thread (an entry point may call another, e.g. PARMCI_x through a profiling
// ARMCI_x) and released completely by ApiUnlocked, whatever the depth.
#pragma once

#include <atomic>
#include <mutex>

namespace armcix {

namespace thread_lock_detail {
inline std::atomic<bool> serialize{false};
inline std::mutex mutex;
inline thread_local int depth = 0;  // how many guards this thread holds
}  // namespace thread_lock_detail

// True while ARMCI is initialised at MPI_THREAD_MULTIPLE on the application's request.
inline bool calls_serialized() {
  return __builtin_expect(thread_lock_detail::serialize.load(std::memory_order_relaxed), 0);
}
// Set by initialize()/finalize() (single-threaded moments by ARMCI's rules).
inline void set_calls_serialized(bool on) {
  thread_lock_detail::serialize.store(on, std::memory_order_relaxed);
}

// Held for the duration of an API call.  Whether it locks is decided once, at construction, so that the
// guard of ARMCI_Init (which turns serialisation on) or ARMCI_Finalize (which turns it off) stays balanced.
class ApiGuard {
 public:
  ApiGuard() : held_(calls_serialized()) {
    if (held_ && thread_lock_detail::depth++ == 0) thread_lock_detail::mutex.lock();
  }
  ~ApiGuard() {
    if (held_ && --thread_lock_detail::depth == 0) thread_lock_detail::mutex.unlock();
  }
  ApiGuard(const ApiGuard&) = delete;
  ApiGuard& operator=(const ApiGuard&) = delete;

 private:
  bool held_;
};

// Releases the calling thread's hold on the lock (all levels) for the scope of a wait, and takes it back
// afterwards.  A no-op when the thread does not hold it (serialisation off, or a module entry point that
// takes no guard, such as the message.h collectives).
class ApiUnlocked {
 public:
  ApiUnlocked() : depth_(thread_lock_detail::depth) {
    if (depth_ > 0) {
      thread_lock_detail::depth = 0;
      thread_lock_detail::mutex.unlock();
    }
  }
  ~ApiUnlocked() {
    if (depth_ > 0) {
      thread_lock_detail::mutex.lock();
      thread_lock_detail::depth = depth_;
    }
  }
  ApiUnlocked(const ApiUnlocked&) = delete;
  ApiUnlocked& operator=(const ApiUnlocked&) = delete;

 private:
  int depth_;
};

}  // namespace armcix

// First statement of every API entry point that touches library state.
#define ARMCIX_API_GUARD ::armcix::ApiGuard armcix_api_guard_
