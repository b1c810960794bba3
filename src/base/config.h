// Runtime configuration from ARMCI_* environment variables: one table (ARMCIX_SETTINGS below), from which
// the Config struct, parsing (from_environment), the verbose banner (describe) and the agreement check
// (must_agree) are derived; tests/unit/test_config.cc checks it against doc/user-guide.md's table.  Adding
// a setting is one row here plus its row in the guide.  What ARMCI_Init resolves ("auto", -1) is kept apart,
// in Runtime::resolved (base/state.h).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "base/mpi_library.h"

namespace armcix {

enum class StridedMethod { Auto, Direct, Iov, Pack };
enum class IovMethod { Auto, Consrv, Batched, Direct };
enum class ShrBufMethod { NoGuard, Copy };
enum class WindowKind { Create, Allocate };
enum class MutexMethod { Mcs, Queue };

// How a setting is spelled and shown.  -1 in an integer setting means "auto" (resolved by ARMCI_Init).
struct SettingKind {
  enum Type {
    Flag,      // 0/1 and the other boolean spellings (parse_bool)
    AutoFlag,  // auto (-1), 0 or 1
    Int,       // an integer in [min, max]
    AutoInt,   // auto (-1) or an integer in [min, max]
    Size,      // auto (0) or a size >= min bytes, K/M/G suffixes (parse_size)
    OneOf,     // one of the enum's spellings (name_of)
    Text,      // any string
  };
  Type type = Flag;
  long min = 0, max = 0;
  // Flag: the default is 1 when the MPI library is Open MPI older than this major version (0: never).
  int on_open_mpi_before = 0;
  // Banner notes after the value, "NAME=value  (note)": for auto (-1, or 0 of a Size), 0 and other values.
  const char* if_auto = nullptr;
  const char* if_zero = nullptr;
  const char* if_other = nullptr;

