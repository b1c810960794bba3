#include "profile/profiler.h"

#include <armci.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "base/alloc_stats.h"
#include "base/error.h"
#include "base/state.h"
#include "runtime/modules.h"
#include "wait/call_stats.h"

namespace armcix {

bool g_profiling = false;

namespace {

constexpr int kKinds = static_cast<int>(ProfKind::Count);
constexpr int kBins = 48;  // bin b counts sizes in [2^(b-1), 2^b); bin 0 is zero bytes

const char* const kNames[kKinds] = {"Put",    "Get",      "Acc",     "PutS",   "GetS",     "AccS",     "PutV",
                                    "GetV",   "AccV",     "NbPut",   "NbGet",  "NbAcc",    "NbPutS",   "NbGetS",
                                    "NbAccS", "NbPutV",   "NbGetV",  "NbAccV", "PutValue", "GetValue", "Rmw",
                                    "Fence",  "AllFence", "Barrier", "Wait",   "Test",     "WaitProc", "WaitAll",
                                    "Lock",   "Unlock",   "Malloc",  "Free"};

// One rank's counters, laid out as plain arrays so that MPI_Gather moves them in one piece.
struct Counters {
  double calls[kKinds];
  double bytes[kKinds];
  double seconds[kKinds];
  double hist[kKinds][kBins];
};
constexpr int kDoubles = sizeof(Counters) / sizeof(double);

Counters g_counters;
double g_start_time = 0;

// Paths taken (prof_count_path), per family and enumerator; the names are engine_name's.
constexpr int kFamilies = static_cast<int>(PathFamily::Count);
const char* const kFamilyNames[kFamilies] = {"contig", "strided", "iov"};
struct PathSlot {
  const char* name = nullptr;
  uint64_t calls = 0;
};
PathSlot g_paths[kFamilies][kPathsPerFamily];

int bin_of(std::size_t bytes) {
  if (bytes == 0) return 0;
  int b = 64 - __builtin_clzll(static_cast<unsigned long long>(bytes));  // bytes in [2^(b-1), 2^b)
  return b < kBins ? b : kBins - 1;
}

std::string bin_label(int b) {
  if (b == 0) return "0";
  unsigned long long lo = 1ull << (b - 1);
  auto human = [](unsigned long long v) {
    if (v >= (1ull << 30)) return std::to_string(v >> 30) + "G";
    if (v >= (1ull << 20)) return std::to_string(v >> 20) + "M";
    if (v >= (1ull << 10)) return std::to_string(v >> 10) + "K";
    return std::to_string(v);
  };
  return human(lo) + "-" + human(lo << 1);  // the bin is [lo, 2*lo)
}

void print_table(FILE* out, const char* title, const Counters& c, double wall) {
  double total = 0, sync = 0;
  for (int k = 0; k < kKinds; ++k) {
    total += c.seconds[k];
    if (prof_is_sync(static_cast<ProfKind>(k))) sync += c.seconds[k];
  }
  std::fprintf(out, "%s: %.6f s in ARMCI of %.6f s wall (%.1f%%); fences/waits/locks %.6f s (%.1f%% of ARMCI time)\n",
               title, total, wall, wall > 0 ? 100 * total / wall : 0.0, sync, total > 0 ? 100 * sync / total : 0.0);
  std::fprintf(out, "  %-10s %12s %16s %12s %10s  sizes ([lo-hi) bytes: calls)\n", "op", "calls", "bytes", "seconds",
               "us/call");
  for (int k = 0; k < kKinds; ++k) {
    if (c.calls[k] == 0) continue;
    std::fprintf(out, "  %-10s %12.0f %16.0f %12.6f %10.2f ", kNames[k], c.calls[k], c.bytes[k], c.seconds[k],
                 1e6 * c.seconds[k] / c.calls[k]);
    for (int b = 0; b < kBins; ++b)
      if (c.hist[k][b] > 0) std::fprintf(out, " %s:%.0f", bin_label(b).c_str(), c.hist[k][b]);
    std::fprintf(out, "\n");
  }
}

// Machine-readable form: one record per line, tab-separated, '#' lines are comments.
//   op    <rank|all>  <op>  <calls>  <bytes>  <seconds>
//   hist  <rank|all>  <op>  <bin_lo_bytes>  <bin_hi_bytes>  <calls>
//   wall  <rank>  <seconds>
//   call  <rank|all>  <mpi|wait>  <name>  <calls>  <pauses>  <seconds>   (write_call_stats, after these)
//   mem   ...                                                          (write_alloc_stats, after those)
//   path  <rank|all>  <contig|strided|iov>  <name>  <calls>            (write_paths, last)
void write_file(FILE* f, const std::vector<Counters>& all, const Counters& sum, const std::vector<double>& walls) {
  std::fprintf(f, "# armci-x profile v1: op/hist/wall records, tab-separated (doc/user-guide.md)\n");
  auto emit = [f](const std::string& who, const Counters& c) {
    for (int k = 0; k < kKinds; ++k) {
      if (c.calls[k] == 0) continue;
      std::fprintf(f, "op\t%s\t%s\t%.0f\t%.0f\t%.9f\n", who.c_str(), kNames[k], c.calls[k], c.bytes[k], c.seconds[k]);
      for (int b = 0; b < kBins; ++b) {
        if (c.hist[k][b] == 0) continue;
        unsigned long long lo = b ? 1ull << (b - 1) : 0, hi = b ? (1ull << b) - 1 : 0;
        std::fprintf(f, "hist\t%s\t%s\t%llu\t%llu\t%.0f\n", who.c_str(), kNames[k], lo, hi, c.hist[k][b]);
      }
    }
  };
  for (std::size_t r = 0; r < all.size(); ++r) {
    std::fprintf(f, "wall\t%zu\t%.9f\n", r, walls[r]);
    emit(std::to_string(r), all[r]);
  }
  emit("all", sum);
}

// ---- Region memory (base/alloc_stats.h) --------------------------------------------------------------
//   mem  <rank>  <pool_live_peak>  <pool_mapped_peak>  <pool_segments>  <pool_blocks>  <own_regions>  <own_live_peak>

std::vector<AllocStats> gather_alloc_stats(const Runtime& r) {
  std::vector<AllocStats> all(r.me == 0 ? r.nproc : 0);
  ARMCIX_MPI(MPI_Gather(&g_alloc_stats, kAllocStatsFields, MPI_UINT64_T, all.data(), kAllocStatsFields, MPI_UINT64_T, 0,
                        r.world));
  return all;
}

// The pool's peak of live blocks beside the peak its segments mapped: their ratio is what the run's pattern
// of sizes cost in the pool (free runs too small for the next block, segments doubling ahead of need).
void print_alloc_stats(FILE* out, const std::vector<AllocStats>& all) {
  std::fprintf(out,
               "region memory, bytes of each process's slices (pool: ARMCI_POOL_MB; own: a segment or window each):\n");
  std::fprintf(out, "  %-6s %16s %16s %11s %8s %10s %12s %12s\n", "rank", "pool live peak", "pool mapped peak",
               "mapped/live", "segments", "blocks", "own regions", "own peak");
  for (std::size_t p = 0; p < all.size(); ++p) {
    const AllocStats& a = all[p];
    const double ratio = a.pool_live_peak ? static_cast<double>(a.pool_mapped_peak) / a.pool_live_peak : 0;
    std::fprintf(out, "  %-6zu %16llu %16llu %11.2f %8llu %10llu %12llu %12llu\n", p,
                 static_cast<unsigned long long>(a.pool_live_peak), static_cast<unsigned long long>(a.pool_mapped_peak),
                 ratio, static_cast<unsigned long long>(a.pool_segments),
                 static_cast<unsigned long long>(a.pool_blocks), static_cast<unsigned long long>(a.own_regions),
                 static_cast<unsigned long long>(a.own_live_peak));
  }
}

void write_alloc_stats(FILE* f, const std::vector<AllocStats>& all) {
  for (std::size_t p = 0; p < all.size(); ++p) {
    const AllocStats& a = all[p];
    std::fprintf(f, "mem\t%zu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\n", p,
                 static_cast<unsigned long long>(a.pool_live_peak), static_cast<unsigned long long>(a.pool_mapped_peak),
                 static_cast<unsigned long long>(a.pool_segments), static_cast<unsigned long long>(a.pool_blocks),
                 static_cast<unsigned long long>(a.own_regions), static_cast<unsigned long long>(a.own_live_peak));
  }
}

// Every rank's `mine` on rank 0 (empty elsewhere).  Collective over the runtime's world.
std::vector<std::string> gather_text(const Runtime& r, const std::string& mine) {
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(r.me == 0 ? r.nproc : 0), displs(r.me == 0 ? r.nproc : 0);
  ARMCIX_MPI(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, r.world));
  std::string all;
  if (r.me == 0) {
    int total = 0;
    for (int p = 0; p < r.nproc; ++p) {
      displs[p] = total;
      total += lens[p];
    }
    all.resize(static_cast<std::size_t>(total));
  }
  ARMCIX_MPI(MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, r.world));
  std::vector<std::string> out;
  for (int p = 0; p < (r.me == 0 ? r.nproc : 0); ++p)
    out.push_back(all.substr(static_cast<std::size_t>(displs[p]), static_cast<std::size_t>(lens[p])));
  return out;
}

