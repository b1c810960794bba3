#include "profile/profiler.h"

#include <armci.h>
#include <mpi.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/modules.h"
#include "runtime/runtime.h"

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

double prof_now() {
  return MPI_Wtime();
}

void prof_record(ProfKind k, std::size_t bytes, double seconds) {
  int i = static_cast<int>(k);
  g_counters.calls[i] += 1;
  g_counters.bytes[i] += static_cast<double>(bytes);
  g_counters.seconds[i] += seconds;
  g_counters.hist[i][bin_of(bytes)] += 1;
}

std::size_t strided_bytes(const int* count, int levels) {
  if (!count || levels < 0 || levels > ARMCI_MAX_STRIDE_LEVEL) return 0;
  std::size_t n = 1;
  for (int i = 0; i <= levels; ++i) n *= count[i] > 0 ? static_cast<std::size_t>(count[i]) : 0;
  return n;
}

std::size_t iov_bytes(const void* iov, int iov_len) {
  const armci_giov_t* v = static_cast<const armci_giov_t*>(iov);
  std::size_t n = 0;
  for (int i = 0; v && i < iov_len; ++i)
    if (v[i].bytes > 0 && v[i].ptr_array_len > 0)
      n += static_cast<std::size_t>(v[i].bytes) * static_cast<std::size_t>(v[i].ptr_array_len);
  return n;
}

void profiler_initialize() {
  g_profiling = rt().config.profile;
  g_counters = Counters{};
  g_start_time = MPI_Wtime();
}

void profiler_finalize() {
  if (!g_profiling) return;
  g_profiling = false;
  Runtime& r = rt();
  double wall = MPI_Wtime() - g_start_time;
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
  std::fflush(stdout);
  if (!r.config.profile_file.empty()) {
    FILE* f = std::fopen(r.config.profile_file.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "armci-x: cannot write ARMCI_PROFILE_FILE '%s'\n", r.config.profile_file.c_str());
      return;
    }
    write_file(f, all, sum, walls);
    std::fclose(f);
  }
}

}  // namespace armcix
