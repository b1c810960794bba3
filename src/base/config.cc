#include "base/config.h"

#include <strings.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "base/error.h"
#include "base/window.h"

namespace armcix {

bool parse_bool(const char* text, bool* out) {
  static const char* const yes[] = {"1", "y", "yes", "true", "on"};
  static const char* const no[] = {"0", "n", "no", "false", "off"};
  for (const char* w : yes)
    if (strcasecmp(text, w) == 0) return *out = true, true;
  for (const char* w : no)
    if (strcasecmp(text, w) == 0) return *out = false, true;
  return false;
}

bool parse_int(const char* text, long min, long max, long* out) {
  if (!text || !*text) return false;
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (errno || *end != '\0' || v < min || v > max) return false;
  *out = v;
  return true;
}

bool parse_size(const char* text, std::size_t* out) {
  if (!text || !*text || *text == '-') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (errno || end == text) return false;
  unsigned long long mult = 1;
  if (*end) {
    switch (*end) {
      case 'k':
      case 'K':
        mult = 1ull << 10;
        break;
      case 'm':
      case 'M':
        mult = 1ull << 20;
        break;
      case 'g':
      case 'G':
        mult = 1ull << 30;
        break;
      default:
        return false;
    }
    ++end;
    if (*end == 'i' || *end == 'I') ++end;
    if (*end == 'b' || *end == 'B') ++end;
    if (*end) return false;
  }
  if (v > (~0ull) / mult) return false;
  *out = static_cast<std::size_t>(v * mult);
  return true;
}

namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}

void read_bool(const char* name, bool* field) {
  if (const char* v = env(name))
    if (!parse_bool(v, field)) fail("ARMCI_Init", "environment variable %s='%s' is not a boolean (0/1)", name, v);
}

// auto|1|0 (and the other boolean spellings): -1 for auto.
void read_auto_bool(const char* name, int* field) {
  if (const char* v = env(name)) {
    bool on = false;
    if (strcasecmp(v, "auto") == 0)
      *field = -1;
    else if (parse_bool(v, &on))
      *field = on ? 1 : 0;
    else
      fail("ARMCI_Init", "environment variable %s='%s' is not auto, 1 or 0", name, v);
  }
}

// auto or an integer in [min, max]: -1 for auto.
void read_auto_int(const char* name, long min, long max, int* field) {
  if (const char* v = env(name)) {
    long x;
    if (strcasecmp(v, "auto") == 0)
      *field = -1;
    else if (parse_int(v, min, max, &x))
      *field = static_cast<int>(x);
    else
      fail("ARMCI_Init", "environment variable %s='%s' is not auto or an integer in [%ld, %ld]", name, v, min, max);
  }
}

void read_int(const char* name, long min, long max, int* field) {
  if (const char* v = env(name)) {
    long x;
    if (!parse_int(v, min, max, &x))
      fail("ARMCI_Init", "environment variable %s='%s' is not an integer in [%ld, %ld]", name, v, min, max);
    *field = static_cast<int>(x);
  }
}

template <typename E, std::size_t N>
void read_enum(const char* name, const char* const (&names)[N], const E (&values)[N], E* field) {
  const char* v = env(name);
  if (!v) return;
  for (std::size_t i = 0; i < N; ++i)
    if (strcasecmp(v, names[i]) == 0) return void(*field = values[i]);
  std::string allowed;
  for (std::size_t i = 0; i < N; ++i) allowed += std::string(i ? ", " : "") + names[i];
  fail("ARMCI_Init", "environment variable %s='%s' is not one of %s", name, v, allowed.c_str());
}

const char* const kStridedNames[] = {"AUTO", "DIRECT", "IOV", "PACK"};
const StridedMethod kStridedValues[] = {StridedMethod::Auto, StridedMethod::Direct, StridedMethod::Iov,
                                        StridedMethod::Pack};
