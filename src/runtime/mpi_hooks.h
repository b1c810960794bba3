// What the MPI wrapper library (libarmcix-mpiwrap, src/mpiwrap/) tells libarmci, and asks of it: that it is
// in the program, that its MPI_Init or MPI_Init_thread ran (the progress ranks' roles are decided there),
// and what to do before MPI_Finalize.  libarmci defines no MPI function itself (doc/user-guide.md, "Using
// armci-x with MPI tools"): these are the only ways the wrappers reach it, and ARMCI_Init reads the first
// two to fail, with the cause and the fix named, where a feature needs a wrapper that is not there.
#pragma once

namespace armcix {

// The wrapper library's constructor: its wrappers are in the program (linked or preloaded).
void note_mpi_wrappers();
bool mpi_wrappers_present();

// After PMPI_Init / PMPI_Init_thread succeeded in the wrapper.  `asked`: the thread level the program asked
// for.  Records that the wrappers took MPI_Init; on a progress rank it then runs ARMCI_Init (which serves
// until the program ranks finalize, then exits) and does not return.
void after_mpi_init(int* argc, char*** argv, int asked);
// Whether after_mpi_init ran in this process.
bool mpi_init_wrapped();

// Before PMPI_Finalize: with progress ranks, releases them if ARMCI never ran, else meets them, so that
// every process enters MPI_Finalize together (progress/progress_ranks.h).
void before_mpi_finalize();

}  // namespace armcix
