// Communicator creation without MPI's busy-polled context-id agreement, for the yielding MPI_Comm_split and
// MPI_Comm_create (wrap.h).
#include <mutex>
#include <utility>

#include "mpiwrap/wrap.h"

namespace armcix::mpiwrap {

namespace {

// ---- Communicator creation without MPI's busy-polled context-id agreement ---------------------------------
//
// MPI_Comm_split and MPI_Comm_create agree on a context id inside MPI with blocking collectives that MPICH
// busy-polls, and a barrier in front (arrive_together) does not make them short on an oversubscribed
// machine: each of their internal rounds waits for a time slice of every member.  ScaLAPACK's BLACS makes
// them for every grid it sets up (Global Arrays' ga_pdsyev: every SCF diagonalisation), about 140 per
// NWChem water run, and at 4 ranks on 2 cores they took more of the wall time than anything else.
// MPI_Comm_idup is the one communicator constructor with a non-blocking form.  So every process keeps
// templates: communicators it created together with all their members, keyed by their members' ranks in
// MPI_COMM_WORLD in order.  A split or create then
//   1. learns the members of each new communicator (split: a non-blocking allgather of colors and keys;
//      create: the group argument),
//   2. agrees with the parent's processes, in a non-blocking allgather, whether each has a template for its
//      new communicator's members, and
//   3. where every member has one, duplicates it with MPI_Comm_idup; otherwise the members make a new
//      template with MPI_Comm_create_group (blocking; once per member set) and duplicate that.
// Steps 1-2 and the duplicate are completed with the back-off.  A template is only ever made or replaced by
// all its members together, so members that all have one have the same one; a process that evicted its
// template reports none, and the members then make a new one.  Eviction frees the template only locally:
// MPI_Comm_free needs no other process in MPICH and Open MPI.  At MPI_THREAD_MULTIPLE two threads could
// duplicate one template concurrently, which MPI cannot match, so there the calls keep the barrier.
constexpr std::size_t kMaxCommTemplates = 32;
constexpr int kTemplateTag = 31019;  // MPI_Comm_create_group's tag: only our calls use it on the parent

struct CommTemplate {
  std::vector<int> world_ranks;  // the members, in the communicator's rank order
  MPI_Comm comm;
  uint64_t last_use;
};

std::mutex g_templates_mutex;
std::vector<CommTemplate> g_templates;
uint64_t g_template_clock = 0;

MPI_Comm find_template(const std::vector<int>& world_ranks) {
  std::lock_guard<std::mutex> lock(g_templates_mutex);
  for (CommTemplate& t : g_templates)
    if (t.world_ranks == world_ranks) {
      t.last_use = ++g_template_clock;
      return t.comm;
    }
  return MPI_COMM_NULL;
}

// Stores `comm` as the template for its members, replacing (and freeing) an older one for the same
// members; beyond kMaxCommTemplates the least recently used is freed.
void store_template(std::vector<int> world_ranks, MPI_Comm comm) {
  std::lock_guard<std::mutex> lock(g_templates_mutex);
  for (CommTemplate& t : g_templates)
    if (t.world_ranks == world_ranks) {
      PMPI_Comm_free(&t.comm);
      t.comm = comm;
      t.last_use = ++g_template_clock;
      return;
    }
  if (g_templates.size() >= kMaxCommTemplates) {
    auto oldest =
        std::min_element(g_templates.begin(), g_templates.end(),
                         [](const CommTemplate& a, const CommTemplate& b) { return a.last_use < b.last_use; });
    PMPI_Comm_free(&oldest->comm);
    g_templates.erase(oldest);
  }
  g_templates.push_back({std::move(world_ranks), comm, ++g_template_clock});
}

void clear_comm_templates() {
  std::lock_guard<std::mutex> lock(g_templates_mutex);
  for (CommTemplate& t : g_templates) PMPI_Comm_free(&t.comm);
  g_templates.clear();
}

// The world ranks of `members` (ranks in `comm`).
int world_ranks_of(MPI_Comm comm, const std::vector<int>& members, std::vector<int>* world_ranks) {
  MPI_Group comm_group, world_group;
  int rc = PMPI_Comm_group(comm, &comm_group);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
  if (rc == MPI_SUCCESS) {
    world_ranks->assign(members.size(), MPI_UNDEFINED);
    rc = PMPI_Group_translate_ranks(comm_group, static_cast<int>(members.size()), members.data(), world_group,
                                    world_ranks->data());
    PMPI_Group_free(&world_group);
  }
  PMPI_Group_free(&comm_group);
  return rc;
}

// Step 2: whether each process of `comm` has a template for its new communicator, by rank in `comm`.
int gather_who_has_template(MPI_Comm comm, bool mine, std::vector<int>* have) {
  int n = 0;
  PMPI_Comm_size(comm, &n);
  have->assign(static_cast<std::size_t>(n), 0);
  const int has = mine ? 1 : 0;
  MPI_Request req;
  return complete(PMPI_Iallgather(&has, 1, MPI_INT, have->data(), 1, MPI_INT, comm, &req), &req, MPI_STATUS_IGNORE);
}

// Step 3 where some member has none: a new template over `members` (ranks in `comm`), made by all of them
// together (blocking).
int make_template(MPI_Comm comm, const std::vector<int>& members, MPI_Comm* made) {
  MPI_Group comm_group, group;
  if (int rc = PMPI_Comm_group(comm, &comm_group); rc != MPI_SUCCESS) return rc;
  const int included = PMPI_Group_incl(comm_group, static_cast<int>(members.size()), members.data(), &group);
  PMPI_Group_free(&comm_group);
  if (included != MPI_SUCCESS) return included;
  const int rc = with_yield_timer([&] { return PMPI_Comm_create_group(comm, group, kTemplateTag, made); });
  PMPI_Group_free(&group);
  return rc;
}

// Step 3: the new communicator, a duplicate of `templ` with the error handler of `parent` (a split or create
// inherits the parent's; the template's may be another parent's).
int duplicate_template(MPI_Comm templ, MPI_Comm parent, MPI_Comm* newcomm) {
  MPI_Request req;
  if (int rc = complete(PMPI_Comm_idup(templ, newcomm, &req), &req, MPI_STATUS_IGNORE); rc != MPI_SUCCESS) return rc;
  MPI_Errhandler handler;
  if (int rc = PMPI_Comm_get_errhandler(parent, &handler); rc != MPI_SUCCESS) return rc;
  const int rc = PMPI_Comm_set_errhandler(*newcomm, handler);
  PMPI_Errhandler_free(&handler);
  return rc;
}

// The templates go when the yielding mode goes off (the last ARMCI_Finalize).
[[maybe_unused]] const bool g_templates_hooked = (set_mpi_yield_off_hook(&clear_comm_templates), true);

}  // namespace

bool use_comm_templates() {
  return mpi_yield_comm_templates();
}

// Steps 2 and 3 above: the new communicator of this process over `members` (ranks in `comm`, in the new
// order; empty: this process gets none, MPI_COMM_NULL).  Collective over `comm`.
int create_from_template(MPI_Comm comm, const std::vector<int>& members, MPI_Comm* newcomm) {
  std::vector<int> have;
  if (members.empty()) {  // none for this process, which still answers step 2 for the others
    const int rc = gather_who_has_template(comm, false, &have);
    if (rc == MPI_SUCCESS) *newcomm = MPI_COMM_NULL;
    return rc;
  }
  std::vector<int> world_ranks;
  if (int rc = world_ranks_of(comm, members, &world_ranks); rc != MPI_SUCCESS) return rc;
  MPI_Comm found = find_template(world_ranks);
  if (int rc = gather_who_has_template(comm, found != MPI_COMM_NULL, &have); rc != MPI_SUCCESS) return rc;
  if (!std::all_of(members.begin(), members.end(), [&](int m) { return have[m] != 0; })) {
    if (int rc = make_template(comm, members, &found); rc != MPI_SUCCESS) return rc;
    store_template(world_ranks, found);
  }
  return duplicate_template(found, comm, newcomm);
}

}  // namespace armcix::mpiwrap
