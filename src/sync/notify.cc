// Classic ARMCI notification (armci_notify / armci_notify_wait, GA's testnotify): a pairwise counter that
// orders a process's earlier puts to a peer before the peer's wake-up.
//   armci_notify(p):          everything this process issued to p is made remotely complete (as
//                             ARMCI_Fence(p)), then p is told; returns the number of notifications sent to p.
//   armci_notify_wait(p, &w): counts one more wait on p, blocks until as many notifications from p have
//                             arrived, sets *w to the waits so far and returns the notifications received.
// Classic ARMCI puts the sender's counter into a notification array every process allocates at start-up.
// Here a notification is an empty message on the runtime's communicator with tag MPI_TAG_UB
// (Runtime::notify_tag), which armci_msg_* refuses (its tags are 0..MPI_TAG_UB-1), so that no memory is
// allocated at ARMCI_Init for programs that never notify, and a waiting process blocks in MPI instead of
// spinning on memory.  The messages carry nothing: the receiver counts them.  The sender frees each request
// at once (MPI completes it in the background; there is no buffer to keep alive), so a notification nobody
// waits for costs nothing later.  The receiver, after the message, makes remote updates visible to its loads
// (MPI_Win_sync on every window, as ARMCI_Barrier does).
#include <armci.h>

#include <vector>

#include "base/error.h"
#include "base/state.h"
#include "base/thread_lock.h"
#include "completion/ordering.h"
#include "runtime/modules.h"
#include "wait/wait.h"

namespace armcix {

namespace {

struct NotifyState {
  std::vector<int> sent;      // by target: notifications sent
  std::vector<int> waited;    // by source: waits started
  std::vector<int> received;  // by source: notifications received
};
NotifyState g_notify;

}  // namespace

void notify_initialize() {
  g_notify.sent.assign(rt().nproc, 0);
  g_notify.waited.assign(rt().nproc, 0);
  g_notify.received.assign(rt().nproc, 0);
}

// Notifications nobody waited for are still queued at their targets; ARMCI_Finalize frees the communicator
// with them pending, as MPI allows (it frees it when they are gone).
void notify_finalize() {
  g_notify = NotifyState();
}

namespace {

// Receives one notification from `proc` (blocking, without the API lock).
void receive_one(const char* call, int proc) {
  MPI_Request req;
  ARMCIX_MPI(MPI_Irecv(nullptr, 0, MPI_INT, proc, rt().notify_tag, rt().world, &req));
  wait_for(call, &req);
  ++g_notify.received[proc];
}

}  // namespace

}  // namespace armcix

using namespace armcix;

extern "C" {

int parmci_notify(int proc) {
  ARMCIX_API_GUARD;
  const char* call = "armci_notify";
  require_initialized(call);
  check_rank(call, "proc", proc);
  fence_proc(proc);  // the data before the notification is at proc when it sees the notification
  MPI_Request req;
  ARMCIX_MPI(MPI_Isend(nullptr, 0, MPI_INT, proc, rt().notify_tag, rt().world, &req));
  ARMCIX_MPI(MPI_Request_free(&req));
  return ++g_notify.sent[proc];
}

int parmci_notify_wait(int proc, int* pval) {
  ARMCIX_API_GUARD;
  const char* call = "armci_notify_wait";
  require_initialized(call);
  check_rank(call, "proc", proc);
  ARMCIX_REQUIRE(pval != nullptr, call, "argument 'pval' is NULL");
  const int target = ++g_notify.waited[proc];
  while (g_notify.received[proc] < target) receive_one(call, proc);
  // Take what else has arrived, so that the count returned is as current as classic ARMCI's.  A matched
  // probe: the message found is ours even if another thread posts a receive meanwhile.
  for (;;) {
    int more = 0;
    MPI_Message msg;
    ARMCIX_MPI(MPI_Improbe(proc, rt().notify_tag, rt().world, &more, &msg, MPI_STATUS_IGNORE));
    if (!more) break;
    ARMCIX_MPI(MPI_Mrecv(nullptr, 0, MPI_INT, &msg, MPI_STATUS_IGNORE));
    ++g_notify.received[proc];
  }
  sync_all_windows();  // loads after the wait see the updates the notifier completed before notifying
  *pval = target;
  return g_notify.received[proc];
}

int armci_notify(int proc) __attribute__((weak, alias("parmci_notify")));
int armci_notify_wait(int proc, int* pval) __attribute__((weak, alias("parmci_notify_wait")));

}  // extern "C"
