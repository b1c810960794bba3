// The settings ARMCI_Init resolves (Runtime::resolved, base/config.h's ARMCIX_RESOLVED_SETTINGS): "auto"
// made concrete from the census, the machine and the MPI library, or a setting turned off.
#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>

#include <algorithm>
#include <vector>

#include "base/error.h"
#include "base/mpi_library.h"
#include "runtime/mpi_hooks.h"
#include "runtime/runtime_internal.h"
#include "wait/mpi_yield.h"
#include "wait/yield_timer.h"

namespace armcix {

// ARMCI_ACC_HELD_COPY (completion/ordering.h, accs_from_held_copies).  Auto: on except on Open MPI, whose
// accumulates complete at the target before returning anyway.  It needs the setting and the MPI library
// only: resolved as soon as the settings are read, before any transfer.
void resolve_acc_held_copy(Runtime& r) {
  const int set = r.config.acc_held_copy;
  r.resolved.acc_held_copy = set >= 0 ? set : mpi_is_open_mpi() ? 0 : 1;
}

namespace {

// Whether this machine has a network device with remote memory access: an InfiniBand, RoCE, Omni-Path or
// EFA device (the kernel lists each under /sys/class/infiniband) or an HPE Slingshot one (/sys/class/cxi).
bool machine_has_rdma_device() {
  for (const char* dir : {"/sys/class/infiniband", "/sys/class/cxi"}) {
    DIR* d = opendir(dir);
    if (!d) continue;
    bool any = false;
    while (const dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') {
        any = true;
        break;
      }
    }
    closedir(d);
    if (any) return true;
  }
  return false;
}

}  // namespace

// ARMCI_RMA_BY_ACCUMULATE (transfer/rma_by_accumulate.h).  Auto: on with MPICH 4.0 where the machine has no
// RDMA device (MPI's puts and gets then go through the target's CPU anyway, and MPICH's accumulates move
// faster); off elsewhere: on Open MPI, whose osc components move accumulates through the target's CPU where its
// puts and gets need none; on MPICH 4.2.1 with UCX 1.18 (Debian 13), where UCX aborts in an active-message
// rendezvous under large MPI_Get_accumulates (ucp_request_release from ucp_am_rndv_process_rts; the classic
// armci_test across ARMCI_NODE_SIZE=2 nodes); and on MPIs not measured.  It needs the setting, the MPI library
// and the machine only; each process decides for itself.
void resolve_rma_by_accumulate(Runtime& r) {
  const int set = r.config.rma_by_accumulate;
  const MpiLibrary& mpi = mpi_library();
  const bool measured_gain = mpi.is_mpich() && mpi.before(4, 1) && !machine_has_rdma_device();
  r.resolved.rma_by_accumulate = set >= 0 ? set : measured_gain ? 1 : 0;
}

// ARMCI_WAIT_BACKOFF_US.  Unset: back off (kOversubscribedBackoffUs) when this machine runs more of our ranks
// than their affinity masks give cores, where busy-polling waits starve the ranks that still compute
// (doc/design.md, "Waiting on oversubscribed nodes"); otherwise poll (the dedicated-core case, where a
// sleep only adds latency).  The machine, not MPI's node: simulated
// hosts and cliques split one machine into several nodes that each look dedicated.  The value is made the
// same on every rank (the maximum over the census, which every rank holds), because the msg collectives
// choose blocking or non-blocking MPI calls by it and those must match.
void resolve_wait_backoff(Runtime& r, const std::vector<Census>& census, const std::vector<MachineCount>& machines) {
  // Progress ranks share the machine's cores with the program ranks: they count (the program ranks' waits
  // then poll, which lets them hand their cores to the progress ranks, progress_ranks.h).
  r.machine = machines[r.me];
  if (r.machine_with_progress_ranks.ranks > 0) r.machine = r.machine_with_progress_ranks;
  int backoff = 0;
  bool any = false;
  for (int p = 0; p < r.nproc; ++p) {
    const bool oversubscribed =
        census[p].oversubscribed >= 0 ? census[p].oversubscribed != 0 : machines[p].oversubscribed();
    const int asked = census[p].wait_backoff_us >= 0 ? census[p].wait_backoff_us
                      : oversubscribed               ? kOversubscribedBackoffUs
                                                     : 0;
    backoff = std::max(backoff, asked);
    any = any || oversubscribed;
  }
  r.resolved.wait_backoff_us = backoff;
  r.any_machine_oversubscribed = any;
}

// ARMCI_WAIT_TIMER_SLACK_NS.  Linux lets a sleep end up to the thread's timer slack late, which by default
// is several times ARMCI_WAIT_BACKOFF_US.  Where the waits back off (auto), the calling thread's slack becomes
// kBackoffTimerSlackNs; threads it starts later inherit it.  finalize() restores the old value
// (doc/user-guide.md, "Shorter back-off sleeps").
void resolve_timer_slack(Runtime& r) {
  int slack = r.config.wait_timer_slack_ns;
  if (slack < 0) slack = r.resolved.wait_backoff_us > 0 ? kBackoffTimerSlackNs : 0;
  r.resolved.wait_timer_slack_ns = slack;
  if (slack == 0) return;
  const int old = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  if (old < 0 || prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(slack), 0, 0, 0) != 0) {
    r.resolved.wait_timer_slack_ns = 0;
    return;
  }
  r.saved_timer_slack_ns = old;
}

