// Byte-vector queueing mutex (Latham, Ross and Thakur, "Implementing MPI-IO atomic mode and shared file
// pointers using MPI one-sided communication", 2007), the algorithm of ARMCI-MPI.  The host of mutex m
// keeps a flag per rank, B[0..size).
//   lock:    in one exclusive epoch set B[me] = 1 and read the others.  None set: ours.  Otherwise block
//            in MPI_Recv until the holder hands over.
//   unlock:  in one exclusive epoch set B[me] = 0 and read the others; hand over to the first flagged rank
//            after me in cyclic order, so a waiter sees at most size-1 other holders before its turn.
//   trylock: in one exclusive epoch read B, and only if it is all clear set B[me] = 1 (the flush inside
//            the epoch lets us decide while still excluding everyone), so a busy trylock leaves no trace
//            a concurrent unlock could hand the lock to.
// This needs MPI_Win_lock(EXCLUSIVE), which cannot be used inside MPI_Win_lock_all, so this window, unlike
// every other one in the library, is never in a lock_all epoch.  One window holds all the vectors a
// rank hosts: the exclusive epochs are short (they never span the critical section), so sharing one
// window between mutexes of a host costs little and saves creating one window per mutex.
//
// With progress ranks (progress/progress_ranks.h) a host's flag vectors live in a shared-memory segment that
// the host's progress rank attaches to the runtime's second dynamic window (Runtime::proxy_excl_win, made
// for this: it is never in a lock_all epoch), and every exclusive epoch targets that progress rank, the
// host's own included: MPI applies the epochs inside the progress rank's MPI calls, so a host that computes
// no longer delays a lock, and one exclusive lock per progress rank orders all epochs on its flags.  With
// k > 1 progress ranks per node the node's hosts are spread over k such locks.
#include <mpi.h>

#include <utility>
#include <vector>

#include "base/error.h"
#include "base/window.h"
#include "progress/progress_ranks.h"
#include "sync/mutex_impl.h"
#include "wait/wait.h"

namespace armcix {

namespace {

class QueueMutexes final : public MutexAlgorithm {
 public:
  explicit QueueMutexes(const MutexLayout& layout) : l_(layout), flags_(layout.size) {
    const MPI_Aint bytes = static_cast<MPI_Aint>(l_.my_count) * l_.size;
    if (progress_ranks_on()) {
      proxied_ = proxy_segment_create("ARMCI_Create_mutexes", "the mutexes' flag vectors",
                                      static_cast<std::size_t>(bytes > 0 ? bytes : 1), nullptr, ProxyWindow::Exclusive);
      base_ = reinterpret_cast<uint8_t*>(proxied_.addr);  // zero-filled: every flag clear
      ServedAt at = proxy_segments_served_at("ARMCI_Create_mutexes", proxied_, l_.comm);
      serving_rank_ = std::move(at.rank);
      serving_disp_ = std::move(at.disp);
      win_ = rt().proxy_excl_win;
    } else {
      window_ = create_rma_window(bytes, 1, MPI_INFO_NULL, l_.comm);
      base_ = static_cast<uint8_t*>(window_.base);
      ARMCIX_MPI(MPI_Win_set_errhandler(window_.win, MPI_ERRORS_RETURN));
      win_ = window_.win;
    }
    bases_.resize(l_.my_count);
    for (int m = 0; m < l_.my_count; ++m) bases_[m] = base_ + static_cast<MPI_Aint>(m) * l_.size;
  }

  void lock(const char* call, int mutex, int proc, int id) override {
    if (exchange_flag(mutex, proc, 1)) {
      mutex_queued();
      mutex_wait_handoff(call, l_.comm, MPI_ANY_SOURCE, id);
    } else {
      mutex_queued();
    }
  }

  bool trylock(const char*, int mutex, int proc, int /*id*/) override {
    const MPI_Aint vec = disp(proc, mutex);
    const int t = target(proc);
    ARMCIX_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win_));
    ARMCIX_MPI(MPI_Get(flags_.data(), l_.size, MPI_BYTE, t, vec, l_.size, MPI_BYTE, win_));
    wake(proc);
    ARMCIX_MPI(MPI_Win_flush(t, win_));
    bool free = true;
    for (uint8_t f : flags_) free = free && f == 0;
    const uint8_t one = 1;
    if (free) ARMCIX_MPI(MPI_Put(&one, 1, MPI_BYTE, t, vec + l_.me, 1, MPI_BYTE, win_));
    ARMCIX_MPI(MPI_Win_unlock(t, win_));
    return free;
  }

