// The MPI functions armci-x defines over the profiling interface (PMPI_*), for two purposes:
//
// 1. Progress ranks and MPI_COMM_WORLD.  With ARMCI_PROGRESS_RANKS=k the last k processes of every node
//    never return from ARMCI_Init, so a program that uses MPI_COMM_WORLD after it (a barrier, a reduction,
//    its rank and size -- Global Arrays' test programs, our own tests) would wait for them forever or count
//    them.  As Casper does, every wrapper passes MPI_COMM_WORLD on as the program ranks' communicator.
//    Without progress ranks this is one comparison per call.
// 2. Yielding waits (ARMCI_MPI_YIELD, wait/mpi_yield.h): on an oversubscribed machine the blocking calls
//    become their non-blocking form completed by MPI_Test with a pause between polls, and collective calls
//    without a non-blocking form are preceded by a non-blocking barrier completed the same way.  Off, this
//    is one load of a flag per call.
// 3. Profiling (ARMCI_PROFILE=1, wait/call_stats.h): the blocking calls count their calls, time and
//    back-off pauses per MPI function (ARMCIX_TIME_CALL), so that the profile says which of the program's
//    own MPI calls the time went to.  Off, one more load of a flag.
// 4. The progress thread (ARMCI_PROGRESS_THREAD=1) needs MPI_THREAD_MULTIPLE, and the programs that most
//    need it start MPI themselves with plain MPI_Init (Global Arrays' programs, NWChem through GA's
//    tcgmsg-mpi).  With that variable set, MPI_Init and MPI_Init_thread below MPI_THREAD_MULTIPLE ask
//    MPI for MPI_THREAD_MULTIPLE (MPI may give more than asked; MPI_Init_thread reports what it gave), and
//    the level the program asked for is kept so that ARMCI does not serialise its calls for a program
//    that never calls it from two threads.  Open MPI's Fortran MPI_INIT calls PMPI_Init and bypasses this.
// 5. Progress ranks are decided in MPI_Init and MPI_Init_thread (progress/progress_roles.h), so that a program
//    that reads MPI_COMM_WORLD's size before ARMCI_Init (the classic ARMCI test program) sees the program
//    ranks only.
//
// The list covers the MPI calls that Global Arrays 5.8.2 (Debian's libga-mpich.a: nm -u), ScaLAPACK/BLACS
// (libscalapack-mpich.so), NWChem and our tests, examples and benchmarks make on a communicator, and the
// blocking completion calls (MPI_Wait and friends).  Anything else on MPI_COMM_WORLD still sees every
// process (doc/user-guide.md, "Progress ranks"), and anything else blocking busy-polls as MPI makes it.
// Errors are MPI's: a wrapper returns what the PMPI calls it makes return, which under the default
// MPI_ERRORS_ARE_FATAL never returns at all.
//
// Prototypes from MPICH 4.0.2's mpi.h (the same in Open MPI 4.1); the functions keep MPI's names.
#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <thread>
#include <utility>
#include <vector>

#include "base/config.h"
#include "base/state.h"
#include "progress/progress_roles.h"
#include "progress/thread.h"
#include "runtime/mpi_hooks.h"
#include "wait/backoff.h"
#include "wait/call_stats.h"
#include "wait/mpi_yield.h"
#include "wait/yield_timer.h"

