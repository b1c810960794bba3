#include "checks/collective_check.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>

#include "base/error.h"
#include "base/state.h"
#include "base/thread_lock.h"
#include "shm/node_sync.h"
#include "wait/wait.h"

namespace armcix {

namespace {

// The private duplicate a communicator's agreements run on (an attribute of it), so that an agreement never
// meets the application's collectives or armci_msg_*'s.  The world group's communicator (the runtime's)
// has one, which ARMCI_Barrier and ARMCI_Finalize share (ARMCI_Malloc on the world group and ARMCI_Barrier
// meet); every other group gets its own, even one with the world's members in the world's order: its
// collectives form a sequence of their own, which another thread may run beside the world's
// (doc/design.md, "Threads").  Made at the first checked collective, not in ARMCI_Init, since on MPICH each
// communicator beyond the first few costs a pool allocation (doc/performance.md, "Where the time went");
// non-blocking, so that ARMCI_COLLECTIVE_TIMEOUT names a process that is elsewhere.  Freed with the
// communicator (the world's in collective_check_finalize).
struct CheckComm {
  MPI_Comm comm;
  bool owned;  // false: the world's duplicate, shared
};
int g_keyval = MPI_KEYVAL_INVALID;
MPI_Comm g_world_check = MPI_COMM_NULL;

int free_check_comm(MPI_Comm, int, void* attr, void*) {
  auto* c = static_cast<CheckComm*>(attr);
  int rc = c->owned ? MPI_Comm_free(&c->comm) : MPI_SUCCESS;
  delete c;
  return rc;
}

// Waits for the agreement.  With ARMCI_COLLECTIVE_TIMEOUT=s > 0 a process that never arrives (it skipped
// the call, or waits in a collective on another group) ends the wait after s seconds with an error.
void wait_agreement(const char* call, MPI_Request* req, MPI_Comm cc) {
  const int timeout_s = rt().config.collective_timeout_s;
  if (timeout_s <= 0) return wait_for(call, req);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  const int backoff_us = rt().resolved.wait_backoff_us > 0 ? rt().resolved.wait_backoff_us : 50;
  // As wait_for: a process that has not arrived may wait for another thread of this one (thread_lock.h).
  ApiUnlocked unlocked;
  poll_until(
      [&] {
        int done = 0;
        ARMCIX_MPI(MPI_Test(req, &done, MPI_STATUS_IGNORE));
        return done != 0;
      },
      [&] {
        if (std::chrono::steady_clock::now() <= deadline) return;
        int n = 0;
        ARMCIX_MPI(MPI_Comm_size(cc, &n));
        fail(call,
             "not every one of the %d processes taking part entered this collective call within %d s "
             "(ARMCI_COLLECTIVE_TIMEOUT): a process skipped it, or waits in a collective on another group",
             n, timeout_s);
      },
      [&] { std::this_thread::sleep_for(std::chrono::microseconds(backoff_us)); });
}

MPI_Comm duplicate_for_checks(const char* call, MPI_Comm comm) {
  MPI_Comm dup;
  MPI_Request req;
  ARMCIX_MPI(MPI_Comm_idup(comm, &dup, &req));
  wait_agreement(call, &req, comm);
  ARMCIX_MPI(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
  return dup;
}

MPI_Comm check_comm_of(const char* call, MPI_Comm comm) {
  if (g_keyval == MPI_KEYVAL_INVALID)
    ARMCIX_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_check_comm, &g_keyval, nullptr));
  void* attr = nullptr;
  int found = 0;
  ARMCIX_MPI(MPI_Comm_get_attr(comm, g_keyval, &attr, &found));
  if (found) return static_cast<CheckComm*>(attr)->comm;
  auto* c = new CheckComm{MPI_COMM_NULL, false};
  if (comm == rt().world) {
    if (g_world_check == MPI_COMM_NULL) g_world_check = duplicate_for_checks(call, rt().world);
    c->comm = g_world_check;
  } else {
    c->comm = duplicate_for_checks(call, comm);
    c->owned = true;
  }
  ARMCIX_MPI(MPI_Comm_set_attr(comm, g_keyval, c));
  return c->comm;
}

const char* kind_name(long kind) {
  switch (static_cast<Collective>(kind)) {
    case Collective::Malloc:
      return "ARMCI_Malloc";
    case Collective::Free:
      return "ARMCI_Free";
    case Collective::GroupCreate:
      return "ARMCI_Group_create";
    case Collective::GroupFree:
      return "ARMCI_Group_free";
    case Collective::CreateMutexes:
      return "ARMCI_Create_mutexes";
    case Collective::DestroyMutexes:
      return "ARMCI_Destroy_mutexes";
    case Collective::Barrier:
      return "ARMCI_Barrier";
    case Collective::Finalize:
      return "ARMCI_Finalize";
  }
  return "an unknown ARMCI collective";
}

// World ranks of ranks a and b of `cc`.
void world_ranks(MPI_Comm cc, int a, int b, int* abs) {
  MPI_Group cg, wg;
  int pair[2] = {a, b};
  ARMCIX_MPI(MPI_Comm_group(cc, &cg));
  ARMCIX_MPI(MPI_Comm_group(rt().world, &wg));
  ARMCIX_MPI(MPI_Group_translate_ranks(cg, 2, pair, wg, abs));
  ARMCIX_MPI(MPI_Group_free(&cg));
  ARMCIX_MPI(MPI_Group_free(&wg));
}

// Every member holds every (kind, object) record, so every member finds the same two processes and fails
// alike.
void verify_records(const char* call, const char* what, const std::vector<long>& rec, int n, MPI_Comm cc) {
  int a = 0, b = -1;
  for (int p = 1; p < n && b < 0; ++p)
    if (rec[2 * p] != rec[0]) b = p;
  if (b >= 0) {
    int abs[2];
    world_ranks(cc, a, b, abs);
    fail(call,
         "collective calls do not match (ARMCI_CHECK_COLLECTIVES): process %d is in %s while process %d is in "
         "%s; every process of the group must make the same collective calls in the same order",
         abs[0], kind_name(rec[2 * a]), abs[1], kind_name(rec[2 * b]));
  }
  a = -1;
  for (int p = 0; p < n && b < 0; ++p) {
    const long obj = rec[2 * p + 1];
    if (obj == kAnyObject) continue;
    if (a < 0)
      a = p;
    else if (obj != rec[2 * a + 1])
      b = p;
  }
  if (b < 0) return;
  int abs[2];
  world_ranks(cc, a, b, abs);
  fail(call,
       "collective calls do not match (ARMCI_CHECK_COLLECTIVES): process %d calls %s on %s %ld while process %d "
       "calls it on %s %ld",
       abs[0], kind_name(rec[0]), what, rec[2 * a + 1], abs[1], what, rec[2 * b + 1]);
}

// On one oversubscribed node, the world's collectives meet through shared memory (shm/node_sync.h): one
// futex wake-up instead of MPI's rounds, each waiting for a sleeping peer.  Not with
// ARMCI_COLLECTIVE_TIMEOUT, whose clock runs in MPI's path.  Only the world's own communicator: the page
// holds one sequence of collectives, and another group's (even with the same members) may run beside the
// world's on another thread.
bool on_node_path(MPI_Comm comm) {
  return node_sync_on() && rt().config.collective_timeout_s <= 0 && comm == rt().world;
}

// An agreement record: kind and object as maxima and negated minima (so that one MPI_MAX finds both), then
// the caller's payload.  kAnyObject takes no part (LONG_MIN in both object fields).
constexpr int kAgreement = 4 + kReducePayload;
constexpr long kNone = std::numeric_limits<long>::min();

}  // namespace

