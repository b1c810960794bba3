// armci-x's model tester: runs random, seeded ARMCI programs on every rank and checks every value read
// against a reference model of ARMCI's semantics (program.h), shrinks a failing program to the fewest
// operations that still fail, and writes it as a plain C reproducer (emit.cc).  doc/design.md, "The model
// tester", says how it works; doc/contributing.md how to run it.
//
//   model_tester [--seeds N] [--seed S] [--phases P] [--ops K] [--threads T] [--max-bytes B]
//                [--time-budget SEC] [--shrink-budget SEC] [--repro-dir DIR] [--compat-barrier]
//                [--compat-mpi-barrier] [--group-free-early] [--parallel-groups] [--hang-seconds S] [--ga-strides] [--no-groups] [--layout NAME]
// Seeds S, S+1, ... (N of them, or as many as fit in --time-budget) run one after the other in one job.
// Closing line: "N passed, N failed" (seeds).
#include "armci_c.h"

#include <unistd.h>

#include <chrono>
#include <atomic>
#include <csignal>
#include <ctime>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "emit.h"
#include "run.h"

using namespace model;

namespace {

struct Args {
  Config cfg;
  long seeds = 4;
  double time_budget = 0, shrink_budget = 120, hang_seconds = 90;
  std::string repro_dir = ".", layout = "";
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto val = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "model_tester: %s needs a value\n", k.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    // Numbers are taken whole or not at all: "--seeds ten" or "--ops 4x" is an error, not 0 or 4.
    auto integer = [&](long lo, long hi) -> long {
      const char* v = val();
      char* end = nullptr;
      errno = 0;
      const long x = std::strtol(v, &end, 10);
      if (end == v || *end != '\0' || errno != 0 || x < lo || x > hi) {
        std::fprintf(stderr, "model_tester: %s '%s' is not a whole number from %ld to %ld\n", k.c_str(), v, lo, hi);
        std::exit(2);
      }
      return x;
    };
    auto seconds = [&]() -> double {
      const char* v = val();
      char* end = nullptr;
      errno = 0;
      const double x = std::strtod(v, &end);
      if (end == v || *end != '\0' || errno != 0 || !(x >= 0) || x > 1e7) {
        std::fprintf(stderr, "model_tester: %s '%s' is not a number of seconds (0 or more)\n", k.c_str(), v);
        std::exit(2);
      }
      return x;
    };
    constexpr long int_max = 1L << 30;
    if (k == "--seeds") a.seeds = integer(1, 1L << 40);
    else if (k == "--seed") a.cfg.seed = static_cast<uint64_t>(integer(0, 1L << 62));
    else if (k == "--phases") a.cfg.phases = static_cast<int>(integer(1, int_max));
    else if (k == "--ops") a.cfg.ops = static_cast<int>(integer(1, int_max));
    else if (k == "--threads") a.cfg.nthreads = static_cast<int>(integer(1, 256));
    else if (k == "--max-bytes") a.cfg.max_bytes = integer(256, 1L << 40);
    else if (k == "--time-budget") a.time_budget = seconds();
    else if (k == "--shrink-budget") a.shrink_budget = seconds();
    else if (k == "--hang-seconds") a.hang_seconds = seconds();
    else if (k == "--repro-dir") a.repro_dir = val();
    else if (k == "--layout") a.layout = val();
    else if (k == "--compat-barrier") a.cfg.compat_barrier = true;
    else if (k == "--compat-mpi-barrier") a.cfg.compat_mpi_barrier = true;
    else if (k == "--group-free-early") a.cfg.group_free_early = true;
    else if (k == "--parallel-groups") a.cfg.parallel_groups = true;
    else if (k == "--ga-strides") a.cfg.ga_strides = true;
    else if (k == "--no-groups") a.cfg.no_groups = true;
    else {
      std::fprintf(stderr, "model_tester: unknown argument %s (see tests/model/main.cc)\n", k.c_str());
      std::exit(2);
    }
  }
  if (a.cfg.parallel_groups && a.cfg.nthreads > 2) {
    std::fprintf(stderr, "model_tester: --parallel-groups takes --threads 2 (one group of its own per thread)\n");
    std::exit(2);
  }
  if (a.cfg.nthreads < 1 || a.cfg.phases < 1 || a.cfg.ops < 1 || a.cfg.max_bytes < 256) {
    std::fprintf(stderr, "model_tester: --threads, --phases, --ops must be >= 1 and --max-bytes >= 256\n");
    std::exit(2);
  }
  return a;
}

int g_me = 0;
char g_crash_note[256];
std::atomic<long> g_finalizing_since{0};  // time ARMCI_Finalize returned (0: not yet)
int g_verdict = 0;

