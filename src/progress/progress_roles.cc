#include "progress/progress_roles.h"

#include <sched.h>
#include <time.h>

#include <cstdlib>
#include <vector>

#include "base/config.h"
#include "base/error.h"
#include "progress/progress_ranks.h"
#include "wait/wait.h"

namespace armcix {

namespace {

// Roles decided in MPI_Init (progress_roles.h), until ARMCI_Init takes them.
struct EarlyRoles {
  bool pending = false;  // decided, not yet taken by progress_ranks_start
  bool arrived = false;  // past the arrival (or no arrival needed: MPI started by ARMCI_Init)
  ProgressRoles roles;
  MPI_Comm all = MPI_COMM_NULL;      // every process (a duplicate of the real MPI_COMM_WORLD)
  MPI_Comm arrival = MPI_COMM_NULL;  // the arrival broadcast's own communicator
};
EarlyRoles g_early;
bool g_mpi_started_by_armci = false;

// What the program ranks tell the progress ranks waiting in MPI_Init (a broadcast from process 0, always a
// program rank: progress ranks are the last processes of their node).
enum Arrival : int { kArmciInit = 1, kMpiFinalize = 2 };

// The arrival broadcast.  A progress rank waits in it for as long as the program runs before ARMCI_Init, so
// it sleeps between polls (it must not take a core from the program); a program rank only yields.
int arrival_broadcast(int what, bool sleep_between_polls) {
  int value = what;
  MPI_Request req;
  ARMCIX_MPI(PMPI_Ibcast(&value, 1, MPI_INT, 0, g_early.arrival, &req));
  poll_until(
      [&] {
        int done = 0;
        ARMCIX_MPI(PMPI_Test(&req, &done, MPI_STATUS_IGNORE));
        return done != 0;
      },
      [] {},
      [&] {
        if (sleep_between_polls) {
          const timespec pause{0, 500 * 1000};
          nanosleep(&pause, nullptr);
        } else {
          sched_yield();
        }
      });
  ARMCIX_MPI(PMPI_Comm_free(&g_early.arrival));
  g_early.arrived = true;
  return value;
}

}  // namespace

namespace detail {
MPI_Comm g_program_world = MPI_COMM_NULL;
}  // namespace detail

void set_program_world(MPI_Comm program) {
  detail::g_program_world = program;
}

bool program_world_set() {
  return detail::g_program_world != MPI_COMM_NULL;
}

ProgressRoles decide_progress_roles(const char* call, MPI_Comm all, int k, int node_size) {
  ProgressRoles roles;
  int all_me = 0;
  ARMCIX_MPI(MPI_Comm_rank(all, &all_me));
  // The node as discover_nodes sees it (MPI's node, cut into blocks by ARMCI_NODE_SIZE), here over every
  // process: the blocks of ARMCI_NODE_SIZE count progress ranks too.
  MPI_Comm node;
  ARMCIX_MPI(MPI_Comm_split_type(all, MPI_COMM_TYPE_SHARED, all_me, MPI_INFO_NULL, &node));
  if (node_size > 0) {
    MPI_Comm block;
    ARMCIX_MPI(MPI_Comm_split(node, all_me / node_size, all_me, &block));
    ARMCIX_MPI(MPI_Comm_free(&node));
    node = block;
  }
  int node_procs = 0, node_me = 0;
  ARMCIX_MPI(MPI_Comm_size(node, &node_procs));
  ARMCIX_MPI(MPI_Comm_rank(node, &node_me));
  // Every node needs a program rank; all processes learn the smallest node, so all fail alike.
  int fewest[2] = {node_procs, 0}, fewest_all[2];
  ARMCIX_MPI(MPI_Allreduce(fewest, fewest_all, 1, MPI_2INT, MPI_MINLOC, all));
  std::vector<int> node_all_ranks(node_procs);
  ARMCIX_MPI(MPI_Allgather(&all_me, 1, MPI_INT, node_all_ranks.data(), 1, MPI_INT, node));
  ARMCIX_MPI(MPI_Comm_free(&node));
  if (k >= fewest_all[0])
    fail(call,
         "environment variable ARMCI_PROGRESS_RANKS=%d: a node has only %d process(es) (ARMCI_NODE_SIZE=%d); "
         "at least one per node must run the program, so ARMCI_PROGRESS_RANKS must be below %d",
         k, fewest_all[0], node_size, fewest_all[0]);
  const int program_here = node_procs - k;
  roles.progress_rank = node_me >= program_here;
  roles.node_color = node_all_ranks[0];
  // Program rank i of the node is served by progress rank i mod k: one progress rank per slice, always the
  // same, so that all MPI atomics on a location meet at one process in one window.
  if (roles.progress_rank) {
    for (int i = 0; i < program_here; ++i)
      if (program_here + i % k == node_me) ++roles.served;
  } else {
    roles.my_proxy = node_all_ranks[program_here + node_me % k];
  }
  ARMCIX_MPI(MPI_Comm_split(all, roles.progress_rank ? MPI_UNDEFINED : 0, all_me, &roles.program));
  return roles;
}

void require_shm_for_progress_ranks(const char* call, int k, bool shm) {
  if (!shm)
    fail(call,
         "environment variable ARMCI_PROGRESS_RANKS=%d needs the node-local path (ARMCI_SHM=1): progress ranks "
         "serve their node's memory through shared-memory segments",
         k);
}

void set_mpi_started_by_armci(bool yes) {
  g_mpi_started_by_armci = yes;
}

bool progress_roles_at_mpi_init() {
  // Unset (what nearly every job runs with): nothing to decide, and no collective in the program's MPI_Init.
  // A value set on some processes only cannot be caught here without one; ARMCI_Init's agreement check
  // reports it where the processes get that far.
  if (std::getenv("ARMCI_PROGRESS_RANKS") == nullptr) return false;
  // A malformed value counts as 0 here; ARMCI_Init reports it (Config::from_environment) everywhere alike.
  const int k = Config::progress_ranks_requested();
  int range[2] = {k, -k};  // MIN over both: the smallest and the largest value
  ARMCIX_MPI(PMPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  if (range[0] != -range[1])
    fail("MPI_Init",
         "environment variable ARMCI_PROGRESS_RANKS must be the same on every process: it is %d on some and %d "
         "on others (a malformed value counts as 0)",
         range[0], -range[1]);
  if (k == 0) return false;
  const Config config = Config::from_environment();
  require_shm_for_progress_ranks("MPI_Init", k, config.shm);
  ARMCIX_MPI(PMPI_Comm_dup(MPI_COMM_WORLD, &g_early.all));
  ARMCIX_MPI(PMPI_Comm_set_errhandler(g_early.all, MPI_ERRORS_RETURN));
  g_early.roles = decide_progress_roles("MPI_Init", g_early.all, k, config.node_size);
  ARMCIX_MPI(PMPI_Comm_dup(g_early.all, &g_early.arrival));
  if (!g_early.roles.progress_rank) {
    MPI_Comm program_world;
    ARMCIX_MPI(PMPI_Comm_dup(g_early.roles.program, &program_world));
    set_program_world(program_world);
  }
  g_early.pending = true;
  if (g_mpi_started_by_armci) {
    // Everybody is in ARMCI_Init already, which goes on with these roles.
    ARMCIX_MPI(PMPI_Comm_free(&g_early.arrival));
    g_early.arrived = true;
    return false;
  }
  if (!g_early.roles.progress_rank) return false;
  if (arrival_broadcast(0, true) == kMpiFinalize) {
    PMPI_Finalize();
    std::exit(0);
  }
  return true;  // the caller runs ARMCI_Init, which serves, finalizes and exits
}

MPI_Comm early_roles_all() {
  return g_early.pending ? g_early.all : MPI_COMM_NULL;
}

bool is_program_world(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return true;
  if (comm == MPI_COMM_NULL || g_early.roles.program == MPI_COMM_NULL) return false;
  int result = MPI_UNEQUAL;
  ARMCIX_MPI(PMPI_Comm_compare(comm, g_early.roles.program, &result));
  return result == MPI_IDENT || result == MPI_CONGRUENT;
}

void early_roles_arrive() {
  if (g_early.pending && !g_early.arrived) arrival_broadcast(kArmciInit, false);
}

bool take_early_roles(ProgressRoles* roles) {
  if (!g_early.pending) return false;
  *roles = g_early.roles;
  g_early.roles.program = MPI_COMM_NULL;  // the caller owns it now
  g_early.pending = false;
  ARMCIX_MPI(MPI_Comm_free(&g_early.all));
  return true;
}

void release_unused_progress_ranks() {
  if (g_early.pending && !g_early.arrived && !g_early.roles.progress_rank) arrival_broadcast(kMpiFinalize, false);
}

}  // namespace armcix