// ARMCI_MPI_YIELD (wait/mpi_yield.h).  Every input (the agreed setting, the census's oversubscription and
// back-off, whether ARMCI spans MPI_COMM_WORLD) is the same on every process, so all decide alike and switch
// at this same point of ARMCI_Init.  Auto: on where some machine has more ranks than cores (a busy-polling
// MPI call starves the rank it waits for).  Never on a part of MPI_COMM_WORLD: the other processes' world
// collectives would meet ours in the other form.
void resolve_mpi_yield(Runtime& r, bool spans_world) {
  // Without the wrappers nothing would yield (an explicit 1 failed in require_mpi_features); the same on
  // every process (check_settings_agree).
  bool on =
      mpi_wrappers_present() && (r.config.mpi_yield > 0 || (r.config.mpi_yield < 0 && r.any_machine_oversubscribed));
  if (on && !spans_world) {
    if (r.config.mpi_yield > 0 && r.me == 0)
      armcix::print_to_stderr(
          "armci-x: ARMCI_MPI_YIELD=1 is OFF: ARMCI was initialized on a communicator smaller than "
          "MPI_COMM_WORLD, whose other processes would call MPI's collectives in their blocking form "
          "(doc/user-guide.md, \"Oversubscribed and shared machines\")\n");
    on = false;
  }
  r.resolved.mpi_yield = on ? 1 : 0;
  set_mpi_yield(on, r.resolved.wait_backoff_us);
}

// ARMCI_NODE_SYNC (shm/node_sync.h).  Auto: on when our waits back off (an oversubscribed machine), where
// an MPI barrier costs several back-off periods; off on dedicated cores, where MPI's polled barrier answers
// in microseconds.  The inputs are the same on every process (the setting: Config::must_agree; the
// back-off: from the census, resolve_wait_backoff), so is the result; shm/node_sync.cc also needs one node.
void resolve_node_sync(Runtime& r) {
  r.resolved.node_sync = (r.config.node_sync > 0 || (r.config.node_sync < 0 && r.resolved.wait_backoff_us > 0)) ? 1 : 0;
}

// Until resolve_mpi_yield sets the job's mode, ARMCI_Init's blocking collectives after the census, which
// every process of the world makes, go through the yielding path (sched_yield pauses, free on a free
// core): MPICH busy-polls them, which on an oversubscribed machine was most of ARMCI_Init
// (doc/user-guide.md, "Oversubscribed and shared machines").  Not at MPI_THREAD_MULTIPLE (another thread's
// collectives would meet its peers' in the other form), nor before the census, which checks that every
// process has the wrappers.
void yield_during_init(const Runtime& r) {
  if (mpi_wrappers_present() && r.thread_level < MPI_THREAD_MULTIPLE && !mpi_yield_on()) set_mpi_yield(true, 0);
}

namespace {

// ARMCI_MPI_YIELD_TIMER_US (wait/yield_timer.h), in two steps: during ARMCI_Init it is on unless set to 0
// (ARMCI_Init's own communicator creation spins otherwise; on a free core a yield costs only a system call
// per period), with the world's size standing in for our processes on this machine; after the machine
// count, auto keeps it only where this machine has more ranks than cores.  Local: no agreement needed.
// ARMCI_MPI_YIELD_TIMER_SIGNAL: a real-time signal (SIGRTMIN is known at run time only, so the table's
// range is wider), taken if it has no handler.
void choose_yield_timer_signal(const Runtime& r) {
  const int s = r.config.mpi_yield_timer_signal;
  if (s > 0)
    ARMCIX_REQUIRE(s >= SIGRTMIN && s <= SIGRTMAX, "ARMCI_Init",
                   "environment variable ARMCI_MPI_YIELD_TIMER_SIGNAL=%d is not a real-time signal (%d to %d here)", s,
                   SIGRTMIN, SIGRTMAX);
  set_yield_timer_signal(s);
  set_yield_timer_verbose(r.config.verbose);
}

}  // namespace

void start_init_yield_timer(const Runtime& r, int world_size) {
  choose_yield_timer_signal(r);  // a value that is no real-time signal is an error even with the timer off
  if (r.config.mpi_yield_timer_us == 0 || !mpi_wrappers_present()) return;  // it runs inside the wrappers only
  set_yield_timer_ours(world_size);
  set_yield_timer_us(r.config.mpi_yield_timer_us > 0 ? r.config.mpi_yield_timer_us : kYieldTimerUs);
}

void resolve_yield_timer(Runtime& r) {
  int period = r.config.mpi_yield_timer_us;
  if (period < 0) period = r.machine.oversubscribed() && mpi_wrappers_present() ? kYieldTimerUs : 0;
  set_yield_timer_ours(r.machine.ranks);
  if (period > 0) choose_yield_timer_signal(r);
  if (!set_yield_timer_us(period)) {
    if (r.config.verbose && yield_timer_displaced())
      armcix::print_to_stderr("armci-x: rank %d: ARMCI_MPI_YIELD_TIMER_US: its signal has another handler; timer off\n",
                              r.me);
    else if (r.config.verbose && r.config.mpi_yield_timer_signal > 0)
      armcix::print_to_stderr(
          "armci-x: rank %d: ARMCI_MPI_YIELD_TIMER_US: ARMCI_MPI_YIELD_TIMER_SIGNAL=%d has a handler; timer off\n",
          r.me, r.config.mpi_yield_timer_signal);
    else if (r.config.verbose)
      armcix::print_to_stderr("armci-x: rank %d: ARMCI_MPI_YIELD_TIMER_US: no free real-time signal; timer off\n",
                              r.me);
    period = 0;
  }
  r.resolved.mpi_yield_timer_us = period;
  r.resolved.mpi_yield_timer_signal = period > 0 ? yield_timer_signal() : 0;
}

}  // namespace armcix
