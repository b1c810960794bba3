// What program ranks and their progress rank say to each other (progress/progress_ranks.h): requests on
// Runtime::all, our own communicator, so that no application message can match them.  A program rank
// sends a Request with kRequestTag to the progress rank serving it (Runtime::proxy_of); only kAttach is
// answered, with one int64_t under kReplyTag: the segment's displacement in the window, 0 if the progress
// rank could not map the segment, or MPI's error class negated if MPI_Win_attach failed.  kDone is a program
// rank's last request (ARMCI_Finalize): a progress rank serves until every rank it serves has sent it.
#pragma once

#include <cstdint>

namespace armcix {

// Which of the progress ranks' dynamic windows a segment is attached to: r.proxy_win (everything, in a
// lock_all epoch for the library's lifetime) or r.proxy_excl_win (QUEUE mutexes: MPI_Win_lock(EXCLUSIVE)
// epochs, which a lock_all epoch on the same window would forbid).
enum class ProxyWindow : int32_t { LockAll = 0, Exclusive = 1 };

namespace proxy {

constexpr int kRequestTag = 7301;
constexpr int kReplyTag = 7302;

enum RequestKind : int32_t { kAttach = 1, kDetach = 2, kDone = 3 };

// Sent as MPI_BYTE, sizeof(Request) bytes (every process runs the same build).
struct Request {
  int32_t kind;        // RequestKind
  ProxyWindow window;  // kAttach, kDetach
  int64_t bytes;       // kAttach: segment size
  int64_t disp;        // kDetach: what kAttach replied
  char shm_name[64];   // kAttach: the POSIX shared-memory segment to map, NUL-terminated
};

}  // namespace proxy
}  // namespace armcix
