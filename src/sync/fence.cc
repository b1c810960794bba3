#include "sync/fence.h"

#include <mpi.h>

#include "base/error.h"
#include "base/state.h"
#include "checks/collective_check.h"
#include "completion/ordering.h"
#include "nb/request.h"
#include "wait/wait.h"

namespace armcix {

void fence(const char* call, int proc) {
  require_initialized(call);
  check_rank(call, "proc", proc);
  wait_proc(proc);
  fence_proc(proc);
}

void all_fence(const char* call) {
  require_initialized(call);
  wait_all();
  fence_all();
}

void barrier(const char* call) {
  all_fence(call);
  // With ARMCI_CHECK_COLLECTIVES the barrier is also the agreement that every process is in ARMCI_Barrier;
  // either way it waits with back-off when the node is oversubscribed.
  collective_barrier(call, Collective::Barrier, rt().world);
  sync_all_windows();  // local loads after the barrier see every rank's completed updates
}

}  // namespace armcix
