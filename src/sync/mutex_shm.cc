// Node-local MCS queue lock: the mutex set's whole group lives on one node (and ARMCI_SHM=1), so the queue
// lives in shared memory and no lock operation touches MPI.  Same algorithm as mutex_mcs.cc, with the
// queue nodes in memory instead of messages:
//   tail(p, m)   the rank that joined mutex m of host p last, or -1 (in host p's slice)
//   node(r, id)  rank r's queue node for mutex id: {next, locked} (in rank r's slice; a rank waits for one
//                lock at a time but may hold many, so it needs one node per id for the "next" links)
//   lock:   node(me).next = -1, locked = 1; prev = exchange(tail, me).  prev == -1: ours.  Otherwise
//           node(prev).next = me and wait until node(me).locked == 0.
//   unlock: next = node(me).next.  None: compare_and_swap(tail, me -> -1); success means the lock is free,
//           failure means a successor is linking itself in: wait for node(me).next.  Then
//           node(next).locked = 0.
// Hand-offs are FIFO in the order of the tail exchanges.  Waiters spin on their own node (a cache line
// nobody else writes until the hand-off), yield after a short spin because ranks are often
// oversubscribed, and keep MPI's progress engine turning: the holder may meanwhile do RMA through MPI
// windows (regions spanning nodes, ARMCI_SHM=0 regions) that target a waiting rank, which MPICH serves
// only inside the target's MPI calls.  Ordering: the exchange and the compare-and-swap are sequentially
// consistent; the hand-off store is a release and the waiter's load an acquire, so the next holder sees
// everything the previous holder wrote under the lock (the front end also completes the holder's RMA
// before unlocking).
#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <vector>

#include "base/error.h"
#include "base/state.h"
#include "base/thread_lock.h"
#include "shm/access.h"
#include "sync/mutex_impl.h"
#include "wait/wait.h"

