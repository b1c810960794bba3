// Which processes are progress ranks (ARMCI_PROGRESS_RANKS=k), and when that is decided.
//
// A program learns its rank and size from MPI_COMM_WORLD, often before ARMCI_Init: the classic ARMCI test
// program (armci/testing/test.c) calls MPI_Comm_size right after MPI_Init and then addresses ranks up to
// that size.  So, as Casper does, the roles are decided inside armci-x's MPI_Init (mpiwrap/, the opt-in
// libarmcix-mpiwrap): from there on MPI_COMM_WORLD means the program ranks, and the progress ranks never
// return from MPI_Init.  They wait there, asleep, until the program ranks call ARMCI_Init (and then take
// part in it and serve until finalize) or MPI_Finalize without ARMCI (and then finalize too).  When
// ARMCI_Init starts MPI itself, or the program sets the variable after MPI_Init, the roles are decided in
// ARMCI_Init instead.  A program whose MPI starts past the wrapper (a PMPI tool's MPI_Init ahead of it,
// PMPI_Init, Open MPI's Fortran MPI_INIT) or has no wrapper library gets an error at ARMCI_Init
// (runtime/runtime.cc, require_mpi_features): its MPI_COMM_WORLD would count the progress ranks.
#pragma once

#include <mpi.h>

namespace armcix {

struct ProgressRoles {
  bool progress_rank = false;
  int node_color = -1;               // rank in `all` of my node's first process: names the node
  int my_proxy = -1;                 // a program rank's progress rank, as a rank in `all`
  int served = 0;                    // how many program ranks a progress rank serves
  MPI_Comm program = MPI_COMM_NULL;  // the program ranks (MPI_COMM_NULL on a progress rank)
};

// Collective over `all` (every process).  The nodes are MPI's, cut into blocks of `node_size` consecutive
// processes when it is > 0; the last k of each node are progress ranks, and program rank i of a node is
// served by progress rank i mod k.  Fails naming `call` when a node has no more than k processes.
ProgressRoles decide_progress_roles(const char* call, MPI_Comm all, int k, int node_size);

// Fails naming `call` unless the node-local path is on (`shm`): progress ranks serve shared-memory segments.
void require_shm_for_progress_ranks(const char* call, int k, bool shm);

// Called by armci-x's MPI_Init and MPI_Init_thread once MPI is up (through runtime/mpi_hooks.h).  Every
// process first agrees on ARMCI_PROGRESS_RANKS (one reduction: a process that saw another value would leave
// the others waiting in the collectives below); with k > 0 the roles are decided and MPI_COMM_WORLD becomes
// the program ranks'.  A progress rank then waits for the program ranks' ARMCI_Init and returns true: the
// caller must then run ARMCI_Init, which serves and never returns (or, if the program ranks finalize MPI
// without ARMCI, it finalizes and exits here).  False for program ranks, without progress ranks, and when
// MPI was started by ARMCI_Init itself (which goes on with the roles).
bool progress_roles_at_mpi_init();

// MPI_COMM_WORLD in the program's MPI calls means `program` (a communicator over the program ranks) from now
// on (the MPI wrappers, mpiwrap/, libarmcix-mpiwrap, read program_world()); program_world_set() says whether that has
// happened (it is never undone).
void set_program_world(MPI_Comm program);
bool program_world_set();
namespace detail {
extern MPI_Comm g_program_world;
}  // namespace detail
inline MPI_Comm program_world() {
  return detail::g_program_world;
}

// ARMCI_Init tells the hook above that it starts MPI itself (everyone is in ARMCI_Init already).
void set_mpi_started_by_armci(bool yes);

// Roles decided in MPI_Init and not yet used by ARMCI_Init: the communicator of every process that
// ARMCI_Init starts from, else MPI_COMM_NULL.
MPI_Comm early_roles_all();
// Whether `comm` stands for the program ranks while the early roles are pending: MPI_COMM_WORLD itself,
// or a communicator over the same processes in the same order (ARMCI_Init_mpi_comm with a duplicate).
bool is_program_world(MPI_Comm comm);
// On a program rank, called by ARMCI_Init before its first collective: releases the progress ranks waiting
// in MPI_Init into ARMCI_Init.
void early_roles_arrive();
// Hands the early roles to progress_ranks_start (once); false if there are none.
bool take_early_roles(ProgressRoles* roles);
// Called by the MPI_Finalize wrapper: program ranks that never called ARMCI_Init release the progress ranks
// waiting in MPI_Init, which then finalize MPI with them.
void release_unused_progress_ranks();

}  // namespace armcix
