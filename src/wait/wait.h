// armci-x's waits for MPI requests (barriers, gathers, hand-off receives, flushes): MPI_Wait, or polls with
// the back-off of wait/backoff.h where the machine is oversubscribed.  Every ARMCI module waits through
// these; the pause between polls is wait/backoff.h's, the hand-off words wait/handoff.h's.
#pragma once

#include <mpi.h>

#include "base/state.h"
#include "wait/backoff.h"

namespace armcix {

// Completes `req` (a barrier, a hand-off receive: waits where this process has nothing to do but wait).
// ARMCI_WAIT_BACKOFF_US=0 (default): MPI_Wait, which MPICH implements as a busy poll.  > 0: MPI_Test,
// then sleep that long between polls, so that on an oversubscribed node (more ranks than cores) a waiting
// rank gives its core to the ranks that still compute instead of spinning against them.
// `handoff`: whether the wait may hand its core to the node's progress ranks (wait/backoff.h, HandOff):
// waits for other processes do; pass HandOff::Never for one that completes this process's own data transfer.
void wait_for(const char* call, MPI_Request* req, HandOff handoff = HandOff::Allowed);
// wait_for for an operation served by progress rank `server` (rank in Runtime::all; -1: none): when the
// server is on this MPI node it polls with MPI_Test (and the same back-off) and between polls wakes the
// server if that went to sleep meanwhile (wait/handoff.h, proxy_wake), since MPI may send the
// operation only from inside this wait.
void wait_for_served(const char* call, MPI_Request* req, int server);
// The same for `n` requests (MPI_Waitall, or MPI_Testall between sleeps).
void wait_all_for(const char* call, int n, MPI_Request* reqs);

// Enters MPI's progress engine once (ARMCIX_Progress, and waits that poll memory instead of calling MPI):
// a probe on the world communicator, which has no side effect.
void progress_poke();

// Polls until `done()` says so, calling `between()` and then `pause()` after every unsuccessful poll.  For
// waits with a pause of their own (a fixed sleep, a yield); the waits that back off use the form below.
template <typename Done, typename Between, typename Pause>
void poll_until(Done done, Between between, Pause pause) {
  while (!done()) {
    between();
    pause();
  }
}

// Polls until `done()` says so, calling `between()` after every unsuccessful poll and pausing (backing off,
// wait/backoff.h) after it when `backoff_us` > 0.
template <typename Done, typename Between>
void poll_until(int backoff_us, HandOff handoff, Done done, Between between) {
  BackoffPause pause(backoff_us, rt().machine.ranks, handoff);
  poll_until(done, between, [&] {
    if (backoff_us > 0) pause();
  });
}

}  // namespace armcix