namespace armcix {

namespace {

void clear_comm_templates();

inline MPI_Comm world_or(MPI_Comm c) {
  return c == MPI_COMM_WORLD && program_world() != MPI_COMM_NULL ? program_world() : c;
}

// Point-to-point calls and completions: replaced whenever the mode is on (a non-blocking send or receive
// matches a blocking one).
inline bool yield_p2p() {
  return mpi_yield_on_relaxed();
}

// Collective calls on `comm`: replaced when the mode is on and `comm` is an intracommunicator.
// MPI_COMM_NULL goes to MPI unchanged so that MPI reports it under the call's own name; intercommunicators
// too (their non-blocking collectives are less widely implemented, and no user here needs them).
inline bool yield_collective(MPI_Comm comm) {
  if (!mpi_yield_on_relaxed() || comm == MPI_COMM_NULL) return false;
  int inter = 0;
  return PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter;
}

// The pause between polls of one yielding call (wait/backoff.h): yields, then sleeps the back-off.
// `handoff`: only MPI_Barrier, a pure wait for the others, hands the core to the node's progress ranks;
// the program's other calls may move data that needs this process's polls (wait/backoff.h, HandOff).
inline armcix::BackoffPause poll_pause(armcix::HandOff handoff = armcix::HandOff::Never) {
  return armcix::BackoffPause(mpi_yield_pause_us(), armcix::rt().machine.ranks, handoff);
}

// Completes *req as MPI_Wait would (the status included), polling with pauses.  `started` is the return
// code of the call that made the request: a failed start is returned as it is.
int complete(int started, MPI_Request* req, MPI_Status* status, armcix::HandOff handoff = armcix::HandOff::Never) {
  if (started != MPI_SUCCESS) return started;
  armcix::BackoffPause pause_between_polls = poll_pause(handoff);
  for (;;) {
    int done = 0;
    const int rc = PMPI_Test(req, &done, status);
    if (rc != MPI_SUCCESS || done) {
      count_yielding_call();
      return rc;
    }
    pause_between_polls();
  }
}

// For collective calls without a non-blocking form (communicator and window creation): every member
// passes a non-blocking barrier with back-off first, so that the call's own synchronisation, which MPI
// busy-polls, finds the others already there.  Returns the barrier's error code, if any.
int arrive_together(MPI_Comm comm) {
  MPI_Request req;
  return complete(PMPI_Ibarrier(comm, &req), &req, MPI_STATUS_IGNORE);
}

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

inline bool use_comm_templates() {
  return mpi_yield_comm_templates();
}

// The templates go when the yielding mode goes off (the last ARMCI_Finalize).
[[maybe_unused]] const bool g_templates_hooked = (set_mpi_yield_off_hook(&clear_comm_templates), true);

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

// Steps 2 and 3 above: the new communicator of this process over `members` (ranks in `comm`, in the new
// order; empty: this process gets none, MPI_COMM_NULL).  Collective over `comm`.
int create_from_template(MPI_Comm comm, const std::vector<int>& members, MPI_Comm* newcomm) {
  std::vector<int> world_ranks;
  if (!members.empty())
    if (int rc = world_ranks_of(comm, members, &world_ranks); rc != MPI_SUCCESS) return rc;
  MPI_Comm found = members.empty() ? MPI_COMM_NULL : find_template(world_ranks);
  int n = 0;
  PMPI_Comm_size(comm, &n);
  std::vector<int> have(static_cast<std::size_t>(n));
  const int mine = found != MPI_COMM_NULL ? 1 : 0;
  MPI_Request req;
  if (int rc =
          complete(PMPI_Iallgather(&mine, 1, MPI_INT, have.data(), 1, MPI_INT, comm, &req), &req, MPI_STATUS_IGNORE);
      rc != MPI_SUCCESS)
    return rc;
  if (members.empty()) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  const bool all_have = std::all_of(members.begin(), members.end(), [&](int m) { return have[m] != 0; });
  if (!all_have) {
    MPI_Group comm_group, group;
    int rc = PMPI_Comm_group(comm, &comm_group);
    if (rc != MPI_SUCCESS) return rc;
    rc = PMPI_Group_incl(comm_group, static_cast<int>(members.size()), members.data(), &group);
    PMPI_Group_free(&comm_group);
    if (rc != MPI_SUCCESS) return rc;
    rc = with_yield_timer([&] { return PMPI_Comm_create_group(comm, group, kTemplateTag, &found); });
    PMPI_Group_free(&group);
    if (rc != MPI_SUCCESS) return rc;
    store_template(world_ranks, found);
  }
  if (int rc = complete(PMPI_Comm_idup(found, newcomm, &req), &req, MPI_STATUS_IGNORE); rc != MPI_SUCCESS) return rc;
  // A split or create inherits the parent's error handler; the template's may be another parent's.
  MPI_Errhandler handler;
  int rc = PMPI_Comm_get_errhandler(comm, &handler);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Comm_set_errhandler(*newcomm, handler);
  PMPI_Errhandler_free(&handler);
  return rc;
}

}  // namespace

}  // namespace armcix

