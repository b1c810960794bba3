// Tests for armcix::ConflictTree and armcix::segments_overlap.  Randomized tests compare against an
// O(N^2) oracle and print their seed through SCOPED_TRACE so that a failure can be replayed.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <ostream>
#include <random>
#include <vector>

#include "transfer/conflict_tree.h"

namespace armcix {
namespace {

constexpr uintptr_t kMax = std::numeric_limits<uintptr_t>::max();

struct Range {
  uintptr_t lo;
  uintptr_t hi;
};

bool Intersects(const Range& a, const Range& b) {
  return a.lo <= b.hi && b.lo <= a.hi;
}

// Upper bound requested for AVL trees (the exact one is 1.4405 * log2(n + 2) - 0.3277).
double AvlBound(std::size_t n) {
  return 1.45 * std::log2(static_cast<double>(n) + 2.0);
}

// No binary tree with n nodes is shallower than this; checked so that a height() that under-reports
// cannot pass the upper-bound tests.
int MinHeight(std::size_t n) {
  return static_cast<int>(std::ceil(std::log2(static_cast<double>(n) + 1.0)));
}

void ExpectBalanced(const ConflictTree& t) {
  EXPECT_TRUE(t.check_invariants());
  EXPECT_LE(t.height(), AvlBound(t.size())) << "size " << t.size();
  EXPECT_GE(t.height(), MinHeight(t.size())) << "size " << t.size();
}

void* P(uintptr_t a) {
  return reinterpret_cast<void*>(a);
}

// Random closed range with lo in [base, base + space - 1] and length in [1, max_len], clamped at kMax.
Range RandomRange(std::mt19937_64& rng, uintptr_t base, uintptr_t space, uintptr_t max_len) {
  const uintptr_t lo = base + std::uniform_int_distribution<uintptr_t>(0, space - 1)(rng);
  const uintptr_t span = std::uniform_int_distribution<uintptr_t>(0, max_len - 1)(rng);
  return Range{lo, lo > kMax - span ? kMax : lo + span};
}

// ---------------------------------------------------------------------------------------------------------
// Basic behaviour

TEST(ConflictTreeTest, EmptyTree) {
  ConflictTree t;
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.height(), 0);
  EXPECT_TRUE(t.check_invariants());
  EXPECT_FALSE(t.contains_overlap(0, 0));
  EXPECT_FALSE(t.contains_overlap(0, kMax));
  EXPECT_FALSE(t.contains_overlap(kMax, kMax));
  t.clear();
  EXPECT_EQ(t.size(), 0u);
  EXPECT_TRUE(t.check_invariants());
}

TEST(ConflictTreeTest, SingleRange) {
  ConflictTree t;
  ASSERT_TRUE(t.insert(100, 199));
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(t.height(), 1);
  EXPECT_TRUE(t.check_invariants());

  EXPECT_TRUE(t.contains_overlap(100, 100));
  EXPECT_TRUE(t.contains_overlap(199, 199));
  EXPECT_TRUE(t.contains_overlap(150, 150));
  EXPECT_TRUE(t.contains_overlap(0, 100));
  EXPECT_TRUE(t.contains_overlap(199, kMax));
  EXPECT_TRUE(t.contains_overlap(0, kMax));
  EXPECT_FALSE(t.contains_overlap(99, 99));
  EXPECT_FALSE(t.contains_overlap(200, 200));
  EXPECT_FALSE(t.contains_overlap(0, 99));
  EXPECT_FALSE(t.contains_overlap(200, kMax));
}

TEST(ConflictTreeTest, TouchingRangesDoNotConflict) {
  ConflictTree t;
  EXPECT_TRUE(t.insert(100, 199));
  EXPECT_TRUE(t.insert(200, 299));  // right neighbour
  EXPECT_TRUE(t.insert(0, 99));     // left neighbour
  EXPECT_TRUE(t.insert(300, 300));  // one byte
  EXPECT_TRUE(t.insert(301, 301));
  EXPECT_EQ(t.size(), 5u);
  EXPECT_TRUE(t.check_invariants());
  // ...but straddling a boundary by a single byte does.
  EXPECT_FALSE(t.insert(199, 200));
  EXPECT_FALSE(t.insert(300, 301));
  EXPECT_FALSE(t.insert(301, 302));
  EXPECT_TRUE(t.insert(302, 302));
}

struct ConflictCase {
  const char* name;
  Range added;
};

TEST(ConflictTreeTest, OverlapShapesReportTheStoredRange) {
  const ConflictCase cases[] = {
      {"identical", {100, 199}},       {"nested inside", {120, 150}},      {"nested one byte", {150, 150}},
      {"encloses", {50, 250}},         {"partial left", {50, 100}},        {"partial left deep", {50, 180}},
      {"partial right", {199, 300}},   {"partial right deep", {120, 300}}, {"same lo longer", {100, 400}},
      {"same hi shorter", {150, 199}},
  };
  for (const ConflictCase& c : cases) {
    SCOPED_TRACE(c.name);
    ConflictTree t;
    ASSERT_TRUE(t.insert(100, 199));
    ASSERT_TRUE(t.insert(0, 9));  // unrelated ranges on both sides, so the hit is not just the root
    ASSERT_TRUE(t.insert(500, 599));
    uintptr_t lo = 1, hi = 1;
    EXPECT_TRUE(t.contains_overlap(c.added.lo, c.added.hi));
    EXPECT_FALSE(t.insert(c.added.lo, c.added.hi, &lo, &hi));
    EXPECT_EQ(lo, 100u);
    EXPECT_EQ(hi, 199u);
    EXPECT_EQ(t.size(), 3u);
    EXPECT_TRUE(t.check_invariants());
  }
}

TEST(ConflictTreeTest, ConflictOutputsAreOptional) {
  ConflictTree t;
  ASSERT_TRUE(t.insert(10, 20, nullptr, nullptr));
  uintptr_t lo = 0;
  EXPECT_FALSE(t.insert(15, 15));
  EXPECT_FALSE(t.insert(15, 15, &lo, nullptr));
  EXPECT_EQ(lo, 10u);
  uintptr_t hi = 0;
  EXPECT_FALSE(t.insert(15, 15, nullptr, &hi));
  EXPECT_EQ(hi, 20u);
}

TEST(ConflictTreeTest, ConflictOutputsUntouchedOnSuccess) {
  ConflictTree t;
  uintptr_t lo = 12345, hi = 67890;
  ASSERT_TRUE(t.insert(10, 20, &lo, &hi));
  ASSERT_TRUE(t.insert(21, 30, &lo, &hi));
  EXPECT_EQ(lo, 12345u);
  EXPECT_EQ(hi, 67890u);
}

TEST(ConflictTreeTest, FailedInsertLeavesTreeUnchanged) {
  ConflictTree t;
  for (uintptr_t i = 0; i < 64; ++i) ASSERT_TRUE(t.insert(i * 10, i * 10 + 4));
  const int h = t.height();
  for (uintptr_t i = 0; i < 64; ++i) {
    EXPECT_FALSE(t.insert(i * 10 + 4, i * 10 + 5));
    EXPECT_FALSE(t.insert(i * 10 + 2, i * 10 + 2));
  }
  EXPECT_EQ(t.size(), 64u);
  EXPECT_EQ(t.height(), h);
  EXPECT_TRUE(t.check_invariants());
  // The gaps are all still free.
  for (uintptr_t i = 0; i < 64; ++i) EXPECT_TRUE(t.insert(i * 10 + 5, i * 10 + 9));
  EXPECT_EQ(t.size(), 128u);
  ExpectBalanced(t);
  // And now the whole span [0, 639] is covered.
  for (uintptr_t a = 0; a < 640; ++a) EXPECT_TRUE(t.contains_overlap(a, a)) << a;
  EXPECT_FALSE(t.contains_overlap(640, kMax));
}

TEST(ConflictTreeTest, RangeSpanningSeveralStoredRangesReportsOneOfThem) {
  ConflictTree t;
  ASSERT_TRUE(t.insert(10, 19));
  ASSERT_TRUE(t.insert(30, 39));
  ASSERT_TRUE(t.insert(50, 59));
  ASSERT_TRUE(t.insert(20, 29));  // fits exactly between two stored ranges
  ASSERT_TRUE(t.insert(40, 49));
  uintptr_t lo = 0, hi = 0;
  ASSERT_FALSE(t.insert(0, 100, &lo, &hi));
  const bool is_stored = (lo == 10 && hi == 19) || (lo == 20 && hi == 29) || (lo == 30 && hi == 39) ||
                         (lo == 40 && hi == 49) || (lo == 50 && hi == 59);
  EXPECT_TRUE(is_stored) << lo << ".." << hi;
  EXPECT_TRUE(t.insert(0, 9));
  EXPECT_TRUE(t.insert(60, 100));
  EXPECT_TRUE(t.check_invariants());
}

TEST(ConflictTreeTest, ExtremeAddresses) {
  ConflictTree t;
  ASSERT_TRUE(t.insert(0, 0));
  ASSERT_TRUE(t.insert(kMax, kMax));
  uintptr_t lo = 1, hi = 1;
  EXPECT_FALSE(t.insert(0, kMax, &lo, &hi));
  EXPECT_TRUE((lo == 0 && hi == 0) || (lo == kMax && hi == kMax));
  EXPECT_FALSE(t.insert(kMax - 1, kMax, &lo, &hi));
  EXPECT_EQ(lo, kMax);
  EXPECT_EQ(hi, kMax);
  EXPECT_FALSE(t.insert(0, 1, &lo, &hi));
  EXPECT_EQ(lo, 0u);
  EXPECT_EQ(hi, 0u);
  // Everything in between still fits, touching both ends.
  EXPECT_TRUE(t.insert(1, kMax - 1));
  EXPECT_EQ(t.size(), 3u);
  EXPECT_TRUE(t.check_invariants());
  EXPECT_TRUE(t.contains_overlap(kMax / 2, kMax / 2));
}

TEST(ConflictTreeTest, RangesEndingAtTopOfAddressSpace) {
  ConflictTree t;
  ASSERT_TRUE(t.insert(kMax - 9, kMax - 1));
  EXPECT_TRUE(t.insert(kMax, kMax));           // touches
  EXPECT_FALSE(t.insert(kMax - 1, kMax - 1));  // last byte of the first range
  EXPECT_FALSE(t.insert(kMax - 20, kMax));     // covers both
  EXPECT_TRUE(t.insert(kMax - 19, kMax - 10));
  EXPECT_FALSE(t.contains_overlap(0, kMax - 20));
  EXPECT_TRUE(t.contains_overlap(kMax - 19, kMax - 19));
  EXPECT_TRUE(t.check_invariants());

  ConflictTree whole;
  ASSERT_TRUE(whole.insert(0, kMax));
  EXPECT_FALSE(whole.insert(kMax, kMax));
  EXPECT_FALSE(whole.insert(0, 0));
  EXPECT_FALSE(whole.insert(12345, 12345));
  EXPECT_TRUE(whole.check_invariants());
}

TEST(ConflictTreeTest, ClearAllowsReuse) {
  ConflictTree t;
  for (int round = 0; round < 5; ++round) {
    SCOPED_TRACE(round);
    for (uintptr_t i = 0; i < 1000; ++i) ASSERT_TRUE(t.insert(i * 8, i * 8 + 7));
    EXPECT_EQ(t.size(), 1000u);
    EXPECT_FALSE(t.insert(3, 3));
    t.clear();
    EXPECT_EQ(t.size(), 0u);
    EXPECT_EQ(t.height(), 0);
    EXPECT_TRUE(t.check_invariants());
    EXPECT_FALSE(t.contains_overlap(0, kMax));
    EXPECT_TRUE(t.insert(3, 3));  // conflicted before clear()
    t.clear();
  }
}

// ---------------------------------------------------------------------------------------------------------
// Balance

// Inserting 1..2^k-1 in ascending order into an AVL tree yields a perfect tree of height k, which pins
// down both the rotation logic and height().
TEST(ConflictTreeBalanceTest, AscendingPowerOfTwoMinusOneIsPerfect) {
  for (int k = 1; k <= 17; ++k) {
    SCOPED_TRACE(k);
    ConflictTree t;
    const uintptr_t n = (uintptr_t{1} << k) - 1;
    for (uintptr_t i = 0; i < n; ++i) ASSERT_TRUE(t.insert(i * 4, i * 4 + 3));
    EXPECT_EQ(t.size(), n);
    EXPECT_EQ(t.height(), k);
    EXPECT_TRUE(t.check_invariants());
  }
}

TEST(ConflictTreeBalanceTest, SmallTreesAfterEveryInsertion) {
  // Orders that exercise all four rotation cases.
  const int n = 1500;
  std::vector<uintptr_t> asc(n);
  std::iota(asc.begin(), asc.end(), 0);
  std::vector<uintptr_t> desc(asc.rbegin(), asc.rend());
  std::vector<uintptr_t> zigzag;  // 0, n-1, 1, n-2, ...
  for (int i = 0, j = n - 1; i <= j; ++i, --j) {
    zigzag.push_back(i);
    if (i != j) zigzag.push_back(j);
  }
  std::vector<uintptr_t> inward;  // middle outwards: n/2, n/2-1, n/2+1, ...
  for (int d = 0; static_cast<int>(inward.size()) < n; ++d) {
    if (n / 2 - d >= 0) inward.push_back(n / 2 - d);
    if (d != 0 && n / 2 + d < n) inward.push_back(n / 2 + d);
  }
  std::vector<uintptr_t> shuffled = asc;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(7));

