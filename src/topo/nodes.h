// Nodes and domains: which world ranks share memory (MPI_COMM_TYPE_SHARED, refined by ARMCI_NODE_SIZE) and
// what armci_domain_* reports.  discover_nodes fills in the node and domain fields of the runtime state
// (base/state.h) during ARMCI_Init; the queries below read them.
#pragma once

#include <mpi.h>

#include <vector>

#include "base/state.h"

namespace armcix {

// The lowest rank in r.world of `node`'s processes (local: no communication).  With `node` split by world
// rank, its rank 0: what names a node in the leaders ARMCI_Init gathers.
int lowest_world_rank(MPI_Comm node);

// My node's communicator, ranked by world rank, from every world rank's node leader (`leader`: ranks with
// the same leader share a node): r.world itself when the node is the whole job (then r.node_comm_is_world,
// and no communicator is made), else one made among the node's processes only (MPI_Comm_create_group over
// r.world: collective over them, not over the job).
MPI_Comm node_comm_from_leaders(Runtime& r, const std::vector<int>& leader);

// r.node_comm, node_id/count/of/members and the domains, from `real_node` (my node's communicator, made
// with the world rank as key: MPI_COMM_TYPE_SHARED, or with progress ranks (r.node_color >= 0) the node
// found over every process, progress/progress_roles.h; or node_comm_from_leaders) and `real_leader` (every
// world rank's lowest_world_rank of its node, from ARMCI_Init's census).  Takes `real_node` over.  Without
// ARMCI_NODE_SIZE, local; with it, one MPI_Comm_split of `real_node` (collective over it).
void discover_nodes(Runtime& r, MPI_Comm real_node, const std::vector<int>& real_leader);

// True if world rank `abs` shares my node (real shared memory, refined by ARMCI_NODE_SIZE).
inline bool on_my_node(int abs) {
  return rt().node_of[abs] == rt().node_id;
}

// True if the node-local path is on (ARMCI_SHM=1) and every one of the n absolute ranks shares this rank's
// node (real or simulated): such a group needs no MPI window and no network mutex.
bool group_is_node_local(const int* abs_ranks, int n);

// The most memory one allocation may take on this node, in bytes: RAM + swap, and with `shared` also the
// size of /dev/shm, where MPI's shared-memory windows live.  Asking MPI for more hangs
// (MPI_Win_allocate_shared, MPICH 4.0.2) or crashes it, so allocations check against this first.
MPI_Aint node_memory_limit(bool shared);

}  // namespace armcix
