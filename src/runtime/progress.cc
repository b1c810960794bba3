#include "runtime/progress.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "runtime/backoff.h"
#include "runtime/call_stats.h"
#include "runtime/error.h"
#include "runtime/modules.h"
#include "runtime/progress_ranks.h"
#include "runtime/runtime.h"
#include "runtime/thread_lock.h"

namespace armcix {

namespace {

std::thread g_thread;
std::atomic<bool> g_stop{false};
MPI_Comm g_poke = MPI_COMM_NULL;  // private communicator: the probe can never match an application message

void progress_loop(int pause_us) {
  while (!g_stop.load(std::memory_order_relaxed)) {
    int flag = 0;
    // The return code is deliberately not routed through fail(): ARMCI_Error from a helper thread would
    // race the application's own error handling.  A probe on a private communicator cannot fail short of
    // MPI itself breaking, which the main thread then reports.
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, g_poke, &flag, MPI_STATUS_IGNORE);
    if (pause_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(pause_us));
  }
}

}  // namespace

void progress_start() {
  Runtime& r = rt();
  if (!r.config.progress_thread) return;
  if (r.thread_level < MPI_THREAD_MULTIPLE) {
    // Once (rank 0) and loudly: the user asked for asynchronous progress and does not get it.  armci-x's
    // MPI_Init and MPI_Init_thread ask for the level when ARMCI_PROGRESS_THREAD is set (runtime/mpi_world.cc),
    // so either MPI cannot give it or MPI started another way: Open MPI's Fortran MPI_INIT calls PMPI_Init.
    const bool mpi_refused = r.we_initialized_mpi || program_thread_request() >= 0;
    if (r.me == 0)
      std::fprintf(stderr,
                   "armci-x: WARNING: ARMCI_PROGRESS_THREAD=1 is OFF: MPI runs at thread level %d, the progress "
                   "thread needs MPI_THREAD_MULTIPLE (%d).  %s  Operations aimed at a process that computes "
                   "complete only when it calls MPI again; ARMCI_PROGRESS_RANKS=1 needs no thread level "
                   "(doc/user-guide.md, \"Asynchronous progress\").\n",
                   r.thread_level, MPI_THREAD_MULTIPLE,
                   mpi_refused ? "This MPI does not provide it."
                               : "MPI was started before ARMCI_Init without armci-x's MPI_Init (as Open MPI's "
                                 "Fortran MPI_INIT does): the program must call MPI_Init_thread with "
                                 "MPI_THREAD_MULTIPLE.");
    r.config.progress_thread = false;
    return;
  }
  ARMCIX_MPI(MPI_Comm_dup(r.world, &g_poke));
  g_stop = false;
  g_thread = std::thread(progress_loop, r.config.progress_usleep);
}

void progress_stop() {
  if (!g_thread.joinable()) return;
  g_stop = true;
  g_thread.join();
  ARMCIX_MPI(MPI_Comm_free(&g_poke));
}

bool progress_running() {
  return g_thread.joinable();
}

void progress_poke() {
  int flag = 0;
  ARMCIX_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, rt().world, &flag, MPI_STATUS_IGNORE));
}

namespace {

// Polls until `done()` says so, calling `between()` after every unsuccessful poll and pausing (backing off)
// after it when `backoff_us` > 0.
template <typename Done, typename Between>
void poll_until(int backoff_us, HandOff handoff, Done done, Between between) {
  BackoffPause pause(backoff_us, rt().machine.ranks, handoff);
  while (!done()) {
    between();
    if (backoff_us > 0) pause();
  }
}

}  // namespace

void wait_for(const char* call, MPI_Request* req, HandOff handoff) {
  CallTimer timer(call_stats_slot_if_on(CallKind::Wait, call));
  const int backoff_us = rt().config.wait_backoff_us;
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
  CallTimer timer(call_stats_slot_if_on(CallKind::Wait, call));
  ApiUnlocked unlocked;
  // Polled even without back-off: the wake-up is repeated between polls.
  poll_until(
      rt().config.wait_backoff_us, HandOff::Never,
      [&] {
        int done = 0;
        ARMCIX_MPI(MPI_Test(req, &done, MPI_STATUS_IGNORE));
        return done != 0;
      },
      [&] { proxy_wake(server); });
}

void wait_all_for(const char* call, int n, MPI_Request* reqs) {
  CallTimer timer(call_stats_slot_if_on(CallKind::Wait, call));
  const int backoff_us = rt().config.wait_backoff_us;
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
