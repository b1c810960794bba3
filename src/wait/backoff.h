// The pause between two polls of a wait that backs off (ARMCI_WAIT_BACKOFF_US > 0: an oversubscribed
// machine): armci-x's own waits (wait/wait.h, wait_for) and the yielding MPI calls
// (wait/mpi_yield.h).
//
// The first kBackoffYieldPolls pauses of one wait are a sched_yield, unless other programs load the
// machine (topo/machine.h, foreign_load); the rest sleep the back-off.  A yield hands the core to a
// peer of the same core that the wait is waiting for, and the wait sees the answer as soon as that peer
// has sent it, where a sleep ends only after the back-off plus the timer slack and a wake-up.  Beside
// other busy programs a waiter that stays runnable takes their share and its peers', so it sleeps at once
// (the numbers: shm/node_sync.cc, whose barrier makes the same choice before its futex sleep).
#pragma once

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "topo/machine.h"
#include "wait/call_stats.h"
#include "wait/handoff.h"

namespace armcix {

constexpr int kBackoffYieldPolls = 100;

// Whether a wait may hand its core to its node's progress ranks (progress/progress_ranks.h, "Core hand-off"):
// waits for other processes to arrive (barriers, small collectives, mutex hand-offs, allocation) may; waits
// that move data or complete this process's own operations (RMA, the program's point-to-point calls, large
// collectives) may not, since they need this process's polls while the data flows (doc/performance.md,
// "The core hand-off").
enum class HandOff : bool { Never, Allowed };

class BackoffPause {
 public:
  // `backoff_us` > 0: the sleep, 0: every pause a sched_yield (ARMCI_Init's own collectives, before the job
  // has decided whether to back off); `ours_runnable`: how many of our processes may be runnable on this
  // machine (its ranks), for foreign_load; `handoff`: whether the wait may hand its core off (above).
  BackoffPause(int backoff_us, long ours_runnable, HandOff handoff = HandOff::Never)
      : backoff_us_(backoff_us), ours_runnable_(ours_runnable), handoff_(handoff) {}
  ~BackoffPause() {
    if (handing_off_) waiting_end();
  }
  BackoffPause(const BackoffPause&) = delete;
  BackoffPause& operator=(const BackoffPause&) = delete;

  void operator()() {
    call_stats_count_pause();
    if (handoff_ == HandOff::Allowed && handoff_possible()) {
      handoff_pause();
      return;
    }
    if (backoff_us_ <= 0) {
      sched_yield();
      return;
    }
    if (yields_ < kBackoffYieldPolls && !foreign_load(ours_runnable_)) {
      ++yields_;
      sched_yield();
      return;
    }
    yields_ = kBackoffYieldPolls;  // once it slept, it sleeps on: the wait is a long one
    std::this_thread::sleep_for(std::chrono::microseconds(backoff_us_));
  }

 private:
  // Beside progress ranks that share the cores (progress/progress_ranks.h, "Core hand-off"): for the first
  // kHandoffAfterUs a pause is a yield (the wait is likely short: a get, a flush); then the wait counts
  // itself into its node's progress ranks' waiting word and sleeps, kHandoffFirstSleepUs doubling up to
  // ARMCI_PROGRESS_RANKS_HANDOFF_US, so that they poll on its core.
  void handoff_pause() {
    const auto now = std::chrono::steady_clock::now();
    if (!handing_off_) {
      if (start_ == std::chrono::steady_clock::time_point{}) start_ = now;
      if (now - start_ < std::chrono::microseconds(kHandoffAfterUs)) {
        sched_yield();
        return;
      }
      handing_off_ = true;
      waiting_begin();
      sleep_us_ = kHandoffFirstSleepUs;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_));
    sleep_us_ = std::min(2 * sleep_us_, handoff_sleep_us());
  }

  std::chrono::steady_clock::time_point start_{};
  int sleep_us_ = 0;
  int backoff_us_;
  long ours_runnable_;
  HandOff handoff_;
  int yields_ = 0;
  bool handing_off_ = false;
};

}  // namespace armcix