const char* const kIovNames[] = {"AUTO", "CONSRV", "BATCHED", "DIRECT"};
const IovMethod kIovValues[] = {IovMethod::Auto, IovMethod::Consrv, IovMethod::Batched, IovMethod::Direct};
const char* const kMutexNames[] = {"MCS", "QUEUE"};
const MutexMethod kMutexValues[] = {MutexMethod::Mcs, MutexMethod::Queue};
const char* const kShrNames[] = {"NOGUARD", "COPY"};
const ShrBufMethod kShrValues[] = {ShrBufMethod::NoGuard, ShrBufMethod::Copy};

template <typename E, std::size_t N>
const char* name_of(const char* const (&names)[N], const E (&values)[N], E v) {
  for (std::size_t i = 0; i < N; ++i)
    if (values[i] == v) return names[i];
  return "?";
}

}  // namespace

const char* name_of(StridedMethod m) {
  return name_of(kStridedNames, kStridedValues, m);
}
const char* name_of(IovMethod m) {
  return name_of(kIovNames, kIovValues, m);
}
const char* name_of(ShrBufMethod m) {
  return name_of(kShrNames, kShrValues, m);
}
const char* name_of(MutexMethod m) {
  return name_of(kMutexNames, kMutexValues, m);
}

int Config::progress_ranks_requested() {
  long k = 0;
  if (const char* v = env("ARMCI_PROGRESS_RANKS"))
    if (!parse_int(v, 0, 1 << 20, &k)) k = 0;
  return static_cast<int>(k);
}

bool Config::progress_thread_requested() {
  bool on = Config().progress_thread;
  if (const char* v = env("ARMCI_PROGRESS_THREAD")) parse_bool(v, &on);
  return on;
}

Config Config::from_environment() {
  Config c;
  read_bool("ARMCI_VERBOSE", &c.verbose);
  // Defaults per MPI (doc/user-guide.md, "Known MPI problems"): MPICH 4.0.2 needs MPI_Win_create windows
  // for correct atomics (issue 6110); on Open MPI 4.1 MPI_Win_allocate puts node peers' memory in one
  // segment that osc/rdma reaches directly, and window creation needs the node gate (issue 7393).
  const bool open_mpi = mpi_is_open_mpi();
  bool use_allocate = open_mpi;
  read_bool("ARMCI_USE_WIN_ALLOCATE", &use_allocate);
  c.window_kind = use_allocate ? WindowKind::Allocate : WindowKind::Create;
  c.window_gate = open_mpi;
  read_bool("ARMCI_WINDOW_GATE", &c.window_gate);
  read_enum("ARMCI_STRIDED_METHOD", kStridedNames, kStridedValues, &c.strided_method);
  read_enum("ARMCI_IOV_METHOD", kIovNames, kIovValues, &c.iov_method);
  read_int("ARMCI_IOV_BATCHED_LIMIT", 0, 1 << 30, &c.iov_batched_limit);
  if (const char* v = env("ARMCI_PACK_CHUNK"); v && std::string(v) != "auto") {
    if (!parse_size(v, &c.pack_chunk_bytes) || c.pack_chunk_bytes < 64)
      fail("ARMCI_Init", "environment variable ARMCI_PACK_CHUNK='%s' is not 'auto' or a size >= 64 bytes", v);
  }
  read_enum("ARMCI_SHR_BUF_METHOD", kShrNames, kShrValues, &c.shr_buf_method);
  read_bool("ARMCI_NONCOLLECTIVE_GROUPS", &c.noncollective_groups);
  read_enum("ARMCI_MUTEX_METHOD", kMutexNames, kMutexValues, &c.mutex_method);
  read_bool("ARMCI_SHM", &c.shm);
  read_int("ARMCI_NODE_SIZE", 0, 1 << 20, &c.node_size);
  read_int("ARMCI_MAX_OUTSTANDING", 1, 1 << 24, &c.max_outstanding);
  read_int("ARMCI_MAX_OUTSTANDING_PER_TARGET", 1, 1 << 24, &c.max_outstanding_per_target);
  read_bool("ARMCI_PROGRESS_THREAD", &c.progress_thread);
  read_int("ARMCI_PROGRESS_USLEEP", 0, 1000000, &c.progress_usleep);
  read_int("ARMCI_PROGRESS_RANKS", 0, 1 << 20, &c.progress_ranks);
  read_int("ARMCI_PROGRESS_RANKS_USLEEP", 0, 1000000, &c.progress_ranks_usleep);
  read_int("ARMCI_PROGRESS_RANKS_AWAKE_US", 0, 1000000, &c.progress_ranks_awake_us);
  read_int("ARMCI_PROGRESS_RANKS_MEETING_S", 1, 86400, &c.progress_ranks_meeting_s);
  read_int("ARMCI_PROGRESS_RANKS_HANDOFF_US", 0, 1000000, &c.progress_ranks_handoff_us);
  read_bool("ARMCI_PROFILE", &c.profile);
  if (const char* v = env("ARMCI_PROFILE_FILE")) c.profile_file = v;
  read_int("ARMCI_WAIT_BACKOFF_US", 0, 100000, &c.wait_backoff_us);
  read_auto_bool("ARMCI_MPI_YIELD", &c.mpi_yield);
  read_auto_int("ARMCI_MPI_YIELD_TIMER_US", 0, 1000000, &c.mpi_yield_timer_us);
  read_auto_int("ARMCI_WAIT_TIMER_SLACK_NS", 0, 100000000, &c.wait_timer_slack_ns);
  read_auto_bool("ARMCI_NODE_SYNC", &c.node_sync);
  read_auto_bool("ARMCI_ACC_HELD_COPY", &c.acc_held_copy);
  read_int("ARMCI_FINALIZE_SETTLE_MS", 0, 10000, &c.finalize_settle_ms);
  read_bool("ARMCI_CHECK_COLLECTIVES", &c.check_collectives);
  read_int("ARMCI_COLLECTIVE_TIMEOUT", 0, 1 << 20, &c.collective_timeout_s);
  read_int("ARMCI_WATCHDOG_S", 0, 1 << 24, &c.watchdog_s);
  return c;
}

