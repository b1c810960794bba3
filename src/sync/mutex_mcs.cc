// MCS queue lock (Mellor-Crummey and Scott) on MPI-3 atomics.  The host of mutex m keeps only the queue's
// tail: the rank that joined last, or -1 when the lock is free.  The queue nodes' "locked" flag and "next"
// pointer become messages on the set's private communicator, so that nobody spins on memory:
//   lock:   prev = swap(tail, me), as a compare-and-swap loop (see below).  prev == -1: ours.  Otherwise tell prev "I
//   am behind you" (SUCCESSOR)
//           and block in MPI_Recv until prev hands over (HANDOFF).
//   unlock: compare_and_swap(tail, me -> -1).  Succeeds: nobody queued, the lock is free.  Fails: someone
//           swapped himself in behind us and has sent (or is about to send) SUCCESSOR; receive it and
//           send that rank HANDOFF.
// The tail swap orders the waiters, so the hand-offs are FIFO.  Uncontended, lock and unlock cost one
// atomic round trip each.  Every operation on a tail is MPI_Compare_and_swap: a swap as MPI_Fetch_and_op
// (MPI_REPLACE) meeting a compare-and-swap on one location is outside what the windows' accumulate_ops
// (same_op_no_op, MPI's default) lets concurrent atomics do, so the swap is a compare-and-swap loop that
// starts from the last value seen (one round trip when the guess is right, as it is uncontended).  The windows come
// from MPI_Alloc_mem + MPI_Win_create: MPICH 4.0's atomics on MPI_Win_allocate windows are wrong between ranks of one
// node (MPICH issue 6110).
//
// With progress ranks (progress/progress_ranks.h) the tails live in a shared-memory segment that the host's
// progress rank attaches to the runtime's proxy window, and every swap and compare-and-swap targets the
// progress rank there: a host that computes outside MPI no longer delays the lock (over a network MPI
// applies an atomic only inside the target process's MPI calls; a progress rank is always in one).  All
// operations on a tail, the host's own included, go through that one window, so MPI keeps them atomic.
// The hand-off messages stay between program ranks: only the holder can hand over, when it unlocks.
#include <mpi.h>

#include <algorithm>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/window.h"
#include "progress/progress_ranks.h"
#include "sync/mutex_impl.h"
#include "wait/wait.h"

namespace armcix {

namespace {

constexpr int kNobody = -1;

class McsMutexes final : public MutexAlgorithm {
 public:
  explicit McsMutexes(const MutexLayout& layout) : l_(layout) {
    // Only compare-and-swap ever meets a tail (lock's swap is a compare-and-swap loop).
    // Every tail starts as kNobody (all bytes 0xff) before anyone can swap into it.
    static_assert(kNobody == -1, "tails are initialised bytewise to 0xff");
    if (progress_ranks_on()) {
      proxied_ = proxy_segment_create("ARMCI_Create_mutexes", "the mutexes' queue tails",
                                      sizeof(int) * static_cast<std::size_t>(l_.my_count > 0 ? l_.my_count : 1));
      tail_ = reinterpret_cast<int*>(proxied_.addr);
      std::fill_n(tail_, l_.my_count, kNobody);
      ServedAt at = proxy_segments_served_at("ARMCI_Create_mutexes", proxied_, l_.comm);
      serving_rank_ = std::move(at.rank);
      serving_disp_ = std::move(at.disp);
      win_ = rt().proxy_win;  // in the runtime's lock_all epoch
    } else {
      window_ = create_rma_window(static_cast<MPI_Aint>(sizeof(int)) * l_.my_count, sizeof(int), MPI_INFO_NULL, l_.comm,
                                  0xff);
      tail_ = static_cast<int*>(window_.base);
      ARMCIX_MPI(MPI_Win_set_errhandler(window_.win, MPI_ERRORS_RETURN));
      ARMCIX_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, window_.win));
      win_ = window_.win;
    }
    base_ = reinterpret_cast<uint8_t*>(tail_);
  }

