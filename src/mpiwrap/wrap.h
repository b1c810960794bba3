// libarmcix-mpiwrap: the MPI functions armci-x defines over the profiling interface (PMPI_*).  An opt-in
// library beside libarmci (doc/user-guide.md, "Using armci-x with MPI tools"): libarmci itself defines no
// MPI_* or PMPI_* function, so that it composes with PMPI tools (mpiP, Score-P, TAU, Darshan, Caliper) as
// ARMCI-MPI does.  A program that wants the features below links it ahead of libarmci
// (`-larmcix-mpiwrap -larmci`) or preloads it (LD_PRELOAD=libarmcix-mpiwrap.so, with a shared libarmci).
//
// 1. Progress ranks and MPI_COMM_WORLD.  With ARMCI_PROGRESS_RANKS=k the last k processes of every node
//    never return from MPI_Init (or ARMCI_Init), so a program that uses MPI_COMM_WORLD (a barrier, a
//    reduction, its rank and size -- Global Arrays' test programs, our own tests) would wait for them
//    forever or count them.  As Casper does, every wrapper passes MPI_COMM_WORLD on as the program ranks'
//    communicator.  Without progress ranks this is one comparison per call.
// 2. Yielding waits (ARMCI_MPI_YIELD, wait/mpi_yield.h): on an oversubscribed machine the blocking calls
//    become their non-blocking form completed by MPI_Test with a pause between polls, and collective calls
//    without a non-blocking form are preceded by a non-blocking barrier completed the same way.  Off, this
//    is one load of a flag per call.  The yield timer (wait/yield_timer.h) runs around the blocking calls.
// 3. Profiling (ARMCI_PROFILE=1, wait/call_stats.h): the blocking calls count their calls, time and
//    back-off pauses per MPI function (ARMCIX_TIME_CALL), so that the profile says which of the program's
//    own MPI calls the time went to.  Off, one more load of a flag.
// 4. The progress thread (ARMCI_PROGRESS_THREAD=1) needs MPI_THREAD_MULTIPLE, and the programs that most
//    need it start MPI themselves with plain MPI_Init (Global Arrays' programs, NWChem through GA's
//    tcgmsg-mpi).  With that variable set, MPI_Init and MPI_Init_thread below MPI_THREAD_MULTIPLE ask
//    MPI for MPI_THREAD_MULTIPLE (MPI may give more than asked; MPI_Init_thread reports what it gave), and
//    the level the program asked for is kept so that ARMCI does not serialise its calls for a program
//    that never calls it from two threads.  Open MPI's Fortran MPI_INIT calls PMPI_Init and bypasses this.
// 5. Progress ranks are decided in MPI_Init and MPI_Init_thread (progress/progress_roles.h), so that a program
//    that reads MPI_COMM_WORLD's size before ARMCI_Init (the classic ARMCI test program) sees the program
//    ranks only.  Both tell libarmci that they ran (runtime/mpi_hooks.h, after_mpi_init): ARMCI_Init fails
//    with a named error when a feature needs a wrapper that did not run.
//
// Composition with PMPI tools.  Every wrapper is an object file of its own (calls.def, calls/), so that a tool
// archive linked ahead of this one keeps the functions it defines and the wrappers keep the rest (a static
// link takes an archive member only for a symbol still undefined).  Where a wrapper passes a call on
// unchanged in form, it calls the next definition (ARMCIX_NEXT): dlsym(RTLD_NEXT, "MPI_X"), found once and
// cached, so that a tool placed after this library (LD_PRELOAD=libarmcix-mpiwrap.so:libtool.so) still sees
// the call, with MPI_COMM_WORLD already the program ranks'; PMPI_X where there is no next definition (a
// static program).  The yielding path's non-blocking calls and polls go to PMPI_* directly: they are
// armci-x's way of waiting, not the program's calls.
//
// The list covers the MPI calls that Global Arrays 5.8.2 (Debian's libga-mpich.a: nm -u), ScaLAPACK/BLACS
// (libscalapack-mpich.so), NWChem and our tests, examples and benchmarks make on a communicator, and the
// blocking completion calls (MPI_Wait and friends).  Anything else on MPI_COMM_WORLD still sees every
// process (doc/user-guide.md, "Progress ranks"), and anything else blocking busy-polls as MPI makes it.
// Errors are MPI's: a wrapper returns what the calls it makes return, which under the default
// MPI_ERRORS_ARE_FATAL never returns at all.
//
// Prototypes from MPICH 4.0.2's mpi.h (the same in Open MPI 4.1); the functions keep MPI's names.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

