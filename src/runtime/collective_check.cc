#include "runtime/collective_check.h"

#include <chrono>
#include <climits>
#include <thread>
#include <vector>

#include "runtime/error.h"
#include "runtime/progress.h"
#include "runtime/runtime.h"

namespace armcix {

namespace {

// Agreement traffic runs on private duplicates, so that it can never match another collective of the
// application or of the library.  Every communicator spanning all processes shares one duplicate of the
// world (ARMCI_Malloc uses the world group's communicator, ARMCI_Barrier the runtime's: a rank in one and a
// rank in the other must still meet); a group's duplicate is cached on its communicator.
MPI_Comm g_world_check = MPI_COMM_NULL;
int g_keyval = MPI_KEYVAL_INVALID;

int free_check_comm(MPI_Comm, int, void* attr, void*) {
  auto* c = static_cast<MPI_Comm*>(attr);
  int rc = MPI_Comm_free(c);
  delete c;
  return rc;
}

MPI_Comm check_comm_of(MPI_Comm comm) {
  int size = 0;
  ARMCIX_MPI(MPI_Comm_size(comm, &size));
  if (size == rt().nproc) {
    if (g_world_check == MPI_COMM_NULL) {
      ARMCIX_MPI(MPI_Comm_dup(rt().world, &g_world_check));
      ARMCIX_MPI(MPI_Comm_set_errhandler(g_world_check, MPI_ERRORS_RETURN));
    }
    return g_world_check;
  }
  if (g_keyval == MPI_KEYVAL_INVALID)
    ARMCIX_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_check_comm, &g_keyval, nullptr));
  void* attr = nullptr;
  int found = 0;
  ARMCIX_MPI(MPI_Comm_get_attr(comm, g_keyval, &attr, &found));
  if (found) return *static_cast<MPI_Comm*>(attr);
  auto* c = new MPI_Comm;
  ARMCIX_MPI(MPI_Comm_dup(comm, c));
  ARMCIX_MPI(MPI_Comm_set_errhandler(*c, MPI_ERRORS_RETURN));
  ARMCIX_MPI(MPI_Comm_set_attr(comm, g_keyval, c));
  return *c;
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

// Waits for the agreement.  With ARMCI_COLLECTIVE_TIMEOUT=s > 0 a process that never arrives (it skipped
// the call, or waits in a collective on another group) ends the wait after s seconds with an error.
void wait_agreement(const char* call, MPI_Request* req, MPI_Comm cc) {
  const int timeout_s = rt().config.collective_timeout_s;
  if (timeout_s <= 0) return wait_for(call, req);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  const int backoff_us = rt().config.wait_backoff_us > 0 ? rt().config.wait_backoff_us : 50;
  for (;;) {
    int done = 0;
    ARMCIX_MPI(MPI_Test(req, &done, MPI_STATUS_IGNORE));
    if (done) return;
    if (std::chrono::steady_clock::now() > deadline) {
      int n = 0;
      ARMCIX_MPI(MPI_Comm_size(cc, &n));
      fail(call,
           "not every one of the %d processes taking part entered this collective call within %d s "
           "(ARMCI_COLLECTIVE_TIMEOUT): a process skipped it, or waits in a collective on another group",
           n, timeout_s);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(backoff_us));
  }
}

// Every member saw the disagreement in the allreduce, so every member gathers the details and fails
// with the same two processes named.
[[noreturn]] void report_mismatch(const char* call, long my_kind, const char* what, long my_object, bool fingerprint,
                                  MPI_Comm cc) {
  int n = 0;
  ARMCIX_MPI(MPI_Comm_size(cc, &n));
  long mine[2] = {my_kind, my_object};
  std::vector<long> all(2 * static_cast<std::size_t>(n));
  ARMCIX_MPI(MPI_Allgather(mine, 2, MPI_LONG, all.data(), 2, MPI_LONG, cc));
  int a = 0, b = -1;
  for (int p = 1; p < n && b < 0; ++p)
    if (all[2 * p] != all[0]) b = p;
  if (b < 0) {  // same call everywhere: two processes naming different objects
    a = -1;
    for (int p = 0; p < n && b < 0; ++p) {
      if (all[2 * p + 1] == kAnyObject) continue;
      if (a < 0)
        a = p;
      else if (all[2 * p + 1] != all[2 * a + 1])
        b = p;
    }
  }
  if (a < 0 || b < 0) fail(call, "internal error: collective check saw a disagreement it cannot find");
  // Absolute ranks for the message.
  MPI_Group cg, wg;
  int pair[2] = {a, b}, abs[2] = {a, b};
  ARMCIX_MPI(MPI_Comm_group(cc, &cg));
  ARMCIX_MPI(MPI_Comm_group(rt().world, &wg));
  ARMCIX_MPI(MPI_Group_translate_ranks(cg, 2, pair, wg, abs));
  ARMCIX_MPI(MPI_Group_free(&cg));
  ARMCIX_MPI(MPI_Group_free(&wg));
  if (all[2 * a] != all[2 * b])
    fail(call,
         "collective calls do not match (ARMCI_CHECK_COLLECTIVES): process %d is in %s while process %d is in "
         "%s; every process of the group must make the same collective calls in the same order",
         abs[0], kind_name(all[2 * a]), abs[1], kind_name(all[2 * b]));
  if (fingerprint)
    fail(call,
         "collective calls do not match (ARMCI_CHECK_COLLECTIVES): processes %d and %d call %s with a different "
         "%s; every process must pass the same",
         abs[0], abs[1], kind_name(all[2 * a]), what);
  fail(call,
       "collective calls do not match (ARMCI_CHECK_COLLECTIVES): process %d calls %s on %s %ld while process %d "
       "calls it on %s %ld",
       abs[0], kind_name(all[2 * a]), what, all[2 * a + 1], abs[1], what, all[2 * b + 1]);
}

void agree(const char* call, Collective kind, MPI_Comm comm, const char* what, long object, bool fingerprint) {
  MPI_Comm cc = check_comm_of(comm);
  const long k = static_cast<long>(kind);
  const bool has = object != kAnyObject;
  // One MIN reduction gives the minimum and (negated) the maximum of the call and of the object; a process
  // without an object contributes the neutral LONG_MAX to both.
  long v[4] = {k, has ? object : LONG_MAX, -k, has ? -object : LONG_MAX};
  MPI_Request req;
  ARMCIX_MPI(MPI_Iallreduce(MPI_IN_PLACE, v, 4, MPI_LONG, MPI_MIN, cc, &req));
  wait_agreement(call, &req, cc);
  const bool same_kind = v[0] == -v[2];
  const bool same_object = v[1] == LONG_MAX || v[1] == -v[3];
  if (!same_kind || !same_object) report_mismatch(call, k, what, object, fingerprint, cc);
}

}  // namespace