  void lock(const char* call, int mutex, int proc, int id) override {
    int mine = l_.me, prev = kNobody;
    for (int guess = kNobody;; guess = prev) {
      ARMCIX_MPI(MPI_Compare_and_swap(&mine, &guess, &prev, MPI_INT, target(proc), disp(proc, mutex), win_));
      wake(proc);
      ARMCIX_MPI(MPI_Win_flush_local(target(proc), win_));
      if (prev == guess) break;
      ARMCIX_REQUIRE(prev != l_.me, call, "internal error: mutex %d of process %d has our rank as its tail", mutex,
                     proc);
    }
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
    ARMCIX_MPI(MPI_Compare_and_swap(&mine, &none, &seen, MPI_INT, target(proc), disp(proc, mutex), win_));
    wake(proc);
    ARMCIX_MPI(MPI_Win_flush_local(target(proc), win_));
    return seen == kNobody;
  }

  void unlock(const char* call, int mutex, int proc, int id) override {
    int mine = l_.me, none = kNobody, seen = kNobody;
    ARMCIX_MPI(MPI_Compare_and_swap(&none, &mine, &seen, MPI_INT, target(proc), disp(proc, mutex), win_));
    wake(proc);
    ARMCIX_MPI(MPI_Win_flush_local(target(proc), win_));
    if (seen == l_.me) return;  // nobody behind us: the tail is reset, the lock is free
    int next = take_successor(call, id);
    ARMCIX_MPI(MPI_Send(&id, 1, MPI_INT, next, mutex_handoff_tag(id), l_.comm));
  }

  void destroy(const char* call) override {
    ARMCIX_REQUIRE(early_.empty(), call, "internal error: %zu unconsumed MCS successor notices", early_.size());
    if (proxied_.addr) {
      // Nobody holds or waits (the front end's contract), but my last operations on others' tails must be
      // complete before their owners drop them: flush, then everyone meets before anyone detaches.
      proxy_wake_all();
      ARMCIX_MPI(MPI_Win_flush_all(win_));
      MPI_Request req;
      ARMCIX_MPI(MPI_Ibarrier(l_.comm, &req));
      wait_for(call, &req);
      proxy_segment_release(proxied_);
    } else {
      ARMCIX_MPI(MPI_Win_unlock_all(window_.win));
      free_rma_window(window_);  // the window and the tails
    }
    tail_ = nullptr;
  }

  MPI_Win* windows() override { return &win_; }
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

  // The process that serves member proc's tails in win_, and where tail `mutex` is there.
  int target(int proc) const { return serving_rank_.empty() ? proc : serving_rank_[proc]; }
  // Before waiting for an operation on proc's flags or tails: their progress rank may sleep.
  void wake(int proc) const {
    if (!serving_rank_.empty()) proxy_wake(serving_rank_[proc]);
  }
  MPI_Aint disp(int proc, int mutex) const {
    return serving_rank_.empty() ? mutex : serving_disp_[proc] + static_cast<MPI_Aint>(sizeof(int)) * mutex;
  }

  MutexLayout l_;
  MPI_Win win_ = MPI_WIN_NULL;  // window_.win, or with progress ranks the runtime's proxy window
  RmaWindow window_;
  ProxiedSegment proxied_;              // progress ranks: my tails' segment
  std::vector<int> serving_rank_;       // progress ranks: member -> its progress rank in the proxy window
  std::vector<MPI_Aint> serving_disp_;  // progress ranks: member -> its tails' displacement there
  int* tail_ = nullptr;
  uint8_t* base_ = nullptr;
  std::unordered_map<int, int> early_;  // mutex id -> successor, received before that mutex's unlock
};

}  // namespace

std::unique_ptr<MutexAlgorithm> make_mcs_mutexes(const MutexLayout& layout) {
  return std::make_unique<McsMutexes>(layout);
}

}  // namespace armcix