std::vector<std::string> Config::describe() const {
  auto b = [](bool x) { return std::string(x ? "1" : "0"); };
  return {
      "ARMCI_USE_WIN_ALLOCATE=" + b(window_kind == WindowKind::Allocate) +
          (window_kind == WindowKind::Allocate ? "  (MPI_Win_allocate)" : "  (MPI_Alloc_mem + MPI_Win_create)"),
      "ARMCI_WINDOW_GATE=" + b(window_gate),
      std::string("ARMCI_STRIDED_METHOD=") + name_of(strided_method),
      std::string("ARMCI_IOV_METHOD=") + name_of(iov_method),
      "ARMCI_IOV_BATCHED_LIMIT=" + std::to_string(iov_batched_limit),
      "ARMCI_PACK_CHUNK=" + (pack_chunk_bytes ? std::to_string(pack_chunk_bytes)
                                              : std::string("auto  (64K within a node, 32K to other nodes)")),
      std::string("ARMCI_SHR_BUF_METHOD=") + name_of(shr_buf_method),
      "ARMCI_NONCOLLECTIVE_GROUPS=" + b(noncollective_groups),
      std::string("ARMCI_MUTEX_METHOD=") + name_of(mutex_method),
      "ARMCI_SHM=" + b(shm),
      "ARMCI_NODE_SIZE=" + std::to_string(node_size) + (node_size ? "  (simulated nodes)" : "  (real nodes)"),
      "ARMCI_MAX_OUTSTANDING=" + std::to_string(max_outstanding),
      "ARMCI_MAX_OUTSTANDING_PER_TARGET=" + std::to_string(max_outstanding_per_target),
      "ARMCI_PROGRESS_THREAD=" + b(progress_thread),
      "ARMCI_PROGRESS_USLEEP=" + std::to_string(progress_usleep),
      "ARMCI_PROGRESS_RANKS=" + std::to_string(progress_ranks) +
          (progress_ranks ? "  (per node, serving the node's ranks)" : "  (none)"),
      "ARMCI_PROGRESS_RANKS_USLEEP=" + std::to_string(progress_ranks_usleep),
      "ARMCI_PROGRESS_RANKS_AWAKE_US=" + std::to_string(progress_ranks_awake_us),
      "ARMCI_PROGRESS_RANKS_MEETING_S=" + std::to_string(progress_ranks_meeting_s),
      "ARMCI_PROGRESS_RANKS_HANDOFF_US=" + std::to_string(progress_ranks_handoff_us),
      "ARMCI_PROFILE=" + b(profile),
      "ARMCI_PROFILE_FILE=" + profile_file,
      "ARMCI_WAIT_BACKOFF_US=" + std::to_string(wait_backoff_us),
      std::string("ARMCI_MPI_YIELD=") + (mpi_yield < 0    ? "auto"
                                         : mpi_yield == 0 ? "0  (blocking MPI calls are MPI's own)"
                                                          : "1  (blocking MPI calls poll with back-off)"),
      "ARMCI_WAIT_TIMER_SLACK_NS=" + (wait_timer_slack_ns < 0    ? std::string("auto")
                                      : wait_timer_slack_ns == 0 ? std::string("0  (the thread's own)")
                                                                 : std::to_string(wait_timer_slack_ns)),
      "ARMCI_MPI_YIELD_TIMER_US=" +
          (mpi_yield_timer_us < 0    ? std::string("auto")
           : mpi_yield_timer_us == 0 ? std::string("0  (blocking MPI calls keep the core)")
                                     : std::to_string(mpi_yield_timer_us) + "  (yield timer in blocking MPI calls)"),
      std::string("ARMCI_NODE_SYNC=") + (node_sync < 0    ? "auto"
                                         : node_sync == 0 ? "0  (barriers and gops through MPI)"
                                                          : "1  (one-node barriers and gops in shared memory)"),
      std::string("ARMCI_ACC_HELD_COPY=") + (acc_held_copy < 0 ? "auto  (on except on Open MPI)"
                                             : acc_held_copy == 0
                                                 ? "0  (blocking accumulates to other nodes wait for local completion)"
                                                 : "1  (blocking accumulates to other nodes go from held copies)"),
      "ARMCI_FINALIZE_SETTLE_MS=" + std::to_string(finalize_settle_ms),
      "ARMCI_CHECK_COLLECTIVES=" + b(check_collectives),
      "ARMCI_COLLECTIVE_TIMEOUT=" + std::to_string(collective_timeout_s),
      "ARMCI_WATCHDOG_S=" + std::to_string(watchdog_s) + (watchdog_s ? "  (watchdog on)" : "  (off)"),
  };
}

