#include "topo/nodes.h"

#include <sys/statvfs.h>
#include <sys/sysinfo.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "base/error.h"

namespace armcix {

namespace {

// What armci_domain_* and ARMCI_Same_node report: each node cut into maximal runs of consecutive world
// ranks.  Global Arrays 5.8 assumes every domain is such a run (it lists domain d's ranks as
// armci_domain_glob_proc_id(d, 0) + i and, when all domains have one size n, domain d as d*n .. d*n+n-1),
// so a node whose ranks are not consecutive (round-robin placement) is reported as several domains.  With
// blocked placement domains and nodes coincide.  Numbered by their first rank, so ascending.
void discover_domains(Runtime& r) {
  r.domain_of.assign(r.nproc, -1);
  r.domain_members.clear();
  for (int p = 0; p < r.nproc; ++p) {
    if (p == 0 || r.node_of[p] != r.node_of[p - 1]) r.domain_members.emplace_back();
    r.domain_members.back().push_back(p);
    r.domain_of[p] = static_cast<int>(r.domain_members.size()) - 1;
  }
  r.domain_count = static_cast<int>(r.domain_members.size());
  r.domain_id = r.domain_of[r.me];
}

}  // namespace

int lowest_world_rank(MPI_Comm node) {
  MPI_Group node_group, world_group;
  const int first = 0;
  int lowest = MPI_UNDEFINED;
  ARMCIX_MPI(MPI_Comm_group(node, &node_group));
  ARMCIX_MPI(MPI_Comm_group(rt().world, &world_group));
  ARMCIX_MPI(MPI_Group_translate_ranks(node_group, 1, &first, world_group, &lowest));
  ARMCIX_MPI(MPI_Group_free(&node_group));
  ARMCIX_MPI(MPI_Group_free(&world_group));
  return lowest;
}

MPI_Comm node_comm_from_leaders(Runtime& r, const std::vector<int>& leader) {
  std::vector<int> members;
  for (int p = 0; p < r.nproc; ++p)
    if (leader[p] == leader[r.me]) members.push_back(p);
  r.node_comm_is_world = static_cast<int>(members.size()) == r.nproc;
  if (r.node_comm_is_world) return r.world;
  // The tag keeps it apart from other MPI_Comm_create_group calls on r.world (msg/msg_internal.h's) should
  // their member sets overlap this one.
  constexpr int kTagNode = 0x4e44;  // "ND"
  MPI_Group world_group, node_group;
  MPI_Comm node = MPI_COMM_NULL;
  ARMCIX_MPI(MPI_Comm_group(r.world, &world_group));
  ARMCIX_MPI(MPI_Group_incl(world_group, static_cast<int>(members.size()), members.data(), &node_group));
  ARMCIX_MPI(MPI_Comm_create_group(r.world, node_group, kTagNode, &node));
  ARMCIX_MPI(MPI_Group_free(&node_group));
  ARMCIX_MPI(MPI_Group_free(&world_group));
  ARMCIX_MPI(MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN));
  return node;
}

// Node layout.  Real nodes are MPI's, from the census's node keys or MPI_COMM_TYPE_SHARED (runtime.cc).
// ARMCI_NODE_SIZE=k refines them: a simulated node is the intersection of a real node with a block of k
// consecutive world ranks, so that two ranks MPI placed on different nodes never share a simulated one
// (they share no memory).  Where a block spans real nodes the setting cannot be honoured as asked; rank 0
// says so once.
void discover_nodes(Runtime& r, MPI_Comm real_node, const std::vector<int>& real_leader) {
  const int k = r.node_color < 0 ? r.config.node_size : 0;  // progress ranks: refined already
  std::vector<int> leader(real_leader);
  if (k > 0) {
    ARMCIX_MPI(MPI_Comm_split(real_node, r.me / k, r.me, &r.node_comm));
    if (r.node_comm_is_world)
      r.node_comm_is_world = false;  // the split is a communicator of its own; r.world stays
    else
      ARMCIX_MPI(MPI_Comm_free(&real_node));
    ARMCIX_MPI(MPI_Comm_set_errhandler(r.node_comm, MPI_ERRORS_RETURN));
    // A simulated node's leader: the lowest rank with the same real node and block (ranks ascend).
    std::map<std::pair<int, int>, int> first;
    for (int p = 0; p < r.nproc; ++p) leader[p] = first.emplace(std::make_pair(real_leader[p], p / k), p).first->second;
  } else {
    r.node_comm = real_node;
  }
  std::vector<int> leaders(leader);
  std::sort(leaders.begin(), leaders.end());
  leaders.erase(std::unique(leaders.begin(), leaders.end()), leaders.end());
  r.node_count = static_cast<int>(leaders.size());
  r.node_of.assign(r.nproc, -1);
  r.node_members.assign(r.node_count, {});
  for (int p = 0; p < r.nproc; ++p) {
    int idx = static_cast<int>(std::lower_bound(leaders.begin(), leaders.end(), leader[p]) - leaders.begin());
    r.node_of[p] = idx;
    r.node_members[idx].push_back(p);
  }
  r.node_id = r.node_of[r.me];
  if (r.config.node_size > 0 && r.node_color < 0 && r.me == 0) {
    // Honoured exactly when every block of k consecutive ranks is one node.
    for (int first = 0; first < r.nproc; first += r.config.node_size) {
      int last = std::min(first + r.config.node_size, r.nproc) - 1;
      if (r.node_of[first] != r.node_of[last] ||
          static_cast<int>(r.node_members[r.node_of[first]].size()) != last - first + 1) {
        armcix::print_to_stderr(
            "armci-x: ARMCI_NODE_SIZE=%d: ranks %d..%d are not on one MPI node; simulated nodes are "
            "MPI's nodes intersected with blocks of %d consecutive ranks (%d node(s))\n",
            r.config.node_size, first, last, r.config.node_size, r.node_count);
        break;
      }
    }
  }
  discover_domains(r);
}

bool group_is_node_local(const int* abs_ranks, int n) {
  const Runtime& r = rt();
  if (!r.config.shm) return false;
  return std::all_of(abs_ranks, abs_ranks + n, on_my_node);
}

namespace {
MPI_Aint measure_node_memory_limit(bool shared) {
  const MPI_Aint kMax = std::numeric_limits<MPI_Aint>::max();
  MPI_Aint cap = kMax;
  struct sysinfo si;
  if (sysinfo(&si) == 0) {
    unsigned long long units = static_cast<unsigned long long>(si.totalram) + si.totalswap;
    unsigned long long bytes = units * (si.mem_unit ? si.mem_unit : 1);
    if (bytes > 0 && bytes < static_cast<unsigned long long>(kMax)) cap = static_cast<MPI_Aint>(bytes);
  }
  struct statvfs vfs;
  if (shared && statvfs("/dev/shm", &vfs) == 0) {
    unsigned long long bytes = static_cast<unsigned long long>(vfs.f_blocks) * vfs.f_frsize;
    if (bytes > 0 && bytes < static_cast<unsigned long long>(cap)) cap = static_cast<MPI_Aint>(bytes);
  }
  return cap;
}
}  // namespace

// Totals, not what is free: they do not change while the job runs, so they are read once (two system calls
// per ARMCI_Malloc were a tenth of a short-lived group's cost, benchmarks/scale.c's group_cycle).
MPI_Aint node_memory_limit(bool shared) {
  static const MPI_Aint with_shm = measure_node_memory_limit(true);
  static const MPI_Aint without_shm = measure_node_memory_limit(false);
  return shared ? with_shm : without_shm;
}

}  // namespace armcix