// ---- Paths taken (prof_count_path) ----------------------------------------------------------------------
// A rank names only the paths it took, so the counts travel as text lines "family<TAB>path<TAB>name<TAB>calls"
// and are summed by (family, path).
//   path  <rank|all>  <contig|strided|iov>  <name>  <calls>

struct PathRow {
  std::string name;
  uint64_t calls = 0;
};
using PathRows = std::map<std::pair<int, int>, PathRow>;  // (family, path)

std::string serialize_paths() {
  std::string out;
  for (int f = 0; f < kFamilies; ++f)
    for (int p = 0; p < kPathsPerFamily; ++p) {
      const PathSlot& s = g_paths[f][p];
      if (s.calls == 0) continue;
      out += std::to_string(f) + "\t" + std::to_string(p) + "\t" + s.name + "\t" + std::to_string(s.calls) + "\n";
    }
  return out;
}

PathRows parse_paths(const std::string& text) {
  PathRows rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string family, path, name, calls;
    if (!std::getline(f, family, '\t') || !std::getline(f, path, '\t') || !std::getline(f, name, '\t') ||
        !std::getline(f, calls))
      continue;
    PathRow& r = rows[{std::stoi(family), std::stoi(path)}];
    r.name = name;
    r.calls += std::stoull(calls);
  }
  return rows;
}