  const std::vector<std::pair<const char*, std::vector<uintptr_t>*>> orders = {
      {"ascending", &asc}, {"descending", &desc}, {"zigzag", &zigzag}, {"inward", &inward}, {"shuffled", &shuffled}};
  for (const auto& [name, keys] : orders) {
    SCOPED_TRACE(name);
    ASSERT_EQ(keys->size(), static_cast<std::size_t>(n));
    ConflictTree t;
    for (uintptr_t k : *keys) {
      ASSERT_TRUE(t.insert(k * 16, k * 16 + 15));
      ASSERT_TRUE(t.check_invariants()) << "after inserting " << k;
      ASSERT_LE(t.height(), AvlBound(t.size()));
      ASSERT_GE(t.height(), MinHeight(t.size()));
    }
    for (uintptr_t k : *keys) ASSERT_FALSE(t.insert(k * 16 + 15, k * 16 + 16));
  }
}

TEST(ConflictTreeBalanceTest, LargeTreesStayBalanced) {
  const std::size_t n = 200000;
  std::vector<uintptr_t> keys(n);
  std::iota(keys.begin(), keys.end(), 0);
  for (int order = 0; order < 3; ++order) {
    SCOPED_TRACE(order == 0 ? "ascending" : order == 1 ? "descending" : "random");
    if (order == 1) std::reverse(keys.begin(), keys.end());
    if (order == 2) std::shuffle(keys.begin(), keys.end(), std::mt19937_64(12345));
    ConflictTree t;
    for (uintptr_t k : keys) ASSERT_TRUE(t.insert(k * 64, k * 64 + 63));
    EXPECT_EQ(t.size(), n);
    ExpectBalanced(t);
    for (uintptr_t k = 0; k < n; k += 997) EXPECT_FALSE(t.insert(k * 64 + 10, k * 64 + 10));
    EXPECT_TRUE(t.insert(n * 64, n * 64));
  }
}