  constexpr SettingKind notes(const char* a, const char* zero, const char* other) const {
    SettingKind k = *this;
    k.if_auto = a, k.if_zero = zero, k.if_other = other;
    return k;
  }
};
constexpr SettingKind flag() {
  return {SettingKind::Flag};
}
constexpr int kAnyVersion = 1 << 30;
constexpr SettingKind flag_on_open_mpi() {
  return {SettingKind::Flag, 0, 1, kAnyVersion};
}
constexpr SettingKind flag_on_open_mpi_before(int major) {
  return {SettingKind::Flag, 0, 1, major};
}
constexpr SettingKind auto_flag() {
  return {SettingKind::AutoFlag, 0, 1};
}
constexpr SettingKind range(long min, long max) {
  return {SettingKind::Int, min, max};
}
constexpr SettingKind auto_range(long min, long max) {
  return {SettingKind::AutoInt, min, max};
}
constexpr SettingKind size_at_least(long min) {
  return {SettingKind::Size, min};
}
constexpr SettingKind one_of() {
  return {SettingKind::OneOf};
}
constexpr SettingKind text() {
  return {SettingKind::Text};
}

constexpr bool kAgree = true;   // every process must have the same value (a mismatch hangs collectives)
constexpr bool kLocal = false;  // processes may differ

// X(type, field, "ARMCI_NAME", kind, default, agree, "one-line doc").  The order is the banner's.
// Why the agreed ones must agree: each selects which collective MPI calls an ARMCI collective makes (window
// kind, shared or not, node split, group creation, mutex algorithm, the agreement itself, progress ranks);
// ARMCI_MPI_YIELD selects blocking or non-blocking forms of the program's own MPI collectives, which do not
// match; ARMCI_NODE_SYNC a shared-memory or an MPI barrier; with it on, ARMCI_COLLECTIVE_TIMEOUT keeps the
// agreements on MPI's path (collective_check.cc).
//
// ARMCI_USE_WIN_ALLOCATE, ARMCI_WINDOW_GATE: defaults per MPI (doc/user-guide.md, "Known MPI problems"):
// MPICH 4.0.2 needs MPI_Win_create windows for correct atomics (issue 6110); on Open MPI 4.1
// MPI_Win_allocate puts node peers' memory in one segment that osc/rdma reaches directly, and window
// creation needs the node gate before Open MPI 5 (issue 7393; base/mpi_library.h).
// ARMCI_PROGRESS_USLEEP: 300, not 100: shorter, the wake-ups take the computing ranks' cores; longer, the
// triples' gets wait (doc/performance.md, "NWChem between hosts with the progress thread").
// Who resolves "auto": ARMCIX_RESOLVED_SETTINGS below.
#define ARMCIX_SETTINGS(X)                                                                                           \
  X(bool, verbose, "ARMCI_VERBOSE", flag(), false, kLocal, "banner with every effective setting on rank 0")          \
  X(WindowKind, window_kind, "ARMCI_USE_WIN_ALLOCATE",                                                               \
    flag_on_open_mpi().notes(nullptr, "MPI_Alloc_mem + MPI_Win_create", "MPI_Win_allocate"), WindowKind::Create,     \
    kAgree, "window kind with ARMCI_SHM=0: 1 = MPI_Win_allocate (see doc/design.md: MPICH 6110)")                    \
  X(bool, window_gate, "ARMCI_WINDOW_GATE", flag_on_open_mpi_before(kOmpiWinNameFixedIn), false, kAgree,             \
    "serialized window creation per node (window.h; Open MPI 4 issue 7393)")                                         \
  X(int, window_gate_timeout_s, "ARMCI_WINDOW_GATE_TIMEOUT_S", range(0, 1 << 20), 300, kLocal,                       \
    "give up waiting for the window-creation lock after s seconds (0: never)")                                       \
  X(StridedMethod, strided_method, "ARMCI_STRIDED_METHOD", one_of(), StridedMethod::Auto, kLocal,                    \
    "strided engine for targets reached through MPI (transfer/engine_choice.h)")                                     \
  X(IovMethod, iov_method, "ARMCI_IOV_METHOD", one_of(), IovMethod::Auto, kLocal, "I/O-vector engine")               \
  X(int, iov_batched_limit, "ARMCI_IOV_BATCHED_LIMIT", range(0, 1 << 30), 0, kLocal,                                 \
    "ops per flush in BATCHED (0 = unlimited)")                                                                      \
  X(std::size_t, pack_chunk_bytes, "ARMCI_PACK_CHUNK",                                                               \
    size_at_least(64).notes("64K within a node, 32K to other nodes", nullptr, nullptr), 0, kLocal,                   \
    "chunk of the PACK engines; auto = 0 (engine_choice.h)")                                                         \
  X(ShrBufMethod, shr_buf_method, "ARMCI_SHR_BUF_METHOD", one_of(), ShrBufMethod::NoGuard, kLocal,                   \
    "local buffers inside global memory: used directly or staged")                                                   \
  X(bool, noncollective_groups, "ARMCI_NONCOLLECTIVE_GROUPS", flag(), false, kAgree,                                 \
    "ARMCI_Group_create called by the members only")                                                                 \
  X(MutexMethod, mutex_method, "ARMCI_MUTEX_METHOD", one_of(), MutexMethod::Mcs, kAgree,                             \
    "mutex algorithm for sets spanning nodes (src/sync/mutex.h)")                                                    \
  X(bool, shm, "ARMCI_SHM", flag(), true, kAgree, "node-local load/store path")                                      \
  X(bool, nodes_from_mpi, "ARMCI_NODES_FROM_MPI",                                                                    \
    flag().notes(nullptr, "census keys unless MPI or the launcher splits a host", "MPI_Comm_split_type"), false,     \
    kAgree, "nodes from MPI_Comm_split_type always, not from the census (topo/node_keys.h)")                         \
  X(int, node_size, "ARMCI_NODE_SIZE", range(0, 1 << 20).notes(nullptr, "real nodes", "simulated nodes"), 0, kAgree, \
    "simulate nodes of this many ranks (0 = real)")                                                                  \
  X(int, max_outstanding, "ARMCI_MAX_OUTSTANDING", range(1, 1 << 24), 1024, kLocal,                                  \
    "non-blocking ops in flight, in total")                                                                          \
  X(int, max_outstanding_per_target, "ARMCI_MAX_OUTSTANDING_PER_TARGET", range(1, 1 << 24), 256, kLocal,             \
    "non-blocking ops in flight, per target")                                                                        \
  X(bool, progress_thread, "ARMCI_PROGRESS_THREAD", flag(), false, kLocal,                                           \
    "a thread that drives MPI progress (needs MPI_THREAD_MULTIPLE)")                                                 \
  X(int, progress_usleep, "ARMCI_PROGRESS_USLEEP", range(0, 1000000), 300, kLocal,                                   \
    "the progress thread's pause between polls, us")                                                                 \
  X(int, progress_ranks, "ARMCI_PROGRESS_RANKS",                                                                     \
    range(0, 1 << 20).notes(nullptr, "none", "per node, serving the node's ranks"), 0, kAgree,                       \
    "per node, the last k ranks serve RMA (progress/progress_ranks.h)")                                              \
  X(int, progress_ranks_usleep, "ARMCI_PROGRESS_RANKS_USLEEP", range(0, 1000000), -1, kLocal,                        \
    "a progress rank's sleep between polls (0: yield); auto = -1")                                                   \
  X(int, progress_ranks_awake_us, "ARMCI_PROGRESS_RANKS_AWAKE_US", range(0, 1000000), 200, kLocal,                   \
    "a woken progress rank polls this long after the last request (0: never)")                                       \
  X(int, progress_ranks_meeting_s, "ARMCI_PROGRESS_RANKS_MEETING_S", range(1, 86400), 60, kLocal,                    \
    "how long progress ranks wait for the program ranks in MPI_Finalize")                                            \
  X(int, progress_ranks_handoff_us, "ARMCI_PROGRESS_RANKS_HANDOFF_US", range(0, 1000000), 0, kLocal,                 \
    "> 0: core hand-off to progress ranks, longest sleep of a handing wait (progress_ranks.h)")                      \
  X(bool, profile, "ARMCI_PROFILE", flag(), false, kLocal, "profile every call, report at ARMCI_Finalize")           \
  X(std::string, profile_file, "ARMCI_PROFILE_FILE", text(), "", kLocal, "also write the profile to this file")      \
  X(int, wait_backoff_us, "ARMCI_WAIT_BACKOFF_US", range(0, 100000), -1, kLocal,                                     \
    "sleep between polls in our waits; auto = -1")                                                                   \
  X(int, mpi_yield, "ARMCI_MPI_YIELD",                                                                               \
    auto_flag().notes(nullptr, "blocking MPI calls are MPI's own", "blocking MPI calls poll with back-off"), -1,     \
    kAgree, "blocking MPI calls poll with the wait back-off (wait/mpi_yield.h)")                                     \
  X(int, wait_timer_slack_ns, "ARMCI_WAIT_TIMER_SLACK_NS",                                                           \
    auto_range(0, 100000000).notes(nullptr, "the thread's own", nullptr), -1, kLocal,                                \
    "the thread's timer slack while waits back off (0: leave it)")                                                   \
  X(int, mpi_yield_timer_us, "ARMCI_MPI_YIELD_TIMER_US",                                                             \
    auto_range(0, 1000000).notes(nullptr, "blocking MPI calls keep the core", "yield timer in blocking MPI calls"),  \
    -1, kLocal, "period of the yield timer in blocking MPI calls (wait/yield_timer.h; 0: never)")                    \
  X(int, mpi_yield_timer_signal, "ARMCI_MPI_YIELD_TIMER_SIGNAL",                                                     \
    auto_range(1, 64).notes(nullptr, "none: the timer is off", nullptr), -1, kLocal,                                 \
    "the real-time signal the yield timer takes (wait/yield_timer.h; it must have no handler)")                      \
  X(int, node_sync, "ARMCI_NODE_SYNC",                                                                               \
    auto_flag().notes(nullptr, "barriers and gops through MPI", "one-node barriers and gops in shared memory"), -1,  \
    kAgree, "one-node barriers and gops meet in shared memory (shm/node_sync.h)")                                   \
  X(int, acc_held_copy, "ARMCI_ACC_HELD_COPY",                                                                       \
    auto_flag().notes(nullptr, "blocking accumulates to other nodes wait for local completion",                      \
                      "blocking accumulates to other nodes go from held copies"),                                    \
    -1, kLocal, "small blocking accumulates to other nodes go from a held copy (completion/ordering.h)")             \
  X(int, rma_by_accumulate, "ARMCI_RMA_BY_ACCUMULATE",                                                              \
    auto_flag().notes(nullptr, "puts and gets to other nodes are MPI_Put and MPI_Get",                               \
                      "puts and gets to other nodes go as accumulates"),                                             \
    -1, kLocal, "puts and gets to other nodes as MPI_Accumulate(MPI_REPLACE) / MPI_Get_accumulate(MPI_NO_OP)")      \
  X(bool, spanning_pool, "ARMCI_SPANNING_POOL", flag(), true, kAgree,                                                \
    "small regions of groups spanning nodes come from pooled MPI windows, not a window each (shm/segment_cache.h)")      \
  X(int, pool_mb, "ARMCI_POOL_MB", range(1, 1 << 24), 1024, kAgree,                                                  \
    "the pool's capacity per member of a member set, MiB: segments double up to it (shm/segment_cache.h)")               \
  X(int, pool_block_kb, "ARMCI_POOL_BLOCK_KB", range(0, 1 << 30).notes(nullptr, "up to ARMCI_POOL_MB", nullptr), 0,  \
    kAgree, "the largest slice served from the pool, KiB (larger ones get a segment and window of their own)")       \
  X(int, segment_cache_mb, "ARMCI_SEGMENT_CACHE_MB", range(0, 1 << 20), 256, kAgree,                                 \
    "freed segments kept per member set for reuse, MiB (0: none; shm/segment_cache.h)")                                  \
  X(int, finalize_settle_ms, "ARMCI_FINALIZE_SETTLE_MS", range(0, 10000), 20, kLocal,                                \
    "pause after the last barrier of ARMCI_Finalize, ms")                                                            \
  X(bool, check_collectives, "ARMCI_CHECK_COLLECTIVES", flag(), true, kAgree,                                        \
    "collectives agree on call and object first (collective_check.h)")                                               \
  X(int, collective_timeout_s, "ARMCI_COLLECTIVE_TIMEOUT", range(0, 1 << 20), 0, kAgree,                             \
    "give up on a collective check after s seconds (0: never)")                                                      \
  X(int, watchdog_s, "ARMCI_WATCHDOG_S", range(0, 1 << 24).notes(nullptr, "off", "watchdog on"), 0, kLocal,          \
    "end the process when one ARMCI call has blocked this many seconds (checks/watchdog.h)")                          \
  X(std::string, default_shmmax, "ARMCI_DEFAULT_SHMMAX", text(), "", kLocal,                                         \
    "accepted and ignored (old ARMCI's and ComEx's shared-memory cap): ARMCI_VERBOSE says so when set")

// The settings ARMCI_Init resolves into Runtime::resolved (base/state.h): "auto" made concrete, or a setting
// it had to turn off.  R(field, "who resolves it"); each field is a row above and keeps its type there.
#define ARMCIX_RESOLVED_SETTINGS(R)                                                                     \
  R(wait_backoff_us, "runtime/resolve.cc, resolve_wait_backoff: the job's maximum")                     \
  R(wait_timer_slack_ns, "resolve_timer_slack: 0 = the thread's own")                                   \
  R(mpi_yield, "resolve_mpi_yield: 0 or 1")                                                             \
  R(mpi_yield_timer_us, "resolve_yield_timer: 0 = off")                                                 \
  R(mpi_yield_timer_signal, "resolve_yield_timer: the timer's signal, 0 = none")                        \
  R(node_sync, "resolve_node_sync: 0 or 1")                                                             \
  R(acc_held_copy, "resolve_acc_held_copy: 0 or 1")                                                     \
  R(rma_by_accumulate, "resolve_rma_by_accumulate: 0 or 1")                                             \
  R(progress_ranks_usleep, "progress/progress_ranks.cc: a progress rank's sleep between polls")         \
  R(progress_ranks_handoff_us, "progress_ranks.cc: 0 where the progress ranks have cores of their own") \
  R(progress_thread, "as set (progress/thread.cc reads it): ARMCI_Init fails without MPI_THREAD_MULTIPLE")

// What the user set (or the defaults), -1 = auto; never changed after parsing.
struct Config {
#define ARMCIX_CONFIG_FIELD(type, field, name, kind, by_default, agree, doc) type field = by_default;
  ARMCIX_SETTINGS(ARMCIX_CONFIG_FIELD)
#undef ARMCIX_CONFIG_FIELD

