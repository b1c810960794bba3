#include "progress/progress_ranks.h"

#include <unistd.h>

#include "base/error.h"
#include "base/window.h"
#include "progress/progress_ranks_internal.h"
#include "progress/progress_roles.h"
#include "topo/machine.h"
#include "wait/wait.h"

namespace armcix {

using namespace proxy;  // NOLINT(google-build-using-namespace): the wire protocol, progress/protocol.h

using progress::OwnWake;

namespace progress {

// Whether the progress ranks and the program ranks meet in MPI_Finalize (progress_ranks_meet_at_mpi_finalize):
// on MPICH only, whose Fortran MPI_FINALIZE calls MPI_Finalize too, so that every program reaches the
// meeting; Open MPI's Fortran binding calls PMPI_Finalize, past it, and Open MPI has no finalize hang to
// avoid.  Both sides ask this, so they agree.
bool finalize_meeting() {
  return !mpi_is_open_mpi();
}

// Ends the proxy windows' epoch and frees them (collective over r.all: the progress ranks when they stop
// serving, the program ranks in ARMCI_Finalize).
void free_proxy_windows(Runtime& r) {
  ARMCIX_MPI(MPI_Win_unlock_all(r.proxy_win));
  ARMCIX_MPI(MPI_Win_free(&r.proxy_win));
  if (r.proxy_excl_win != MPI_WIN_NULL) ARMCIX_MPI(MPI_Win_free(&r.proxy_excl_win));
}

}  // namespace progress

using progress::finalize_meeting;
using progress::free_proxy_windows;
using progress::make_wake_channels;
using progress::serve;

namespace {

// Program ranks between ARMCI_Finalize and MPI_Finalize: every process, for the meeting in MPI_Finalize.
MPI_Comm g_meeting = MPI_COMM_NULL;

}  // namespace

void progress_ranks_start(Runtime& r, const MachineCount& machine_of_all) {
  const int k = r.config.progress_ranks;
  if (k <= 0) return;
  // Decided in armci-x's MPI_Init (progress/progress_roles.h), or here when MPI started past it.
  ProgressRoles roles;
  const bool decided_at_mpi_init = take_early_roles(&roles);
  if (!decided_at_mpi_init) {
    // The progress ranks left with the first ARMCI_Finalize (program_world_set: MPI_COMM_WORLD already
    // means the program ranks).
    if (program_world_set())
      fail("ARMCI_Init",
           "ARMCI_PROGRESS_RANKS=%d: ARMCI cannot be initialized again after ARMCI_Finalize (the progress ranks "
           "have finalized MPI)",
           k);
    require_shm_for_progress_ranks("ARMCI_Init", k, r.config.shm);
  }
  r.all = r.world;  // every process; r.world becomes the program's ranks below
  // ARMCI_PROGRESS_RANKS_USLEEP unset: a progress rank with a core of its own polls without sleeping (an
  // operation through it then costs what it costs without progress ranks), one that shares cores with
  // computing ranks sleeps kSharedCorePauseUs between polls (spinning would take their time).
  // The same for the core hand-off (progress_ranks.h): with a core per process the progress rank polls anyway.
  // Counted over every process (ARMCI_Init's first gather, while the progress ranks still took part); the
  // program ranks' waits count the progress ranks too (runtime/resolve.cc, resolve_wait_backoff).
  r.machine_with_progress_ranks = machine_of_all;
  const bool own_cores = r.machine_with_progress_ranks.core_per_rank();
  // The hand-off only where the progress ranks share the cores (with a core each they poll anyway).
  if (own_cores) r.resolved.progress_ranks_handoff_us = 0;
  const bool handoff = r.resolved.progress_ranks_handoff_us > 0;
  // The program ranks' waits count the progress ranks only with the hand-off (runtime/resolve.cc,
  // resolve_wait_backoff): they must poll to hand off.
  if (!handoff) r.machine_with_progress_ranks = MachineCount{};
  if (r.config.progress_ranks_usleep < 0) r.resolved.progress_ranks_usleep = own_cores ? 0 : kSharedCorePauseUs;
  if (!decided_at_mpi_init) roles = decide_progress_roles("ARMCI_Init", r.all, k, r.config.node_size);
  r.node_color = roles.node_color;
  ARMCIX_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, r.all, &r.proxy_win));
  ARMCIX_MPI(MPI_Win_set_errhandler(r.proxy_win, MPI_ERRORS_RETURN));
  // Program ranks load and store the segments that progress ranks serve through it.
  require_unified_model("ARMCI_Init", r.proxy_win, "the progress ranks' proxy window");
  ARMCIX_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, r.proxy_win));
  // QUEUE mutexes need exclusive epochs at the progress ranks, which proxy_win's lock_all epoch forbids, so
  // they get a window of their own; it has to exist before the progress ranks leave the collectives.
  if (r.config.mutex_method == MutexMethod::Queue) {
    ARMCIX_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, r.all, &r.proxy_excl_win));
    ARMCIX_MPI(MPI_Win_set_errhandler(r.proxy_excl_win, MPI_ERRORS_RETURN));
  }
  const OwnWake wake = make_wake_channels(r, roles.progress_rank);
  if (roles.progress_rank) serve(r, roles.served, wake);
  r.world = roles.program;
  set_handoff_sleep_us(r.resolved.progress_ranks_handoff_us);
  ARMCIX_MPI(MPI_Comm_set_errhandler(r.world, MPI_ERRORS_RETURN));
  ARMCIX_MPI(MPI_Comm_rank(r.world, &r.me));
  ARMCIX_MPI(MPI_Comm_size(r.world, &r.nproc));
  if (!decided_at_mpi_init) {
    MPI_Comm program_world;
    ARMCIX_MPI(MPI_Comm_dup(r.world, &program_world));
    set_program_world(program_world);
  }
  r.proxy_of.assign(r.nproc, -1);
  ARMCIX_MPI(MPI_Allgather(&roles.my_proxy, 1, MPI_INT, r.proxy_of.data(), 1, MPI_INT, r.world));
}

void progress_ranks_meet_at_mpi_finalize() {
  if (g_meeting == MPI_COMM_NULL) return;
  // Errors here go to MPI's handler: ARMCI is finalized.
  MPI_Request meeting;  // non-blocking, as the progress ranks' side (the two forms do not match)
  PMPI_Ibarrier(g_meeting, &meeting);
  PMPI_Wait(&meeting, MPI_STATUS_IGNORE);
  PMPI_Comm_free(&g_meeting);
  g_meeting = MPI_COMM_NULL;
  const int settle_ms = rt().config.finalize_settle_ms;
  if (settle_ms > 0) usleep(static_cast<useconds_t>(settle_ms) * 1000);
}

void progress_ranks_stop(Runtime& r) {
  if (r.proxy_win == MPI_WIN_NULL) return;
  set_handoff_sleep_us(0);
  close_wake_channels();
  Request q{};
  q.kind = kDone;
  ARMCIX_MPI(MPI_Send(&q, sizeof q, MPI_BYTE, r.proxy_of[r.me], kRequestTag, r.all));
  free_proxy_windows(r);
  // r.all stays for the meeting with the progress ranks in MPI_Finalize, if there is one.
  if (finalize_meeting())
    g_meeting = r.all;
  else
    ARMCIX_MPI(MPI_Comm_free(&r.all));
  r.all = MPI_COMM_NULL;
  r.proxy_of.clear();
  r.node_color = -1;
}

}  // namespace armcix
