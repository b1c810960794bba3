// Micro-benchmark for armcix::segments_overlap (AVL conflict tree) against the naive pairwise check.
//
// Segments are 64-byte, contiguous (so neighbours touch but never overlap) and presented in shuffled
// order, which is the tree's realistic worst case: sorted input would make every insertion follow the
// same right spine.  Exits non-zero if any check returns a wrong answer; timings never fail the run.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "transfer/conflict_tree.h"

namespace {

constexpr int kBytes = 64;
constexpr uintptr_t kBase = 0x10000000;

std::vector<void*> MakeSegments(int n, uint64_t seed) {
  std::vector<uintptr_t> slot(n);
  std::iota(slot.begin(), slot.end(), 0);
  std::shuffle(slot.begin(), slot.end(), std::mt19937_64(seed));
  std::vector<void*> ptrs(n);
  for (int i = 0; i < n; ++i) ptrs[i] = reinterpret_cast<void*>(kBase + slot[i] * kBytes);
  return ptrs;
}

struct Result {
  bool overlap;
  int first;
  int second;
};

Result Naive(const std::vector<void*>& ptrs, int bytes) {
  const int n = static_cast<int>(ptrs.size());
  for (int i = 1; i < n; ++i) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(ptrs[i]);
    for (int j = 0; j < i; ++j) {
      const uintptr_t b = reinterpret_cast<uintptr_t>(ptrs[j]);
      if (a < b + bytes && b < a + bytes) return {true, j, i};
    }
  }
  return {false, -1, -1};
}

Result Tree(const std::vector<void*>& ptrs, int bytes) {
  Result r;
  r.overlap = armcix::segments_overlap(ptrs.data(), static_cast<int>(ptrs.size()), bytes, &r.first, &r.second);
  return r;
}

// Repeats until at least min_seconds have elapsed (so small cases are not lost in timer noise) and
// reports the mean time of one call.
template <typename F>
double TimeIt(F&& f, double min_seconds, Result* out) {
  using Clock = std::chrono::steady_clock;
  int reps = 0;
  const auto start = Clock::now();
  double elapsed = 0;
  do {
    *out = f();
    ++reps;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < min_seconds);
  return elapsed / reps;
}

int failures = 0;

void Report(const char* method, const char* input, int n, double seconds, const Result& got, const Result& want) {
  const bool ok = got.overlap == want.overlap && got.first == want.first && got.second == want.second;
  std::printf("%-6s %-22s %9d %12.6f %10.1f  %s\n", method, input, n, seconds, seconds * 1e9 / n, ok ? "ok" : "WRONG");
  if (!ok) {
    std::fprintf(stderr, "  got overlap=%d (%d,%d), want overlap=%d (%d,%d)\n", got.overlap, got.first, got.second,
                 want.overlap, want.first, want.second);
    ++failures;
  }
}

}  // namespace

int main() {
  const double kMinSeconds = 0.2;
  std::printf("%-6s %-22s %9s %12s %10s\n", "method", "input", "n", "seconds", "ns/seg");

  for (int n : {1000, 10000, 100000, 1000000}) {
    const std::vector<void*> ptrs = MakeSegments(n, static_cast<uint64_t>(n));
    Result got;
    const double t = TimeIt([&] { return Tree(ptrs, kBytes); }, kMinSeconds, &got);
    Report("tree", "disjoint, shuffled", n, t, got, Result{false, -1, -1});
  }

  {
    // Worst case for early exit: the only overlap is introduced by the very last segment.
    const int n = 1000000;
    std::vector<void*> ptrs = MakeSegments(n, 42);
    const int victim = n / 3;
    ptrs[n - 1] = ptrs[victim];  // duplicate: the only segment it can overlap is the victim's
    Result got;
    const double t = TimeIt([&] { return Tree(ptrs, kBytes); }, kMinSeconds, &got);
    Report("tree", "overlap at end", n, t, got, Result{true, victim, n - 1});
  }

  for (int n : {1000, 10000, 20000}) {
    const std::vector<void*> ptrs = MakeSegments(n, static_cast<uint64_t>(n));
    Result got;
    const double t = TimeIt([&] { return Naive(ptrs, kBytes); }, kMinSeconds, &got);
    Report("naive", "disjoint, shuffled", n, t, got, Result{false, -1, -1});
    // Cross-check the two implementations on an input with a late overlap too.
    std::vector<void*> bad = ptrs;
    bad[n - 1] = bad[n / 2];
    const Result want = Naive(bad, kBytes);
    const Result tree = Tree(bad, kBytes);
    if (!want.overlap || tree.overlap != want.overlap || tree.first != want.first || tree.second != want.second) {
      std::fprintf(stderr, "tree/naive disagree at n=%d\n", n);
      ++failures;
    }
  }

  if (failures != 0) {
    std::fprintf(stderr, "%d wrong result(s)\n", failures);
    return 1;
  }
  return 0;
}
