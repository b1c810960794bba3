// Opt-in watchdog (ARMCI_WATCHDOG_S=N): if one ARMCI call has not returned after N seconds, the process
// says which call and ends itself, so that the launcher ends the job.  For the failures MPI does not
// report in bounded time: a host whose link goes silent leaves MPICH + UCX over TCP waiting for minutes
// (TCP retransmission), and a dead peer that the launcher does not notice leaves barriers and flushes
// waiting forever.  Off by default: a barrier may legitimately wait for a rank that computes for hours.
#pragma once

namespace armcix {

extern bool g_watchdog_on;  // ARMCI_WATCHDOG_S > 0, read once at initialisation

// Around a blocking entry point (ProfScope calls them): the outermost call of the process is timed.
void watchdog_enter(const char* call);  // `call`: a string that lives forever
void watchdog_leave();

void watchdog_start();  // initialize(): starts the thread when ARMCI_WATCHDOG_S > 0
void watchdog_stop();   // finalize()

}  // namespace armcix
