// Yielding MPI waits (ARMCI_MPI_YIELD, doc/user-guide.md "Oversubscribed and shared machines").
//
// MPICH (ch4) busy-polls inside every blocking MPI call and has no setting that makes it yield.  On
// a machine with more ranks than cores a rank that waits in MPI_Bcast, MPI_Recv or the collective inside
// MPI_Comm_split then spins for its whole time slice while the rank it waits for sits in the run queue
// (NWChem water TCE at 4 ranks on 2 cores: most of the wall time is in MPI calls that Global Arrays and
// ScaLAPACK/BLACS make themselves; tools/nwchem/RESULTS.md).  The MPI functions armci-x defines over the
// profiling interface (mpiwrap/, libarmcix-mpiwrap) therefore, while the mode is on, replace a blocking call by
// its non-blocking form completed with MPI_Test and a pause between polls (the back-off of our own waits:
// ARMCI_WAIT_BACKOFF_US microseconds of sleep, or sched_yield when that is 0), and put a non-blocking
// barrier with the same back-off in front of collective calls that have no non-blocking form
// (MPI_Comm_split, MPI_Comm_dup, window creation), so that their members arrive together and MPI's own
// busy-polled part is short.
//
// MPI does not match a non-blocking collective with a blocking one, so the mode must be the same on every
// process at every moment: initialize() decides it once for the whole job (runtime/resolve.cc,
// resolve_mpi_yield: from values every rank agrees on) and switches it on at the same point of ARMCI_Init
// everywhere, and finalize() switches it off at the same point of the last ARMCI_Finalize.  Before and
// after, every wrapper passes its call through unchanged.  It stays off when ARMCI runs on a communicator
// smaller than MPI_COMM_WORLD, whose other processes never see ARMCI_Init.
#pragma once

#include <atomic>
#include <cstdint>

namespace armcix {

// Switches the mode on or off; `pause_us` > 0 sleeps that long between polls, 0 yields the core
// (sched_yield).  Called by initialize() and finalize() only, on every process at the same point.
void set_mpi_yield(bool on, int pause_us);
bool mpi_yield_on();

// How many blocking MPI calls this process has completed through the yielding path (tests, profiling).
uint64_t mpi_yield_count();

// For the wrappers (mpiwrap/, libarmcix-mpiwrap), once per call: whether the mode is on (relaxed: it changes only
// at points where every process is in ARMCI_Init or ARMCI_Finalize), the pause between polls, and the
// count of calls completed through the yielding path.
namespace detail {
extern std::atomic<bool> g_yield;
extern std::atomic<int> g_pause_us;
extern std::atomic<uint64_t> g_yield_count;
extern std::atomic<bool> g_comm_templates;
}  // namespace detail
inline bool mpi_yield_on_relaxed() {
  return detail::g_yield.load(std::memory_order_relaxed);
}
inline int mpi_yield_pause_us() {
  return detail::g_pause_us.load(std::memory_order_relaxed);
}
inline void count_yielding_call() {
  detail::g_yield_count.fetch_add(1, std::memory_order_relaxed);
}
// Whether split and create may use communicator templates (the mode is on and MPI runs below
// MPI_THREAD_MULTIPLE: mpiwrap/, libarmcix-mpiwrap).
inline bool mpi_yield_comm_templates() {
  return detail::g_comm_templates.load(std::memory_order_relaxed);
}
// Called when the mode goes off (the wrappers free their communicator templates there); one hook.
void set_mpi_yield_off_hook(void (*hook)());

}  // namespace armcix
