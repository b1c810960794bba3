// Asynchronous progress (ARMCI_PROGRESS_THREAD=1): a thread that enters MPI's progress engine every
// ARMCI_PROGRESS_USLEEP microseconds, so that RMA aimed at this process (which MPICH services in the
// target's progress engine for MPI_Win_create windows) moves while the application computes.
// Needs MPI_THREAD_MULTIPLE, which armci-x's MPI_Init and MPI_Init_thread ask for when the variable is set
// (mpiwrap/mpi_world.cc); without it the thread is not started and rank 0 says so.
#pragma once

namespace armcix {

// The last / first entries of the module list (runtime/modules.cc): started once everything else is up,
// stopped before anything else goes down.
void progress_start();
void progress_stop();
bool progress_running();

// The thread level the program passed to MPI_Init_thread (MPI_THREAD_SINGLE for MPI_Init) when armci-x's
// wrapper raised it to MPI_THREAD_MULTIPLE for the progress thread, else -1 (mpiwrap/mpi_world.cc sets it).
void set_program_thread_request(int level);
int program_thread_request();

}  // namespace armcix
