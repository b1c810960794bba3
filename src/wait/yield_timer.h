// The yield timer (ARMCI_MPI_YIELD_TIMER_US, doc/user-guide.md "Oversubscribed and shared machines").
//
// Some blocking MPI calls have no non-blocking form that the yielding waits (wait/mpi_yield.h) could
// poll: communicator creation (MPI_Comm_split_type, MPI_Comm_create_group), window creation and freeing,
// MPI_Finalize.  MPICH busy-polls the collectives inside them, and on a machine with more ranks than
// cores a spinning rank keeps its core until the scheduler's tick takes it away, while the rank it waits
// for sits in the run queue.  Nothing in MPICH's loop yields, so the timer makes it: while such a call
// runs, a per-thread POSIX timer sends the calling thread a real-time signal every period, whose handler
// calls sched_yield, and the peer gets the core within the period rather than the tick (doc/performance.md,
// "The values of the defaults").  The interval grows 1.5x after each signal of one call (see
// ThreadTimer in yield_timer.cc: a fixed period can keep an interrupted system call from ever finishing).
//
// The timer is local: it changes no MPI call's form, so processes need not agree on it (unlike
// ARMCI_MPI_YIELD).  The handler runs only while a timed call is in progress (armed by YieldTimerScope on
// entry, disarmed on exit), is installed with SA_RESTART, keeps errno, and takes a real-time signal that
// has no handler yet (or the one ARMCI_MPI_YIELD_TIMER_SIGNAL names, if it has none); if none is free, or the
// timer cannot be created, the timer stays off.  Before each timed call it checks that its handler is still
// the signal's: a handler the program installs later takes the signal over, and the timer then stops using
// it for good (saying so under ARMCI_VERBOSE) rather than send the program's handler its signals.  At most
// one signal reaches such a handler, from a call already timed when it was installed (only our handler
// re-arms the timer).  After MPI_Finalize the signal gets its default action back.  It does not yield
// while other programs keep the machine busy (set_yield_timer_ours): the yield would go to them.
#pragma once

#include <cstdint>

namespace armcix {

// The period in microseconds for calls timed from now on; 0 switches the timer off.  Installs the signal
// handler on the first non-zero period.  Returns false (and leaves the timer off) if no real-time signal
// is free or the handler cannot be installed.
bool set_yield_timer_us(int period_us);
int yield_timer_us();

// The signal the handler is to be installed on: 0 searches for a free real-time signal (the default), else
// this one, which must have no handler then.  Takes effect before the first non-zero period only; false if
// the handler is already on another signal.
bool set_yield_timer_signal(int signo);
// The signal our handler is on, 0 if none (not installed, none free, given back, or taken over).
int yield_timer_signal();
// True once a foreign handler was found on the signal (the timer is off from then on).
bool yield_timer_displaced();
// Whether that is said on standard error (ARMCI_VERBOSE).
void set_yield_timer_verbose(bool on);
// Turns the timer off and gives the signal its default action back, unless a foreign handler holds it.
// For the end of MPI_Finalize: no timed call comes after it.
void yield_timer_release();

// How many of our processes may be runnable on this machine (its ranks): the handler yields only while
// /proc/loadavg shows no more runnable tasks than these and one more (topo/machine.h, foreign_load).
// Until called, the handler always yields.
void set_yield_timer_ours(long ours_runnable);

// Signals delivered so far to the threads of this process, and how many of them did not yield because
// other programs loaded the machine (tests, profiling).
uint64_t yield_timer_signals();
uint64_t yield_timer_skipped();

// Arms the calling thread's timer for its lifetime, if the timer is on; nests (only the outermost arms).
class YieldTimerScope {
 public:
  YieldTimerScope();
  ~YieldTimerScope();
  YieldTimerScope(const YieldTimerScope&) = delete;
  YieldTimerScope& operator=(const YieldTimerScope&) = delete;

 private:
  bool counted_ = false;  // entered the thread's nesting count
  bool armed_ = false;    // the outermost scope, which armed the timer
};

// Runs `call` (a blocking PMPI call) under a YieldTimerScope and returns what it returns.
template <typename Call>
auto with_yield_timer(Call&& call) -> decltype(call()) {
  YieldTimerScope scope;
  return call();
}

}  // namespace armcix
