// Asynchronous progress (ARMCI_PROGRESS_THREAD=1): a thread that enters MPI's progress engine every
// ARMCI_PROGRESS_USLEEP microseconds, so that RMA aimed at this process (which MPICH services in the
// target's progress engine for MPI_Win_create windows) moves while the application computes.
// Needs MPI_THREAD_MULTIPLE; without it the thread is not started and the verbose banner says so.
#pragma once

namespace armcix {

void progress_start();
void progress_stop();
bool progress_running();

}  // namespace armcix
