// Process-wide runtime state: initialization reference count, the world communicator, node topology,
// configuration.  Everything else reaches MPI through the communicators kept here.  This is the floor of
// the library (doc/design.md, "Layers"): the state and its accessors; who fills it in is runtime/runtime.cc
// (start-up order), runtime/resolve.cc (the resolved settings), topo/nodes.cc (nodes and domains) and
// progress/progress_ranks.cc (progress ranks).
#pragma once

#include <mpi.h>

#include <vector>

#include "base/config.h"
#include "base/machine_count.h"

namespace armcix {

// The settings ARMCI_Init decides at run time (base/config.h, ARMCIX_RESOLVED_SETTINGS: which, and who
// resolves each) -- "auto" (-1 in Config) made concrete, or a setting it had to turn off -- kept apart from
// what the user set (Runtime::config).  Until ARMCI_Init resolves one it holds the user's value
// (from_config), so code that runs earlier in ARMCI_Init sees what it saw before.
struct Resolved {
#define ARMCIX_RESOLVED_FIELD(field, who) decltype(Config::field) field{};
  ARMCIX_RESOLVED_SETTINGS(ARMCIX_RESOLVED_FIELD)
#undef ARMCIX_RESOLVED_FIELD

  static Resolved from_config(const Config& c);
  // `c` with these values in place of the user's: what the verbose banner shows.
  Config effective(Config c) const;
};

// The least MPI_TAG_UB an MPI may have (MPI 4.0, section 8.1.2): what tags may count on everywhere.
constexpr int kLeastTagUb = 32767;

struct Runtime {
  int init_count = 0;  // ARMCI_Init/Finalize nest (GA calls them repeatedly)
  bool we_initialized_mpi = false;
  MPI_Comm world = MPI_COMM_NULL;  // our duplicate of the communicator ARMCI was initialized on
  // The one tag armci_msg_* leaves free on `world` (MPI_TAG_UB): armci_notify's messages (sync/notify.cc).
  int notify_tag = kLeastTagUb;
  int me = -1;
  int nproc = 0;
  Config config;      // what the user set (Config::from_environment), never changed afterwards
  Resolved resolved;  // what ARMCI_Init made of it

  // Node topology (MPI's nodes, from the census's node keys or MPI_COMM_TYPE_SHARED: topo/node_keys.h; refined by
  // ARMCI_NODE_SIZE): who shares memory.
  MPI_Comm node_comm = MPI_COMM_NULL;  // ranks of my node, ordered by world rank
  bool node_comm_is_world = false;     // node_comm is `world` itself (the job is one node): freed with it
  const char* nodes_found_by = "";     // how ARMCI_Init found the nodes, for the verbose banner (runtime.cc)
  int node_id = -1;                    // my node's index, 0..node_count-1
  int node_count = 0;
  std::vector<int> node_of;                    // world rank -> node index
  std::vector<std::vector<int>> node_members;  // node index -> world ranks, ascending
  // Domains: what armci_domain_* and ARMCI_Same_node report, each node cut into maximal runs of consecutive
  // world ranks (Global Arrays assumes runs).  "Who shares memory with me" is the node above, not this.
  int domain_id = -1;
  int domain_count = 0;
  std::vector<int> domain_of;                    // world rank -> domain index
  std::vector<std::vector<int>> domain_members;  // domain index -> world ranks, consecutive
  int thread_level = MPI_THREAD_SINGLE;

  // Progress ranks (ARMCI_PROGRESS_RANKS=k > 0, progress/progress_ranks.h).  `world` then holds the program's
  // ranks only; `all` every process ARMCI was initialized on, progress ranks included.
  MPI_Comm all = MPI_COMM_NULL;
  int node_color = -1;               // my node's lowest rank in `all` (ARMCI_Init splits `world` by it)
  MPI_Win proxy_win = MPI_WIN_NULL;  // dynamic window over `all`: progress ranks attach their node's slices
  // ARMCI_MUTEX_METHOD=QUEUE with progress ranks: a second dynamic window over `all`, never in a lock_all epoch,
  // for the QUEUE mutexes' exclusive epochs at the progress ranks (sync/mutex_queue.cc)
  MPI_Win proxy_excl_win = MPI_WIN_NULL;
  std::vector<int> proxy_of;  // world rank -> rank in `all` of the progress rank serving it

  // The machine this rank runs on (topo/machine.h: same kernel and host name, whatever MPI calls a
  // node): how many of our ranks run there, and how many cores their affinity masks allow together.
  MachineCount machine;
  // With progress ranks: this machine's count over every process (progress ranks included), made while they
  // still take part in collectives (progress_ranks_start); `machine` is then this count.
  MachineCount machine_with_progress_ranks;
  bool any_machine_oversubscribed = false;  // some machine of the job runs more of our ranks than it has cores
  long saved_timer_slack_ns = 0;            // the thread's timer slack before ARMCI_WAIT_TIMER_SLACK_NS (0: kept)
};

// The one runtime instance.  Valid between the first ARMCI_Init* and the last ARMCI_Finalize.  Inline: every
// call reads it several times, and a call into the library for each read cost GA's 8-byte gets ~20
// instructions (benchmarks/local_get_ir.c).
extern Runtime g_runtime;
inline Runtime& rt() {
  return g_runtime;
}
inline bool initialized() {
  return g_runtime.init_count > 0;
}
// The back-off of our waits (ARMCI_WAIT_BACKOFF_US unset) on a machine with more ranks than cores, µs.  A
// waiting rank leaves its core as with longer sleeps, but wakes sooner once its peer has answered
// (doc/performance.md, "The values of the defaults").
constexpr int kOversubscribedBackoffUs = 10;

// The timer slack of a thread whose waits back off (ARMCI_WAIT_TIMER_SLACK_NS unset), ns: Linux's default
// slack would make each back-off sleep several times longer than asked (same section).
constexpr int kBackoffTimerSlackNs = 10000;

// The yield timer's period (ARMCI_MPI_YIELD_TIMER_US unset) on a machine with more ranks than cores, µs
// (wait/yield_timer.h): shorter periods cost more signals, longer ones leave the spinning rank its core
// longer (same section).
constexpr int kYieldTimerUs = 200;

// Entry-point guard: fails with "<call>: ARMCI is not initialized" when called before ARMCI_Init.  The checks
// are inline, the failures out of line.
[[noreturn]] void fail_not_initialized(const char* call);
inline void require_initialized(const char* call) {
  if (__builtin_expect(g_runtime.init_count <= 0, 0)) fail_not_initialized(call);
}

// Validates a target rank (absolute, in the world group) for `call`.
[[noreturn]] void fail_bad_rank(const char* call, const char* arg, int proc);
inline void check_rank(const char* call, const char* arg, int proc) {
  if (__builtin_expect(proc < 0 || proc >= g_runtime.nproc, 0)) fail_bad_rank(call, arg, proc);
}

}  // namespace armcix