void collective_reduce(const char* call, Collective kind, MPI_Comm comm, const char* what, long object,
                       const long (&payload)[kReducePayload], long (&out)[kReducePayload]) {
  const bool node_path = on_node_path(comm);
  MPI_Request req;
  if (!rt().config.check_collectives) {
    for (int i = 0; i < kReducePayload; ++i) out[i] = payload[i];
    if (node_path && node_allreduce(call, NodeExchange::Agreement, out, kReducePayload, MPI_LONG, MPI_MAX, sizeof out))
      return;
    ARMCIX_MPI(MPI_Iallreduce(payload, out, kReducePayload, MPI_LONG, MPI_MAX, comm, &req));
    wait_for(call, &req);
    return;
  }
  const long k = static_cast<long>(kind);
  long rec[kAgreement] = {k, -k, object == kAnyObject ? kNone : object, object == kAnyObject ? kNone : -object};
  for (int i = 0; i < kReducePayload; ++i) rec[4 + i] = payload[i];
  // Ranks of the check communicator are those of `comm` (its duplicate).
  MPI_Comm cc = check_comm_of(call, comm);
  long all[kAgreement];
  std::copy(rec, rec + kAgreement, all);
  if (!(node_path && node_allreduce(call, NodeExchange::Agreement, all, kAgreement, MPI_LONG, MPI_MAX, sizeof all))) {
    ARMCIX_MPI(MPI_Iallreduce(rec, all, kAgreement, MPI_LONG, MPI_MAX, cc, &req));
    wait_agreement(call, &req, cc);
  }
  const bool kinds_agree = all[0] == -all[1];
  const bool objects_agree = all[2] == kNone || all[2] == -all[3];
  if (!kinds_agree || !objects_agree) {
    // Every member saw the same maxima, so every member is here: gather who is where, and name two.
    int n = 0;
    ARMCIX_MPI(MPI_Comm_size(cc, &n));
    std::vector<long> recs(2 * static_cast<std::size_t>(n));
    const long mine[2] = {k, object};
    ARMCIX_MPI(MPI_Iallgather(mine, 2, MPI_LONG, recs.data(), 2, MPI_LONG, cc, &req));
    wait_agreement(call, &req, cc);
    verify_records(call, what, recs, n, cc);
    fail(call, "collective calls do not match (ARMCI_CHECK_COLLECTIVES)");  // not reached: verify_records names them
  }
  for (int i = 0; i < kReducePayload; ++i) out[i] = all[4 + i];
}

