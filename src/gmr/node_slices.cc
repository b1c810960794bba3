// The group's members on my node as a communicator (cached), and the mapping of a region's slices: in a
// shared-memory window over my node, or in POSIX segments served by progress ranks.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/state.h"
#include "base/thread_lock.h"
#include "base/window.h"
#include "gmr/gmr.h"
#include "gmr/gmr_internal.h"
#include "groups/group.h"
#include "progress/progress_ranks.h"
#include "shm/segment.h"
#include "shm/segment_cache.h"
#include "topo/nodes.h"
#include "wait/wait.h"

namespace armcix {

namespace {

int g_node_keyval = MPI_KEYVAL_INVALID;

// Node -> how many of the group's members are there, from the node map (the same on every member).
std::map<int, int> members_per_node(const ARMCI_Group* group) {
  std::map<int, int> per_node;
  for (int i = 0; i < group->size; ++i) ++per_node[rt().node_of[group->grp_to_abs[i]]];
  return per_node;
}

int free_node_comm(MPI_Comm, int, void* attr, void*) {
  auto* nc = static_cast<NodeComm*>(attr);
  int rc = nc->owned ? MPI_Comm_free(&nc->comm) : MPI_SUCCESS;
  delete nc;
  return rc;
}

}  // namespace

const NodeComm& node_comm_of(const ARMCI_Group* group) {
  if (g_node_keyval == MPI_KEYVAL_INVALID)
    ARMCIX_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_node_comm, &g_node_keyval, nullptr));
  void* attr = nullptr;
  int found = 0;
  ARMCIX_MPI(MPI_Comm_get_attr(group->comm, g_node_keyval, &attr, &found));
  if (found) return *static_cast<NodeComm*>(attr);
  auto* nc = new NodeComm;
  const Runtime& r = rt();
  // The shape is the same on every member (all read the same node map), as the split's collective needs.
  const std::map<int, int> per_node = members_per_node(group);
  const bool one_node = per_node.size() == 1;
  const bool each_alone = per_node.size() == static_cast<std::size_t>(group->size);
  if (group->comm == r.world) {
    nc->comm = r.node_comm;
    nc->node_to_group = r.node_members[r.node_id];
    nc->owned = false;
  } else if (one_node) {
    nc->comm = group->comm;
    nc->node_to_group.resize(group->size);
    std::iota(nc->node_to_group.begin(), nc->node_to_group.end(), 0);
    nc->owned = false;
  } else if (each_alone) {
    nc->comm = MPI_COMM_SELF;
    nc->node_to_group = {group->rank};
    nc->owned = false;
  } else {
    ApiUnlocked unlocked;  // collectives over the group (thread_lock.h); nc is not yet anybody else's
    ARMCIX_MPI(MPI_Comm_split(group->comm, r.node_of[r.me], group->rank, &nc->comm));
    int nn;
    ARMCIX_MPI(MPI_Comm_size(nc->comm, &nn));
    nc->node_to_group.resize(nn);
    ARMCIX_MPI(MPI_Allgather(&group->rank, 1, MPI_INT, nc->node_to_group.data(), 1, MPI_INT, nc->comm));
  }
  ARMCIX_MPI(MPI_Comm_set_attr(group->comm, g_node_keyval, nc));
  return *nc;
}

// Whether some member of the group is the group's only member on its node (its node communicator then has
// one process, whose shared segments MPICH serves from the heap).  The same answer on every member.
bool some_member_alone(const ARMCI_Group* group) {
  const std::map<int, int> per_node = members_per_node(group);
  return std::any_of(per_node.begin(), per_node.end(), [](const auto& kv) { return kv.second == 1; });
}

// An MPI allocation that failed although the size check passed (memory taken by others meanwhile, or an
// MPI limit): named after the ARMCI call and its argument rather than the MPI call alone.
void check_allocation(const char* call, int rc, const char* mpi_call, MPI_Aint bytes) {
  if (rc == MPI_SUCCESS) return;
  char err[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, err, &len);
  fail(call, "argument 'bytes' = %ld: %s could not allocate this process's slice: %s%s", static_cast<long>(bytes),
       mpi_call, err, window_failure_hint(rc));
}