// The wrappers below use the helpers above.
using namespace armcix;  // NOLINT(google-build-using-namespace)

extern "C" {

// ---- Collectives -------------------------------------------------------------------------------------

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Allgather", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer(
        [&] { return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); });
  MPI_Request req;
  return complete(PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &req), &req,
                  MPI_STATUS_IGNORE);
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Allgatherv", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer(
        [&] { return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm); });
  MPI_Request req;
  return complete(PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, &req),
                  &req, MPI_STATUS_IGNORE);
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Allreduce", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer([&] { return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm); });
  MPI_Request req;
  return complete(PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, &req), &req, MPI_STATUS_IGNORE);
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Alltoall", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer(
        [&] { return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); });
  MPI_Request req;
  return complete(PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &req), &req,
                  MPI_STATUS_IGNORE);
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Alltoallv", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer([&] {
      return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
    });
  MPI_Request req;
  return complete(
      PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, &req), &req,
      MPI_STATUS_IGNORE);
}

int MPI_Barrier(MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Barrier", 0);
  comm = world_or(comm);
  if (!yield_collective(comm)) return with_yield_timer([&] { return PMPI_Barrier(comm); });
  MPI_Request req;
  return complete(PMPI_Ibarrier(comm, &req), &req, MPI_STATUS_IGNORE, armcix::HandOff::Allowed);
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Bcast", 0);
  comm = world_or(comm);
  if (!yield_collective(comm)) return with_yield_timer([&] { return PMPI_Bcast(buffer, count, datatype, root, comm); });
  MPI_Request req;
  return complete(PMPI_Ibcast(buffer, count, datatype, root, comm, &req), &req, MPI_STATUS_IGNORE);
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Exscan", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer([&] { return PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm); });
  MPI_Request req;
  return complete(PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, &req), &req, MPI_STATUS_IGNORE);
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Gather", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer(
        [&] { return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); });
  MPI_Request req;
  return complete(PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &req), &req,
                  MPI_STATUS_IGNORE);
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Gatherv", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer(
        [&] { return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm); });
  MPI_Request req;
  return complete(PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, &req),
                  &req, MPI_STATUS_IGNORE);
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Reduce", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer([&] { return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm); });
  MPI_Request req;
  return complete(PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, &req), &req, MPI_STATUS_IGNORE);
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Reduce_scatter", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer([&] { return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm); });
  MPI_Request req;
  return complete(PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, &req), &req,
                  MPI_STATUS_IGNORE);
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Reduce_scatter_block", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer([&] { return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm); });
  MPI_Request req;
  return complete(PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, &req), &req,
                  MPI_STATUS_IGNORE);
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Scan", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer([&] { return PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm); });
  MPI_Request req;
  return complete(PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, &req), &req, MPI_STATUS_IGNORE);
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Scatter", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer(
        [&] { return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); });
  MPI_Request req;
  return complete(PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &req), &req,
                  MPI_STATUS_IGNORE);
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Scatterv", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer(
        [&] { return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm); });
  MPI_Request req;
  return complete(PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, &req),
                  &req, MPI_STATUS_IGNORE);
}

// Non-blocking collectives: only the communicator.

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request) {
  return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, world_or(comm), request);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return PMPI_Ibarrier(world_or(comm), request);
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
  return PMPI_Ibcast(buffer, count, datatype, root, world_or(comm), request);
}

