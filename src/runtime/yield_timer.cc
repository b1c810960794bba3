#include "runtime/yield_timer.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

#include "runtime/machine.h"

namespace armcix {

namespace {

std::atomic<int> g_period_us{0};
std::atomic<uint64_t> g_signals{0};
int g_signo = 0;  // chosen and installed once (under g_install), never uninstalled: see install_handler
std::mutex g_install;

// Whether other programs load the machine, as runtime/machine.h's foreign_load guesses it, but readable
// from the signal handler: every call is async-signal-safe (clock_gettime, pread on a descriptor opened
// at install, loadavg_running's hand-made parser, lock-free atomics), and the sample is per process.
std::atomic<long> g_ours_runnable{1 << 20};  // until set_yield_timer_ours: never foreign
std::atomic<int> g_loadavg_fd{-1};
std::atomic<int64_t> g_sampled_ns{-1};
std::atomic<bool> g_foreign{false};
std::atomic<uint64_t> g_skipped{0};

bool foreign_load_in_handler() {
  constexpr int64_t kSampleNanoseconds = 10 * 1000 * 1000;
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  const int64_t ns = static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
  int64_t last = g_sampled_ns.load(std::memory_order_relaxed);
  if ((last < 0 || ns - last >= kSampleNanoseconds) &&
      g_sampled_ns.compare_exchange_strong(last, ns, std::memory_order_relaxed)) {
    const int fd = g_loadavg_fd.load(std::memory_order_relaxed);
    char text[128];
    const ssize_t n = fd >= 0 ? pread(fd, text, sizeof text - 1, 0) : -1;
    long running = -1;
    if (n > 0) {
      text[n] = '\0';
      running = loadavg_running(text);
    }
    // Unreadable: no evidence of others, so yield as without the check (unlike foreign_load, whose
    // waits then sleep: sleeping is their safe side, yielding is this one's).
    g_foreign.store(running >= 0 && running > g_ours_runnable.load(std::memory_order_relaxed) + 1,
                    std::memory_order_relaxed);
  }
  return g_foreign.load(std::memory_order_relaxed);
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
    g_loadavg_fd.store(open("/proc/loadavg", O_RDONLY | O_CLOEXEC), std::memory_order_relaxed);
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
  g_sampled_ns.store(-1, std::memory_order_relaxed);  // judge afresh with the new count
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
