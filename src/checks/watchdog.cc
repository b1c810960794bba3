#include "checks/watchdog.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

#include "base/error.h"
#include "base/state.h"

namespace armcix {

bool g_watchdog_on = false;

namespace {

using Clock = std::chrono::steady_clock;

// One per thread that has made an ARMCI call: when its outermost call in progress started (0: none) and the
// call's name.  Per thread, so that calls of several threads that overlap without a gap are each timed from
// their own start: one process-wide stamp taken when no call was in progress would keep the first call's
// start while later ones come and go, and end a healthy process.
struct CallStamp {
  std::atomic<long long> entered_ns{0};
  std::atomic<const char*> call{"?"};
  int depth = 0;  // nesting, touched by its own thread only
};
std::mutex g_stamps_mutex;
std::list<CallStamp> g_stamps;  // a list: the watching thread reads stamps while threads add theirs
std::vector<CallStamp*> g_free_stamps;

// The calling thread's stamp, taken on its first call and given back when the thread ends.
struct ThreadStamp {
  CallStamp* stamp = nullptr;
  ~ThreadStamp() {
    if (!stamp) return;
    std::lock_guard<std::mutex> lock(g_stamps_mutex);
    stamp->entered_ns.store(0, std::memory_order_release);
    stamp->depth = 0;
    g_free_stamps.push_back(stamp);
  }
};
thread_local ThreadStamp t_stamp;

CallStamp& my_stamp() {
  if (!t_stamp.stamp) {
    std::lock_guard<std::mutex> lock(g_stamps_mutex);
    if (!g_free_stamps.empty()) {
      t_stamp.stamp = g_free_stamps.back();
      g_free_stamps.pop_back();
    } else {
      t_stamp.stamp = &g_stamps.emplace_back();
    }
  }
  return *t_stamp.stamp;
}

std::thread g_thread;
std::mutex g_mutex;
std::condition_variable g_cv;
bool g_stop = false;

long long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

void watch(int limit_s, int rank) {
  std::unique_lock<std::mutex> lock(g_mutex);
  while (!g_cv.wait_for(lock, std::chrono::seconds(1), [] { return g_stop; })) {
    long long oldest_ns = 0;
    const char* call = "?";
    {
      std::lock_guard<std::mutex> stamps(g_stamps_mutex);
      for (const CallStamp& s : g_stamps) {
        const long long entered = s.entered_ns.load(std::memory_order_acquire);
        if (entered != 0 && (oldest_ns == 0 || entered < oldest_ns)) oldest_ns = entered, call = s.call.load();
      }
    }
    if (oldest_ns == 0) continue;
    const long long waited_ns = now_ns() - oldest_ns;
    if (waited_ns < static_cast<long long>(limit_s) * 1000000000LL) continue;
    // Not ARMCI_Error: MPI_Abort from this thread needs MPI_THREAD_MULTIPLE, and the MPI call the main
    // thread is stuck in may hold MPI's locks.  Exiting is enough: the launcher sees a rank end badly and
    // ends the job (Hydra: within a second).
    armcix::print_to_stderr(
        "[%d] ARMCI Error: ARMCI_WATCHDOG_S: %s has not returned after %lld s; a peer is dead or "
        "unreachable (or waits longer than ARMCI_WATCHDOG_S=%d allows): ending this process\n",
        rank, call, waited_ns / 1000000000LL, limit_s);
    _exit(1);
  }
}

}  // namespace

void watchdog_enter(const char* call) {
  CallStamp& s = my_stamp();
  if (s.depth++ == 0) {
    s.call.store(call, std::memory_order_relaxed);
    s.entered_ns.store(now_ns(), std::memory_order_release);
  }
}

void watchdog_leave() {
  CallStamp& s = my_stamp();
  if (--s.depth == 0) s.entered_ns.store(0, std::memory_order_release);
}

void watchdog_start() {
  const int limit_s = rt().config.watchdog_s;
  g_watchdog_on = limit_s > 0;
  if (!g_watchdog_on) return;
  g_stop = false;
  g_thread = std::thread(watch, limit_s, rt().me);
}

void watchdog_stop() {
  if (!g_thread.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_stop = true;
  }
  g_cv.notify_all();
  g_thread.join();
  g_watchdog_on = false;
}

}  // namespace armcix