void print_paths(FILE* out, const PathRows& sum) {
  if (sum.empty()) return;
  std::fprintf(out,
               "paths taken, all ranks (contig: each contiguous put/get/acc by its path; strided: each call by "
               "engine; iov: each descriptor by engine):\n");
  std::fprintf(out, "  %-8s %-17s %12s\n", "kind", "path", "calls");
  for (const auto& [key, row] : sum)
    std::fprintf(out, "  %-8s %-17s %12llu\n", kFamilyNames[key.first], row.name.c_str(),
                 static_cast<unsigned long long>(row.calls));
}

void write_paths(FILE* f, const std::string& who, const PathRows& rows) {
  for (const auto& [key, row] : rows)
    std::fprintf(f, "path\t%s\t%s\t%s\t%llu\n", who.c_str(), kFamilyNames[key.first], row.name.c_str(),
                 static_cast<unsigned long long>(row.calls));
}

// ---- MPI calls and waits (wait/call_stats.h) ----------------------------------------------------------
// Each rank's slots are registered in the order its calls first happened, which differs between ranks, so
// they travel as text lines "kind<TAB>name<TAB>calls<TAB>pauses<TAB>seconds" and are matched by name.

struct CallRow {
  uint64_t calls = 0;
  uint64_t pauses = 0;
  double seconds = 0;
  double max_seconds = 0;  // over ranks
};
using CallKey = std::pair<std::string, std::string>;  // kind, name

std::string serialize_call_stats() {
  std::string out;
  for (const CallStat& c : call_stats_snapshot()) {
    char line[64];
    std::snprintf(line, sizeof line, "\t%llu\t%llu\t%.9f\n", static_cast<unsigned long long>(c.calls),
                  static_cast<unsigned long long>(c.pauses), c.seconds);
    out += std::string(call_kind_name(c.kind)) + "\t" + c.name + line;
  }
  return out;
}

std::map<CallKey, CallRow> parse_call_stats(const std::string& text) {
  std::map<CallKey, CallRow> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string kind, name, calls, pauses, seconds;
    if (!std::getline(f, kind, '\t') || !std::getline(f, name, '\t') || !std::getline(f, calls, '\t') ||
        !std::getline(f, pauses, '\t') || !std::getline(f, seconds))
      continue;
    CallRow& r = rows[{kind, name}];
    r.calls += std::stoull(calls);
    r.pauses += std::stoull(pauses);
    r.seconds += std::stod(seconds);
    r.max_seconds = std::max(r.max_seconds, std::stod(seconds));
  }
  return rows;
}