namespace armcix {

namespace {

constexpr int32_t kNobody = -1;

struct QueueNode {
  int32_t next;
  int32_t locked;
};

// Spins until pred() holds: pause for a while, then yield and poke MPI's progress engine.
template <class Pred>
void wait_until(Pred pred) {
  if (pred()) return;
  ApiUnlocked unlocked;  // the thread that must act may be one of ours (thread_lock.h)
  for (int spins = 0; !pred(); ++spins) {
    if (spins < 256) {
      cpu_relax();
      continue;
    }
    sched_yield();
    if ((spins & 15) == 0) progress_poke();
  }
}

class ShmMcsMutexes final : public MutexAlgorithm {
 public:
  ShmMcsMutexes(const MutexLayout& layout, const std::vector<int>& counts, int total_ids)
      : l_(layout), total_ids_(total_ids) {
    // Slice of rank r: int32 tails[counts[r]], padded to 8 bytes, then QueueNode nodes[total_ids].
    const MPI_Aint bytes = slice_bytes(l_.my_count);
    {
      ApiUnlocked unlocked;  // collective (mutex.cc, create_set)
      ARMCIX_MPI(MPI_Win_allocate_shared(std::max<MPI_Aint>(bytes, 8), 8, MPI_INFO_NULL, l_.comm, &base_, &win_));
    }
    ARMCIX_MPI(MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN));
    tails_.resize(l_.size);
    nodes_.resize(l_.size);
    for (int r = 0; r < l_.size; ++r) {
      MPI_Aint size = 0;
      int disp_unit = 0;
      void* p = nullptr;
      ARMCIX_MPI(MPI_Win_shared_query(win_, r, &size, &disp_unit, &p));
      ARMCIX_REQUIRE(p != nullptr || slice_bytes(counts[r]) == 0, "ARMCIX_Create_mutexes_hdl",
                     "internal error: the mutex slice of group rank %d is not mapped", r);
      tails_[r] = static_cast<int32_t*>(p);
      nodes_[r] = reinterpret_cast<QueueNode*>(static_cast<char*>(p) + tails_bytes(counts[r]));
    }
    for (int m = 0; m < l_.my_count; ++m) tails_[l_.me][m] = kNobody;
    for (int id = 0; id < total_ids_; ++id) nodes_[l_.me][id] = QueueNode{kNobody, 0};
    // Every slice is initialised before anyone may lock.
    ARMCIX_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_));
    ARMCIX_MPI(MPI_Win_sync(win_));
    {
      ApiUnlocked unlocked;
      ARMCIX_MPI(MPI_Barrier(l_.comm));
    }
    ARMCIX_MPI(MPI_Win_sync(win_));
  }

  void lock(const char*, int mutex, int proc, int id) override {
    QueueNode* mine = &nodes_[l_.me][id];
    __atomic_store_n(&mine->next, kNobody, __ATOMIC_RELAXED);
    __atomic_store_n(&mine->locked, 1, __ATOMIC_RELAXED);
    const int32_t prev = __atomic_exchange_n(&tails_[proc][mutex], static_cast<int32_t>(l_.me), __ATOMIC_SEQ_CST);
    mutex_queued();
    if (prev == kNobody) return;
    __atomic_store_n(&nodes_[prev][id].next, static_cast<int32_t>(l_.me), __ATOMIC_RELEASE);
    wait_until([mine] { return __atomic_load_n(&mine->locked, __ATOMIC_ACQUIRE) == 0; });
  }

  bool trylock(const char*, int mutex, int proc, int id) override {
    // The node is reset before we may appear in the tail: a later waiter links itself into it.
    __atomic_store_n(&nodes_[l_.me][id].next, kNobody, __ATOMIC_RELAXED);
    int32_t expected = kNobody;
    return __atomic_compare_exchange_n(&tails_[proc][mutex], &expected, static_cast<int32_t>(l_.me), false,
                                       __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  }

  void unlock(const char*, int mutex, int proc, int id) override {
    QueueNode* mine = &nodes_[l_.me][id];
    int32_t next = __atomic_load_n(&mine->next, __ATOMIC_ACQUIRE);
    if (next == kNobody) {
      int32_t expected = static_cast<int32_t>(l_.me);
      if (__atomic_compare_exchange_n(&tails_[proc][mutex], &expected, kNobody, false, __ATOMIC_SEQ_CST,
                                      __ATOMIC_SEQ_CST))
        return;  // nobody behind us: the lock is free
      wait_until([mine, &next] { return (next = __atomic_load_n(&mine->next, __ATOMIC_ACQUIRE)) != kNobody; });
    }
    __atomic_store_n(&nodes_[next][id].locked, 0, __ATOMIC_RELEASE);
  }

  void destroy(const char*) override {
    ARMCIX_MPI(MPI_Win_unlock_all(win_));
    ApiUnlocked unlocked;  // collective (mutex.cc, create_set)
    ARMCIX_MPI(MPI_Win_free(&win_));
    base_ = nullptr;
  }

  MPI_Win* windows() override { return &win_; }
  uint8_t** bases() override { return reinterpret_cast<uint8_t**>(&base_); }

 private:
  static MPI_Aint tails_bytes(int count) { return (static_cast<MPI_Aint>(count) * 4 + 7) / 8 * 8; }
  MPI_Aint slice_bytes(int count) const {
    return tails_bytes(count) + static_cast<MPI_Aint>(total_ids_) * static_cast<MPI_Aint>(sizeof(QueueNode));
  }

  MutexLayout l_;
  int total_ids_;
  void* base_ = nullptr;
  MPI_Win win_ = MPI_WIN_NULL;
  std::vector<int32_t*> tails_;
  std::vector<QueueNode*> nodes_;
};

}  // namespace

std::unique_ptr<MutexAlgorithm> make_shm_mutexes(const MutexLayout& layout, const std::vector<int>& counts,
                                                 int total_ids) {
  return std::make_unique<ShmMcsMutexes>(layout, counts, total_ids);
}

}  // namespace armcix