// ---- Communicators and windows: collective calls without a non-blocking form --------------------------

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  return PMPI_Comm_compare(world_or(comm1), world_or(comm2), result);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Comm_create", 0);
  comm = world_or(comm);
  if (!yield_collective(comm)) return with_yield_timer([&] { return PMPI_Comm_create(comm, group, newcomm); });
  if (!use_comm_templates() || group == MPI_GROUP_NULL) {
    if (int rc = arrive_together(comm); rc != MPI_SUCCESS) return rc;
    return with_yield_timer([&] { return PMPI_Comm_create(comm, group, newcomm); });
  }
  // The members: `group` in its order, as ranks in `comm` (every process passes its own new
  // communicator's group, MPI-2.2); none if this process is not in it.
  int in_group = MPI_UNDEFINED, size = 0;
  PMPI_Group_rank(group, &in_group);
  PMPI_Group_size(group, &size);
  std::vector<int> members;
  if (in_group != MPI_UNDEFINED) {
    MPI_Group comm_group;
    if (int rc = PMPI_Comm_group(comm, &comm_group); rc != MPI_SUCCESS) return rc;
    std::vector<int> ranks(static_cast<std::size_t>(size));
    std::iota(ranks.begin(), ranks.end(), 0);
    members.assign(ranks.size(), MPI_UNDEFINED);
    const int rc = PMPI_Group_translate_ranks(group, size, ranks.data(), comm_group, members.data());
    PMPI_Group_free(&comm_group);
    if (rc != MPI_SUCCESS) return rc;
  }
  return create_from_template(comm, members, newcomm);
}

// Collective over the members of `group` only, not over `comm`: no barrier on `comm` can go first.
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Comm_create_group", 0);
  return with_yield_timer([&] { return PMPI_Comm_create_group(world_or(comm), group, tag, newcomm); });
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Comm_dup", 0);
  comm = world_or(comm);
  if (!yield_collective(comm)) return with_yield_timer([&] { return PMPI_Comm_dup(comm, newcomm); });
  MPI_Request req;
  return complete(PMPI_Comm_idup(comm, newcomm, &req), &req, MPI_STATUS_IGNORE);
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  return PMPI_Comm_group(world_or(comm), group);
}

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  return PMPI_Comm_rank(world_or(comm), rank);
}

int MPI_Comm_size(MPI_Comm comm, int* size) {
  return PMPI_Comm_size(world_or(comm), size);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Comm_split", 0);
  comm = world_or(comm);
  if (!yield_collective(comm)) return with_yield_timer([&] { return PMPI_Comm_split(comm, color, key, newcomm); });
  if (!use_comm_templates() || (color < 0 && color != MPI_UNDEFINED)) {  // a bad color: MPI reports it
    if (int rc = arrive_together(comm); rc != MPI_SUCCESS) return rc;
    return with_yield_timer([&] { return PMPI_Comm_split(comm, color, key, newcomm); });
  }
  int n = 0;
  PMPI_Comm_size(comm, &n);
  std::vector<int> color_key(2 * static_cast<std::size_t>(n));
  const int mine[2] = {color, key};
  MPI_Request req;
  if (int rc = complete(PMPI_Iallgather(mine, 2, MPI_INT, color_key.data(), 2, MPI_INT, comm, &req), &req,
                        MPI_STATUS_IGNORE);
      rc != MPI_SUCCESS)
    return rc;
  // My color's processes ordered by key, ties by rank in `comm` (MPI_Comm_split's order).
  std::vector<int> members;
  if (color != MPI_UNDEFINED) {
    for (int r = 0; r < n; ++r)
      if (color_key[2 * r] == color) members.push_back(r);
    std::stable_sort(members.begin(), members.end(),
                     [&](int a, int b) { return color_key[2 * a + 1] < color_key[2 * b + 1]; });
  }
  return create_from_template(comm, members, newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Comm_split_type", 0);
  comm = world_or(comm);
  if (yield_collective(comm))
    if (int rc = arrive_together(comm); rc != MPI_SUCCESS) return rc;
  return with_yield_timer([&] { return PMPI_Comm_split_type(comm, split_type, key, info, newcomm); });
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  return PMPI_Comm_set_errhandler(world_or(comm), errhandler);
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Win_allocate", 0);
  comm = world_or(comm);
  if (yield_collective(comm))
    if (int rc = arrive_together(comm); rc != MPI_SUCCESS) return rc;
  return with_yield_timer([&] { return PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win); });
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Win_allocate_shared", 0);
  comm = world_or(comm);
  if (yield_collective(comm))
    if (int rc = arrive_together(comm); rc != MPI_SUCCESS) return rc;
  return with_yield_timer([&] { return PMPI_Win_allocate_shared(size, disp_unit, info, comm, baseptr, win); });
}

