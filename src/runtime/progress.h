// Asynchronous progress (ARMCI_PROGRESS_THREAD=1): a thread that enters MPI's progress engine every
// ARMCI_PROGRESS_USLEEP microseconds, so that RMA aimed at this process (which MPICH services in the
// target's progress engine for MPI_Win_create windows) moves while the application computes.
// Needs MPI_THREAD_MULTIPLE, which armci-x's MPI_Init and MPI_Init_thread ask for when the variable is set
// (runtime/mpi_world.cc); without it the thread is not started and rank 0 says so.
#pragma once

#include <mpi.h>

#include "runtime/backoff.h"

namespace armcix {

// Completes `req` (a barrier, a hand-off receive: waits where this process has nothing to do but wait).
// ARMCI_WAIT_BACKOFF_US=0 (default): MPI_Wait, which MPICH implements as a busy poll.  > 0: MPI_Test,
// then sleep that long between polls, so that on an oversubscribed node (more ranks than cores) a waiting
// rank gives its core to the ranks that still compute instead of spinning against them.
// `handoff`: whether the wait may hand its core to the node's progress ranks (runtime/backoff.h, HandOff):
// waits for other processes do; pass HandOff::Never for one that completes this process's own data transfer.
void wait_for(const char* call, MPI_Request* req, HandOff handoff = HandOff::Allowed);
// wait_for for an operation served by progress rank `server` (rank in Runtime::all; -1: none): when the
// server is on this MPI node it polls with MPI_Test (and the same back-off) and between polls wakes the
// server if that went to sleep meanwhile (runtime/progress_ranks.h, proxy_wake), since MPI may send the
// operation only from inside this wait.
void wait_for_served(const char* call, MPI_Request* req, int server);
// The same for `n` requests (MPI_Waitall, or MPI_Testall between sleeps).
void wait_all_for(const char* call, int n, MPI_Request* reqs);

// Enters MPI's progress engine once (ARMCIX_Progress, and waits that poll memory instead of calling MPI):
// a probe on the world communicator, which has no side effect.
void progress_poke();

// progress_start() / progress_stop(): the last / first entries of the module list (runtime/modules.h).
bool progress_running();

// The thread level the program passed to MPI_Init_thread (MPI_THREAD_SINGLE for MPI_Init) when armci-x's
// wrapper raised it to MPI_THREAD_MULTIPLE for the progress thread, else -1 (runtime/mpi_world.cc).
int program_thread_request();

}  // namespace armcix
