#include "wait/yield_timer.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

#include "base/error.h"
#include "base/state.h"
#include "topo/machine.h"

namespace armcix {

namespace {

std::atomic<int> g_period_us{0};
std::atomic<uint64_t> g_signals{0};
int g_signo = 0;   // chosen and installed once (under g_install): see install_handler; -1: none
int g_chosen = 0;  // set_yield_timer_signal: 0 searches
std::mutex g_install;
std::atomic<bool> g_displaced{false};  // a foreign handler took the signal over: see signal_still_ours
std::atomic<bool> g_verbose{false};

std::atomic<long> g_ours_runnable{1 << 20};  // until set_yield_timer_ours: never foreign
std::atomic<uint64_t> g_skipped{0};

// topo/machine.h's foreign_load, but an unreadable /proc/loadavg counts as no evidence of others, so the
// handler yields as it would without the check (foreign_load's waits then sleep: sleeping is their safe
// side, yielding is this one's).  sampled_runnable_tasks is async-signal-safe.
bool foreign_load_in_handler() {
  const long running = sampled_runnable_tasks();
  return running >= 0 && running > g_ours_runnable.load(std::memory_order_relaxed) + 1;
}

struct ThreadTimer;
void back_off(ThreadTimer* t);

// Yields, unless other programs' busy tasks share the machine: then the yield hands the core to one of
// them for the rest of its time slice, not to the peer the timed call waits for, and every call takes
// longer than without the timer (doc/design.md, "The yield timer").  Then the next signal comes after
// 1.5 times the time (back_off).
void on_timer_signal(int, siginfo_t* info, void*) {
  const int saved = errno;
  g_signals.fetch_add(1, std::memory_order_relaxed);  // lock-free: async-signal-safe
  if (foreign_load_in_handler())
    g_skipped.fetch_add(1, std::memory_order_relaxed);
  else
    sched_yield();
  if (info && info->si_code == SI_TIMER) back_off(static_cast<ThreadTimer*>(info->si_value.sival_ptr));
  errno = saved;
}

bool has_handler(const struct sigaction& a) {
  return (a.sa_flags & SA_SIGINFO) || a.sa_handler != SIG_DFL;
}

bool take_signal(int s) {
  struct sigaction old {};
  if (sigaction(s, nullptr, &old) != 0 || has_handler(old)) return false;
  struct sigaction sa {};
  sa.sa_sigaction = on_timer_signal;
  sa.sa_flags = SA_RESTART | SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  return sigaction(s, &sa, nullptr) == 0;
}

// A real-time signal nobody has a handler for (the one set_yield_timer_signal chose, else searched from the
// top: libraries that take one tend to take SIGRTMIN + n), and our handler on it.  Only a signal at its
// default action is taken, so there is no earlier handler to chain to.  The handler stays until
// yield_timer_release (after MPI_Finalize, the last timed call): a timer signal still pending when a call's
// timer is disarmed must not meet the default action (termination).
bool install_handler() {
  std::lock_guard<std::mutex> lock(g_install);
  if (g_signo != 0) return g_signo > 0;
#ifdef __linux__
  if (g_chosen > 0) {
    if (take_signal(g_chosen)) return g_signo = g_chosen, true;
  } else {
    for (int s = SIGRTMAX - 1; s >= SIGRTMIN + 2; --s)
      if (take_signal(s)) return g_signo = s, true;
  }
#endif
  g_signo = -1;
  return false;
}

// Whether our handler is still the signal's: a program or library that installs its own handler later
// takes the signal over, and would be sent our timer's signals (and interrupt its own calls with them).
// The timer then stops using the signal for good, saying so under ARMCI_VERBOSE.
bool signal_still_ours() {
  if (g_displaced.load(std::memory_order_relaxed)) return false;
  struct sigaction now {};
  if (sigaction(g_signo, nullptr, &now) == 0 && (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_timer_signal)
    return true;
  g_period_us.store(0, std::memory_order_relaxed);
  if (!g_displaced.exchange(true) && g_verbose.load(std::memory_order_relaxed))
    print_to_stderr(
        "armci-x: rank %d: the yield timer's signal %d has another handler (the program's or a library's); "
        "the timer is off from now on (ARMCI_MPI_YIELD_TIMER_SIGNAL chooses another signal, "
        "ARMCI_MPI_YIELD_TIMER_US=0 turns it off)\n",
        initialized() ? rt().me : -1, g_signo);
  return false;
}

// The calling thread's timer, made on its first timed call, deleted when the thread ends.
//
// One-shot, re-armed by the handler at 1.5 times the last interval (from the setting up to kMaxIntervalUs),
// never periodic: with a fixed period every rank interrupting every call so often starves the ones doing
// the work, and a system call that starts over when interrupted may never finish.  The first yields,
// which matter most, still come near the set period (doc/design.md, "The yield timer").
struct ThreadTimer {
  static constexpr long kMaxIntervalUs = 1000000;
  timer_t id{};
  bool made = false;
  bool failed = false;
  int depth = 0;                    // nested scopes: only the outermost arms and disarms
  volatile sig_atomic_t armed = 0;  // read by the handler, which runs on this thread
  long interval_us = 0;             // the interval the handler arms next; written only with armed set

  bool make() {
#ifdef __linux__
    if (made || failed) return made;
    struct sigevent ev {};
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = g_signo;
    ev.sigev_value.sival_ptr = this;
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
  // One shot after `us` microseconds; 0 disarms.  timer_settime is async-signal-safe.
  void set(long us) {
    struct itimerspec its {};
    its.it_value.tv_sec = us / 1000000;
    its.it_value.tv_nsec = (us % 1000000) * 1000;
    timer_settime(id, 0, &its, nullptr);
  }
  void arm(long first_us) {
    interval_us = first_us;
    armed = 1;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    set(first_us);
  }
  void disarm() {
    armed = 0;  // first: a signal that lands after this store does not re-arm
    std::atomic_signal_fence(std::memory_order_seq_cst);
    set(0);
  }
  ~ThreadTimer() {
    if (made) timer_delete(id);
  }
};

void back_off(ThreadTimer* t) {
  if (!t || !t->armed) return;  // the scope has ended: stay disarmed
  const long next = t->interval_us + t->interval_us / 2 + 1;
  t->interval_us = next < ThreadTimer::kMaxIntervalUs ? next : ThreadTimer::kMaxIntervalUs;
  t->set(t->interval_us);
}

thread_local ThreadTimer t_timer;

}  // namespace

bool set_yield_timer_us(int period_us) {
  const bool usable = period_us <= 0 || (install_handler() && !g_displaced.load(std::memory_order_relaxed));
  g_period_us.store(usable && period_us > 0 ? period_us : 0, std::memory_order_relaxed);
  return usable;
}

bool set_yield_timer_signal(int signo) {
  std::lock_guard<std::mutex> lock(g_install);
  if (g_signo != 0) return signo <= 0 || signo == g_signo;
  g_chosen = signo > 0 ? signo : 0;
  return true;
}

int yield_timer_signal() {
  std::lock_guard<std::mutex> lock(g_install);
  return g_signo > 0 && !g_displaced.load() ? g_signo : 0;
}

bool yield_timer_displaced() {
  return g_displaced.load(std::memory_order_relaxed);
}

void set_yield_timer_verbose(bool on) {
  g_verbose.store(on, std::memory_order_relaxed);
}

void yield_timer_release() {
  g_period_us.store(0, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(g_install);
  if (g_signo <= 0) return;
  struct sigaction now {};
  const bool ours =
      sigaction(g_signo, nullptr, &now) == 0 && (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_timer_signal;
  if (ours) {
    // SIG_IGN first: it discards a timer signal still pending on a thread that blocks it, which the
    // default action would otherwise meet later.
    struct sigaction ign {
    }, dfl{};
    ign.sa_handler = SIG_IGN;
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&ign.sa_mask);
    sigemptyset(&dfl.sa_mask);
    sigaction(g_signo, &ign, nullptr);
    sigaction(g_signo, &dfl, nullptr);
  }
  g_signo = -1;  // never taken again: MPI cannot start again after MPI_Finalize
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
  if (t.depth++ > 0 || !signal_still_ours() || !t.make()) return;
  t.arm(period);
  armed_ = true;
}

YieldTimerScope::~YieldTimerScope() {
  if (!counted_) return;
  ThreadTimer& t = t_timer;
  --t.depth;
  if (armed_) t.disarm();
}

}  // namespace armcix
