// Mutexes: ARMCI_Create_mutexes/Lock/Unlock (one default set on the world group) and the ARMCIX_*_hdl API
// (sets on groups).  Mutex (m, proc) is mutex number m hosted by group rank proc; every rank hosts as many
// as it asked for in the collective create.
//
// A set whose whole group lives on one node (and ARMCI_SHM=1) is kept in shared memory: an MCS queue whose
// tails and queue nodes are plain memory (mutex_shm.cc), so that same-node contenders never go through
// MPI.  Otherwise one of two network algorithms, chosen per set at creation by ARMCI_MUTEX_METHOD
// (Config::mutex_method; all ranks of a group must agree, which creation checks):
//   MCS    (default) an MCS queue lock on MPI-3 atomics: the host keeps the queue's tail; waiters join
//          with one atomic swap and block in MPI_Recv until their predecessor hands the lock over (FIFO).
//   QUEUE  the byte-vector queue of Latham et al. (as in ARMCI-MPI): the host keeps one flag per rank,
//          read and written under MPI_Win_lock(EXCLUSIVE); unlock hands the lock to the next waiting rank
//          in cyclic rank order.
// MCS is the default: one atomic round trip per lock or unlock instead of an exclusive epoch (lock
// request, grant, put and gets, release, each needing the host's progress engine; doc/performance.md,
// "Mutex algorithms over MPI").  Also exact FIFO order, a trylock that needs no exclusive epoch, and
// O(count) bytes per host instead of O(count*nproc).
//
// The network algorithms do not poll the network while waiting (the node-local one spins on its own queue
// node, yielding, and only pokes MPI's progress engine now and then).  Trylock never waits and never queues; on a mutex
// the caller already holds it reports busy (like a non-recursive pthread mutex), where Lock reports an error. Unlock
// first makes every ARMCI operation this rank issued remotely complete (as ARMCI_AllFence does), so the next holder
// sees the data written under the lock.  Under MPI_THREAD_MULTIPLE any thread may
// lock; threads of one process contending for one mutex queue in the process (mutex.cc, claim_for_thread) before
// the algorithm sees one contender per process, and waits release the API lock (base/thread_lock.h).
#pragma once

#include <armci.h>
#include <armcix.h>

#include "base/config.h"

namespace armcix {

// The ARMCIX_*_mutexes_hdl sets (C entry points in api/); `hdl` is validated against the live sets.
armcix_mutex_hdl_s* mutexes_create(const char* call, int count, const ARMCI_Group* group);
void mutexes_destroy(const char* call, const armcix_mutex_hdl_s* hdl);
void mutex_lock(const char* call, const armcix_mutex_hdl_s* hdl, int mutex, int proc);
bool mutex_trylock(const char* call, const armcix_mutex_hdl_s* hdl, int mutex, int proc);  // false: busy
void mutex_unlock(const char* call, const armcix_mutex_hdl_s* hdl, int mutex, int proc);

// The default set on the world group (ARMCI_Create_mutexes, ARMCI_Lock, ...).

int mutexes_create_default(const char* call, int count);
int mutexes_destroy_default(const char* call);
void mutex_lock_default(const char* call, int mutex, int proc);
void mutex_unlock_default(const char* call, int mutex, int proc);
// mutexes_finalize(): runtime/modules.h.

// Observation point for tests: when set, Lock calls hook(arg) on the locking rank right after the rank
// has joined the mutex's queue (the instant from which fairness is measured) and before it blocks; also
// when the lock was free and is taken at once.  Not for production use: the hook runs inside Lock.
using MutexQueuedHook = void (*)(void* arg);
void mutex_set_queued_hook(MutexQueuedHook hook, void* arg);

}  // namespace armcix