// A crash (a late write into freed memory, a hang's abort) cannot be shrunk: say which seed and phase.
void on_crash(int sig) {
  char b[320];
  const int n = std::snprintf(b, sizeof b, "MODEL CRASH signal %d on rank %d in phase %d of %s\n", sig, g_me, crash_phase, g_crash_note);
  if (n > 0) (void)!write(2, b, static_cast<std::size_t>(n));
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// Agreed across ranks: which rank found what (the lowest rank with a finding in the first failing phase).
Finding agree(const Outcome& o) {
  Finding f;
  int mine = o.failed && !o.message.empty() ? g_me : 1 << 30, who = 0;
  MPI_Allreduce(&mine, &who, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (who == 1 << 30) return f;
  long ints[7] = {o.phase, o.fail_thread, o.fail_index, o.fail_done_by, o.fail_offset, o.fail_slot, o.late};
  MPI_Bcast(ints, 7, MPI_LONG, who, MPI_COMM_WORLD);
  char buf[2048] = {0}, exp[64] = {0};
  if (g_me == who) {
    std::snprintf(buf, sizeof buf, "%s", o.message.c_str());
    std::snprintf(exp, sizeof exp, "%s", o.fail_expected.c_str());
  }
  MPI_Bcast(buf, sizeof buf, MPI_CHAR, who, MPI_COMM_WORLD);
  MPI_Bcast(exp, sizeof exp, MPI_CHAR, who, MPI_COMM_WORLD);
  f.phase = static_cast<int>(ints[0]);
  f.rank = who;
  f.index = ints[1] > 0 ? -1 : static_cast<int>(ints[2]);  // threads other than 0: no operation to point at
  f.done_by = static_cast<int>(ints[3]);
  f.offset = ints[4];
  f.slot = static_cast<int>(ints[5]);
  f.late = ints[6] != 0;
  f.expected = exp;
  f.message = buf;
  return f;
}

struct Ids {
  int ph, r, t, i;
};

// The operations of phases 0..last still kept (completion calls included).
std::vector<Ids> kept_ops(const Program& p, int last) {
  std::vector<Ids> v;
  for (int ph = 0; ph <= last; ++ph)
    for (int r = 0; r < p.cfg.nranks; ++r)
      for (int t = 0; t < p.cfg.nthreads; ++t) {
        const auto& ops = p.phases[static_cast<std::size_t>(ph)].ops[static_cast<std::size_t>(r)][static_cast<std::size_t>(t)];
        for (std::size_t i = 0; i < ops.size(); ++i)
          if (ops[i].keep) v.push_back({ph, r, t, static_cast<int>(i)});
      }
  return v;
}
Op& op_at(Program& p, const Ids& x) {
  return p.phases[static_cast<std::size_t>(x.ph)].ops[static_cast<std::size_t>(x.r)][static_cast<std::size_t>(x.t)][static_cast<std::size_t>(x.i)];
}

// Delta debugging over the kept operations: drop chunks while the program still fails (in any of two
// tries: a timing-dependent finding may hide once).  Every rank takes the same decisions from agreed outcomes.
void shrink(Program& p, int& last, double budget, long& runs) {
  const auto t0 = std::chrono::steady_clock::now();
  auto fails = [&]() {
    for (int k = 0; k < 2; ++k) {
      ++runs;
      Outcome o = run_program(p, last);
      if (o.failed) {
        last = o.phase;
        return true;
      }
    }
    return false;
  };
  std::vector<Ids> ops = kept_ops(p, last);
  std::size_t n = 2;
  while (ops.size() > 1) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > budget) break;
    const std::size_t chunk = (ops.size() + n - 1) / n;
    bool removed = false;
    for (std::size_t start = 0; start < ops.size(); start += chunk) {
      const std::size_t end = std::min(ops.size(), start + chunk);
      for (std::size_t k = start; k < end; ++k) op_at(p, ops[k]).keep = false;
      if (fails()) {
        ops = kept_ops(p, last);
        removed = true;
        break;
      }
      for (std::size_t k = start; k < end; ++k) op_at(p, ops[k]).keep = true;
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > budget) break;
    }
    if (removed) {
      n = std::max<std::size_t>(2, n - 1);
    } else {
      if (n >= ops.size()) break;
      n = std::min(ops.size(), 2 * n);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse(argc, argv);
  int provided = 0;
  MPI_Init_thread(&argc, &argv, a.cfg.nthreads > 1 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  if (a.cfg.nthreads > 1 && provided < MPI_THREAD_MULTIPLE) {
    std::fprintf(stderr, "model_tester: --threads needs MPI_THREAD_MULTIPLE\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &g_me);
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE}) std::signal(sig, on_crash);
  // A phase that takes longer than --hang-seconds is a hang (a deadlock in the library, a wait that never
  // ends): name its seed and phase, then end the job (it cannot be shrunk).
  std::thread([&a] {
    long seen = -1;
    auto since = std::chrono::steady_clock::now();
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      if (g_finalizing_since.load() > 0) {
        // ARMCI_Finalize returned and the verdict is out; Debian's MPICH 4.0.2 over UCX tcp sometimes hangs in
        // MPI_Finalize itself (tools/repro/mpi-finalize-hang.c): after a grace period, exit with the verdict,
        // as tests/mpi/mpi_test_main.cc does (tests/check.sh recognises the pair of lines).
        if (std::time(nullptr) - g_finalizing_since.load() < 15) continue;
        std::fprintf(stderr, "[rank %d] MPI_Finalize did not return within 15 s after the verdict (known MPICH/UCX "
                             "tcp finalize hang, see doc/user-guide.md): exiting with the verdict %d\n", g_me, g_verdict);
        std::fflush(nullptr);
        _exit(g_verdict);
      }
      const long now = heartbeat.load();
      if (now != seen) {
        seen = now;
        since = std::chrono::steady_clock::now();
      } else if (std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count() > a.hang_seconds) {
        std::fprintf(stdout, "MODEL HANG on rank %d: phase %d of %s has run for %.0f s\n", g_me, crash_phase, g_crash_note,
                     a.hang_seconds);
        std::fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
    }
  }).detach();
  MPI_Comm_size(MPI_COMM_WORLD, &a.cfg.nranks);
  const auto t0 = std::chrono::steady_clock::now();
  long passed = 0, failed = 0, checked = 0, issued = 0;
  const uint64_t first = a.cfg.seed;
  for (long k = 0;; ++k) {
    if (a.time_budget > 0) {
      double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      MPI_Bcast(&el, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      if (el > a.time_budget) break;
    } else if (k >= a.seeds) {
      break;
    }
    Config cfg = a.cfg;
    cfg.seed = first + static_cast<uint64_t>(k);
    std::snprintf(g_crash_note, sizeof g_crash_note, "seed %llu (layout %s, %d ranks, %d threads, %d ops, %d phases)",
                  static_cast<unsigned long long>(cfg.seed), a.layout.c_str(), cfg.nranks, cfg.nthreads, cfg.ops, cfg.phases);
    Program p = generate(cfg);
    Outcome o = run_program(p, cfg.phases - 1);
    checked += o.ops_checked;
    issued += o.ops_run;
    Finding f = agree(o);
    if (f.phase < 0) {
      ++passed;
      continue;
    }
    ++failed;
    if (g_me == 0)
      std::printf("MODEL MISMATCH seed %llu layout %s ranks %d threads %d: %s\n", static_cast<unsigned long long>(cfg.seed),
                  a.layout.c_str(), cfg.nranks, cfg.nthreads, f.message.c_str());
    std::fflush(stdout);
    // Shrink: the phases up to the failing one, then the fewest operations that still fail.
    int last = f.phase;
    long runs = 0;
    if (a.shrink_budget > 0) shrink(p, last, a.shrink_budget, runs);
    ++runs;
    Outcome again = run_program(p, last);
    Finding g = agree(again);
    const long left = static_cast<long>(kept_ops(p, last).size());
    if (g_me == 0) {
      if (g.phase < 0) {
        std::printf("  shrinking: the finding did not recur in %ld runs; the full program (seed %llu) is the reproducer\n", runs,
                    static_cast<unsigned long long>(cfg.seed));
      } else {
        std::printf("  shrunk in %ld runs to %ld operations in phases 0..%d: %s\n", runs, left, last, g.message.c_str());
        for (const Ids& x : kept_ops(p, last))
          std::printf("    phase %d rank %d thread %d #%d: %s\n", x.ph, x.r, x.t, x.i, describe(p, x.ph, x.r, x.t, x.i).c_str());
        const std::string path = a.repro_dir + "/model-repro-" + std::to_string(cfg.seed) + ".c";
        if (emit_c(p, g, path)) std::printf("  reproducer: %s (run on %d ranks, same environment)\n", path.c_str(), cfg.nranks);
        else std::printf("  no C reproducer (%s)\n", cfg.nthreads > 1 ? "threaded program" : "cannot write the file");
      }
      std::fflush(stdout);
    }
  }
  long tot[2] = {checked, issued}, sum[2] = {0, 0};
  MPI_Reduce(tot, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  long any_failed = failed;
  MPI_Allreduce(MPI_IN_PLACE, &any_failed, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (g_me == 0) {
    std::printf("model: seeds %llu..%llu, layout %s, %d ranks x %d threads: %ld operations issued, %ld values checked, %.1f s (%.0f ops/s)\n",
                static_cast<unsigned long long>(first), static_cast<unsigned long long>(first + passed + failed - 1), a.layout.c_str(),
                a.cfg.nranks, a.cfg.nthreads, sum[1], sum[0], el, el > 0 ? sum[1] / el : 0.0);
    std::printf("%ld passed, %ld failed\n", passed, failed);
    std::printf("[verdict] %s\n", any_failed ? "some rank failed" : "all ranks passed");
    std::fflush(stdout);
  }
  heartbeat.fetch_add(1);  // ARMCI_Finalize gets the full --hang-seconds
  ARMCI_Finalize();
  g_verdict = failed ? 1 : 0;
  g_finalizing_since = static_cast<long>(std::time(nullptr));
  MPI_Finalize();
  return failed ? 1 : 0;
}
