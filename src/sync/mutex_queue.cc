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
#include <mpi.h>

#include <vector>

#include "runtime/error.h"
#include "runtime/window.h"
#include "sync/mutex_impl.h"

namespace armcix {

namespace {

class QueueMutexes final : public MutexAlgorithm {
 public:
  explicit QueueMutexes(const MutexLayout& layout) : l_(layout), flags_(layout.size) {
    const MPI_Aint bytes = static_cast<MPI_Aint>(l_.my_count) * l_.size;
    window_ = create_rma_window(bytes, 1, MPI_INFO_NULL, l_.comm);
    base_ = static_cast<uint8_t*>(window_.base);
    ARMCIX_MPI(MPI_Win_set_errhandler(window_.win, MPI_ERRORS_RETURN));
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
    const MPI_Aint vec = static_cast<MPI_Aint>(mutex) * l_.size;
    ARMCIX_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, proc, 0, window_.win));
    ARMCIX_MPI(MPI_Get(flags_.data(), l_.size, MPI_BYTE, proc, vec, l_.size, MPI_BYTE, window_.win));
    ARMCIX_MPI(MPI_Win_flush(proc, window_.win));
    bool free = true;
    for (uint8_t f : flags_) free = free && f == 0;
    const uint8_t one = 1;
    if (free) ARMCIX_MPI(MPI_Put(&one, 1, MPI_BYTE, proc, vec + l_.me, 1, MPI_BYTE, window_.win));
    ARMCIX_MPI(MPI_Win_unlock(proc, window_.win));
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

  void destroy(const char*) override {
    free_rma_window(window_);  // the window and the flags
    base_ = nullptr;
  }

  MPI_Win* windows() override { return &window_.win; }
  uint8_t** bases() override { return bases_.empty() ? nullptr : bases_.data(); }

 private:
  // Sets B[me] = value and reads every other flag into flags_, atomically with respect to the other
  // ranks' epochs on this host.  Returns true if any other rank's flag is set.
  bool exchange_flag(int mutex, int proc, uint8_t value) {
    const MPI_Aint vec = static_cast<MPI_Aint>(mutex) * l_.size;
    const int me = l_.me, after = l_.size - me - 1;
    ARMCIX_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, proc, 0, window_.win));
    ARMCIX_MPI(MPI_Put(&value, 1, MPI_BYTE, proc, vec + me, 1, MPI_BYTE, window_.win));
    // Two gets around our own flag: a put and a get of one location in one epoch would conflict.
    if (me > 0) ARMCIX_MPI(MPI_Get(flags_.data(), me, MPI_BYTE, proc, vec, me, MPI_BYTE, window_.win));
    if (after > 0)
      ARMCIX_MPI(MPI_Get(flags_.data() + me + 1, after, MPI_BYTE, proc, vec + me + 1, after, MPI_BYTE, window_.win));
    ARMCIX_MPI(MPI_Win_unlock(proc, window_.win));
    flags_[me] = 0;
    for (uint8_t f : flags_)
      if (f) return true;
    return false;
  }

  MutexLayout l_;
  RmaWindow window_;
  uint8_t* base_ = nullptr;
  std::vector<uint8_t*> bases_;  // bases_[m]: the flag vector of mutex m hosted here
  std::vector<uint8_t> flags_;   // scratch: the flags last read
};

}  // namespace

std::unique_ptr<MutexAlgorithm> make_queue_mutexes(const MutexLayout& layout) {
  return std::make_unique<QueueMutexes>(layout);
}

}  // namespace armcix
