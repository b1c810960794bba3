#include "groups/group.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "base/error.h"
#include "base/fnv1a.h"
#include "base/state.h"
#include "base/thread_lock.h"
#include "checks/collective_check.h"
#include "runtime/modules.h"

namespace armcix {

namespace {

ARMCI_Group g_world{};
ARMCI_Group g_default{};
std::map<const int*, int> g_live;  // grp_to_abs table of each live group -> the group's size
// g_live has a lock of its own: armci_msg_* check their group without the API lock (they are collectives and
// take none), while another thread of the process creates or frees groups.
std::mutex g_live_mutex;
void (*g_members_released)(const ARMCI_Group*) = nullptr;
void (*g_group_freed)(const ARMCI_Group*) = nullptr;

// Whether another live group has the same members, in the same order (a duplicate, or a group created
// again from the same list): what the library keeps per member set (shm/segment_cache.h) serves it too.
bool members_shared(const ARMCI_Group* group) {
  std::lock_guard<std::mutex> lock(g_live_mutex);
  for (const auto& [table, size] : g_live)
    if (table != group->grp_to_abs && size == group->size && std::equal(table, table + size, group->grp_to_abs))
      return true;
  return false;
}

void clear(ARMCI_Group* g) {
  g->comm = MPI_COMM_NULL;
  g->noncoll_pgroup_comm = MPI_COMM_NULL;
  g->grp_to_abs = nullptr;
  g->abs_to_grp = nullptr;
  g->rank = -1;
  g->size = 0;
}

// Noncollective creation (Dinan et al., after the recursive intercommunicator algorithm): members start
// as singleton communicators and pair up level by level, each pair creating an intercommunicator over
// the parent communicator and merging it, so only the members of the new group take part.
MPI_Comm create_noncollective(const ARMCI_Group* parent, const std::vector<int>& parent_ranks) {
  const int n = static_cast<int>(parent_ranks.size());
  int my_index = -1;
  for (int i = 0; i < n; ++i)
    if (parent_ranks[i] == parent->rank) my_index = i;
  MPI_Comm comm;
  ARMCIX_MPI(MPI_Comm_dup(MPI_COMM_SELF, &comm));
  const int tag = 0x4e43;  // distinct from user tags only by convention: the traffic is on parent->comm
  for (int width = 1; width < n; width *= 2) {
    int block = my_index / width;  // my block of `width` members at this level
    int partner_block = block ^ 1;
    int partner_first = partner_block * width;
    if (partner_first >= n) continue;  // no partner block at this level: carried up unchanged
    int block_first = block * width;
    MPI_Comm inter, merged;
    ARMCIX_MPI(MPI_Intercomm_create(comm, 0, parent->comm, parent_ranks[partner_first], tag + width, &inter));
    // The lower block goes first so group ranks follow the order of the rank list.
    ARMCIX_MPI(MPI_Intercomm_merge(inter, block_first > partner_first ? 1 : 0, &merged));
    ARMCIX_MPI(MPI_Comm_free(&inter));
    ARMCIX_MPI(MPI_Comm_free(&comm));
    comm = merged;
  }
  return comm;
}

}  // namespace

const ARMCI_Group& world_group() {
  return g_world;
}
ARMCI_Group& default_group() {
  return g_default;
}

void check_group(const char* call, const ARMCI_Group* group, bool require_member) {
  ARMCIX_REQUIRE(group != nullptr, call, "argument 'group' is NULL");
  if (group->comm == MPI_COMM_NULL && group->grp_to_abs == nullptr && group->size > 0) {
    ARMCIX_REQUIRE(!require_member, call, "the calling process %d is not a member of the group", rt().me);
    return;
  }
  bool live;
  {
    std::lock_guard<std::mutex> lock(g_live_mutex);
    live = group->grp_to_abs && g_live.count(group->grp_to_abs) != 0;
  }
  ARMCIX_REQUIRE(live, call, "argument 'group' is not a live group (freed, or never created)");
}

int group_to_absolute(const char* call, const ARMCI_Group* group, int group_rank) {
  check_group(call, group, true);
  ARMCIX_REQUIRE(group_rank >= 0 && group_rank < group->size, call,
                 "argument 'group_rank' = %d is out of range for a group of %d", group_rank, group->size);
  return group->grp_to_abs[group_rank];
}

void make_group(MPI_Comm comm, ARMCI_Group* out) {
  clear(out);
  if (comm == MPI_COMM_NULL) return;
  ARMCIX_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  out->comm = comm;
  ARMCIX_MPI(MPI_Comm_rank(comm, &out->rank));
  ARMCIX_MPI(MPI_Comm_size(comm, &out->size));
  const int nproc = rt().nproc;
  out->grp_to_abs = static_cast<int*>(std::malloc(sizeof(int) * out->size));
  out->abs_to_grp = static_cast<int*>(std::malloc(sizeof(int) * nproc));
  ARMCIX_REQUIRE(out->grp_to_abs && out->abs_to_grp, "ARMCI_Group_create", "out of memory");
  std::vector<int> seq(out->size);
  for (int i = 0; i < out->size; ++i) seq[i] = i;
  MPI_Group g, w;
  ARMCIX_MPI(MPI_Comm_group(comm, &g));
  ARMCIX_MPI(MPI_Comm_group(rt().world, &w));
  ARMCIX_MPI(MPI_Group_translate_ranks(g, out->size, seq.data(), w, out->grp_to_abs));
  ARMCIX_MPI(MPI_Group_free(&g));
  ARMCIX_MPI(MPI_Group_free(&w));
  std::fill(out->abs_to_grp, out->abs_to_grp + nproc, -1);
  for (int i = 0; i < out->size; ++i) {
    ARMCIX_REQUIRE(out->grp_to_abs[i] != MPI_UNDEFINED, "ARMCI_Group_create",
                   "communicator has processes outside the ARMCI world");
    out->abs_to_grp[out->grp_to_abs[i]] = i;
  }
  std::lock_guard<std::mutex> lock(g_live_mutex);
  g_live[out->grp_to_abs] = out->size;
}

void create_group(const char* call, int n, const int* ranks, const ARMCI_Group* parent, ARMCI_Group* out) {
  check_group(call, parent, true);
  ARMCIX_REQUIRE(out != nullptr, call, "argument 'group_out' is NULL");
  ARMCIX_REQUIRE(n > 0, call, "argument 'grp_size' = %d must be positive", n);
  ARMCIX_REQUIRE(ranks != nullptr, call, "argument 'pid_list' is NULL");
  std::vector<int> list(ranks, ranks + n);
  std::vector<char> seen(parent->size, 0);
  bool member = false;
  for (int i = 0; i < n; ++i) {
    ARMCIX_REQUIRE(list[i] >= 0 && list[i] < parent->size, call,
                   "argument 'pid_list[%d]' = %d is out of range for a parent group of %d", i, list[i], parent->size);
    ARMCIX_REQUIRE(!seen[list[i]], call, "argument 'pid_list' names rank %d twice", list[i]);
    seen[list[i]] = 1;
    member |= list[i] == parent->rank;
  }
  MPI_Comm comm = MPI_COMM_NULL;
  if (!rt().config.noncollective_groups) {
    // Collective over the parent: the lists must be identical or disjoint, as MPI_Comm_create requires (GA
    // creates one group per node with disjoint lists); anything else hangs there.
    const uint64_t h = Fnv1a().add(list.data(), list.size() * sizeof list[0]).value();
    collective_check_lists(call, Collective::GroupCreate, parent->comm, list.data(), n, static_cast<long>(h >> 1));
  }
  // The communicator's creation waits for the other processes without the API lock: one of them may first
  // wait for another thread of this process, in a collective on another group (base/thread_lock.h).
  ApiUnlocked unlocked;
  if (rt().config.noncollective_groups) {
    // Only the members take part; a non-member that calls anyway gets the same non-member handle as on
    // the collective path (as in ARMCI-MPI, and GA's pgroup_create calls on every process).
    if (member) comm = create_noncollective(parent, list);
  } else {
    MPI_Group pg, ng;
    ARMCIX_MPI(MPI_Comm_group(parent->comm, &pg));
    ARMCIX_MPI(MPI_Group_incl(pg, n, list.data(), &ng));
    ARMCIX_MPI(MPI_Comm_create(parent->comm, ng, &comm));
    ARMCIX_MPI(MPI_Group_free(&pg));
    ARMCIX_MPI(MPI_Group_free(&ng));
  }
  make_group(comm, out);                     // its table has a lock of its own
  if (comm == MPI_COMM_NULL) out->size = n;  // a non-member's handle: size known, no membership
}

void free_group(const char* call, ARMCI_Group* group) {
  check_group(call, group, false);
  if (group->grp_to_abs == nullptr) return clear(group);  // non-member handle
  ARMCIX_REQUIRE(group->grp_to_abs != g_world.grp_to_abs, call, "the world group cannot be freed");
  collective_check(call, Collective::GroupFree, group->comm);
  if (g_group_freed) g_group_freed(group);                                      // collective over the members
  if (g_members_released && !members_shared(group)) g_members_released(group);  // collective over the members
  {
    std::lock_guard<std::mutex> lock(g_live_mutex);
    g_live.erase(group->grp_to_abs);
  }
  if (group->comm == g_default.comm) g_default = g_world;
  ARMCIX_MPI(MPI_Comm_free(&group->comm));
  std::free(group->grp_to_abs);
  std::free(group->abs_to_grp);
  clear(group);
}

void split_group(const char* call, const ARMCI_Group* parent, int color, int key, ARMCI_Group* out) {
  check_group(call, parent, true);
  ARMCIX_REQUIRE(out != nullptr, call, "argument 'new_group' is NULL");
  MPI_Comm comm;
  ApiUnlocked unlocked;  // as in create_group
  ARMCIX_MPI(MPI_Comm_split(parent->comm, color, key, &comm));
  make_group(comm, out);
}

void dup_group(const char* call, const ARMCI_Group* parent, ARMCI_Group* out) {
  check_group(call, parent, true);
  ARMCIX_REQUIRE(out != nullptr, call, "argument 'new_group' is NULL");
  MPI_Comm comm;
  ApiUnlocked unlocked;  // as in create_group
  ARMCIX_MPI(MPI_Comm_dup(parent->comm, &comm));
  make_group(comm, out);
}

// The world group runs on the runtime's communicator itself, as ARMCI-MPI's does (no duplicate of its own:
// one collective less in ARMCI_Init).  What it carries then shares that communicator with armci_msg_*'s
// messages and collectives on the world, all of them ARMCI calls every process makes in one order, and the
// application's own calls on armci_group_comm of the world group; armci_notify's messages too, on the one tag
// armci_msg_* refuses (Runtime::notify_tag).  ARMCI_CHECK_COLLECTIVES's agreements run on a duplicate.
void groups_initialize() {
  make_group(rt().world, &g_world);
  g_default = g_world;
}

void on_group_freed(void (*fn)(const ARMCI_Group*)) {
  g_group_freed = fn;
}

void on_members_released(void (*fn)(const ARMCI_Group*)) {
  g_members_released = fn;
}

void groups_finalize() {
  std::lock_guard<std::mutex> lock(g_live_mutex);
  g_live.erase(g_world.grp_to_abs);
  std::free(g_world.grp_to_abs);
  std::free(g_world.abs_to_grp);
  clear(&g_world);
  clear(&g_default);
  // Groups the application did not free: their communicators die with MPI, their tables with the process.
  g_live.clear();
}

}  // namespace armcix
