// The wake channels between a node's program ranks and its progress ranks (progress_ranks.h, "Waking a
// progress rank").
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "base/error.h"
#include "shm/segment.h"
#include "progress/progress_ranks.h"
#include "progress/progress_ranks_internal.h"

namespace armcix {

using namespace proxy;  // NOLINT(google-build-using-namespace): the wire protocol, progress/protocol.h

// The wake channels (progress_ranks.h), collective over r.all while every process still takes part in
// collectives.  Channels join the processes of one MPI node (MPI_COMM_TYPE_SHARED: the processes MPI itself
// lets share memory), whatever ARMCI_NODE_SIZE cuts it into.  Each progress rank makes a segment with its
// wake word and a FIFO under fresh names (shm/segment.h) that the node gathers; every program rank of the
// node opens them; then the names go.  Simulated hosts (tools/simhosts.sh) are separate MPI nodes on one
// kernel: they get no channels between them, as real hosts, even where UCX moves their bytes through
// shared memory.  A progress rank that cannot make them (no /dev/shm) has no channel: requests over shared
// memory then wait for its pause to end, as before.
progress::OwnWake progress::make_wake_channels(Runtime& r, bool progress_rank) {
  int all_me = 0, all_n = 0;
  ARMCIX_MPI(MPI_Comm_rank(r.all, &all_me));
  ARMCIX_MPI(MPI_Comm_size(r.all, &all_n));
  MPI_Comm node;
  ARMCIX_MPI(MPI_Comm_split_type(r.all, MPI_COMM_TYPE_SHARED, all_me, MPI_INFO_NULL, &node));
  int node_me = 0, node_n = 0;
  ARMCIX_MPI(MPI_Comm_rank(node, &node_me));
  ARMCIX_MPI(MPI_Comm_size(node, &node_n));
  // Each progress rank names its page and FIFO afresh (shm/segment.h) and the node learns the names
  // from the gather below; an empty name: no channel.
  struct Names {
    char seg[kShmNameBytes];
    char fifo[kShmFifoBytes];
  };
  Names mine{};
  OwnWake own;
  if (progress_rank) {
    void* p = MAP_FAILED;
    const int fd = shm_segment_try_create(kWakePageBytes, mine.seg);
    if (fd >= 0) {
      p = mmap(nullptr, kWakePageBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      close(fd);
    }
    const bool made = p != MAP_FAILED && shm_fifo_create(mine.fifo);
    const int ff = made ? open(mine.fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW) : -1;
    if (ff >= 0) {
      own.sleeping = new (p) std::atomic<uint32_t>(0);
      own.waiting = new (waiting_word(p)) std::atomic<int32_t>(0);
      own.fifo = ff;
    } else {
      if (r.config.verbose)
        armcix::print_to_stderr("armci-x: progress rank %d: no wake channel (%s): %s\n", all_me, mine.fifo,
                                std::strerror(errno));
      if (p != MAP_FAILED) munmap(p, kWakePageBytes);
      if (mine.seg[0]) shm_unlink(mine.seg);
      if (made) unlink(mine.fifo);
      mine = Names{};
    }
  }
  std::vector<Names> names(static_cast<std::size_t>(node_n));
  ARMCIX_MPI(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, names.data(), sizeof mine, MPI_BYTE, node));
  // Rank in r.all of each node member, so that a channel is filed under its progress rank.
  std::vector<int> ranks(static_cast<std::size_t>(node_n));
  ARMCIX_MPI(MPI_Allgather(&all_me, 1, MPI_INT, ranks.data(), 1, MPI_INT, node));
  if (!progress_rank) {
    std::vector<WakeChannel> channels(static_cast<std::size_t>(all_n));
    bool any = false;
    for (int i = 0; i < node_n; ++i) {
      Names& q = names[static_cast<std::size_t>(i)];
      if (!q.seg[0]) continue;
      q.seg[kShmNameBytes - 1] = q.fifo[kShmFifoBytes - 1] = '\0';
      int fd = shm_open(q.seg, O_RDWR | O_NOFOLLOW, 0);
      if (fd < 0) continue;
      void* p = mmap(nullptr, kWakePageBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      close(fd);
      if (p == MAP_FAILED) continue;
      // Read-write, so that the FIFO always has a reader (this process): a write never raises SIGPIPE.
      const int ff = open(q.fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
      if (ff < 0) {
        munmap(p, kWakePageBytes);
        continue;
      }
      channels[static_cast<std::size_t>(ranks[static_cast<std::size_t>(i)])] =
          WakeChannel{static_cast<std::atomic<uint32_t>*>(p), waiting_word(p), ff};
      any = true;
    }
    if (any) set_wake_channels(std::move(channels));
  }
  ARMCIX_MPI(MPI_Barrier(node));  // every process has opened what it could: the names can go
  ARMCIX_MPI(MPI_Comm_free(&node));
  if (own.fifo >= 0) {
    shm_unlink(mine.seg);
    unlink(mine.fifo);
  }
  return own;
}

}  // namespace armcix
