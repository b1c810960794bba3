// Runtime configuration from ARMCI_* environment variables, parsed in one place (config.cc).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace armcix {

enum class StridedMethod { Auto, Direct, Iov, Pack };
enum class IovMethod { Auto, Consrv, Batched, Direct };
enum class ShrBufMethod { NoGuard, Copy };
enum class WindowKind { Create, Allocate };
enum class MutexMethod { Mcs, Queue };

struct Config {
  bool verbose = false;                                // ARMCI_VERBOSE: banner with every effective setting on rank 0
  WindowKind window_kind = WindowKind::Create;         // ARMCI_USE_WIN_ALLOCATE (see doc/design.md: MPICH 6110)
  bool window_gate = false;                            // ARMCI_WINDOW_GATE: serialized window creation (window.h)
  StridedMethod strided_method = StridedMethod::Auto;  // ARMCI_STRIDED_METHOD
  IovMethod iov_method = IovMethod::Auto;              // ARMCI_IOV_METHOD
  int iov_batched_limit = 0;         // ARMCI_IOV_BATCHED_LIMIT: ops per flush in BATCHED (0 = unlimited)
  std::size_t pack_chunk_bytes = 0;  // ARMCI_PACK_CHUNK: chunk of the PACK engines; 0 = auto (engine_choice.h)
  ShrBufMethod shr_buf_method = ShrBufMethod::NoGuard;  // ARMCI_SHR_BUF_METHOD
  bool noncollective_groups = false;                    // ARMCI_NONCOLLECTIVE_GROUPS
  MutexMethod mutex_method = MutexMethod::Mcs;          // ARMCI_MUTEX_METHOD (src/sync/mutex.h)
  bool shm = true;                                      // ARMCI_SHM: node-local load/store path
  int node_size = 0;                                    // ARMCI_NODE_SIZE: simulate nodes of this many ranks (0 = real)
  int max_outstanding = 1024;                           // ARMCI_MAX_OUTSTANDING: non-blocking ops in flight, in total
  int max_outstanding_per_target = 256;                 // ARMCI_MAX_OUTSTANDING_PER_TARGET
  bool progress_thread = false;                         // ARMCI_PROGRESS_THREAD
  // ARMCI_PROGRESS_USLEEP: 300, not 100: NWChem's water dimer across 2 hosts with the thread took 38.6-39.9
  // s at 300 and 40.2-42.4 s at 100 (the wake-ups take the computing ranks' cores; 1000: 41.3-44.6 s, the
  // triples' gets wait longer; tools/nwchem/RESULTS.md).
  int progress_usleep = 300;
  int progress_ranks_usleep = -1;  // ARMCI_PROGRESS_RANKS_USLEEP: a progress rank's sleep between polls (0: yield);
                                   // -1 = auto (progress_ranks.cc: 0 with a core per process, else kSharedCorePauseUs)
  int progress_ranks_awake_us = 200;  // ARMCI_PROGRESS_RANKS_AWAKE_US: a sleeping progress rank, once woken by
                                      // a request, polls (yielding) this long after the last one (0: never)
  // ARMCI_PROGRESS_RANKS_HANDOFF_US: > 0 turns the core hand-off on where progress ranks share the cores
  // (progress/progress_ranks.h, "Core hand-off"): the longest sleep between polls of a program rank's wait that
  // has handed its core to its node's progress ranks; 0 (default): off
  int progress_ranks_handoff_us = 0;
  int progress_ranks_meeting_s = 60;  // ARMCI_PROGRESS_RANKS_MEETING_S: how long progress ranks wait for the
                                      // program ranks in MPI_Finalize before finalizing alone
  int progress_ranks = 0;    // ARMCI_PROGRESS_RANKS: per node, the last k ranks serve RMA (progress/progress_ranks.h)
  bool profile = false;      // ARMCI_PROFILE
  std::string profile_file;  // ARMCI_PROFILE_FILE
  int wait_backoff_us = -1;  // ARMCI_WAIT_BACKOFF_US: sleep between polls in our waits; -1 = auto (runtime.cc)
  int wait_timer_slack_ns = -1;   // ARMCI_WAIT_TIMER_SLACK_NS: the thread's timer slack while waits back off;
                                  // -1 = auto (kBackoffTimerSlackNs when they do), 0 = leave it (runtime.cc)
  int finalize_settle_ms = 20;    // ARMCI_FINALIZE_SETTLE_MS: pause after the last barrier (runtime.cc)
  bool check_collectives = true;  // ARMCI_CHECK_COLLECTIVES: agree on call and object first (collective_check.h)
  int collective_timeout_s = 0;   // ARMCI_COLLECTIVE_TIMEOUT: give up on a collective check after s (0: never)