TEST(ConflictTreeBalanceTest, RandomKeysAndRejectedInsertsKeepBalance) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    std::mt19937_64 rng(seed);
    ConflictTree t;
    // Point ranges anywhere in the address space: essentially all are accepted.
    std::size_t accepted = 0;
    for (int i = 0; i < 5000; ++i) {
      const uintptr_t a = rng();
      accepted += t.insert(a, a) ? 1 : 0;
    }
    EXPECT_EQ(t.size(), accepted);
    EXPECT_GE(accepted, 4990u);
    ExpectBalanced(t);
    // Ranges of up to 2^54 bytes: most now hit something, and a rejected walk must not disturb the tree.
    int rejected = 0;
    for (int i = 0; i < 2000; ++i) {
      const Range r = RandomRange(rng, 0, kMax, uintptr_t{1} << 54);
      if (t.insert(r.lo, r.hi)) {
        ++accepted;
      } else {
        ++rejected;
      }
    }
    EXPECT_EQ(t.size(), accepted);
    EXPECT_GT(rejected, 1000);
    ExpectBalanced(t);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Randomized comparison against a brute-force oracle

struct OracleParams {
  const char* name;
  uintptr_t base;     // lowest possible lo
  uintptr_t space;    // number of possible lo values
  uintptr_t max_len;  // lengths are uniform in [1, max_len]
  int steps;
  bool probe_every_address;  // only meaningful for small spaces
};

