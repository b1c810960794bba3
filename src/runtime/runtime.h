// Start-up and tear-down (the api layer calls these): the order in which ARMCI_Init brings the runtime up
// -- MPI, settings, progress ranks, topology, the resolved "auto" settings, then the modules of
// runtime/modules.h -- and the final ARMCI_Finalize takes it down.
#pragma once

#include <mpi.h>

namespace armcix {

void initialize(int* argc, char*** argv, int requested_thread_level, MPI_Comm comm, bool comm_given);
void finalize();

}  // namespace armcix