  // ARMCI_MPI_YIELD: blocking MPI calls poll with the wait back-off (wait/mpi_yield.h); -1 = auto (on
  // when a machine has more ranks than cores), 0 = never, 1 = always.  Resolved to 0 or 1 by ARMCI_Init.
  int mpi_yield = -1;

  // ARMCI_MPI_YIELD_TIMER_US: while a blocking MPI call without a non-blocking form runs (communicator and
  // window creation, MPI_Win_free, MPI_Finalize, and every blocking call that does not take the yielding
  // path), a timer makes the calling thread yield the core every this many microseconds
  // (wait/yield_timer.h); -1 = auto (kYieldTimerUs when this process's machine has more ranks than
  // cores, and during ARMCI_Init), 0 = never.  Local: processes need not agree.
  int mpi_yield_timer_us = -1;

  // ARMCI_ACC_HELD_COPY: a blocking accumulate of at most kOrderedPutMaxBytes to another node goes from a copy
  // the library holds until the pair's next flush instead of waiting for its local completion (gmr/ordering.h,
  // accs_from_held_copies); -1 = auto (on except on Open MPI), 0 = never, 1 = always.  Local: processes need
  // not agree.
  int acc_held_copy = -1;

  // ARMCI_NODE_SYNC: armci_msg_barrier and world gops of a job on one node meet in shared memory with a
  // futex wake-up (wait/node_sync.h); -1 = auto (on when our waits back off), 0 = never, 1 = always (still
  // only when every rank is on one node).  Resolved to 0 or 1 by ARMCI_Init.
  int node_sync = -1;

  // ARMCI_WATCHDOG_S: end the process when one ARMCI call has blocked this many seconds (0 = off;
  // checks/watchdog.h)
  int watchdog_s = 0;

  // ARMCI_PROGRESS_THREAD alone, for the thread level MPI must be started with (before the rest can be
  // read: errors in it are reported by from_environment once MPI is up).  Malformed values read as false.
  static bool progress_thread_requested();
  // ARMCI_PROGRESS_RANKS as armci-x's MPI_Init reads it (progress/progress_roles.h); malformed values read as 0.
  static int progress_ranks_requested();
  // Reads the environment.  Bad values are reported through fail() naming the variable.
  static Config from_environment();
  // "NAME=value" lines for the verbose banner, in a fixed order.
  std::vector<std::string> describe() const;
  // The settings every process must share (a mismatch makes collectives hang or diverge), by variable
  // name, each as a number; initialize() compares them across processes.
  std::vector<std::pair<const char*, long>> must_agree() const;
};

// The environment-variable spelling of each method ("AUTO", "CONSRV", "MCS", ...), for messages and the
// banner; one table per enum, in config.cc.
const char* name_of(StridedMethod m);
const char* name_of(IovMethod m);
const char* name_of(ShrBufMethod m);
const char* name_of(MutexMethod m);

// Parsers, exposed for unit tests.  Each returns false on a malformed value.
bool parse_bool(const char* text, bool* out);
bool parse_int(const char* text, long min, long max, long* out);
bool parse_size(const char* text, std::size_t* out);  // accepts K/M/G suffixes

}  // namespace armcix
