// Creating the MPI windows that RMA goes through (allocations on the MPI path, network mutexes).
#pragma once

#include <mpi.h>

namespace armcix {

// A window over `bytes` of fresh memory that this process exposes on `comm`, for RMA and MPI atomics,
// every byte set to `fill` before the window exists (afterwards another process may already be writing
// or fetching there).  Normally MPI_Alloc_mem + MPI_Win_create: MPICH 4.0.2's atomics on MPI_Win_allocate windows are
// wrong between ranks of one node (MPICH issue 6110; doc/design.md).  On a one-process communicator it is
// MPI_Win_allocate instead: Open MPI 4.1's osc/ucx fails MPI_Win_create there (MPI_ERR_WIN), and with one
// process the MPICH problem cannot arise.
struct RmaWindow {
  void* base = nullptr;       // the exposed memory (nullptr when bytes == 0)
  void* alloc_mem = nullptr;  // memory to MPI_Free_mem after MPI_Win_free (nullptr: the window owns it)
  MPI_Win win = MPI_WIN_NULL;
};
RmaWindow create_rma_window(MPI_Aint bytes, int disp_unit, MPI_Info info, MPI_Comm comm, unsigned char fill = 0);

// MPI_Alloc_mem of `bytes`, failing through ARMCI_Error naming `call` when MPI cannot allocate them (MPI
// reports that on MPI_COMM_WORLD, whose error handler is the application's: by default fatal, silently).
void* alloc_mem_or_fail(const char* call, MPI_Aint bytes);

// MPI_Win_free, then the memory if it was ours.
void free_rma_window(RmaWindow& w);

}  // namespace armcix
