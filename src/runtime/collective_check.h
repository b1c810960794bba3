// ARMCI_CHECK_COLLECTIVES: before an ARMCI collective does any of its own communication, the members
// agree on which call it is and on which object it acts (one small allreduce on a private duplicate of the
// communicator).  A disagreement -- ARMCI_Free of different allocations, ARMCI_Group_create with
// different lists, one rank in ARMCI_Free while the other is in ARMCI_Barrier or ARMCI_Finalize -- ends in
// ARMCI_Error on every member, naming both sides, instead of a hang or a wrong region freed.
#pragma once

#include <mpi.h>

namespace armcix {

// The collective families that are told apart (variants of one family, e.g. ARMCI_Malloc and
// ARMCI_Malloc_group, do the same collective work and agree with each other).
enum class Collective { Malloc = 1, Free, GroupCreate, GroupFree, CreateMutexes, DestroyMutexes, Barrier, Finalize };

// No object to compare (e.g. ARMCI_Free(NULL) on a rank whose slice was empty): any object agrees.
constexpr long kAnyObject = -1;

// Agrees on (kind, object) over `comm` when ARMCI_CHECK_COLLECTIVES is on; fails naming `call`, the
// object kind (`what`, e.g. "allocation") and two disagreeing processes.  A no-op when checks are off.
// `object` must be >= 0 or kAnyObject; a `fingerprint` (a hash of an argument) is compared but not printed.
void collective_check(const char* call, Collective kind, MPI_Comm comm, const char* what, long object,
                      bool fingerprint = false);

// For calls whose argument is a list of members that may differ between processes as long as the lists
// are identical or disjoint (ARMCI_Group_create, as MPI_Comm_create): every process passes its list
// (`members`, ranks in `comm`) and a fingerprint of it; fails on every process if some process's list
// names a process whose list is different.  A no-op when checks are off.
void collective_check_lists(const char* call, Collective kind, MPI_Comm comm, const int* members, int n,
                            long fingerprint);

// A barrier over `comm` that is also the agreement (the allreduce synchronises as a barrier does), so
// that ARMCI_Barrier and ARMCI_Finalize pay nothing extra for the check.
void collective_barrier(const char* call, Collective kind, MPI_Comm comm);

// Frees the private duplicate of the world communicator and the attribute key (ARMCI_Finalize).
void collective_check_finalize();

}  // namespace armcix