// Without this gtest prints the parameter as raw bytes, padding included, which valgrind reports as a
// read of uninitialised memory.
void PrintTo(const OracleParams& p, std::ostream* os) {
  *os << p.name;
}

class ConflictTreeOracleTest : public testing::TestWithParam<OracleParams> {};

TEST_P(ConflictTreeOracleTest, MatchesBruteForce) {
  const OracleParams& p = GetParam();
  int conflicts = 0, inserts = 0;
  for (uint64_t seed = 0; seed < 150; ++seed) {
    SCOPED_TRACE(testing::Message() << p.name << " seed " << seed);
    std::mt19937_64 rng(seed);
    ConflictTree t;
    std::vector<Range> oracle;
    for (int step = 0; step < p.steps; ++step) {
      const int op = std::uniform_int_distribution<int>(0, 99)(rng);
      const Range r = RandomRange(rng, p.base, p.space, p.max_len);
      if (op == 0) {
        t.clear();
        oracle.clear();
        continue;
      }
      std::vector<Range> hits;
      for (const Range& s : oracle) {
        if (Intersects(s, r)) hits.push_back(s);
      }
      if (op < 20) {
        ASSERT_EQ(t.contains_overlap(r.lo, r.hi), !hits.empty()) << "query " << r.lo << ".." << r.hi;
        continue;
      }
      uintptr_t lo = 0, hi = 0;
      const bool ok = t.insert(r.lo, r.hi, &lo, &hi);
      ++inserts;
      ASSERT_EQ(ok, hits.empty()) << "step " << step << " insert " << r.lo << ".." << r.hi;
      if (ok) {
        oracle.push_back(r);
      } else {
        ++conflicts;
        const bool reported_a_hit =
            std::any_of(hits.begin(), hits.end(), [&](const Range& s) { return s.lo == lo && s.hi == hi; });
        ASSERT_TRUE(reported_a_hit) << "reported " << lo << ".." << hi;
      }
      ASSERT_EQ(t.size(), oracle.size());
      if (step % 64 == 0) {
        ASSERT_TRUE(t.check_invariants());
      }
    }
    ExpectBalanced(t);
    if (p.probe_every_address) {
      // Same set of covered bytes as the oracle, plus equal sizes, means the same set of ranges.
      for (uintptr_t a = p.base; a < p.base + p.space + p.max_len; ++a) {
        const bool covered =
            std::any_of(oracle.begin(), oracle.end(), [&](const Range& s) { return s.lo <= a && a <= s.hi; });
        ASSERT_EQ(t.contains_overlap(a, a), covered) << "address " << a;
      }
    }
  }
  // Guard against a generator that never produces the interesting case.
  RecordProperty("conflicts", conflicts);
  if (p.space <= 4096) {
    EXPECT_GT(conflicts, inserts / 4);
  } else {
    EXPECT_LT(conflicts, inserts / 100);
  }
}

