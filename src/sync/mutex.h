// Mutexes: ARMCI_Create_mutexes/Lock/Unlock (one default set on the world group) and the ARMCIX_*_hdl API
// (sets on groups).  Mutex (m, proc) is mutex number m hosted by group rank proc; every rank hosts as many
// as it asked for in the collective create.
//
// Two queueing algorithms, chosen per set at creation by ARMCI_MUTEX_METHOD (read here with getenv for
// now; it belongs in Config):
//   MCS    (default) an MCS queue lock on MPI-3 atomics: the host keeps the queue's tail; waiters join
//          with one atomic swap and block in MPI_Recv until their predecessor hands the lock over (FIFO).
//   QUEUE  the byte-vector queue of Latham et al. (as in ARMCI-MPI): the host keeps one flag per rank,
//          read and written under MPI_Win_lock(EXCLUSIVE); unlock hands the lock to the next waiting rank
//          in cyclic rank order.
// Neither polls the network while waiting.  Unlock first makes every ARMCI operation this rank issued
// remotely complete (as if ARMCI_AllFence), so the next holder sees the data written under the lock.
#pragma once

namespace armcix {

enum class MutexMethod { Mcs, Queue };

int mutexes_create_default(const char* call, int count);
int mutexes_destroy_default(const char* call);
void mutex_lock_default(const char* call, int mutex, int proc);
void mutex_unlock_default(const char* call, int mutex, int proc);
void mutexes_finalize();

// ARMCI_MUTEX_METHOD (unset = MCS); a bad value fails naming `call` and the variable.
MutexMethod mutex_method_from_env(const char* call);

// Observation point for tests: when set, Lock calls hook(arg) on the locking rank right after the rank
// has joined the mutex's queue (the instant from which fairness is measured) and before it blocks; also
// when the lock was free and is taken at once.  Not for production use: the hook runs inside Lock.
using MutexQueuedHook = void (*)(void* arg);
void mutex_set_queued_hook(MutexQueuedHook hook, void* arg);

}  // namespace armcix
