// Internal interface between the mutex front end (mutex.cc: handles, argument checks, bookkeeping of
// held locks) and the queueing algorithms (mutex_mcs.cc and mutex_queue.cc over MPI, mutex_shm.cc in
// node memory).  The front end has
// validated every argument before an algorithm is called.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "base/state.h"

namespace armcix {

// Tags on a set's private communicator.  Nothing else is ever sent on it.
constexpr int kMutexTagHandoff = 1;    // holder -> next holder: "the lock is yours"; payload = mutex id
constexpr int kMutexTagSuccessor = 2;  // MCS: waiter -> predecessor: "I queue behind you"; payload = mutex id
// Hand-offs travel on a tag per mutex id (kMutexTagHandoffFirst + id, up to MPI_TAG_UB), so that several
// threads of one process, each waiting for a different mutex from the same holder (or, with QUEUE, from any
// holder), each receive their own hand-off.  Sets with more ids than that (only single-threaded: creation
// refuses them with threads) share kMutexTagHandoff, where one waiter per process cannot be confused.
constexpr int kMutexTagHandoffFirst = 3;
// How many ids have a hand-off tag of their own: MPI_TAG_UB (Runtime::notify_tag) - kMutexTagHandoffFirst + 1.
int mutex_handoff_tag_ids();
inline int mutex_handoff_tag(int id) {
  return id >= 0 && id < mutex_handoff_tag_ids() ? kMutexTagHandoffFirst + id : kMutexTagHandoff;
}

struct MutexLayout {
  MPI_Comm comm;  // private duplicate of the group's communicator
  int me;         // rank in comm
  int size;
  int my_count;  // mutexes hosted here
};

class MutexAlgorithm {
 public:
  virtual ~MutexAlgorithm() = default;
  // `id` identifies (mutex, proc) uniquely within the set; it travels in the hand-off messages so that a
  // mismatch (a bug) is caught instead of silently granting the wrong lock.
  virtual void lock(const char* call, int mutex, int proc, int id) = 0;
  virtual bool trylock(const char* call, int mutex, int proc, int id) = 0;
  virtual void unlock(const char* call, int mutex, int proc, int id) = 0;
  // Collective over the set's communicator; no rank holds or waits for a lock.
  virtual void destroy(const char* call) = 0;
  // For the public armcix_mutex_hdl_s fields (informational: users only hold the pointer).
  virtual MPI_Win* windows() = 0;
  virtual uint8_t** bases() = 0;
};

std::unique_ptr<MutexAlgorithm> make_mcs_mutexes(const MutexLayout& layout);
std::unique_ptr<MutexAlgorithm> make_queue_mutexes(const MutexLayout& layout);
// Node-local MCS in shared memory (mutex_shm.cc), for sets whose group lives on one node.  `counts` are
// the mutexes hosted by each group rank, `total_ids` their sum.  Collective over layout.comm.
std::unique_ptr<MutexAlgorithm> make_shm_mutexes(const MutexLayout& layout, const std::vector<int>& counts,
                                                 int total_ids);

// Runs the test hook (see mutex_set_queued_hook), if any.
void mutex_queued();

// Blocks until the hand-off for mutex `id` arrives from `source` (MPI_ANY_SOURCE allowed).
void mutex_wait_handoff(const char* call, MPI_Comm comm, int source, int id);

}  // namespace armcix