const uintptr_t kTopBase = kMax - 511;  // lo in [kMax - 511, kMax]; ranges clamp at kMax

INSTANTIATE_TEST_SUITE_P(Spaces, ConflictTreeOracleTest,
                         testing::Values(OracleParams{"tiny", 0, 64, 4, 200, true},           //
                                         OracleParams{"dense", 0, 512, 24, 400, true},        //
                                         OracleParams{"wide", 1000, 2048, 300, 300, true},    //
                                         OracleParams{"top", kTopBase, 512, 24, 400, false},  //
                                         OracleParams{"sparse", 0, uintptr_t{1} << 40, 4096, 400, false},
                                         OracleParams{"full", 0, kMax, uintptr_t{1} << 32, 400, false}),
                         [](const testing::TestParamInfo<OracleParams>& info) { return std::string(info.param.name); });

// The top-of-address-space instance cannot probe with the loop above (it would wrap), so probe here.
TEST(ConflictTreeOracleTopTest, ProbesEveryAddressNearTop) {
  for (uint64_t seed = 0; seed < 100; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    std::mt19937_64 rng(seed);
    ConflictTree t;
    std::vector<Range> oracle;
    for (int step = 0; step < 300; ++step) {
      const Range r = RandomRange(rng, kTopBase, 512, 24);
      const bool free = std::none_of(oracle.begin(), oracle.end(), [&](const Range& s) { return Intersects(s, r); });
      ASSERT_EQ(t.insert(r.lo, r.hi), free) << r.lo << ".." << r.hi;
      if (free) oracle.push_back(r);
    }
    ASSERT_TRUE(t.check_invariants());
    for (uintptr_t a = kTopBase;; ++a) {
      const bool covered =
          std::any_of(oracle.begin(), oracle.end(), [&](const Range& s) { return s.lo <= a && a <= s.hi; });
      ASSERT_EQ(t.contains_overlap(a, a), covered) << "address " << a;
      if (a == kMax) break;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// segments_overlap

TEST(SegmentsOverlapTest, TrivialInputs) {
  int first = 7, second = 7;
  EXPECT_FALSE(segments_overlap(nullptr, 0, 8, &first, &second));
  EXPECT_EQ(first, -1);
  EXPECT_EQ(second, -1);
  void* one[] = {P(100)};
  first = second = 7;
  EXPECT_FALSE(segments_overlap(one, 1, 8, &first, &second));
  EXPECT_EQ(first, -1);
  EXPECT_EQ(second, -1);
  EXPECT_FALSE(segments_overlap(one, 1, 8));
}

TEST(SegmentsOverlapTest, ZeroLengthSegmentsNeverConflict) {
  void* same[] = {P(100), P(100), P(100), P(0), P(kMax)};
  int first = 7, second = 7;
  EXPECT_FALSE(segments_overlap(same, 5, 0, &first, &second));
  EXPECT_EQ(first, -1);
  EXPECT_EQ(second, -1);
  EXPECT_FALSE(segments_overlap(same, 5, -4));  // nonsense length, treated like zero
  // The same pointers with a real length do conflict.
  EXPECT_TRUE(segments_overlap(same, 5, 1, &first, &second));
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 1);
}

TEST(SegmentsOverlapTest, IdenticalPointers) {
  void* ptrs[] = {P(0x1000), P(0x2000), P(0x1000)};
  int first = -5, second = -5;
  EXPECT_TRUE(segments_overlap(ptrs, 3, 16, &first, &second));
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 2);
  EXPECT_TRUE(segments_overlap(ptrs, 3, 16));  // outputs optional
}

TEST(SegmentsOverlapTest, TouchingAndStrided) {
  std::vector<void*> ptrs;
  for (uintptr_t i = 0; i < 100; ++i) ptrs.push_back(P(0x10000 + i * 8));
  EXPECT_FALSE(segments_overlap(ptrs.data(), 100, 8));  // contiguous, touching
  EXPECT_FALSE(segments_overlap(ptrs.data(), 100, 7));  // gaps
  int first = 0, second = 0;
  EXPECT_TRUE(segments_overlap(ptrs.data(), 100, 9, &first, &second));  // each overlaps the next by a byte
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 1);
}

