// Mutex front end: handles, argument checks, bookkeeping of the locks this rank holds, the default set
// behind ARMCI_Create_mutexes/Lock/Unlock.  The queueing algorithms live in mutex_mcs.cc and
// mutex_queue.cc (see mutex.h for the choice between them).
#include "sync/mutex.h"

#include <armcix.h>
#include <strings.h>

#include <algorithm>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/error.h"
#include "base/state.h"
#include "base/thread_lock.h"
#include "base/window.h"
#include "checks/collective_check.h"
#include "completion/ordering.h"
#include "groups/group.h"
#include "nb/request.h"
#include "runtime/modules.h"
#include "sync/mutex_impl.h"
#include "topo/nodes.h"
#include "wait/wait.h"

namespace armcix {

namespace {

// One collective creation.  The public struct is a member, and the registry maps its address back to
// the set, so a stale or foreign pointer is reported instead of dereferenced.
struct MutexSet {
  armcix_mutex_hdl_s pub{};       // what the caller's handle points to
  unsigned long serial = 0;       // creation order, for tear-down at ARMCI_Finalize
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate: windows and hand-off messages only
  int me = -1;
  int size = 0;
  std::vector<int> counts;       // mutexes hosted by each group rank
  std::vector<int> offsets;      // id of mutex (m, p) = offsets[p] + m
  std::unordered_set<int> held;  // ids this rank holds
  std::unique_ptr<MutexAlgorithm> algo;
  bool node_local = false;  // algo is the shared-memory one (mutex_shm.cc)
  // Threads (calls_serialized()): the algorithms keep one queue position per process and mutex, so at most
  // one thread of the process may hold or wait for a given mutex.  gate_owner maps the ids a thread of
  // ours has claimed to that thread; the others wait on gate_cv, without the API lock.
  std::mutex gate_mutex;
  std::condition_variable gate_cv;
  std::unordered_map<int, std::thread::id> gate_owner;
};

std::map<const armcix_mutex_hdl_s*, std::unique_ptr<MutexSet>> g_sets;
unsigned long g_next_serial = 0;
MutexSet* g_default = nullptr;  // ARMCI_Create_mutexes' set, on the world group
MutexQueuedHook g_hook = nullptr;
void* g_hook_arg = nullptr;

MutexSet* create_set(const char* call, int count, const ARMCI_Group* group) {
  require_initialized(call);
  ARMCIX_REQUIRE(count >= 0, call, "argument 'count' = %d must be >= 0", count);
  check_group(call, group, true);
  collective_check(call, Collective::CreateMutexes, group->comm);
  const MutexMethod method = rt().config.mutex_method;

  auto set = std::make_unique<MutexSet>();
  set->me = group->rank;
  set->size = group->size;
  const int n = set->size;
  // Three collectives in flight at once (creation is dominated by collective latency, and dearly so on an
  // oversubscribed node): the private communicator, the one behind pub.grp, and the counts.  The
  // allgather may use the caller's communicator: this call is collective over it, like any collective.
  // Whether this rank can share memory with the whole group: the set then lives in node memory.
  int mine[3] = {count, static_cast<int>(method), group_is_node_local(group->grp_to_abs, group->size) ? 1 : 0};
  std::vector<int> all(3 * n);
  MPI_Comm grp_comm = MPI_COMM_NULL;
  MPI_Request reqs[3];
  ARMCIX_MPI(MPI_Comm_idup(group->comm, &set->comm, &reqs[0]));
  // Open MPI: two MPI_Comm_idup of one communicator in flight can hang (open-mpi/ompi issue 2025: its
  // context-id agreement for the second waits on the first's), so there the first completes before the
  // second starts.
  {
    // Waits for the members without the API lock: one of them may first wait for another thread of this
    // process, in a collective on another group (base/thread_lock.h).  The set is not yet anybody else's.
    ApiUnlocked unlocked;
    if (mpi_is_open_mpi()) ARMCIX_MPI(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
    ARMCIX_MPI(MPI_Comm_idup(group->comm, &grp_comm, &reqs[1]));
    ARMCIX_MPI(MPI_Iallgather(mine, 3, MPI_INT, all.data(), 3, MPI_INT, group->comm, &reqs[2]));
    ARMCIX_MPI(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
  }
  ARMCIX_MPI(MPI_Comm_set_errhandler(set->comm, MPI_ERRORS_RETURN));
  // Every rank sees the same gathered data, so every rank fails alike (no rank is left in a collective).
  set->counts.resize(n);
  set->offsets.resize(n + 1);
  long long total = 0;
  bool node_local = true;
  for (int p = 0; p < n; ++p) {
    ARMCIX_REQUIRE(all[3 * p + 1] == mine[1], call,
                   "ARMCI_MUTEX_METHOD differs between processes (%s here, %s on group rank %d)", name_of(method),
                   name_of(static_cast<MutexMethod>(all[3 * p + 1])), p);
    node_local = node_local && all[3 * p + 2] == 1;
    set->counts[p] = all[3 * p];
    set->offsets[p] = static_cast<int>(std::min<long long>(total, INT_MAX));
    total += all[3 * p];
  }
  ARMCIX_REQUIRE(total <= INT_MAX, call, "%lld mutexes in one set: more than %d", total, INT_MAX);
  // With threads, two threads of a process waiting for two mutexes must not share a hand-off tag.
  ARMCIX_REQUIRE(!calls_serialized() || total <= mutex_handoff_tag_ids(), call,
                 "%lld mutexes in one set (argument 'count' = %d here): with threads (MPI_THREAD_MULTIPLE) each "
                 "needs a message tag of its own, and MPI_TAG_UB = %d leaves %d",
                 total, count, rt().notify_tag, mutex_handoff_tag_ids());
  set->offsets[n] = static_cast<int>(total);

  MutexLayout layout{set->comm, set->me, n, count};
  if (node_local)
    set->algo = make_shm_mutexes(layout, set->counts, static_cast<int>(total));
  else
    set->algo = method == MutexMethod::Mcs ? make_mcs_mutexes(layout) : make_queue_mutexes(layout);
  set->node_local = node_local;

  // The public fields, as ARMCI-MPI fills them (grp is our own duplicate of the caller's group).
  set->pub.my_count = count;
  set->pub.max_count = *std::max_element(set->counts.begin(), set->counts.end());
  make_group(grp_comm, &set->pub.grp);
  set->pub.windows = set->algo->windows();
  set->pub.bases = set->algo->bases();

  set->serial = g_next_serial++;
  MutexSet* raw = set.get();
  g_sets.emplace(&raw->pub, std::move(set));
  return raw;
}

// Collective part of destruction, shared with ARMCI_Finalize (which does not check held locks).
void release_set(const char* call, MutexSet* set) {
  set->algo->destroy(call);
  free_group(call, &set->pub.grp);
  ARMCIX_MPI(MPI_Comm_free(&set->comm));
  if (set == g_default) g_default = nullptr;
  g_sets.erase(&set->pub);
}

// Splits an id back into (mutex, proc) for messages.
void decode(const MutexSet* set, int id, int* mutex, int* proc) {
  // The last p with offsets[p] <= id: ranks hosting nothing share the next rank's offset and are skipped.
  int p = static_cast<int>(std::upper_bound(set->offsets.begin(), set->offsets.end(), id) - set->offsets.begin()) - 1;
  *proc = p;
  *mutex = id - set->offsets[p];
}

void destroy_set(const char* call, MutexSet* set) {
  if (!set->held.empty()) {
    int m, p;
    decode(set, *set->held.begin(), &m, &p);
    fail(call,
         "the calling process still holds mutex %d of process %d (and %zu in all); unlock before "
         "destroying the mutexes",
         m, p, set->held.size());
  }
  collective_check(call, Collective::DestroyMutexes, set->comm);
  release_set(call, set);
}

MutexSet* find_set(const char* call, const armcix_mutex_hdl_s* hdl) {
  require_initialized(call);
  ARMCIX_REQUIRE(hdl != nullptr, call, "argument 'hdl' is NULL");
  auto it = g_sets.find(hdl);
  ARMCIX_REQUIRE(it != g_sets.end(), call,
                 "argument 'hdl' = %p is not a live mutex handle (destroyed, or never created)",
                 static_cast<const void*>(hdl));
  return it->second.get();
}

MutexSet* default_set(const char* call) {
  require_initialized(call);
  ARMCIX_REQUIRE(g_default != nullptr, call, "no mutexes exist: call ARMCI_Create_mutexes first");
  return g_default;
}

// The host of a mutex is named by its absolute process id, in ARMCI_Lock and, as in ARMCI-MPI 0.3.1, in
// ARMCIX_Lock_hdl & co. whatever group the set was created on.  Returns the host's rank in the set's group.
int host_rank(const char* call, const MutexSet* set, int proc) {
  check_rank(call, "proc", proc);
  const int r = set->pub.grp.abs_to_grp[proc];
  ARMCIX_REQUIRE(r >= 0, call, "argument 'proc' = %d is not a member of the mutexes' group", proc);
  return r;
}

// Validates (mutex, host's group rank) and returns its id.
int mutex_id(const char* call, const MutexSet* set, int mutex, int host, int proc) {
  ARMCIX_REQUIRE(mutex >= 0 && mutex < set->counts[host], call,
                 "argument 'mutex' = %d is out of range: process %d created %d mutex(es)", mutex, proc,
                 set->counts[host]);
  return set->offsets[host] + mutex;
}

// Claims id for the calling thread (threads only): waits, without the API lock, while another thread of
// this process holds or waits for it.  With `wait` false, returns false instead of waiting.
bool claim_for_thread(const char* call, MutexSet* set, int id, int mutex, int proc, bool wait) {
  ApiUnlocked unlocked;
  std::unique_lock<std::mutex> g(set->gate_mutex);
  auto it = set->gate_owner.find(id);
  if (it != set->gate_owner.end()) {
    // Locking it again from the holding thread would wait forever (trylock just reports busy).
    ARMCIX_REQUIRE(!wait || it->second != std::this_thread::get_id(), call,
                   "mutex %d of process %d is already held by the calling thread; locking it again would deadlock",
                   mutex, proc);
    if (!wait) return false;
    set->gate_cv.wait(g, [set, id] { return set->gate_owner.count(id) == 0; });
  }
  set->gate_owner.emplace(id, std::this_thread::get_id());
  return true;
}

void release_for_thread(MutexSet* set, int id) {
  {
    std::lock_guard<std::mutex> g(set->gate_mutex);
    set->gate_owner.erase(id);
  }
  set->gate_cv.notify_all();
}

void lock(const char* call, MutexSet* set, int mutex, int proc) {
  const int host = host_rank(call, set, proc);
  const int id = mutex_id(call, set, mutex, host, proc);
  if (calls_serialized()) claim_for_thread(call, set, id, mutex, proc, true);
  ARMCIX_REQUIRE(!set->held.count(id), call,
                 "mutex %d of process %d is already held by the calling process; locking it again would deadlock",
                 mutex, proc);
  set->algo->lock(call, mutex, host, id);
  set->held.insert(id);
}

bool trylock(const char* call, MutexSet* set, int mutex, int proc) {
  const int host = host_rank(call, set, proc);
  const int id = mutex_id(call, set, mutex, host, proc);
  if (set->held.count(id)) return false;  // busy, as for a non-recursive pthread mutex
  const bool threads = calls_serialized();
  if (threads && !claim_for_thread(call, set, id, mutex, proc, false)) return false;
  if (!set->algo->trylock(call, mutex, host, id)) {
    if (threads) release_for_thread(set, id);
    // A caller may spin on trylock; each failure enters MPI's progress engine once, so that the spinning
    // does not starve the holder, whose unlock can wait for RMA that needs this process's progress: Open
    // MPI 5's osc/sm MPI_Compare_and_swap never enters the progress engine, and the holder's
    // MPI_Win_flush_all over btl/sm waited for the spinners for ever (Mutex.TrylockAndLockExcludeEachOther).
    progress_poke();
    return false;
  }
  set->held.insert(id);
  return true;
}

void unlock(const char* call, MutexSet* set, int mutex, int proc) {
  const int host = host_rank(call, set, proc);
  const int id = mutex_id(call, set, mutex, host, proc);
  ARMCIX_REQUIRE(set->held.count(id), call, "mutex %d of process %d is not held by the calling process", mutex, proc);
  // Release semantics, as ARMCI_AllFence: what we wrote under the lock, blocking or not, is at its targets
  // before the next holder gets in (ARMCI-MPI completes every operation on return, and programs written
  // for it rely on that).
  wait_all();
  fence_all();
  set->algo->unlock(call, mutex, host, id);
  set->held.erase(id);
  if (calls_serialized()) release_for_thread(set, id);
}

}  // namespace

void mutex_set_queued_hook(MutexQueuedHook hook, void* arg) {
  g_hook = hook;
  g_hook_arg = arg;
}

int mutex_handoff_tag_ids() {
  // MPI_TAG_UB itself is armci_notify's tag on the runtime's communicator, not on a set's: usable here.
  return rt().notify_tag - kMutexTagHandoffFirst + 1;
}

void mutex_queued() {
  if (g_hook) g_hook(g_hook_arg);
}

void mutex_wait_handoff(const char* call, MPI_Comm comm, int source, int id) {
  int got = -1;
  MPI_Request req;
  ARMCIX_MPI(MPI_Irecv(&got, 1, MPI_INT, source, mutex_handoff_tag(id), comm, &req));
  wait_for(call, &req);
  ARMCIX_REQUIRE(got == id, call, "internal error: waiting for mutex id %d, handed mutex id %d", id, got);
}

int mutexes_create_default(const char* call, int count) {
  require_initialized(call);
  ARMCIX_REQUIRE(g_default == nullptr, call,
                 "mutexes already exist: call ARMCI_Destroy_mutexes before creating them again");
  g_default = create_set(call, count, &world_group());
  return 0;
}

int mutexes_destroy_default(const char* call) {
  require_initialized(call);
  ARMCIX_REQUIRE(g_default != nullptr, call,
                 "no mutexes exist (ARMCI_Create_mutexes was not called, or they were destroyed already)");
  destroy_set(call, g_default);
  return 0;
}

void mutex_lock_default(const char* call, int mutex, int proc) {
  lock(call, default_set(call), mutex, proc);
}
void mutex_unlock_default(const char* call, int mutex, int proc) {
  unlock(call, default_set(call), mutex, proc);
}

// Sets the application left behind, in creation order on every rank (each release is collective over
// its group).  Locks still held are dropped with them.
void mutexes_finalize() {
  std::vector<MutexSet*> live;
  for (auto& kv : g_sets) live.push_back(kv.second.get());
  std::sort(live.begin(), live.end(), [](const MutexSet* a, const MutexSet* b) { return a->serial < b->serial; });
  for (MutexSet* s : live) release_set("ARMCI_Finalize", s);
  g_default = nullptr;
}

armcix_mutex_hdl_s* mutexes_create(const char* call, int count, const ARMCI_Group* group) {
  return &create_set(call, count, group)->pub;
}
void mutexes_destroy(const char* call, const armcix_mutex_hdl_s* hdl) {
  destroy_set(call, find_set(call, hdl));
}
void mutex_lock(const char* call, const armcix_mutex_hdl_s* hdl, int mutex, int proc) {
  lock(call, find_set(call, hdl), mutex, proc);
}
bool mutex_trylock(const char* call, const armcix_mutex_hdl_s* hdl, int mutex, int proc) {
  return trylock(call, find_set(call, hdl), mutex, proc);
}
void mutex_unlock(const char* call, const armcix_mutex_hdl_s* hdl, int mutex, int proc) {
  unlock(call, find_set(call, hdl), mutex, proc);
}

}  // namespace armcix
