// Processor groups.  An ARMCI_Group is a plain struct owned by the caller (GA copies it and reads .comm),
// so the library keeps a registry of live groups keyed by their rank-translation tables to recognise
// freed or never-created groups.
#pragma once

#include <armci.h>

namespace armcix {

// The world group (all ranks of the communicator ARMCI was initialized on) and the current default group.
const ARMCI_Group& world_group();
ARMCI_Group& default_group();

// Validates a group argument: not NULL, created and not freed.  Non-member handles (comm == MPI_COMM_NULL)
// pass unless `require_member`.
void check_group(const char* call, const ARMCI_Group* group, bool require_member);

// Absolute (world) rank of a group rank; fails naming `call` if out of range.
int group_to_absolute(const char* call, const ARMCI_Group* group, int group_rank);

// Builds a group from a communicator the caller is a member of (or MPI_COMM_NULL for a non-member),
// filling the translation tables.  Takes ownership of comm.
void make_group(MPI_Comm comm, ARMCI_Group* out);

// Creates the subgroup of `parent` with the given parent-relative ranks, collectively over `parent` or,
// with ARMCI_NONCOLLECTIVE_GROUPS=1, only among the members.
void create_group(const char* call, int n, const int* ranks, const ARMCI_Group* parent, ARMCI_Group* out);
// Frees a group (collective over its members).  First calls the on_group_freed hook, then, when no other
// live group has the same members, the on_members_released hook, with the group still valid.
void free_group(const char* call, ARMCI_Group* group);
// The hooks: gmr/ gives the group's live regions a communicator of their own (a region may outlive its
// group), and frees what it keeps per member set for later allocations (its pool and cached segments).
void on_group_freed(void (*fn)(const ARMCI_Group*));
void on_members_released(void (*fn)(const ARMCI_Group*));
// ARMCIX_Group_split / ARMCIX_Group_dup: MPI_Comm_split / MPI_Comm_dup of the parent's communicator
// (collective over the parent).
void split_group(const char* call, const ARMCI_Group* parent, int color, int key, ARMCI_Group* out);
void dup_group(const char* call, const ARMCI_Group* parent, ARMCI_Group* out);

// groups_initialize() / groups_finalize(): runtime/modules.h.

}  // namespace armcix
