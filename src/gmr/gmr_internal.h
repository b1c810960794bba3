// What the files of src/gmr share beyond gmr.h: the node communicators and the mapping of a region's slices
// (node_slices.cc), the pool and segment cache paths of an allocation (pool.cc), and the region index's
// pool entries and window count (gmr.cc).  Internal to the library.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "gmr/gmr.h"
#include "groups/group.h"

namespace armcix {

// --- node_slices.cc ----------------------------------------------------------------------------------------

// The group's members on my node, as a communicator cached on the group's communicator (an MPI attribute,
// freed with it), so that repeated allocations on one group split it only once.  No split at all in three
// common shapes, each known from the node map alone (the same answer on every member):
//   - the world group runs on the runtime's communicator, whose node communicator ARMCI_Init has already made
//     (ranked by world rank, which is the world group's rank);
//   - a group within one node (GA's per-node groups) is its own node communicator;
//   - a group whose every member is alone on its node uses MPI_COMM_SELF.
// A split (MPI_Comm_split + MPI_Allgather, and a communicator to free) was most of what a short-lived group
// cost (benchmarks/scale.c's group_cycle row).  None of these communicators is ours to free.
struct NodeComm {
  MPI_Comm comm;
  std::vector<int> node_to_group;  // node-communicator rank -> group rank
  bool owned = true;               // false: the runtime's node communicator, the group's own, or MPI_COMM_SELF
};
const NodeComm& node_comm_of(const ARMCI_Group* group);
// The system's page size (sysconf, once).
std::size_t page_bytes();
// p rounded up to a multiple of `align` (a power of two).
inline char* align_up(void* p, std::size_t align) {
  return reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(p) + align - 1) & ~(std::uintptr_t{align} - 1));
}
bool some_member_alone(const ARMCI_Group* group);
void check_allocation(const char* call, int rc, const char* mpi_call, MPI_Aint bytes);
void* map_node_slices(const char* call, Gmr* g, const ARMCI_Group* group, MPI_Aint mine, MPI_Aint asked,
                      MPI_Aint node_bytes);
void* map_proxied_slices(const char* call, Gmr* g, const ARMCI_Group* group, MPI_Aint mine);
void release_proxied(Gmr* g);
// Frees the node communicators' attribute key (gmr_finalize).
void node_comm_keyval_free();

// --- pool.cc -----------------------------------------------------------------------------------------------

bool adopt_cached_segment(const char* call, Gmr* g, const std::vector<MPI_Aint>& sizes);
bool take_pool_block(const char* call, Gmr* g, const ARMCI_Group* group, MPI_Aint largest, MPI_Aint node_room,
                     bool node_only);

// --- gmr.cc ------------------------------------------------------------------------------------------------

extern uint64_t g_windows_created;  // allocations that made new windows (not reuse): for tests
// A new pool segment: its members' slices go into the index once, for every block it will serve.
void index_pool(const std::shared_ptr<const std::vector<char*>>& owner_start, std::shared_ptr<const RankMap> ranks,
                MPI_Aint slice_bytes);

}  // namespace armcix