  void unlock(const char*, int mutex, int proc, int id) override {
    if (!exchange_flag(mutex, proc, 0)) return;
    for (int i = 1; i < l_.size; ++i) {
      int next = (l_.me + i) % l_.size;
      if (flags_[next]) {
        ARMCIX_MPI(MPI_Send(&id, 1, MPI_INT, next, mutex_handoff_tag(id), l_.comm));
        return;
      }
    }
  }

  void destroy(const char* call) override {
    if (proxied_.addr) {
      // Nobody holds or waits (the front end's contract) and every epoch ended at its MPI_Win_unlock, but
      // others may still be in their last unlock's epoch on my flags: everyone meets before anyone detaches.
      MPI_Request req;
      ARMCIX_MPI(MPI_Ibarrier(l_.comm, &req));
      wait_for(call, &req);
      proxy_segment_release(proxied_);
    } else {
      free_rma_window(window_);  // the window and the flags
    }
    base_ = nullptr;
  }

  MPI_Win* windows() override { return &win_; }
  uint8_t** bases() override { return bases_.empty() ? nullptr : bases_.data(); }

 private:
  // Sets B[me] = value and reads every other flag into flags_, atomically with respect to the other
  // ranks' epochs on this host.  Returns true if any other rank's flag is set.
  bool exchange_flag(int mutex, int proc, uint8_t value) {
    const MPI_Aint vec = disp(proc, mutex);
    const int me = l_.me, after = l_.size - me - 1, t = target(proc);
    ARMCIX_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win_));
    ARMCIX_MPI(MPI_Put(&value, 1, MPI_BYTE, t, vec + me, 1, MPI_BYTE, win_));
    // Two gets around our own flag: a put and a get of one location in one epoch would conflict.
    if (me > 0) ARMCIX_MPI(MPI_Get(flags_.data(), me, MPI_BYTE, t, vec, me, MPI_BYTE, win_));
    if (after > 0) ARMCIX_MPI(MPI_Get(flags_.data() + me + 1, after, MPI_BYTE, t, vec + me + 1, after, MPI_BYTE, win_));
    wake(proc);
    ARMCIX_MPI(MPI_Win_unlock(t, win_));
    flags_[me] = 0;
    for (uint8_t f : flags_)
      if (f) return true;
    return false;
  }

  // The process that serves member proc's flags in win_, and where mutex `mutex`'s vector is there.
  int target(int proc) const { return serving_rank_.empty() ? proc : serving_rank_[proc]; }
  // Before waiting for an operation on proc's flags or tails: their progress rank may sleep.
  void wake(int proc) const {
    if (!serving_rank_.empty()) proxy_wake(serving_rank_[proc]);
  }
  MPI_Aint disp(int proc, int mutex) const {
    const MPI_Aint vec = static_cast<MPI_Aint>(mutex) * l_.size;
    return serving_rank_.empty() ? vec : serving_disp_[proc] + vec;
  }

  MutexLayout l_;
  MPI_Win win_ = MPI_WIN_NULL;  // window_.win, or with progress ranks the runtime's exclusive proxy window
  RmaWindow window_;
  ProxiedSegment proxied_;              // progress ranks: my flags' segment
  std::vector<int> serving_rank_;       // progress ranks: member -> its progress rank in win_
  std::vector<MPI_Aint> serving_disp_;  // progress ranks: member -> its flags' displacement there
  uint8_t* base_ = nullptr;
  std::vector<uint8_t*> bases_;  // bases_[m]: the flag vector of mutex m hosted here
  std::vector<uint8_t> flags_;   // scratch: the flags last read
};

}  // namespace

std::unique_ptr<MutexAlgorithm> make_queue_mutexes(const MutexLayout& layout) {
  return std::make_unique<QueueMutexes>(layout);
}

}  // namespace armcix