TEST(SegmentsOverlapTest, RealBuffer) {
  // The intended use: pointers into real memory, e.g. a column of a row-major matrix.
  double m[16][16] = {};
  std::vector<void*> column;
  for (int r = 0; r < 16; ++r) column.push_back(&m[r][3]);
  EXPECT_FALSE(segments_overlap(column.data(), 16, sizeof(double)));
  EXPECT_FALSE(segments_overlap(column.data(), 16, 16 * sizeof(double)));  // whole rows, touching
  int first = 0, second = 0;
  EXPECT_TRUE(segments_overlap(column.data(), 16, 16 * sizeof(double) + 1, &first, &second));
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 1);
}

TEST(SegmentsOverlapTest, TopOfAddressSpace) {
  void* ptrs[] = {P(kMax - 3), P(kMax - 7), P(0)};  // [kMax-3, kMax], [kMax-7, kMax-4], [0, 3]
  EXPECT_FALSE(segments_overlap(ptrs, 3, 4));
  int first = 0, second = 0;
  void* clash[] = {P(kMax - 3), P(kMax - 5)};
  EXPECT_TRUE(segments_overlap(clash, 2, 4, &first, &second));
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 1);
  // A segment running past the top is truncated, not wrapped around onto low addresses.
  void* wrap[] = {P(kMax - 1), P(0), P(16)};
  EXPECT_FALSE(segments_overlap(wrap, 3, 16));
  void* wrap_clash[] = {P(kMax - 1), P(0), P(kMax)};
  EXPECT_TRUE(segments_overlap(wrap_clash, 3, 16, &first, &second));
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 2);
}

