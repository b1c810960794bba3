// Progress ranks (ARMCI_PROGRESS_RANKS=k): the last k processes of every node leave the program inside
// ARMCI_Init and serve MPI RMA aimed at their node's other ranks, so that an operation from another node
// completes while its target computes (MPI over a network makes progress only inside MPI calls of the
// target process; a progress rank is always inside one).
//
// How (doc/design.md, "Progress ranks"): every program rank's slice of a region that spans nodes lives in a
// POSIX shared-memory segment; the progress rank serving that rank maps the segment and attaches it to one
// dynamic window over all processes (Runtime::proxy_win).  Every MPI operation on the slice -- from other
// nodes and from the node itself -- targets the progress rank in that window, so MPI's accumulate
// atomicity (same window, same target process, same location) covers all of them.
//
// The progress rank's loop only answers attach/detach requests and otherwise polls MPI; it never joins a
// collective after ARMCI_Init, so no order of the program's collectives can deadlock it.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/state.h"
#include "progress/protocol.h"
#include "wait/handoff.h"  // the wake and waiting words, which program ranks use from wait/

namespace armcix {

// Called by initialize() once the settings are read and agreed on (r.world is every process).  With
// k = r.config.progress_ranks > 0: checks k against every node's size, makes r.world the program's ranks,
// r.all every process, r.proxy_win and r.proxy_of.  `machine_of_all`: this process's machine counted over
// every process (topo/machine.h).  On a progress rank it does not return: the rank serves until every
// program rank has finalized, then finalizes MPI and exits with status 0.
void progress_ranks_start(Runtime& r, const MachineCount& machine_of_all);
// Called by finalize() after the program ranks' last barrier: releases the progress ranks (collective over
// r.all together with them).  They then wait in MPI until the program ranks reach MPI_Finalize.
void progress_ranks_stop(Runtime& r);
// Called by the MPI_Finalize wrapper (mpiwrap/, libarmcix-mpiwrap) before PMPI_Finalize: after progress_ranks_stop,
// meets the progress ranks (a barrier over every process) and pauses ARMCI_FINALIZE_SETTLE_MS, so that all
// processes enter MPI_Finalize together.  Otherwise nothing.
void progress_ranks_meet_at_mpi_finalize();

// ARMCI_PROGRESS_RANKS_USLEEP when unset and the progress ranks share cores with computing ranks: the pause
// between polls, in us.  Requests over TCP end it early (the progress rank sleeps on its sockets), so it
// bounds the latency only over shared memory; shorter pauses cost the computing ranks CPU
// (doc/performance.md, "The values of the defaults").
constexpr int kSharedCorePauseUs = 100;

inline bool progress_ranks_on() {
  return rt().proxy_win != MPI_WIN_NULL;
}

// ARMCI_PROGRESS_RANKS_AWAKE_US: a sleeping progress rank polls on (yielding) this long after its last
// wake-up by a request, so that a stream of operations finds it awake instead of paying a wake-up each
// (doc/performance.md, "Streams and wake-ups through progress ranks").  It goes back to sleep at once when a yield
// shows that another process wants its core (the yield took longer than kContendedYieldUs): a computing rank keeps its
// core, and the progress rank keeps being woken by requests rather than waiting its turn.
constexpr int kContendedYieldUs = 50;

// Asks this rank's progress rank to map the POSIX shared-memory segment `shm_name` (`bytes` long) and
// attach it to the window `which`.  Returns the segment's displacement in the window at the progress rank,
// 0 if the progress rank could not map it.
MPI_Aint proxy_attach(const char* call, const char* shm_name, std::size_t bytes,
                      ProxyWindow which = ProxyWindow::LockAll);
// Tells this rank's progress rank to detach and unmap the segment attached at `disp` (no reply: the
// caller guarantees that nobody accesses it any more).
void proxy_detach(MPI_Aint disp, ProxyWindow which = ProxyWindow::LockAll);

// A POSIX shared-memory segment of `bytes` (zero-filled) mapped here and attached to `which` by my
// progress rank, so that MPI operations on it target the progress rank.  With `name` (64 bytes) the
// segment's name is returned there and stays linked, for node peers to map (the caller unlinks it);
// without, it is unlinked at once.  Fails naming `call` and `what` when the system refuses.
struct ProxiedSegment {
  char* addr = nullptr;
  std::size_t bytes = 0;
  MPI_Aint disp = 0;  // the segment's displacement in the window at my progress rank
  ProxyWindow window = ProxyWindow::LockAll;
};
ProxiedSegment proxy_segment_create(const char* call, const char* what, std::size_t bytes, char* name = nullptr,
                                    ProxyWindow which = ProxyWindow::LockAll);
// Has my progress rank detach the segment and unmaps it here (nobody accesses it any more).
void proxy_segment_release(ProxiedSegment& seg);

// Where each member of `comm` serves its segment made alike (collective over comm): the progress rank in
// the proxy window and the displacement there, indexed by rank in comm.  `call` names the caller in errors.
struct ServedAt {
  std::vector<int> rank;
  std::vector<MPI_Aint> disp;
};
ServedAt proxy_segments_served_at(const char* call, const ProxiedSegment& mine, MPI_Comm comm);

}  // namespace armcix