// Rank 0 gets every rank's call statistics (empty elsewhere).  Collective over the runtime's world.
std::vector<std::map<CallKey, CallRow>> gather_call_stats(const Runtime& r) {
  std::vector<std::map<CallKey, CallRow>> out;
  for (const std::string& text : gather_text(r, serialize_call_stats())) out.push_back(parse_call_stats(text));
  return out;
}

std::map<CallKey, CallRow> sum_call_stats(const std::vector<std::map<CallKey, CallRow>>& ranks) {
  std::map<CallKey, CallRow> sum;
  for (const auto& rows : ranks)
    for (const auto& [key, row] : rows) {
      CallRow& s = sum[key];
      s.calls += row.calls;
      s.pauses += row.pauses;
      s.seconds += row.seconds;
      s.max_seconds = std::max(s.max_seconds, row.seconds);
    }
  return sum;
}

void print_call_stats(FILE* out, const std::map<CallKey, CallRow>& sum, int nproc) {
  if (sum.empty()) return;
  std::vector<std::pair<CallKey, CallRow>> rows(sum.begin(), sum.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  std::fprintf(out,
               "MPI calls through armci-x's wrappers and armci-x's waits, all ranks (inclusive: nested calls count "
               "in each; pauses: back-off sleeps or yields between polls):\n");
  std::fprintf(out, "  %-5s %-26s %12s %12s %12s %10s %12s\n", "kind", "name", "calls", "seconds", "max s/rank",
               "us/call", "pauses");
  for (const auto& [key, row] : rows)
    std::fprintf(out, "  %-5s %-26s %12llu %12.6f %12.6f %10.2f %12llu\n", key.first.c_str(), key.second.c_str(),
                 static_cast<unsigned long long>(row.calls), row.seconds, row.max_seconds,
                 row.calls ? 1e6 * row.seconds / static_cast<double>(row.calls) : 0.0,
                 static_cast<unsigned long long>(row.pauses));
  (void)nproc;
}

//   call  <rank|all>  <kind>  <name>  <calls>  <pauses>  <seconds>
void write_call_stats(FILE* f, const std::string& who, const std::map<CallKey, CallRow>& rows) {
  for (const auto& [key, row] : rows)
    std::fprintf(f, "call\t%s\t%s\t%s\t%llu\t%llu\t%.9f\n", who.c_str(), key.first.c_str(), key.second.c_str(),
                 static_cast<unsigned long long>(row.calls), static_cast<unsigned long long>(row.pauses), row.seconds);
}

}  // namespace

const char* prof_kind_name(ProfKind k) {
  return kNames[static_cast<int>(k)];
}

bool prof_is_sync(ProfKind k) {
  switch (k) {
    case ProfKind::Fence:
    case ProfKind::AllFence:
    case ProfKind::Barrier:
    case ProfKind::Wait:
    case ProfKind::Test:
    case ProfKind::WaitProc:
    case ProfKind::WaitAll:
    case ProfKind::Lock:
    case ProfKind::Unlock:
      return true;
    default:
      return false;
  }
}

void prof_count_path(PathFamily family, int path, const char* name) {
  const int f = static_cast<int>(family);
  if (f < 0 || f >= kFamilies || path < 0 || path >= kPathsPerFamily) return;
  PathSlot& s = g_paths[f][path];
  s.name = name;
  ++s.calls;
}

void prof_record(int kind, double seconds, uint64_t /*pauses*/, uint64_t bytes) {
  const int i = kind;
  g_counters.calls[i] += 1;
  g_counters.bytes[i] += static_cast<double>(bytes);
  g_counters.seconds[i] += seconds;
  g_counters.hist[i][bin_of(bytes)] += 1;
}

std::size_t count_strided_bytes(const int* count, int levels) {
  if (!count || levels < 0 || levels > ARMCI_MAX_STRIDE_LEVEL) return 0;
  std::size_t n = 1;
  for (int i = 0; i <= levels; ++i) n *= count[i] > 0 ? static_cast<std::size_t>(count[i]) : 0;
  return n;
}

std::size_t count_iov_bytes(const void* iov, int iov_len) {
  const armci_giov_t* v = static_cast<const armci_giov_t*>(iov);
  std::size_t n = 0;
  for (int i = 0; v && i < iov_len; ++i)
    if (v[i].bytes > 0 && v[i].ptr_array_len > 0)
      n += static_cast<std::size_t>(v[i].bytes) * static_cast<std::size_t>(v[i].ptr_array_len);
  return n;
}

