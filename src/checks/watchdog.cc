#include "checks/watchdog.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "base/error.h"
#include "base/state.h"

namespace armcix {

bool g_watchdog_on = false;

namespace {

using Clock = std::chrono::steady_clock;

std::atomic<int> g_depth{0};             // ARMCI calls in progress (nesting and threads)
std::atomic<long long> g_entered_ns{0};  // when the outermost one started
std::atomic<const char*> g_call{"?"};    // its name
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
    if (g_depth.load(std::memory_order_acquire) == 0) continue;
    const long long waited_ns = now_ns() - g_entered_ns.load(std::memory_order_acquire);
    if (waited_ns < static_cast<long long>(limit_s) * 1000000000LL) continue;
    // Not ARMCI_Error: MPI_Abort from this thread needs MPI_THREAD_MULTIPLE, and the MPI call the main
    // thread is stuck in may hold MPI's locks.  Exiting is enough: the launcher sees a rank end badly and
    // ends the job (Hydra: within a second).
    armcix::print_to_stderr(
        "[%d] ARMCI Error: ARMCI_WATCHDOG_S: %s has not returned after %lld s; a peer is dead or "
        "unreachable (or waits longer than ARMCI_WATCHDOG_S=%d allows): ending this process\n",
        rank, g_call.load(), waited_ns / 1000000000LL, limit_s);
    _exit(1);
  }
}

}  // namespace

void watchdog_enter(const char* call) {
  if (g_depth.fetch_add(1, std::memory_order_acq_rel) == 0) {
    g_call.store(call, std::memory_order_relaxed);
    g_entered_ns.store(now_ns(), std::memory_order_release);
  }
}

void watchdog_leave() {
  g_depth.fetch_sub(1, std::memory_order_acq_rel);
}

void watchdog_start() {
  const int limit_s = rt().config.watchdog_s;
  g_watchdog_on = limit_s > 0;
  if (!g_watchdog_on) return;
  g_stop = false;
  g_depth.store(0);
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