namespace {

// MPI makes a shared-memory window's segment in /dev/shm and backs its pages as they are first touched: a
// segment larger than what /dev/shm has free is made fine and raises SIGBUS in whoever touches a page
// beyond.  What is free is read before each new segment (a window creation costs far more than a statvfs).
// `node_bytes`: the segment's bytes over the group's `processes` on my node.  One process alone is served
// from its heap (MPICH), not from /dev/shm.
void check_shm_room(const char* call, MPI_Aint asked, MPI_Aint node_bytes, int processes) {
  if (processes < 2) return;
  const long long free_bytes = shm_free_bytes();
  if (free_bytes < 0 || node_bytes <= free_bytes) return;
  fail(call,
       "argument 'bytes' = %ld: /dev/shm has %lld bytes free, and the shared-memory segment for it needs %ld bytes "
       "on this node (%d processes%s)",
       static_cast<long>(asked), free_bytes, static_cast<long>(node_bytes), processes,
       asked + kSliceHeader < node_bytes / processes ? "; segments are rounded up for reuse, ARMCI_POOL_MB" : "");
}

// A slice starts on a page of its own, whatever MPI's segment gives: MPICH's non-contiguous segments start on
// pages, but Open MPI 4.1's (osc sm) put rank 0's 264 bytes in, after its own control data (the user's data
// then sat 8 bytes past a cache line), and MPICH serves a one-process node from its heap.  Every process
// maps the segment at page-aligned addresses, so the same rounding lands on the same byte in each.  Open MPI,
// GA's 256x256 tiles on one node: 0.75-0.98 of the time before, medians of 10 rounds
// (benchmarks/results/2026-12-08-local-buffer-alignment.md).
char* on_page(char* p) {
  return align_up(p, page_bytes());
}

}  // namespace

// Allocates my slice in a shared-memory window over the group's members on my node and maps every
// node peer's slice.  Returns my slice's user base (NULL if empty).  `asked`: the ARMCI_Malloc argument
// behind it; `node_bytes`: the segment's bytes on my node (check_shm_room).
void* map_node_slices(const char* call, Gmr* g, const ARMCI_Group* group, MPI_Aint mine, MPI_Aint asked,
                      MPI_Aint node_bytes) {
  const NodeComm& nc = node_comm_of(group);
  MPI_Comm node = nc.comm;
  const MPI_Aint pad = static_cast<MPI_Aint>(page_bytes()) - 1;  // room to round the slice's start up (on_page)
  check_shm_room(call, asked, node_bytes + pad * static_cast<MPI_Aint>(nc.node_to_group.size()),
                 static_cast<int>(nc.node_to_group.size()));
  MPI_Info info;
  ARMCIX_MPI(MPI_Info_create(&info));
  ARMCIX_MPI(MPI_Info_set(info, "alloc_shared_noncontig", "true"));  // each slice on its owner's pages
  char* seg = nullptr;
  {
    ApiUnlocked unlocked;  // collective over the node's members; g is the caller's own
    check_allocation(
        call, MPI_Win_allocate_shared(mine > 0 ? mine + kSliceHeader + pad : 0, 1, info, node, &seg, &g->shm_win),
        "MPI_Win_allocate_shared", mine);
  }
  ARMCIX_MPI(MPI_Info_free(&info));
  ARMCIX_MPI(MPI_Win_set_errhandler(g->shm_win, MPI_ERRORS_RETURN));
  require_unified_model(call, g->shm_win, "the node's shared-memory window");
  if (mine > 0) seg = on_page(seg);
  if (mine > 0) *reinterpret_cast<uint32_t*>(seg) = 0;  // peers use it only after ARMCI_Malloc returns
  const int nn = static_cast<int>(nc.node_to_group.size());
  auto starts = std::make_shared<std::vector<char*>>(nn, nullptr);  // by node index = node-communicator rank
  for (int i = 0; i < nn; ++i) {
    MPI_Aint size;
    int disp_unit;
    char* ptr;
    ARMCIX_MPI(MPI_Win_shared_query(g->shm_win, i, &size, &disp_unit, &ptr));
    if (size > 0) (*starts)[i] = on_page(ptr);
  }
  g->node_start = std::move(starts);
  ARMCIX_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, g->shm_win));  // MPI_Win_sync needs an epoch
  return mine > 0 ? seg + kSliceHeader : nullptr;
}

