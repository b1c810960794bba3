// Statistics of the waits outside ARMCI's one-sided calls, for the profiler (ARMCI_PROFILE=1).
//
// ARMCI_PROFILE's table times ARMCI's entry points.  On an oversubscribed machine most of a Global Arrays
// program's wall time can be elsewhere: in the armci_msg collectives, and in the MPI calls that Global
// Arrays, ScaLAPACK/BLACS and the application make themselves, which pass through armci-x's MPI wrappers
// (mpiwrap/, libarmcix-mpiwrap).  While profiling is on, those wrappers and armci-x's own waits (wait_for,
// wait_all_for: barriers, gops, broadcasts, the agreements of ARMCI_Malloc) count here, per kind and name:
// calls, seconds inside (inclusive: a wrapped MPI_Allreduce that armci-x makes inside ARMCI_Malloc counts
// in both tables), the pauses taken between polls (the back-off sleeps or yields), and bytes where the call
// has one buffer size.  The profiler gathers and prints them at ARMCI_Finalize (profile/profiler.cc).
// Off, every timed call costs one load of a flag.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace armcix {

enum class CallKind : int {
  Mpi = 0,  // an MPI function armci-x's wrappers complete (name: the MPI function)
  Wait = 1  // an armci-x wait for other processes (name: the ARMCI or armci_msg call waiting)
};
const char* call_kind_name(CallKind k);

extern std::atomic<bool> g_call_stats_on;

// The slot of (kind, name); registers it on first use.  -1 when all kMaxCallSlots are taken (not counted).
constexpr int kMaxCallSlots = 128;
int call_stats_slot(CallKind kind, const char* name);
// The slot of (kind, name) while counting is on, else -1 (for names known only at run time: wait_for).
int call_stats_slot_if_on(CallKind kind, const char* name);
void call_stats_add(int slot, double seconds, uint64_t pauses, uint64_t bytes);

// Pauses between polls taken by this thread so far (the yielding MPI wrappers and wait_for count them).
uint64_t call_stats_pauses();
void call_stats_count_pause();

struct CallStat {
  CallKind kind;
  std::string name;
  uint64_t calls;
  uint64_t pauses;
  uint64_t bytes;
  double seconds;
};
// Slots with at least one call, in registration order.
std::vector<CallStat> call_stats_snapshot();
// Switches counting on or off; on also zeroes the counters.  The profiler's initialize / finalize.
void call_stats_enable(bool on);

double call_stats_now();

// Times the enclosing scope: the profiler's one timer, for this file's table of MPI calls and waits and for
// the table of ARMCI entry points (profile/profiler.h, ProfScope).  When `on` at the start, the end of the
// scope hands `record` the slot, the seconds elapsed, the pauses between polls this thread took meanwhile
// (call_stats_count_pause) and the bytes.  Off, it costs the test of `on`.
class ScopeTimer {
 public:
  using Record = void (*)(int slot, double seconds, uint64_t pauses, uint64_t bytes);
  ScopeTimer(bool on, Record record, int slot, std::size_t bytes)
      : record_(record), slot_(slot), bytes_(bytes), on_(on) {
    if (on_) {
      pauses_ = call_stats_pauses();
      start_ = call_stats_now();
    }
  }
  // Into call_stats_add's `slot` when counting is on (a negative slot: not at all).
  explicit ScopeTimer(int slot, std::size_t bytes = 0)
      : ScopeTimer(slot >= 0 && g_call_stats_on.load(std::memory_order_relaxed), call_stats_add, slot, bytes) {}
  ~ScopeTimer() {
    if (on_) record_(slot_, call_stats_now() - start_, call_stats_pauses() - pauses_, bytes_);
  }
  ScopeTimer(const ScopeTimer&) = delete;
  ScopeTimer& operator=(const ScopeTimer&) = delete;

 private:
  Record record_;
  int slot_;
  std::size_t bytes_;
  bool on_;
  uint64_t pauses_ = 0;
  double start_ = 0;
};

}  // namespace armcix

// Times the rest of the enclosing scope under (kind, literal name); the slot is looked up once per site.
#define ARMCIX_TIME_CALL(kind, name, bytes)                                       \
  static const int armcix_call_slot_ = ::armcix::call_stats_slot((kind), (name)); \
  ::armcix::ScopeTimer armcix_call_timer_(armcix_call_slot_, static_cast<std::size_t>(bytes))
