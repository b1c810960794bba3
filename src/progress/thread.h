// Asynchronous progress (ARMCI_PROGRESS_THREAD=1): a thread that enters MPI's progress engine every
// ARMCI_PROGRESS_USLEEP microseconds, so that RMA aimed at this process (which MPICH services in the
// target's progress engine for MPI_Win_create windows) moves while the application computes.
// Needs MPI_THREAD_MULTIPLE, which ARMCI_Init (when it starts MPI) and armci-x's MPI_Init and
// MPI_Init_thread wrappers (mpiwrap/) ask for when the variable is set; without it ARMCI_Init fails, naming
// the cause (runtime/runtime.cc, require_mpi_features).
#pragma once

namespace armcix {

// The last / first entries of the module list (runtime/modules.cc): started once everything else is up,
// stopped before anything else goes down.
void progress_start();
void progress_stop();
bool progress_running();

// The thread level the program passed to MPI_Init_thread (MPI_THREAD_SINGLE for MPI_Init) when armci-x's
// wrapper or ARMCI_Init raised it to MPI_THREAD_MULTIPLE for the progress thread, else -1.
void set_program_thread_request(int level);
int program_thread_request();

}  // namespace armcix