// Progress ranks, region spanning nodes: my slice lives in a POSIX shared-memory segment (lock word header
// + data) that my progress rank maps and attaches to the runtime's dynamic proxy window, and node peers map
// it for load/store.  MPI operations on any slice of the region then target the slice's progress rank.
// No MPI window is created: the progress ranks join no collective here, so concurrent allocations on
// different groups cannot deadlock them.  Returns my slice's base (NULL if empty).
void* map_proxied_slices(const char* call, Gmr* g, const ARMCI_Group* group, MPI_Aint mine) {
  const Runtime& r = rt();
  char name[kShmNameBytes] = "";
  char* seg = nullptr;
  if (mine > 0) {
    char what[64];
    std::snprintf(what, sizeof what, "argument 'bytes' = %ld", static_cast<long>(mine));
    ProxiedSegment s = proxy_segment_create(call, what, static_cast<std::size_t>(mine + kSliceHeader), name);
    seg = s.addr;  // zero-filled, lock word included
    g->posix_maps.emplace_back(seg, s.bytes);
    g->my_proxy_disp = s.disp;
  }
  // Node peers map each other's segments by name.
  const NodeComm& nc = node_comm_of(group);
  int nn;
  ARMCIX_MPI(MPI_Comm_size(nc.comm, &nn));
  std::vector<char> names(static_cast<std::size_t>(nn) * sizeof name);
  MPI_Request req;
  ARMCIX_MPI(MPI_Iallgather(name, sizeof name, MPI_CHAR, names.data(), sizeof name, MPI_CHAR, nc.comm, &req));
  wait_for(call, &req);
  auto starts = std::make_shared<std::vector<char*>>(nn, nullptr);  // by node index
  for (int i = 0; i < nn; ++i) {
    const int gr = nc.node_to_group[i];
    const char* peer = names.data() + static_cast<std::size_t>(i) * sizeof name;
    char* ptr = nullptr;
    if (gr == g->my_rank) {
      ptr = seg;
    } else if (peer[0]) {
      const std::size_t bytes = static_cast<std::size_t>(g->size(gr) + kSliceHeader);
      int fd = shm_open(peer, O_RDWR | O_NOFOLLOW, 0);
      ARMCIX_REQUIRE(fd >= 0, call, "could not open process %d's shared-memory segment %s: %s", g->abs_rank_of(gr),
                     peer, std::strerror(errno));
      void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      close(fd);
      ARMCIX_REQUIRE(p != MAP_FAILED, call, "could not map process %d's shared-memory segment %s", g->abs_rank_of(gr),
                     peer);
      ptr = static_cast<char*>(p);
      g->posix_maps.emplace_back(ptr, bytes);
    }
    (*starts)[i] = ptr;
  }
  g->node_start = std::move(starts);
  // Where every slice is served.  Every member contributes after mapping its peers, so once this returns
  // nobody opens my segment by name again and it can be unlinked (it lives on while mapped).
  MPI_Aint mine_at[2] = {static_cast<MPI_Aint>(r.proxy_of[r.me]), g->my_proxy_disp + kSliceHeader};
  std::vector<MPI_Aint> all(2 * static_cast<std::size_t>(g->nranks));
  ARMCIX_MPI(MPI_Iallgather(mine_at, 2, MPI_AINT, all.data(), 2, MPI_AINT, group->comm, &req));
  wait_for(call, &req);
  if (mine > 0) shm_unlink(name);
  g->proxy_rank.resize(g->nranks);
  g->proxy_base.resize(g->nranks);
  for (int gr = 0; gr < g->nranks; ++gr) {
    g->proxy_rank[gr] = static_cast<int>(all[2 * gr]);
    g->proxy_base[gr] = all[2 * gr + 1];
  }
  g->win = r.proxy_win;
  return mine > 0 ? seg + kSliceHeader : nullptr;
}

// Completes my operations on the region, waits until every member has (nobody touches a slice after
// this), then unmaps and has my progress rank drop my segment.  Collective over the region's group.
void release_proxied(Gmr* g) {
  wake_servers(g);
  ARMCIX_MPI(MPI_Win_flush_all(g->win));
  MPI_Request req;
  ARMCIX_MPI(MPI_Ibarrier(g->comm, &req));
  wait_for("ARMCI_Free", &req);
  for (auto& [addr, bytes] : g->posix_maps) munmap(addr, bytes);
  if (g->my_proxy_disp != 0) proxy_detach(g->my_proxy_disp);
  g->win = MPI_WIN_NULL;  // the runtime's
}

void node_comm_keyval_free() {
  if (g_node_keyval != MPI_KEYVAL_INVALID) ARMCIX_MPI(MPI_Comm_free_keyval(&g_node_keyval));
}

}  // namespace armcix
