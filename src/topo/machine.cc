#include "topo/machine.h"

#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <map>

#include "base/error.h"
#include "base/fnv1a.h"

namespace armcix {

uint64_t machine_key(const std::string& boot_id, const std::string& hostname) {
  // FNV-1a over the boot id, or over the host name when there is none, with a tag byte so that the two
  // kinds of key never meet.  The host name is not mixed into a known boot id: processes in their own UTS
  // namespaces (containers, simulated hosts with a host name each) run on the same kernel and cores.
  const std::string& text = boot_id.empty() ? hostname : boot_id;
  return Fnv1a().add_byte(boot_id.empty() ? 'h' : 'b').add(text.data(), text.size()).value();
}

std::vector<int> lowest_rank_with_key(const std::vector<uint64_t>& keys) {
  std::map<uint64_t, int> first;
  std::vector<int> leader(keys.size());
  for (std::size_t r = 0; r < keys.size(); ++r) leader[r] = first.emplace(keys[r], static_cast<int>(r)).first->second;
  return leader;
}

// With open/read rather than std::ifstream: a process's first file stream initializes the C++ locale's
// facets, which cost more than a communicator (doc/performance.md, "Where the time went").
std::string read_boot_id() {
  const int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char buf[64];
  const ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  std::string id(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

std::string read_hostname() {
  char name[256] = "";
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

MachineRecord my_machine_record(cpu_set_t* mask, const std::string& boot_id, const std::string& hostname) {
  CPU_ZERO(mask);
  if (sched_getaffinity(0, sizeof *mask, mask) != 0) {
    CPU_ZERO(mask);
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < online && c < CPU_SETSIZE; ++c) CPU_SET(static_cast<int>(c), mask);
  }
  MachineRecord m;
  m.key = machine_key(boot_id, hostname);
  m.cpus_hash = Fnv1a().add(mask, sizeof *mask).value();
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, mask)) continue;
    if (m.cpus_first < 0) m.cpus_first = c;
    m.cpus_last = c;
    ++m.cpus_count;
  }
  return m;
}

namespace {

bool same_mask(const MachineRecord& a, const MachineRecord& b) {
  return a.cpus_hash == b.cpus_hash && a.cpus_first == b.cpus_first && a.cpus_last == b.cpus_last &&
         a.cpus_count == b.cpus_count;
}

bool one_run(const MachineRecord& m) {
  return m.cpus_count == 0 || m.cpus_count == m.cpus_last - m.cpus_first + 1;
}

// The CPUs of the union of runs [first, last], ranks' masks of one machine.
int union_of_runs(std::vector<std::pair<int, int>> runs) {
  std::sort(runs.begin(), runs.end());
  int cpus = 0, end = -1;  // CPUs counted so far lie below `end`
  for (const auto& [first, last] : runs) {
    if (last < end) continue;
    cpus += last - std::max(first, end) + 1;
    end = last + 1;
  }
  return cpus;
}

// Ranks by machine (lowest_rank_with_key: the lowest rank of each machine names it).
std::map<int, std::vector<int>> ranks_by_machine(const std::vector<MachineRecord>& records) {
  std::vector<uint64_t> keys(records.size());
  for (std::size_t p = 0; p < records.size(); ++p) keys[p] = records[p].key;
  const std::vector<int> leader = lowest_rank_with_key(keys);
  std::map<int, std::vector<int>> machines;
  for (std::size_t p = 0; p < records.size(); ++p) machines[leader[p]].push_back(static_cast<int>(p));
  return machines;
}

}  // namespace

bool machine_counts_from_records(const std::vector<MachineRecord>& records, std::vector<MachineCount>* counts) {
  std::vector<MachineCount> out(records.size());
  for (const auto& [leader, ranks] : ranks_by_machine(records)) {
    MachineCount m;
    m.ranks = static_cast<int>(ranks.size());
    const bool alike =
        std::all_of(ranks.begin(), ranks.end(), [&](int p) { return same_mask(records[p], records[leader]); });
    if (alike) {
      m.cores = records[leader].cpus_count;
    } else {
      std::vector<std::pair<int, int>> runs;
      for (int p : ranks) {
        if (!one_run(records[p])) return false;
        if (records[p].cpus_count > 0) runs.emplace_back(records[p].cpus_first, records[p].cpus_last);
      }
      m.cores = union_of_runs(std::move(runs));
    }
    for (int p : ranks) out[p] = m;
  }
  *counts = std::move(out);
  return true;
}

std::vector<MachineCount> count_machines(MPI_Comm comm, const std::vector<MachineRecord>& records,
                                         const cpu_set_t& mine) {
  std::vector<MachineCount> counts;
  if (machine_counts_from_records(records, &counts)) return counts;
  // Masks of several runs that differ within a machine (e.g. each rank bound to a core and its hyperthread
  // sibling): the union needs the masks themselves.
  const int n = static_cast<int>(records.size());
  std::vector<cpu_set_t> masks(n);
  ARMCIX_MPI(MPI_Allgather(&mine, static_cast<int>(sizeof mine), MPI_BYTE, masks.data(), static_cast<int>(sizeof mine),
                           MPI_BYTE, comm));
  counts.assign(n, MachineCount{});
  for (const auto& [leader, ranks] : ranks_by_machine(records)) {
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int p : ranks) CPU_OR(&all, &all, &masks[p]);
    MachineCount m;
    m.ranks = static_cast<int>(ranks.size());
    m.cores = CPU_COUNT(&all);
    for (int p : ranks) counts[p] = m;
  }
  return counts;
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

namespace {

// /proc/loadavg, opened once per process: -1 not yet, -2 unreadable (never tried again).  Atomics rather
// than thread_local or a lock: the yield timer's signal handler reads through here (open, pread and
// lock-free atomics are async-signal-safe; thread_local in a shared library may allocate on first use).
std::atomic<int> g_loadavg_fd{-1};
std::atomic<int64_t> g_sampled_ns{-1};  // when sampled_runnable_tasks last read the count
std::atomic<long> g_sampled_running{-1};

int loadavg_fd() {
  int fd = g_loadavg_fd.load(std::memory_order_acquire);
  if (fd != -1) return fd;
  int opened = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  if (opened < 0) opened = -2;
  if (g_loadavg_fd.compare_exchange_strong(fd, opened, std::memory_order_acq_rel)) return opened;
  if (opened >= 0) close(opened);  // another thread was first: use its descriptor
  return fd;
}

}  // namespace

long runnable_tasks() {
  const int fd = loadavg_fd();
  if (fd < 0) return -1;
  char text[128];
  const ssize_t n = pread(fd, text, sizeof text - 1, 0);
  if (n > 0) text[n] = '\0';
  const long running = n > 0 ? loadavg_running(text) : -1;
  if (running < 0) g_loadavg_fd.store(-2, std::memory_order_release);  // the descriptor stays open: harmless
  return running;
}

long sampled_runnable_tasks() {
  constexpr int64_t kSampleNanoseconds = 10 * 1000 * 1000;
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  const int64_t ns = static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
  int64_t last = g_sampled_ns.load(std::memory_order_relaxed);
  if ((last < 0 || ns - last >= kSampleNanoseconds) &&
      g_sampled_ns.compare_exchange_strong(last, ns, std::memory_order_relaxed))
    g_sampled_running.store(runnable_tasks(), std::memory_order_relaxed);
  return g_sampled_running.load(std::memory_order_relaxed);
}

bool foreign_load(long ours_runnable) {
  const long running = sampled_runnable_tasks();
  return running < 0 || running > ours_runnable + 1;
}

}  // namespace armcix
