#include "runtime/machine.h"

#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>

#include "runtime/error.h"

namespace armcix {

uint64_t machine_key(const std::string& boot_id, const std::string& hostname) {
  // FNV-1a over the boot id, or over the host name when there is none, with a tag byte so that the two
  // kinds of key never meet.  The host name is not mixed into a known boot id: processes in their own UTS
  // namespaces (containers, simulated hosts with a host name each) run on the same kernel and cores.
  uint64_t h = 14695981039346656037ULL;
  auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ULL;
  };
  mix(boot_id.empty() ? 'h' : 'b');
  for (char c : boot_id.empty() ? hostname : boot_id) mix(static_cast<unsigned char>(c));
  return h;
}

std::vector<int> machine_leaders(const std::vector<uint64_t>& keys) {
  std::map<uint64_t, int> first;
  std::vector<int> leader(keys.size());
  for (std::size_t r = 0; r < keys.size(); ++r) leader[r] = first.emplace(keys[r], static_cast<int>(r)).first->second;
  return leader;
}

std::string read_boot_id() {
  std::ifstream f("/proc/sys/kernel/random/boot_id");
  std::string id;
  if (!(f >> id)) return "";
  return id;
}

std::string read_hostname() {
  char name[256] = "";
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

MachineCount count_machine(MPI_Comm comm) {
  int me, n;
  ARMCIX_MPI(MPI_Comm_rank(comm, &me));
  ARMCIX_MPI(MPI_Comm_size(comm, &n));
  const uint64_t mine = machine_key(read_boot_id(), read_hostname());
  std::vector<uint64_t> keys(n);
  ARMCIX_MPI(MPI_Allgather(&mine, 1, MPI_UINT64_T, keys.data(), 1, MPI_UINT64_T, comm));
  const std::vector<int> leader = machine_leaders(keys);
  MPI_Comm machine;
  ARMCIX_MPI(MPI_Comm_split(comm, leader[me], me, &machine));
  MachineCount m;
  ARMCIX_MPI(MPI_Comm_size(machine, &m.ranks));
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (sched_getaffinity(0, sizeof cpus, &cpus) != 0) {
    CPU_ZERO(&cpus);
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < online && c < CPU_SETSIZE; ++c) CPU_SET(static_cast<int>(c), &cpus);
  }
  // cpu_set_t is a bit array; OR-ing it byte-wise gives the cores any of the machine's ranks may use.
  ARMCIX_MPI(MPI_Allreduce(MPI_IN_PLACE, &cpus, static_cast<int>(sizeof cpus), MPI_BYTE, MPI_BOR, machine));
  m.cores = CPU_COUNT(&cpus);
  ARMCIX_MPI(MPI_Comm_free(&machine));
  return m;
}

long loadavg_running(const char* text) {
  // By hand rather than sscanf: the yield timer's signal handler calls this (async-signal-safe).
  const char* p = text;
  for (int field = 0; field < 3; ++field) {  // the three load averages
    while (*p == ' ') ++p;
    const char* start = p;
    while ((*p >= '0' && *p <= '9') || *p == '.') ++p;
    if (p == start || *p != ' ') return -1;
  }
  while (*p == ' ') ++p;
  long running = 0;
  const char* digits = p;
  for (; *p >= '0' && *p <= '9'; ++p) running = running * 10 + (*p - '0');
  if (p == digits || *p != '/' || !(p[1] >= '0' && p[1] <= '9')) return -1;
  return running;
}

long runnable_tasks() {
  thread_local int fd = -1;  // kept open per thread (no lock); -2: unreadable, never tried again
  if (fd == -2) return -1;
  if (fd == -1) fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  char text[128];
  const ssize_t n = fd >= 0 ? pread(fd, text, sizeof text - 1, 0) : -1;
  if (n > 0) text[n] = '\0';
  const long running = n > 0 ? loadavg_running(text) : -1;
  if (running < 0) {
    if (fd >= 0) close(fd);
    fd = -2;
  }
  return running;
}

bool foreign_load(long ours_runnable) {
  constexpr long kSampleNanoseconds = 10 * 1000 * 1000;
  // Per thread: no lock, and a thread's samples are its own.
  thread_local timespec sampled{};
  thread_local long running = -1;
  thread_local bool read_once = false;
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  const long elapsed = (now.tv_sec - sampled.tv_sec) * 1000000000L + (now.tv_nsec - sampled.tv_nsec);
  if (!read_once || (running >= 0 && elapsed >= kSampleNanoseconds)) {
    sampled = now;
    running = runnable_tasks();
    read_once = true;
  }
  return running < 0 || running > ours_runnable + 1;
}

}  // namespace armcix
