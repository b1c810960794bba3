#include "wait/wait.h"

#include "base/error.h"
#include "base/state.h"
#include "base/thread_lock.h"
#include "wait/backoff.h"
#include "wait/call_stats.h"
#include "wait/handoff.h"

namespace armcix {

void progress_poke() {
  int flag = 0;
  ARMCIX_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, rt().world, &flag, MPI_STATUS_IGNORE));
}

void wait_for(const char* call, MPI_Request* req, HandOff handoff) {
  ScopeTimer timer(call_stats_slot_if_on(CallKind::Wait, call));
  const int backoff_us = rt().resolved.wait_backoff_us;
  // Other threads of this process keep running while we wait for other processes (thread_lock.h).
  ApiUnlocked unlocked;
  if (backoff_us <= 0) {
    ARMCIX_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
    return;
  }
  poll_until(
      backoff_us, handoff,
      [&] {
        int done = 0;
        ARMCIX_MPI(MPI_Test(req, &done, MPI_STATUS_IGNORE));
        ARMCIX_REQUIRE(done || *req != MPI_REQUEST_NULL, call, "internal error: waiting on a null request");
        return done != 0;
      },
      [] {});
}

void wait_for_served(const char* call, MPI_Request* req, int server) {
  if (!proxy_wake_possible(server)) return wait_for(call, req, HandOff::Never);
  ScopeTimer timer(call_stats_slot_if_on(CallKind::Wait, call));
  ApiUnlocked unlocked;
  // Polled even without back-off: the wake-up is repeated between polls.
  poll_until(
      rt().resolved.wait_backoff_us, HandOff::Never,
      [&] {
        int done = 0;
        ARMCIX_MPI(MPI_Test(req, &done, MPI_STATUS_IGNORE));
        return done != 0;
      },
      [&] { proxy_wake(server); });
}

void wait_all_for(const char* call, int n, MPI_Request* reqs) {
  ScopeTimer timer(call_stats_slot_if_on(CallKind::Wait, call));
  const int backoff_us = rt().resolved.wait_backoff_us;
  ApiUnlocked unlocked;
  if (backoff_us <= 0) {
    ARMCIX_MPI(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
    return;
  }
  poll_until(
      backoff_us, HandOff::Never,
      [&] {
        int done = 0;
        ARMCIX_MPI(MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE));
        ARMCIX_REQUIRE(done || n > 0, call, "internal error: waiting on no requests");
        return done != 0;
      },
      [] {});
}

}  // namespace armcix