  // ARMCI_PROGRESS_THREAD alone, for the thread level MPI must be started with (before the rest can be
  // read: errors in it are reported by from_environment once MPI is up).  Malformed values read as false.
  static bool progress_thread_requested();
  // ARMCI_PROGRESS_RANKS as armci-x's MPI_Init reads it (progress/progress_roles.h); malformed values read as 0.
  static int progress_ranks_requested();
  // Reads the environment.  Bad values are reported through fail() naming the variable.
  static Config from_environment();
  // "NAME=value" lines for the verbose banner, in the table's order.
  std::vector<std::string> describe() const;
  // The settings every process must share (kAgree), by variable name (with the meaning of the numbers
  // where they are not the value itself), each as a number; initialize() compares them across processes.
  std::vector<std::pair<std::string, long>> must_agree() const;
  // The same numbers without the names, in the same order: what the census's fingerprint hashes on every
  // ARMCI_Init (the names, with their strings, are built only when two processes differ).
  std::vector<long> must_agree_values() const;
};

// One row of the table as text, for tests and documentation checks.
struct SettingInfo {
  const char* name;
  std::string default_shown;  // the default as the banner and doc/user-guide.md show it
  bool must_agree;
  const char* doc;
};
std::vector<SettingInfo> settings_table();

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
