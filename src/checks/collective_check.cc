#include "checks/collective_check.h"

#include <chrono>
#include <thread>

#include "base/error.h"
#include "base/state.h"
#include "wait/node_sync.h"
#include "wait/wait.h"

namespace armcix {

namespace {

// The private duplicate a communicator's agreements run on, cached as an attribute of it, so that an
// agreement never meets the application's collectives or armci_msg_*'s on the communicator itself.  Every
// communicator congruent to the world (same processes, same order: ARMCI's world group, the runtime's
// communicator) shares one duplicate of the runtime's communicator, so that ARMCI_Malloc on the world group
// and ARMCI_Barrier meet; a group gets its own.  Each is made at its first checked collective (collective
// over those processes, who are all in that call when the program is right) rather than in ARMCI_Init: on
// MPICH the communicator beyond the first few costs a pool allocation of ~3.5 ms (runtime/runtime.cc).
// Made non-blocking and waited for as the agreement is, so that ARMCI_COLLECTIVE_TIMEOUT names a process
// that is elsewhere.  Freed with the communicator (the world's in collective_check_finalize).
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
  int cmp = MPI_UNEQUAL;
  ARMCIX_MPI(MPI_Comm_compare(comm, rt().world, &cmp));
  auto* c = new CheckComm{MPI_COMM_NULL, false};
  if (cmp == MPI_IDENT || cmp == MPI_CONGRUENT) {
    if (g_world_check == MPI_COMM_NULL) g_world_check = duplicate_for_checks(call, rt().world);
    c->comm = g_world_check;
  } else {
    c->comm = duplicate_for_checks(call, comm);
    c->owned = true;
  }
  ARMCIX_MPI(MPI_Comm_set_attr(comm, g_keyval, c));
  return c->comm;
}

// True if `comm` has the world's processes in the world's order (ARMCI's world group, the runtime's world).
bool congruent_with_world(MPI_Comm comm) {
  if (comm == rt().world) return true;
  int cmp = MPI_UNEQUAL;
  ARMCIX_MPI(MPI_Comm_compare(comm, rt().world, &cmp));
  return cmp == MPI_IDENT || cmp == MPI_CONGRUENT;
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

constexpr int kRecord = 2 + kGatherPayload;  // kind, object, payload

// Every member holds every record, so every member finds the same two processes and fails alike.
void verify_records(const char* call, const char* what, const std::vector<long>& rec, int n, MPI_Comm cc) {
  int a = 0, b = -1;
  for (int p = 1; p < n && b < 0; ++p)
    if (rec[kRecord * p] != rec[0]) b = p;
  if (b >= 0) {
    int abs[2];
    world_ranks(cc, a, b, abs);
    fail(call,
         "collective calls do not match (ARMCI_CHECK_COLLECTIVES): process %d is in %s while process %d is in "
         "%s; every process of the group must make the same collective calls in the same order",
         abs[0], kind_name(rec[kRecord * a]), abs[1], kind_name(rec[kRecord * b]));
  }
  a = -1;
  for (int p = 0; p < n && b < 0; ++p) {
    const long obj = rec[kRecord * p + 1];
    if (obj == kAnyObject) continue;
    if (a < 0)
      a = p;
    else if (obj != rec[kRecord * a + 1])
      b = p;
  }
  if (b < 0) return;
  int abs[2];
  world_ranks(cc, a, b, abs);
  fail(call,
       "collective calls do not match (ARMCI_CHECK_COLLECTIVES): process %d calls %s on %s %ld while process %d "
       "calls it on %s %ld",
       abs[0], kind_name(rec[0]), what, rec[kRecord * a + 1], abs[1], what, rec[kRecord * b + 1]);
}

}  // namespace

void collective_gather(const char* call, Collective kind, MPI_Comm comm, const char* what, long object,
                       const long (&payload)[kGatherPayload], std::vector<long>* out) {
  int n = 0;
  ARMCIX_MPI(MPI_Comm_size(comm, &n));
  out->resize(static_cast<std::size_t>(n) * kGatherPayload);
  // On one oversubscribed node, a communicator with the world's processes in the world's order gathers
  // through shared memory (wait/node_sync.h): one futex wake-up instead of MPI's rounds, each waiting
  // for a sleeping peer.  Not with ARMCI_COLLECTIVE_TIMEOUT, whose clock runs in MPI's path below.
  const bool node_path = node_sync_on() && rt().config.collective_timeout_s <= 0 && congruent_with_world(comm);
  MPI_Request req;
  if (!rt().config.check_collectives) {
    if (node_path && node_allgather(call, payload, out->data(), sizeof payload)) return;
    ARMCIX_MPI(MPI_Iallgather(payload, kGatherPayload, MPI_LONG, out->data(), kGatherPayload, MPI_LONG, comm, &req));
    wait_for(call, &req);
    return;
  }
  long mine[kRecord] = {static_cast<long>(kind), object};
  for (int i = 0; i < kGatherPayload; ++i) mine[2 + i] = payload[i];
  std::vector<long> rec(static_cast<std::size_t>(n) * kRecord);
  // Ranks of the check communicator are those of `comm` (a duplicate, or the world's for a congruent one).
  MPI_Comm cc = check_comm_of(call, comm);
  if (!(node_path && node_allgather(call, mine, rec.data(), sizeof mine))) {
    ARMCIX_MPI(MPI_Iallgather(mine, kRecord, MPI_LONG, rec.data(), kRecord, MPI_LONG, cc, &req));
    wait_agreement(call, &req, cc);
  }
  verify_records(call, what, rec, n, cc);
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < kGatherPayload; ++i) (*out)[kGatherPayload * p + i] = rec[kRecord * p + 2 + i];
}

void collective_check(const char* call, Collective kind, MPI_Comm comm) {
  if (!rt().config.check_collectives) return;
  std::vector<long> ignored;
  collective_gather(call, kind, comm, "", kAnyObject, {0, 0, 0}, &ignored);
}

void collective_check_lists(const char* call, Collective kind, MPI_Comm comm, const int* members, int n,
                            long fingerprint) {
  if (!rt().config.check_collectives) return;
  std::vector<long> prints;  // per rank: fingerprint, 0, 0
  collective_gather(call, kind, comm, "", kAnyObject, {fingerprint, 0, 0}, &prints);
  // The first member of my list whose own list differs from mine; then everyone learns every answer.
  int bad = -1;
  for (int i = 0; i < n && bad < 0; ++i)
    if (prints[kGatherPayload * members[i]] != fingerprint) bad = members[i];
  MPI_Comm cc = check_comm_of(call, comm);
  int size = 0;
  ARMCIX_MPI(MPI_Comm_size(cc, &size));
  std::vector<int> bads(size);
  MPI_Request req;
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
