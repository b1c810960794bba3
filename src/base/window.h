// Creating the MPI windows that RMA goes through (allocations on the MPI path, network mutexes).
#pragma once

#include <mpi.h>

#include <functional>

#include "base/mpi_library.h"

namespace armcix {

// A window over `bytes` of fresh memory that this process exposes on `comm`, for RMA and MPI atomics,
// every byte set to `fill` before any other process can reach it.  On MPICH it is MPI_Alloc_mem +
// MPI_Win_create: MPICH 4.0.2's atomics on MPI_Win_allocate windows are wrong between ranks of one node
// (MPICH issue 6110; doc/design.md).  On Open MPI it follows ARMCI_USE_WIN_ALLOCATE (default
// MPI_Win_allocate, whose memory node peers reach directly instead of through single-copy reads).  On a
// one-process communicator it is always MPI_Win_allocate: Open MPI 4.1's osc/ucx fails MPI_Win_create
// there (MPI_ERR_WIN), and with one process the MPICH problem cannot arise.
struct RmaWindow {
  void* base = nullptr;       // the exposed memory (nullptr when bytes == 0)
  void* alloc_mem = nullptr;  // memory to MPI_Free_mem after MPI_Win_free (nullptr: the window owns it)
  MPI_Win win = MPI_WIN_NULL;
};
RmaWindow create_rma_window(MPI_Aint bytes, int disp_unit, MPI_Info info, MPI_Comm comm, unsigned char fill = 0);

// MPI_Alloc_mem of `bytes`, failing through ARMCI_Error naming `call` when MPI cannot allocate them (MPI
// reports that on MPI_COMM_WORLD, whose error handler is the application's: by default fatal, silently).
void* alloc_mem_or_fail(const char* call, MPI_Aint bytes);

// Runs `create`, a window-creating collective over `comm` (MPI_Win_create / _allocate / _create_dynamic),
// so that no two communicators create windows on one node at the same time when ARMCI_WINDOW_GATE is on
// (the default on Open MPI before 5.0).  Why: Open MPI 4.1's osc/rdma names the shared-memory segment of a new window
// after the node, the job and the communicator's context id only, and disjoint communicators (from one
// MPI_Comm_split, or groups made independently) share context ids; two such windows made at once on one
// node then map the same file (Open MPI issue 7393: "unlink(2) /dev/shm/osc_rdma...: No such file",
// MPI_ERR_WIN, wrong addresses read through CMA).  Collective over `comm`; no-op wrapper elsewhere.
void run_window_collective(MPI_Comm comm, const std::function<void()>& create);

// ARMCIX_MPI for a call that creates a window over processes on more than one node: if it fails with
// MPI_ERR_WIN on Open MPI, the message also says which settings give Open MPI a one-sided component
// that reaches other nodes (window_failure_hint).
#define ARMCIX_MPI_WINDOW(call)                                                                    \
  do {                                                                                             \
    int armcix_rc_ = (call);                                                                       \
    if (armcix_rc_ != MPI_SUCCESS) ::armcix::window_failed(#call, armcix_rc_, __FILE__, __LINE__); \
  } while (0)
[[noreturn]] void window_failed(const char* mpi_call, int rc, const char* file, int line);

// "" or, for MPI_ERR_WIN on Open MPI, a sentence saying that Open MPI found no one-sided component for the
// window and which settings provide one.  Why: Debian's Open MPI 4.1 leaves only osc/rdma for windows
// between nodes (/etc/openmpi/openmpi-mca-params.conf: osc = ^ucx,pt2pt, pml = ^ucx), and osc/rdma
// needs an RDMA network: over TCP (Ethernet) every MPI_Win_create/_allocate across nodes fails with a bare
// "MPI_ERR_WIN: invalid window" (doc/user-guide.md, "Known MPI problems").
const char* window_failure_hint(int rc);

// Fails through ARMCI_Error naming `call` and `kind` unless `win` has MPI's unified memory model
// (MPI_WIN_MODEL): its memory is also read and written with plain loads and stores (the owner, node peers
// through shared memory), which under the separate model would need MPI_Win_sync around every such access.
void require_unified_model(const char* call, MPI_Win win, const char* kind);

// MPI_Win_free, then the memory if it was ours.
void free_rma_window(RmaWindow& w);

}  // namespace armcix
