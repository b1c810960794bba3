// Built-in profiler (ARMCI_PROFILE=1): per operation kind, the number of calls, bytes moved, time spent,
// and a power-of-two histogram of message sizes -- the profile the petascale ARMCI work tuned with.
// Reported at ARMCI_Finalize per rank and aggregated, on stdout of rank 0 and optionally in a
// machine-readable file (ARMCI_PROFILE_FILE; format in doc/user-guide.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include "checks/watchdog.h"
#include "wait/call_stats.h"

namespace armcix {

enum class ProfKind : int {
  Put,
  Get,
  Acc,
  PutS,
  GetS,
  AccS,
  PutV,
  GetV,
  AccV,
  NbPut,
  NbGet,
  NbAcc,
  NbPutS,
  NbGetS,
  NbAccS,
  NbPutV,
  NbGetV,
  NbAccV,
  PutValue,
  GetValue,
  Rmw,
  Fence,
  AllFence,
  Barrier,
  Wait,
  Test,
  WaitProc,
  WaitAll,
  Lock,
  Unlock,
  Malloc,
  Free,
  Count
};

const char* prof_kind_name(ProfKind k);
bool prof_is_sync(ProfKind k);  // fences, waits, barriers and locks: the "time waiting" share

extern bool g_profiling;  // ARMCI_PROFILE, read once at initialisation

// One call of entry point `kind` (a ProfKind) that moved `bytes` and took `seconds` (ScopeTimer::Record; the
// pauses are counted in the table of waits, wait/call_stats.h).
void prof_record(int kind, double seconds, uint64_t pauses, uint64_t bytes);

// Around an entry point: times it when profiling is on (wait/call_stats.h, ScopeTimer), and tells the
// watchdog (ARMCI_WATCHDOG_S, checks/watchdog.h) when it is on; one predictable branch each when they are off.
class ProfScope {
 public:
  ProfScope(ProfKind k, std::size_t bytes) : timer_(g_profiling, prof_record, static_cast<int>(k), bytes) {
    if (g_watchdog_on) watchdog_enter(prof_kind_name(k));
  }
  ~ProfScope() {
    if (g_watchdog_on) watchdog_leave();
  }
  ProfScope(const ProfScope&) = delete;
  ProfScope& operator=(const ProfScope&) = delete;

 private:
  ScopeTimer timer_;
};

// Paths taken: how many transfers each path or engine moved, so that the report says why one was slow.  The
// transfer layer counts them (transfer/paths.h, profile_path: one predictable branch when profiling is off)
// under the names of transfer/engine_choice.h's engine_name, indexed by the enumerator: contiguous
// operations by their choose_contig path (every put/get/acc that moves bytes: also the value calls, both of a
// Put_flag's, a strided call the CONTIGUOUS engine takes and each segment of IOV CONSRV), strided calls by
// engine, I/O-vector descriptors by engine.
enum class PathFamily : int { Contig, Strided, Iov, Count };
constexpr int kPathsPerFamily = 8;  // enumerators of one family at most (checked in transfer/paths.h)
// One transfer of `family` took path `path` (0 <= path < kPathsPerFamily), called `name`; only while
// g_profiling.
void prof_count_path(PathFamily family, int path, const char* name);

// Bytes of a strided transfer / an I/O vector, for the profile (0 on malformed input: validation
// reports that separately).  Counted only while profiling: otherwise 0, for one load of the flag (the
// entry points pass them to ProfScope on every call).
std::size_t count_strided_bytes(const int* count, int levels);
std::size_t count_iov_bytes(const void* iov, int iov_len);
inline std::size_t strided_bytes(const int* count, int levels) {
  return g_profiling ? count_strided_bytes(count, levels) : 0;
}
inline std::size_t iov_bytes(const void* iov, int iov_len) {
  return g_profiling ? count_iov_bytes(iov, iov_len) : 0;
}

// profiler_initialize() / profiler_finalize() (gathers and prints the report, collective): runtime/modules.h.

}  // namespace armcix
