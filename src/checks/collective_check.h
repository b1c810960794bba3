// ARMCI_CHECK_COLLECTIVES: an ARMCI collective's first exchange also carries which call it is and which
// object it acts on, and every member verifies them.  A disagreement -- ARMCI_Free of different
// allocations, ARMCI_Group_create with conflicting lists, one rank in ARMCI_Free while the other is in
// ARMCI_Barrier or ARMCI_Finalize -- ends in ARMCI_Error on every member, naming both sides, instead of a
// hang or a wrong region freed.  The exchange runs on a private duplicate of the communicator, so that
// different ARMCI collectives meet there, and never an application's.
#pragma once

#include <mpi.h>

#include <vector>

namespace armcix {

// The collective families that are told apart (variants of one family, e.g. ARMCI_Malloc and
// ARMCI_Malloc_group, do the same collective work and agree with each other).
enum class Collective { Malloc = 1, Free, GroupCreate, GroupFree, CreateMutexes, DestroyMutexes, Barrier, Finalize };

// No object to compare (e.g. ARMCI_Free(NULL) on a rank whose slice was empty): any object agrees.
constexpr long kAnyObject = -1;

// Longs of caller data each member contributes to collective_reduce.
constexpr int kReducePayload = 4;

// Reduces every member's `payload` with MPI_MAX over `comm` (out: the same kReducePayload longs on every
// member; a caller that wants a minimum passes a negated value).  One allreduce of a few longs, whatever the
// size of the group: no ARMCI collective moves data per member unless it needs every member's (ARMCI_Malloc
// of differing sizes).  With ARMCI_CHECK_COLLECTIVES on, the same allreduce carries (kind, object) as maxima
// and negated minima; when they differ every member sees it in the same result, and a second exchange (an
// allgather of every member's kind and object, made only then) names two disagreeing processes, on every
// member alike; `what` names the object kind (e.g. "allocation") and `object` is >= 0 or kAnyObject.
void collective_reduce(const char* call, Collective kind, MPI_Comm comm, const char* what, long object,
                       const long (&payload)[kReducePayload], long (&out)[kReducePayload]);

// A plain allgather of `count` longs per member over `comm` (all: count longs per rank, in rank order), for a
// collective whose agreement collective_reduce has already made (ARMCI_Malloc of differing sizes).
void collective_allgather(const char* call, MPI_Comm comm, const long* mine, int count, long* all);

// The agreement alone (no payload), for collectives whose own first exchange is not a gather.  A no-op
// when checks are off.
void collective_check(const char* call, Collective kind, MPI_Comm comm);

// For calls whose argument is a list of members that may differ between processes as long as the lists
// are identical or disjoint (ARMCI_Group_create, as MPI_Comm_create): every process passes its list
// (`members`, ranks in `comm`) and a fingerprint of it; fails on every process if some process's list
// names a process whose list is different.  A no-op when checks are off.
void collective_check_lists(const char* call, Collective kind, MPI_Comm comm, const int* members, int n,
                            long fingerprint);

// A barrier over `comm`; with checks on, the agreement is the barrier (an allreduce synchronises as a
// barrier does), so that ARMCI_Barrier and ARMCI_Finalize make one collective either way.
void collective_barrier(const char* call, Collective kind, MPI_Comm comm);

// Frees the attribute key (ARMCI_Finalize; the runtime frees its private duplicate of the world).
void collective_check_finalize();

}  // namespace armcix