std::vector<std::pair<const char*, long>> Config::must_agree() const {
  // Each of these selects which collective MPI calls an ARMCI collective makes (window kind, shared or
  // not, node split, group creation, mutex algorithm, the agreement itself): different values on two
  // processes leave them in different collectives, which hangs.
  return {
      {"ARMCI_SHM", shm ? 1 : 0},
      {"ARMCI_NODE_SIZE", node_size},
      {"ARMCI_USE_WIN_ALLOCATE", window_kind == WindowKind::Allocate ? 1 : 0},
      {"ARMCI_NONCOLLECTIVE_GROUPS", noncollective_groups ? 1 : 0},
      {"ARMCI_MUTEX_METHOD (0 = MCS, 1 = QUEUE)", static_cast<long>(mutex_method)},
      {"ARMCI_CHECK_COLLECTIVES", check_collectives ? 1 : 0},
      {"ARMCI_WINDOW_GATE", window_gate ? 1 : 0},
      {"ARMCI_PROGRESS_RANKS", progress_ranks},
      // Selects blocking or non-blocking forms of the program's own MPI collectives, which do not match.
      {"ARMCI_MPI_YIELD (-1 = auto)", mpi_yield},
      // Selects a shared-memory or an MPI barrier: a rank in one never meets a rank in the other.
      {"ARMCI_NODE_SYNC (-1 = auto)", node_sync},
      // With ARMCI_NODE_SYNC on, a timeout keeps the agreements on MPI's path (collective_check.cc).
      {"ARMCI_COLLECTIVE_TIMEOUT", collective_timeout_s},
  };
}

}  // namespace armcix
