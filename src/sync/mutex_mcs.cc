// MCS queue lock (Mellor-Crummey and Scott) on MPI-3 atomics.  The host of mutex m keeps only the queue's
// tail: the rank that joined last, or -1 when the lock is free.  The queue nodes' "locked" flag and "next"
// pointer become messages on the set's private communicator, so that nobody spins on memory:
//   lock:   prev = swap(tail, me).  prev == -1: ours.  Otherwise tell prev "I am behind you" (SUCCESSOR)
//           and block in MPI_Recv until prev hands over (HANDOFF).
//   unlock: compare_and_swap(tail, me -> -1).  Succeeds: nobody queued, the lock is free.  Fails: someone
//           swapped himself in behind us and has sent (or is about to send) SUCCESSOR; receive it and
//           send that rank HANDOFF.
// The tail swap orders the waiters, so the hand-offs are FIFO.  Uncontended, lock and unlock cost one
// atomic round trip each.  The windows come from MPI_Alloc_mem + MPI_Win_create: MPICH 4.0.2's atomics
// on MPI_Win_allocate windows are wrong between ranks of one node (MPICH issue 6110).
#include <mpi.h>

#include <unordered_map>

#include "runtime/error.h"
#include "runtime/window.h"
#include "sync/mutex_impl.h"

namespace armcix {

namespace {

constexpr int kNobody = -1;

class McsMutexes final : public MutexAlgorithm {
 public:
  explicit McsMutexes(const MutexLayout& layout) : l_(layout) {
    // Swap and compare-and-swap meet on a tail.  MPICH's which_accumulate_ops hint is left at its default
    // (every operation may meet every other), as for the Rmw windows, where sum and replace meet.
    // Every tail starts as kNobody (all bytes 0xff) before anyone can swap into it.
    static_assert(kNobody == -1, "tails are initialised bytewise to 0xff");
    window_ =
        create_rma_window(static_cast<MPI_Aint>(sizeof(int)) * l_.my_count, sizeof(int), MPI_INFO_NULL, l_.comm, 0xff);
    tail_ = static_cast<int*>(window_.base);
    ARMCIX_MPI(MPI_Win_set_errhandler(window_.win, MPI_ERRORS_RETURN));
    ARMCIX_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, window_.win));
    base_ = reinterpret_cast<uint8_t*>(tail_);
  }

  void lock(const char* call, int mutex, int proc, int id) override {
    int mine = l_.me, prev = kNobody;
    ARMCIX_MPI(MPI_Fetch_and_op(&mine, &prev, MPI_INT, proc, mutex, MPI_REPLACE, window_.win));
    ARMCIX_MPI(MPI_Win_flush_local(proc, window_.win));
    mutex_queued();
    if (prev == kNobody) return;
    ARMCIX_REQUIRE(prev >= 0 && prev < l_.size && prev != l_.me, call,
                   "internal error: mutex %d of process %d has a corrupt queue tail %d", mutex, proc, prev);
    // Non-blocking, so that no message protocol can make us wait for prev before we wait for the hand-off.
    MPI_Request req;
    ARMCIX_MPI(MPI_Isend(&id, 1, MPI_INT, prev, kMutexTagSuccessor, l_.comm, &req));
    mutex_wait_handoff(call, l_.comm, prev, id);
    ARMCIX_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  }

  bool trylock(const char*, int mutex, int proc, int /*id*/) override {
    int mine = l_.me, none = kNobody, seen = kNobody;
    ARMCIX_MPI(MPI_Compare_and_swap(&mine, &none, &seen, MPI_INT, proc, mutex, window_.win));
    ARMCIX_MPI(MPI_Win_flush_local(proc, window_.win));
    return seen == kNobody;
  }

  void unlock(const char* call, int mutex, int proc, int id) override {
    int mine = l_.me, none = kNobody, seen = kNobody;
    ARMCIX_MPI(MPI_Compare_and_swap(&none, &mine, &seen, MPI_INT, proc, mutex, window_.win));
    ARMCIX_MPI(MPI_Win_flush_local(proc, window_.win));
    if (seen == l_.me) return;  // nobody behind us: the tail is reset, the lock is free
    int next = take_successor(call, id);
    ARMCIX_MPI(MPI_Send(&id, 1, MPI_INT, next, mutex_handoff_tag(id), l_.comm));
  }

  void destroy(const char* call) override {
    ARMCIX_REQUIRE(early_.empty(), call, "internal error: %zu unconsumed MCS successor notices", early_.size());
    ARMCIX_MPI(MPI_Win_unlock_all(window_.win));
    free_rma_window(window_);  // the window and the tails
    tail_ = nullptr;
  }

  MPI_Win* windows() override { return &window_.win; }
  uint8_t** bases() override { return &base_; }

 private:
  // The rank queued behind us on mutex `id`.  Successor notices for other mutexes we hold can arrive
  // first (any order, any source); they are kept until their own unlock.  We hold a mutex at most once,
  // so there is at most one notice per id.
  int take_successor(const char* call, int id) {
    auto it = early_.find(id);
    if (it != early_.end()) {
      int who = it->second;
      early_.erase(it);
      return who;
    }
    for (;;) {
      int got = -1;
      MPI_Status st;
      ARMCIX_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, kMutexTagSuccessor, l_.comm, &st));
      if (got == id) return st.MPI_SOURCE;
      ARMCIX_REQUIRE(early_.emplace(got, st.MPI_SOURCE).second, call,
                     "internal error: two MCS successor notices for mutex id %d", got);
    }
  }

  MutexLayout l_;
  RmaWindow window_;
  int* tail_ = nullptr;
  uint8_t* base_ = nullptr;
  std::unordered_map<int, int> early_;  // mutex id -> successor, received before that mutex's unlock
};

}  // namespace

std::unique_ptr<MutexAlgorithm> make_mcs_mutexes(const MutexLayout& layout) {
  return std::make_unique<McsMutexes>(layout);
}

}  // namespace armcix