int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Win_create", 0);
  comm = world_or(comm);
  if (yield_collective(comm))
    if (int rc = arrive_together(comm); rc != MPI_SUCCESS) return rc;
  return with_yield_timer([&] { return PMPI_Win_create(base, size, disp_unit, info, comm, win); });
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Win_create_dynamic", 0);
  comm = world_or(comm);
  if (yield_collective(comm))
    if (int rc = arrive_together(comm); rc != MPI_SUCCESS) return rc;
  return with_yield_timer([&] { return PMPI_Win_create_dynamic(info, comm, win); });
}

// Freeing a window synchronises its processes (MPICH: a barrier, busy-polled) and has no non-blocking form.
int MPI_Win_free(MPI_Win* win) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Win_free", 0);
  return with_yield_timer([&] { return PMPI_Win_free(win); });
}

// ---- Point to point --------------------------------------------------------------------------------------

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  return PMPI_Iprobe(source, tag, world_or(comm), flag, status);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  return PMPI_Irecv(buf, count, datatype, source, tag, world_or(comm), request);
}

int MPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return PMPI_Isend(buf, count, datatype, dest, tag, world_or(comm), request);
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Probe", 0);
  comm = world_or(comm);
  if (!yield_p2p() || source == MPI_PROC_NULL)
    return with_yield_timer([&] { return PMPI_Probe(source, tag, comm, status); });  // returns at once
  armcix::BackoffPause pause_between_polls = poll_pause();
  for (;;) {
    int found = 0;
    const int rc = PMPI_Iprobe(source, tag, comm, &found, status);
    if (rc != MPI_SUCCESS || found) {
      count_yielding_call();
      return rc;
    }
    pause_between_polls();
  }
}

int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Recv", 0);
  comm = world_or(comm);
  // MPI_PROC_NULL returns at once; MPICH 4.0.2 would give the request's status source 0 and tag 0 instead
  // of MPI_PROC_NULL and MPI_ANY_TAG.
  if (!yield_p2p() || source == MPI_PROC_NULL)
    return with_yield_timer([&] { return PMPI_Recv(buf, count, datatype, source, tag, comm, status); });
  MPI_Request req;
  return complete(PMPI_Irecv(buf, count, datatype, source, tag, comm, &req), &req, status);
}

int MPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Rsend", 0);
  comm = world_or(comm);
  if (!yield_p2p()) return with_yield_timer([&] { return PMPI_Rsend(buf, count, datatype, dest, tag, comm); });
  MPI_Request req;
  return complete(PMPI_Irsend(buf, count, datatype, dest, tag, comm, &req), &req, MPI_STATUS_IGNORE);
}

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Send", 0);
  comm = world_or(comm);
  if (!yield_p2p()) return with_yield_timer([&] { return PMPI_Send(buf, count, datatype, dest, tag, comm); });
  MPI_Request req;
  return complete(PMPI_Isend(buf, count, datatype, dest, tag, comm, &req), &req, MPI_STATUS_IGNORE);
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Sendrecv", 0);
  comm = world_or(comm);
  if (!yield_p2p())
    return with_yield_timer([&] {
      return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                           comm, status);
    });
  MPI_Request reqs[2];
  int rc = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &reqs[0]);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &reqs[1]);
  if (rc != MPI_SUCCESS) {
    // The call fails as a whole: take the receive back (its own errors do not matter any more).
    PMPI_Cancel(&reqs[0]);
    PMPI_Request_free(&reqs[0]);
    return rc;
  }
  // The receive first (its status is the call's), then the send.
  rc = complete(MPI_SUCCESS, &reqs[0], status);
  if (source == MPI_PROC_NULL && status != MPI_STATUS_IGNORE) {
    // What the blocking call reports; MPICH 4.0.2's request status says source 0, tag 0.
    status->MPI_SOURCE = MPI_PROC_NULL;
    status->MPI_TAG = MPI_ANY_TAG;
  }
  const int send_rc = complete(MPI_SUCCESS, &reqs[1], MPI_STATUS_IGNORE);
  return rc != MPI_SUCCESS ? rc : send_rc;
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Ssend", 0);
  comm = world_or(comm);
  if (!yield_p2p()) return with_yield_timer([&] { return PMPI_Ssend(buf, count, datatype, dest, tag, comm); });
  MPI_Request req;
  return complete(PMPI_Issend(buf, count, datatype, dest, tag, comm, &req), &req, MPI_STATUS_IGNORE);
}

// ---- Completion ------------------------------------------------------------------------------------------

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Wait", 0);
  if (!yield_p2p()) return with_yield_timer([&] { return PMPI_Wait(request, status); });
  return complete(MPI_SUCCESS, request, status);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Waitall", 0);
  if (!yield_p2p()) return with_yield_timer([&] { return PMPI_Waitall(count, requests, statuses); });
  armcix::BackoffPause pause_between_polls = poll_pause();
  for (;;) {
    int done = 0;
    const int rc = PMPI_Testall(count, requests, &done, statuses);
    if (rc != MPI_SUCCESS || done) {
      count_yielding_call();
      return rc;
    }
    pause_between_polls();
  }
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Waitany", 0);
  if (!yield_p2p()) return with_yield_timer([&] { return PMPI_Waitany(count, requests, index, status); });
  armcix::BackoffPause pause_between_polls = poll_pause();
  for (;;) {
    int done = 0;
    const int rc = PMPI_Testany(count, requests, index, &done, status);
    if (rc != MPI_SUCCESS || done) {
      count_yielding_call();
      return rc;
    }
    pause_between_polls();
  }
}

// MPI_Testsome gives outcount 0 while nothing has completed, MPI_UNDEFINED when no request is active
// (what MPI_Waitsome returns then too).
int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Waitsome", 0);
  if (!yield_p2p())
    return with_yield_timer([&] { return PMPI_Waitsome(incount, requests, outcount, indices, statuses); });
  armcix::BackoffPause pause_between_polls = poll_pause();
  for (;;) {
    const int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
    if (rc != MPI_SUCCESS || *outcount != 0) {
      count_yielding_call();
      return rc;
    }
    pause_between_polls();
  }
}

// Both decide the progress ranks' roles once MPI is up (5. above); a progress rank does not return.
int MPI_Init(int* argc, char*** argv) {
  if (armcix::Config::progress_thread_requested()) {
    int provided = MPI_THREAD_SINGLE;
    return MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
  }
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) armcix::after_mpi_init(argc, argv, MPI_THREAD_SINGLE);
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int asked = required;
  if (required < MPI_THREAD_MULTIPLE && armcix::Config::progress_thread_requested()) {
    armcix::set_program_thread_request(required);
    required = MPI_THREAD_MULTIPLE;
  }
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) armcix::after_mpi_init(argc, argv, asked);
  return rc;
}

// With progress ranks: release them if ARMCI never ran, else meet them, so that every process enters
// MPI_Finalize together (progress/progress_ranks.h).
int MPI_Finalize(void) {
  armcix::before_mpi_finalize();
  return with_yield_timer([&] { return PMPI_Finalize(); });
}

}  // extern "C"
