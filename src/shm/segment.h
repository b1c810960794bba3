// Shared-memory objects that armci-x names itself: POSIX shared-memory segments and FIFOs in /dev/shm (the
// node-sync page, progress ranks' wake pages and FIFOs, proxied slices).  MPI's own segments
// (MPI_Win_allocate_shared) are named by MPI.
//
// Names are "/armcix-<uid>-<pid namespace>-<pid>-<16 random hex digits>": the random part (getrandom) makes
// them unguessable, so another user or job that holds a name cannot make a creation fail (a creation that
// meets an existing name draws another); the creator passes the name to the processes that map it.  The
// uid, the PID namespace (the inode of /proc/self/ns/pid) and the creator's pid let shm_cleanup tell the
// leftovers of a dead process of this user (killed between creation and unlink) from a live one's.
#pragma once

#include <cstddef>

namespace armcix {

constexpr std::size_t kShmNameBytes = 64;  // a segment's name, NUL included (progress/protocol.h carries one)
constexpr std::size_t kShmFifoBytes = 96;  // a FIFO's path, NUL included

// Creates a new segment of `bytes` bytes under a fresh name (written to `name`) and reserves its memory
// (posix_fallocate), so that a full /dev/shm is an error here and not a SIGBUS at first touch.  Returns the
// open descriptor.  Fails through fail(call, ...) naming `what`, the bytes asked and the bytes free.
int shm_segment_create(const char* call, const char* what, std::size_t bytes, char* name);

// The same without failing: -1 with errno set (ENOSPC: /dev/shm is full) and `name` empty.
int shm_segment_try_create(std::size_t bytes, char* name);

// Makes a FIFO in /dev/shm under a fresh name (written to `path`, kShmFifoBytes).  False, errno set, if it
// could not.
bool shm_fifo_create(char* path);

// The bytes of /dev/shm an unprivileged writer can still use (statvfs: f_bavail * f_frsize); -1 if unknown.
long long shm_free_bytes();

// Removes the /dev/shm entries named as above that are this user's and were made in this PID namespace by
// this process or by a process that no longer exists.  A live process's entries, another namespace's
// (whose pids this process cannot check) and other users' are left alone.  Returns how many it removed.
int shm_cleanup();

}  // namespace armcix
