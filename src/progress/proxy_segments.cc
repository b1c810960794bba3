// The program ranks' side of the proxy protocol (progress_ranks.h): attaching and detaching segments at
// the progress rank, and the proxied segments built on them.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/error.h"
#include "shm/segment.h"
#include "progress/progress_ranks.h"
#include "wait/wait.h"

namespace armcix {

using namespace proxy;  // NOLINT(google-build-using-namespace): the wire protocol, progress/protocol.h

MPI_Aint proxy_attach(const char* call, const char* shm_name, std::size_t bytes, ProxyWindow which) {
  const Runtime& r = rt();
  Request q{};
  q.kind = kAttach;
  q.window = which;
  q.bytes = static_cast<int64_t>(bytes);
  ARMCIX_REQUIRE(std::strlen(shm_name) < sizeof q.shm_name, call, "internal error: segment name '%s' too long",
                 shm_name);
  std::strcpy(q.shm_name, shm_name);
  ARMCIX_MPI(MPI_Send(&q, sizeof q, MPI_BYTE, r.proxy_of[r.me], kRequestTag, r.all));
  int64_t disp = 0;
  ARMCIX_MPI(MPI_Recv(&disp, 1, MPI_INT64_T, r.proxy_of[r.me], kReplyTag, r.all, MPI_STATUS_IGNORE));
  return static_cast<MPI_Aint>(disp);
}

ProxiedSegment proxy_segment_create(const char* call, const char* what, std::size_t bytes, char* name,
                                    ProxyWindow which) {
  static_assert(sizeof Request{}.shm_name == kShmNameBytes, "the request carries a segment name");
  char own[kShmNameBytes];
  char* n = name ? name : own;
  const int fd = shm_segment_create(call, what, bytes, n);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int err = errno;
  close(fd);
  if (p == MAP_FAILED) {
    shm_unlink(n);
    fail(call, "%s: could not map a shared-memory segment of %zu bytes: %s", what, bytes, std::strerror(err));
  }
  ProxiedSegment seg;
  seg.addr = static_cast<char*>(p);
  seg.bytes = bytes;
  seg.window = which;
  seg.disp = proxy_attach(call, n, bytes, which);
  if (seg.disp <= 0) {  // the abort must not leave the segment behind in /dev/shm
    munmap(p, bytes);
    shm_unlink(n);
    if (seg.disp == 0)
      fail(call, "%s: progress rank %d could not map shared-memory segment %s (%zu bytes)", what,
           rt().proxy_of[rt().me], n, bytes);
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(static_cast<int>(-seg.disp), text, &len);
    fail(call, "%s: progress rank %d could not attach %zu bytes to its dynamic window: MPI_Win_attach failed (%s)%s",
         what, rt().proxy_of[rt().me], bytes, text,
         mpi_is_open_mpi() ? "; Open MPI 4.1's osc ucx attaches at most 32 regions to a dynamic window, so with "
                             "ARMCI_PROGRESS_RANKS about 30 allocations spanning nodes can live at once "
                             "(doc/user-guide.md, \"Known MPI problems\")"
                           : "");
  }
  if (!name) shm_unlink(n);  // mapped by me and my progress rank: the name is no longer needed
  return seg;
}

ServedAt proxy_segments_served_at(const char* call, const ProxiedSegment& mine, MPI_Comm comm) {
  int n = 0;
  ARMCIX_MPI(MPI_Comm_size(comm, &n));
  MPI_Aint here[2] = {rt().proxy_of[rt().me], mine.disp};
  std::vector<MPI_Aint> all(2 * static_cast<std::size_t>(n));
  MPI_Request req;
  ARMCIX_MPI(MPI_Iallgather(here, 2, MPI_AINT, all.data(), 2, MPI_AINT, comm, &req));
  wait_for(call, &req);
  ServedAt at;
  for (int p = 0; p < n; ++p) {
    at.rank.push_back(static_cast<int>(all[2 * p]));
    at.disp.push_back(all[2 * p + 1]);
  }
  return at;
}

void proxy_segment_release(ProxiedSegment& seg) {
  if (!seg.addr) return;
  proxy_detach(seg.disp, seg.window);
  munmap(seg.addr, seg.bytes);
  seg = ProxiedSegment{};
}

void proxy_detach(MPI_Aint disp, ProxyWindow which) {
  const Runtime& r = rt();
  Request q{};
  q.kind = kDetach;
  q.window = which;
  q.disp = static_cast<int64_t>(disp);
  ARMCIX_MPI(MPI_Send(&q, sizeof q, MPI_BYTE, r.proxy_of[r.me], kRequestTag, r.all));
}

}  // namespace armcix