#include "base/config.h"
#include "base/state.h"
#include "progress/progress_roles.h"
#include "progress/thread.h"
#include "runtime/mpi_hooks.h"
#include "wait/backoff.h"
#include "wait/call_stats.h"
#include "wait/mpi_yield.h"
#include "wait/wait.h"
#include "wait/yield_timer.h"

namespace armcix::mpiwrap {

// The definition of `name` after this library's (a PMPI tool's, or MPI's own), else `fallback` (PMPI_x).
void* next_definition(const char* name, void* fallback);

// The next definition of MPI function `name`, looked up on the first call from this site and cached.
#define ARMCIX_NEXT(name)                                                              \
  ([]() -> decltype(&P##name) {                                                        \
    static const auto next_fn = reinterpret_cast<decltype(&P##name)>(                  \
        ::armcix::mpiwrap::next_definition(#name, reinterpret_cast<void*>(&P##name))); \
    return next_fn;                                                                    \
  }())

inline MPI_Comm world_or(MPI_Comm c) {
  return c == MPI_COMM_WORLD && program_world() != MPI_COMM_NULL ? program_world() : c;
}

// Point-to-point calls and completions: replaced whenever the mode is on (a non-blocking send or receive
// matches a blocking one).
inline bool yield_p2p() {
  return mpi_yield_on_relaxed();
}

// Collective calls on `comm`: replaced when the mode is on and `comm` is an intracommunicator.
// MPI_COMM_NULL goes to MPI unchanged so that MPI reports it under the call's own name; intercommunicators
// too (their non-blocking collectives are less widely implemented, and no user here needs them).
inline bool yield_collective(MPI_Comm comm) {
  if (!mpi_yield_on_relaxed() || comm == MPI_COMM_NULL) return false;
  int inter = 0;
  return PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter;
}

// The pause between polls of one yielding call (wait/backoff.h): yields, then sleeps the back-off.
// `handoff`: only MPI_Barrier, a pure wait for the others, hands the core to the node's progress ranks;
// the program's other calls may move data that needs this process's polls (wait/backoff.h, HandOff).
inline BackoffPause poll_pause(HandOff handoff = HandOff::Never) {
  return BackoffPause(mpi_yield_pause_us(), rt().machine.ranks, handoff);
}

// Polls `test` (an MPI_Test-like call: int test(int* done), returning MPI's error code) until it fails or
// sets *done, pausing between polls (poll_pause), and counts the call as completed through the yielding
// path.  Returns the last poll's error code.
template <typename Test>
int poll_with_pauses(Test test, HandOff handoff = HandOff::Never) {
  BackoffPause pause_between_polls = poll_pause(handoff);
  int rc = MPI_SUCCESS;
  poll_until(
      [&] {
        int done = 0;
        rc = test(&done);
        return rc != MPI_SUCCESS || done;
      },
      [] {}, [&] { pause_between_polls(); });
  count_yielding_call();
  return rc;
}

// Completes *req as MPI_Wait would (the status included), polling with pauses.  `started` is the return
// code of the call that made the request: a failed start is returned as it is.
int complete(int started, MPI_Request* req, MPI_Status* status, HandOff handoff = HandOff::Never);

// For collective calls without a non-blocking form (communicator and window creation): every member
// passes a non-blocking barrier with back-off first, so that the call's own synchronisation, which MPI
// busy-polls, finds the others already there.  Returns the barrier's error code, if any.
int arrive_together(MPI_Comm comm);

// Communicator templates (comm_templates.cc): whether split and create may use them now, and the new
// communicator of this process over `members` (ranks in `comm`, in the new order; empty: MPI_COMM_NULL).
bool use_comm_templates();
int create_from_template(MPI_Comm comm, const std::vector<int>& members, MPI_Comm* newcomm);

}  // namespace armcix::mpiwrap
