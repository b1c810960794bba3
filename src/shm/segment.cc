#include "shm/segment.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "base/error.h"

namespace armcix {

namespace {

// Enough draws that a squatter would need most of 2^64 names to block one creation; a name that exists
// again and again means something else is wrong.
constexpr int kNameAttempts = 16;
constexpr char kPrefix[] = "armcix-";

unsigned long long pid_namespace() {
  struct stat st;
  return stat("/proc/self/ns/pid", &st) == 0 ? static_cast<unsigned long long>(st.st_ino) : 0;
}

uint64_t random_bits() {
  uint64_t v = 0;
  if (getrandom(&v, sizeof v, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof v)) return v;
  // No entropy yet (early boot): still distinct per process and call, if guessable.
  static std::atomic<uint64_t> counter{0};
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (static_cast<uint64_t>(getpid()) << 40) ^ static_cast<uint64_t>(ts.tv_nsec) ^
         (static_cast<uint64_t>(ts.tv_sec) << 20) ^ (++counter * 0x9e3779b97f4a7c15ULL);
}

// `before` "armcix-<uid>-<pid namespace>-<pid>-<random>" `after`.  Linux's uids and namespace inodes have at
// most 10 digits and pids 7: 58 characters with "/".  A longer one is left empty, and its creation fails.
void fresh_name(char* out, std::size_t size, const char* before, const char* after) {
  const int n = std::snprintf(out, size, "%s%s%u-%llu-%ld-%016llx%s", before, kPrefix, static_cast<unsigned>(geteuid()),
                              pid_namespace(), static_cast<long>(getpid()),
                              static_cast<unsigned long long>(random_bits()), after);
  if (n < 0 || static_cast<std::size_t>(n) >= size) out[0] = '\0';
}

}  // namespace

long long shm_free_bytes() {
  struct statvfs vfs;
  if (statvfs("/dev/shm", &vfs) != 0) return -1;
  return static_cast<long long>(vfs.f_bavail) * static_cast<long long>(vfs.f_frsize);
}

int shm_segment_try_create(std::size_t bytes, char* name) {
  int fd = -1;
  for (int attempt = 0; attempt < kNameAttempts && fd < 0; ++attempt) {
    fresh_name(name, kShmNameBytes, "/", "");
    fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    name[0] = '\0';
    return -1;
  }
  int rc = 0;
  do {
    rc = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  } while (rc == EINTR);
  // A file system without fallocate: the size at least (the pages then come at first touch).
  if (rc == EOPNOTSUPP || rc == EINVAL) rc = ftruncate(fd, static_cast<off_t>(bytes)) == 0 ? 0 : errno;
  if (rc != 0) {
    close(fd);
    shm_unlink(name);
    errno = rc;
    return -1;
  }
  return fd;
}

int shm_segment_create(const char* call, const char* what, std::size_t bytes, char* name) {
  const int fd = shm_segment_try_create(bytes, name);
  if (fd >= 0) return fd;
  const int err = errno;
  const long long free_bytes = shm_free_bytes();
  if (err == ENOSPC)
    fail(call, "%s: /dev/shm is full: a shared-memory segment of %zu bytes was asked, %lld bytes are free", what, bytes,
         free_bytes);
  fail(call, "%s: could not create a shared-memory segment of %zu bytes in /dev/shm (%lld bytes free): %s", what, bytes,
       free_bytes, std::strerror(err));
}

bool shm_fifo_create(char* path) {
  for (int attempt = 0; attempt < kNameAttempts; ++attempt) {
    fresh_name(path, kShmFifoBytes, "/dev/shm/", ".fifo");
    if (mkfifo(path, 0600) == 0) return true;
    if (errno != EEXIST) return false;
  }
  return false;
}

int shm_cleanup() {
  DIR* dir = opendir("/dev/shm");
  if (!dir) return 0;
  const unsigned uid = static_cast<unsigned>(geteuid());
  const unsigned long long ns = pid_namespace();
  const long me = static_cast<long>(getpid());
  int removed = 0;
  while (const dirent* e = readdir(dir)) {
    unsigned entry_uid = 0;
    unsigned long long entry_ns = 0;
    long pid = 0;
    int used = 0;
    if (std::strncmp(e->d_name, kPrefix, sizeof kPrefix - 1) != 0) continue;
    if (std::sscanf(e->d_name + sizeof kPrefix - 1, "%u-%llu-%ld-%n", &entry_uid, &entry_ns, &pid, &used) != 3 ||
        used == 0)
      continue;
    if (entry_uid != uid || entry_ns != ns || ns == 0 || pid <= 0) continue;
    if (pid != me && !(kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)) continue;  // alive, or unknown
    struct stat st;
    if (fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != uid) continue;
    if (unlinkat(dirfd(dir), e->d_name, 0) == 0) ++removed;
  }
  closedir(dir);
  return removed;
}

}  // namespace armcix
