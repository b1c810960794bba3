#include "wait/yield_timer.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

#include "topo/machine.h"

namespace armcix {

namespace {

std::atomic<int> g_period_us{0};
std::atomic<uint64_t> g_signals{0};
int g_signo = 0;  // chosen and installed once (under g_install), never uninstalled: see install_handler
std::mutex g_install;

std::atomic<long> g_ours_runnable{1 << 20};  // until set_yield_timer_ours: never foreign
std::atomic<uint64_t> g_skipped{0};

// topo/machine.h's foreign_load, but an unreadable /proc/loadavg counts as no evidence of others, so the
// handler yields as it would without the check (foreign_load's waits then sleep: sleeping is their safe
// side, yielding is this one's).  sampled_runnable_tasks is async-signal-safe.
bool foreign_load_in_handler() {
  const long running = sampled_runnable_tasks();
  return running >= 0 && running > g_ours_runnable.load(std::memory_order_relaxed) + 1;
}

// Yields, unless other programs' busy tasks share the machine: then the yield hands the core to one of
// them for the rest of its time slice, not to the peer the timed call waits for, and every call took
// longer than without the timer (Open MPI, 2 hosts x 2 ranks on 2 cores beside 2 busy loops: test_sync
// 48.6 s with the timer yielding, 14.4 s without it; doc/design.md).
void on_timer_signal(int) {
  const int saved = errno;
  g_signals.fetch_add(1, std::memory_order_relaxed);  // lock-free: async-signal-safe
  if (foreign_load_in_handler())
    g_skipped.fetch_add(1, std::memory_order_relaxed);
  else
    sched_yield();
  errno = saved;
}

// A real-time signal nobody has a handler for, searched from the top (libraries that take one tend to
// take SIGRTMIN + n), and our handler on it.  The handler stays for the life of the process: a timer
// signal still pending when a call's timer is disarmed must not meet the default action (termination).
bool install_handler() {
  std::lock_guard<std::mutex> lock(g_install);
  if (g_signo != 0) return g_signo > 0;
#ifdef __linux__
  for (int s = SIGRTMAX - 1; s >= SIGRTMIN + 2; --s) {
    struct sigaction old {};
    if (sigaction(s, nullptr, &old) != 0) continue;
    if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
    struct sigaction sa {};
    sa.sa_handler = on_timer_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(s, &sa, nullptr) != 0) continue;
    g_signo = s;
    return true;
  }
#endif
  g_signo = -1;
  return false;
}

// The calling thread's timer, made on its first timed call, deleted when the thread ends.
struct ThreadTimer {
  timer_t id{};
  bool made = false;
  bool failed = false;
  int depth = 0;  // nested scopes: only the outermost arms and disarms

  bool make() {
#ifdef __linux__
    if (made || failed) return made;
    struct sigevent ev {};
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = g_signo;
#ifdef sigev_notify_thread_id
    ev.sigev_notify_thread_id = gettid();
#else
    ev._sigev_un._tid = gettid();
#endif
    made = timer_create(CLOCK_MONOTONIC, &ev, &id) == 0;
    failed = !made;
#endif
    return made;
  }
  void set(int period_us) {
    struct itimerspec its {};
    its.it_value.tv_sec = period_us / 1000000;
    its.it_value.tv_nsec = static_cast<long>(period_us % 1000000) * 1000;
    its.it_interval = its.it_value;
    timer_settime(id, 0, &its, nullptr);
  }
  ~ThreadTimer() {
    if (made) timer_delete(id);
  }
};

thread_local ThreadTimer t_timer;

}  // namespace

bool set_yield_timer_us(int period_us) {
  const bool usable = period_us <= 0 || install_handler();
  g_period_us.store(usable && period_us > 0 ? period_us : 0, std::memory_order_relaxed);
  return usable;
}

int yield_timer_us() {
  return g_period_us.load(std::memory_order_relaxed);
}

void set_yield_timer_ours(long ours_runnable) {
  g_ours_runnable.store(ours_runnable, std::memory_order_relaxed);
}

uint64_t yield_timer_signals() {
  return g_signals.load(std::memory_order_relaxed);
}

uint64_t yield_timer_skipped() {
  return g_skipped.load(std::memory_order_relaxed);
}

YieldTimerScope::YieldTimerScope() {
  const int period = g_period_us.load(std::memory_order_relaxed);
  if (period <= 0) return;
  counted_ = true;
  ThreadTimer& t = t_timer;
  if (t.depth++ > 0 || !t.make()) return;
  t.set(period);
  armed_ = true;
}

YieldTimerScope::~YieldTimerScope() {
  if (!counted_) return;
  ThreadTimer& t = t_timer;
  --t.depth;
  if (armed_) t.set(0);
}

}  // namespace armcix