void profiler_initialize() {
  g_profiling = rt().config.profile;
  // Zero from the start (static storage); cleared again only for a later ARMCI_Init that profiles: the
  // table is 13 KiB (32 kinds x 51 doubles), whose first write is page faults in every ARMCI_Init otherwise.
  if (g_profiling) {
    g_counters = Counters{};
    for (auto& family : g_paths)
      for (PathSlot& s : family) s = PathSlot{};
  }
  g_start_time = MPI_Wtime();
  call_stats_enable(g_profiling);
}

void profiler_finalize() {
  if (!g_profiling) return;
  g_profiling = false;
  call_stats_enable(false);  // the gathers below are the profiler's, not the program's
  Runtime& r = rt();
  double wall = MPI_Wtime() - g_start_time;
  const std::vector<std::map<CallKey, CallRow>> calls = gather_call_stats(r);
  const std::vector<AllocStats> memory = gather_alloc_stats(r);
  std::vector<PathRows> paths;
  for (const std::string& text : gather_text(r, serialize_paths())) paths.push_back(parse_paths(text));
  std::vector<Counters> all(r.me == 0 ? r.nproc : 0);
  std::vector<double> walls(r.me == 0 ? r.nproc : 0);
  ARMCIX_MPI(MPI_Gather(&g_counters, kDoubles, MPI_DOUBLE, all.data(), kDoubles, MPI_DOUBLE, 0, r.world));
  ARMCIX_MPI(MPI_Gather(&wall, 1, MPI_DOUBLE, walls.data(), 1, MPI_DOUBLE, 0, r.world));
  if (r.me != 0) return;
  Counters sum{};
  double max_wall = 0;
  for (int p = 0; p < r.nproc; ++p) {
    const double* src = reinterpret_cast<const double*>(&all[p]);
    double* dst = reinterpret_cast<double*>(&sum);
    for (int i = 0; i < kDoubles; ++i) dst[i] += src[i];
    if (walls[p] > max_wall) max_wall = walls[p];
  }
  std::printf("==== armci-x profile (ARMCI_PROFILE=1), %d ranks ====\n", r.nproc);
  for (int p = 0; p < r.nproc; ++p) print_table(stdout, ("rank " + std::to_string(p)).c_str(), all[p], walls[p]);
  print_table(stdout, "all ranks", sum, max_wall * r.nproc);
  const std::map<CallKey, CallRow> call_sum = sum_call_stats(calls);
  print_call_stats(stdout, call_sum, r.nproc);
  PathRows path_sum;
  for (const PathRows& rows : paths)
    for (const auto& [key, row] : rows) {
      PathRow& s = path_sum[key];
      s.name = row.name;
      s.calls += row.calls;
    }
  print_alloc_stats(stdout, memory);
  print_paths(stdout, path_sum);
  std::fflush(stdout);
  if (!r.config.profile_file.empty()) {
    // A profile that cannot be written does not fail a computation that has finished: it is said on
    // standard error, naming the file and the reason, whether the open, a write or the close fails (a full
    // disk shows only at the flush).
    const char* path = r.config.profile_file.c_str();
    FILE* f = std::fopen(path, "w");
    if (!f) {
      armcix::print_to_stderr("armci-x: cannot write ARMCI_PROFILE_FILE '%s': %s\n", path, std::strerror(errno));
      return;
    }
    write_file(f, all, sum, walls);
    for (std::size_t p = 0; p < calls.size(); ++p) write_call_stats(f, std::to_string(p), calls[p]);
    write_call_stats(f, "all", call_sum);
    write_alloc_stats(f, memory);
    for (std::size_t p = 0; p < paths.size(); ++p) write_paths(f, std::to_string(p), paths[p]);
    write_paths(f, "all", path_sum);
    errno = 0;
    const bool written = std::fflush(f) == 0 && !std::ferror(f);
    const int write_errno = errno;
    const bool closed = std::fclose(f) == 0;
    if (!written || !closed)
      armcix::print_to_stderr("armci-x: cannot write ARMCI_PROFILE_FILE '%s': %s\n", path,
                              std::strerror(!written && write_errno ? write_errno
                                            : errno                 ? errno
                                                                    : EIO));
  }
}

}  // namespace armcix