void collective_check(const char* call, Collective kind, MPI_Comm comm, const char* what, long object,
                      bool fingerprint) {
  if (!rt().config.check_collectives) return;
  agree(call, kind, comm, what, object, fingerprint);
}

void collective_check_lists(const char* call, Collective kind, MPI_Comm comm, const int* members, int n,
                            long fingerprint) {
  if (!rt().config.check_collectives) return;
  agree(call, kind, comm, "", kAnyObject, false);  // first: everyone is in this call at all
  MPI_Comm cc = check_comm_of(comm);
  // Members as ranks of the check communicator (the world's duplicate may order them differently).
  std::vector<int> mine(members, members + n);
  if (cc == g_world_check) {
    MPI_Group from, to;
    ARMCIX_MPI(MPI_Comm_group(comm, &from));
    ARMCIX_MPI(MPI_Comm_group(cc, &to));
    ARMCIX_MPI(MPI_Group_translate_ranks(from, n, members, to, mine.data()));
    ARMCIX_MPI(MPI_Group_free(&from));
    ARMCIX_MPI(MPI_Group_free(&to));
  }
  int size = 0;
  ARMCIX_MPI(MPI_Comm_size(cc, &size));
  std::vector<long> prints(size);
  MPI_Request req;
  ARMCIX_MPI(MPI_Iallgather(&fingerprint, 1, MPI_LONG, prints.data(), 1, MPI_LONG, cc, &req));
  wait_agreement(call, &req, cc);
  // The first member of my list whose own list differs from mine; then everyone learns every answer.
  int bad = -1;
  for (int q : mine)
    if (prints[q] != fingerprint) {
      bad = q;
      break;
    }
  std::vector<int> bads(size);
  ARMCIX_MPI(MPI_Iallgather(&bad, 1, MPI_INT, bads.data(), 1, MPI_INT, cc, &req));
  wait_agreement(call, &req, cc);
  for (int p = 0; p < size; ++p) {
    if (bads[p] < 0) continue;
    MPI_Group cg, wg;
    int pair[2] = {p, bads[p]}, abs[2] = {p, bads[p]};
    ARMCIX_MPI(MPI_Comm_group(cc, &cg));
    ARMCIX_MPI(MPI_Comm_group(rt().world, &wg));
    ARMCIX_MPI(MPI_Group_translate_ranks(cg, 2, pair, wg, abs));
    ARMCIX_MPI(MPI_Group_free(&cg));
    ARMCIX_MPI(MPI_Group_free(&wg));
    fail(call,
         "collective calls do not match (ARMCI_CHECK_COLLECTIVES): processes %d and %d call %s with a different "
         "pid_list, and process %d's list names process %d (the lists must be identical or disjoint)",
         abs[0], abs[1], kind_name(static_cast<long>(kind)), abs[0], abs[1]);
  }
}

void collective_barrier(const char* call, Collective kind, MPI_Comm comm) {
  if (rt().config.check_collectives) return agree(call, kind, comm, "", kAnyObject, false);
  MPI_Request req;
  ARMCIX_MPI(MPI_Ibarrier(comm, &req));
  wait_for(call, &req);
}

void collective_check_finalize() {
  if (g_world_check != MPI_COMM_NULL) ARMCIX_MPI(MPI_Comm_free(&g_world_check));
  if (g_keyval != MPI_KEYVAL_INVALID) ARMCIX_MPI(MPI_Comm_free_keyval(&g_keyval));
}

}  // namespace armcix