void collective_allgather(const char* call, MPI_Comm comm, const long* mine, int count, long* all) {
  const std::size_t bytes = sizeof(long) * static_cast<std::size_t>(count);
  if (on_node_path(comm) && node_allgather(call, mine, all, bytes)) return;
  MPI_Request req;
  ARMCIX_MPI(MPI_Iallgather(mine, count, MPI_LONG, all, count, MPI_LONG, comm, &req));
  wait_for(call, &req);
}

void collective_check(const char* call, Collective kind, MPI_Comm comm) {
  if (!rt().config.check_collectives) return;
  long ignored[kReducePayload];
  collective_reduce(call, kind, comm, "", kAnyObject, {0, 0, 0}, ignored);
}

void collective_check_lists(const char* call, Collective kind, MPI_Comm comm, const int* members, int n,
                            long fingerprint) {
  if (!rt().config.check_collectives) return;
  // Identical lists everywhere (the world's, or one group of all): the agreement's maxima say so.  Kept to
  // 62 bits so that negating it cannot overflow.
  const long print = fingerprint & 0x3fffffffffffffffL;
  long agreed[kReducePayload];
  collective_reduce(call, kind, comm, "", kAnyObject, {print, -print, 0}, agreed);
  if (agreed[0] == -agreed[1]) return;
  // Lists differ somewhere (disjoint groups, or a mistake): every process needs every fingerprint.
  MPI_Comm cc = check_comm_of(call, comm);
  int size = 0;
  ARMCIX_MPI(MPI_Comm_size(cc, &size));
  std::vector<long> prints(size);
  MPI_Request req;
  ARMCIX_MPI(MPI_Iallgather(&print, 1, MPI_LONG, prints.data(), 1, MPI_LONG, cc, &req));
  wait_agreement(call, &req, cc);
  // The first member of my list whose own list differs from mine; then everyone learns every answer.
  int bad = -1;
  for (int i = 0; i < n && bad < 0; ++i)
    if (prints[members[i]] != print) bad = members[i];
  // Disjoint lists (GA's per-node groups) are the common case: one small allreduce says whether any process
  // found a bad member, and only then do all gather who it was.
  int found = bad >= 0 ? 1 : 0, any = 0;
  ARMCIX_MPI(MPI_Iallreduce(&found, &any, 1, MPI_INT, MPI_MAX, cc, &req));
  wait_agreement(call, &req, cc);
  if (!any) return;
  std::vector<int> bads(size);
  ARMCIX_MPI(MPI_Iallgather(&bad, 1, MPI_INT, bads.data(), 1, MPI_INT, cc, &req));
  wait_agreement(call, &req, cc);
  for (int p = 0; p < size; ++p) {
    if (bads[p] < 0) continue;
    int abs[2];
    world_ranks(cc, p, bads[p], abs);
    fail(call,
         "collective calls do not match (ARMCI_CHECK_COLLECTIVES): processes %d and %d call %s with a different "
         "pid_list, and process %d's list names process %d (the lists must be identical or disjoint)",
         abs[0], abs[1], kind_name(static_cast<long>(kind)), abs[0], abs[1]);
  }
}

void collective_barrier(const char* call, Collective kind, MPI_Comm comm) {
  if (rt().config.check_collectives) return collective_check(call, kind, comm);
  MPI_Request req;
  ARMCIX_MPI(MPI_Ibarrier(comm, &req));
  wait_for(call, &req);
}

void collective_check_finalize() {
  // The runtime's communicators are freed after this, and their attributes only delete their records.
  if (g_keyval != MPI_KEYVAL_INVALID) ARMCIX_MPI(MPI_Comm_free_keyval(&g_keyval));
  if (g_world_check != MPI_COMM_NULL) ARMCIX_MPI(MPI_Comm_free(&g_world_check));
}

}  // namespace armcix