TEST(SegmentsOverlapTest, LargeInputWithLateConflict) {
  const int n = 200000;
  std::vector<uintptr_t> slots(n);
  std::iota(slots.begin(), slots.end(), 0);
  std::shuffle(slots.begin(), slots.end(), std::mt19937_64(99));
  std::vector<void*> ptrs(n);
  for (int i = 0; i < n; ++i) ptrs[i] = P(0x100000 + slots[i] * 32);
  int first = 0, second = 0;
  EXPECT_FALSE(segments_overlap(ptrs.data(), n, 32, &first, &second));
  EXPECT_EQ(first, -1);
  EXPECT_EQ(second, -1);
  // Make the last segment a duplicate of the one at index 1234.
  const uintptr_t target = reinterpret_cast<uintptr_t>(ptrs[1234]);
  ptrs[n - 1] = P(target);
  EXPECT_TRUE(segments_overlap(ptrs.data(), n, 32, &first, &second));
  EXPECT_EQ(first, 1234);
  EXPECT_EQ(second, n - 1);
  // Straddling two slots, it may be reported against either neighbour.
  ptrs[n - 1] = P(target + 31);
  EXPECT_TRUE(segments_overlap(ptrs.data(), n, 32, &first, &second));
  EXPECT_EQ(second, n - 1);
  ASSERT_GE(first, 0);
  ASSERT_LT(first, n - 1);
  const uintptr_t hit = reinterpret_cast<uintptr_t>(ptrs[first]);
  EXPECT_TRUE(hit == target || hit == target + 32) << first;
}

void CheckSegmentsAgainstOracle(uint64_t seed, uintptr_t space, int max_n, int max_bytes, int* conflicts) {
  SCOPED_TRACE(testing::Message() << "seed " << seed << " space " << space);
  std::mt19937_64 rng(seed);
  const int n = std::uniform_int_distribution<int>(0, max_n)(rng);
  const int bytes = std::uniform_int_distribution<int>(0, max_bytes)(rng);
  std::vector<void*> ptrs(n);
  for (void*& p : ptrs) p = P(std::uniform_int_distribution<uintptr_t>(0, space - 1)(rng));

  auto overlap = [&](int i, int j) {
    if (bytes <= 0) return false;
    const uintptr_t a = reinterpret_cast<uintptr_t>(ptrs[i]), b = reinterpret_cast<uintptr_t>(ptrs[j]);
    return a <= b + (bytes - 1) && b <= a + (bytes - 1);  // space is small: no overflow
  };
  int expected_second = -1;
  for (int i = 1; i < n && expected_second < 0; ++i) {
    for (int j = 0; j < i; ++j) {
      if (overlap(i, j)) {
        expected_second = i;
        break;
      }
    }
  }

  int first = 12345, second = 12345;
  const bool got = segments_overlap(ptrs.data(), n, bytes, &first, &second);
  ASSERT_EQ(got, expected_second >= 0) << "n " << n << " bytes " << bytes;
  if (got) {
    *conflicts += 1;
    EXPECT_EQ(second, expected_second);
    ASSERT_GE(first, 0);
    ASSERT_LT(first, second);
    EXPECT_TRUE(overlap(first, second)) << first << " vs " << second;
  } else {
    EXPECT_EQ(first, -1);
    EXPECT_EQ(second, -1);
  }
  EXPECT_EQ(segments_overlap(ptrs.data(), n, bytes), got);
}

TEST(SegmentsOverlapTest, MatchesBruteForceDense) {
  int conflicts = 0;
  for (uint64_t seed = 0; seed < 500; ++seed) CheckSegmentsAgainstOracle(seed, 2000, 80, 40, &conflicts);
  EXPECT_GT(conflicts, 250);
  EXPECT_LT(conflicts, 500);  // some cases (n < 2, bytes == 0, lucky) must be conflict-free
}

TEST(SegmentsOverlapTest, MatchesBruteForceSparse) {
  int conflicts = 0;
  for (uint64_t seed = 0; seed < 500; ++seed) {
    CheckSegmentsAgainstOracle(seed, uintptr_t{1} << 40, 200, 1 << 16, &conflicts);
  }
  EXPECT_LT(conflicts, 10);
}

}  // namespace
}  // namespace armcix
