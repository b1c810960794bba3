// What the MPI wrappers (mpiwrap/) ask of the runtime at MPI_Init and MPI_Finalize: the progress ranks'
// roles, decided once MPI is up, and their release or meeting before MPI goes down.  The wrappers call
// these; nothing below them calls up into the wrappers.
#pragma once

namespace armcix {

// After PMPI_Init / PMPI_Init_thread succeeded.  `asked`: the thread level the program asked for.  On a
// progress rank this runs ARMCI_Init (which serves until the program ranks finalize, then exits) and does
// not return.
void after_mpi_init(int* argc, char*** argv, int asked);

// Before PMPI_Finalize: with progress ranks, releases them if ARMCI never ran, else meets them, so that
// every process enters MPI_Finalize together (progress/progress_ranks.h).
void before_mpi_finalize();

}  // namespace armcix
