// Tests for the op parsing and typed kernels behind armci_msg_*gop / armci_msg_sel (src/msg/reduce_ops.h).
// No MPI: the kernels are pure.  The selection tests check that the record combine is commutative and
// associative, since MPI applies it in any order and every rank must end up with the same record.

#include <gtest/gtest.h>
#include <message.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "msg/reduce_ops.h"

namespace armcix {
namespace msg {
namespace {

// Every spelling, alone and followed by garbage: Global Arrays' Fortran wrappers pass Fortran strings without a
// terminating NUL, so the longest spelling the text starts with counts, as in ARMCI-MPI.
TEST(ReduceOps, ParsesEverySpellingAndTheLongestAtTheStart) {
  struct Case {
    const char* text;
    Op op;
  } cases[] = {{"+", Op::kSum},          {"*", Op::kProd},        {"max", Op::kMax},          {"min", Op::kMin},
               {"absmax", Op::kAbsMax},  {"absmin", Op::kAbsMin}, {"or", Op::kBitOr},         {"and", Op::kBitAnd},
               {"bor", Op::kBitOr},      {"band", Op::kBitAnd},   {"||", Op::kLogOr},         {"&&", Op::kLogAnd},
               {"lor", Op::kLogOr},      {"land", Op::kLogAnd},   {"+'", Op::kSum},           {"+ ", Op::kSum},
               {"*x", Op::kProd},        {"max'", Op::kMax},      {"maximum", Op::kMax},      {"absmax'", Op::kAbsMax},
               {"absminx", Op::kAbsMin}, {"min\x01", Op::kMin},   {"andy", Op::kBitAnd},      {"or ", Op::kBitOr},
               {"&&&", Op::kLogAnd},     {"||x", Op::kLogOr},     {"bandwidth", Op::kBitAnd}, {"lord", Op::kLogOr}};
  for (const Case& c : cases) {
    Op op = c.op == Op::kProd ? Op::kSum : Op::kProd;
    EXPECT_TRUE(parse_op(c.text, &op)) << c.text;
    EXPECT_EQ(op, c.op) << c.text;
  }
}

TEST(ReduceOps, RejectsTextsThatStartWithNoSpelling) {
  for (const char* text : {"", "ma", "MAX", " +", "sum", "abs", "xor", "&", "|", "-", "mult", "o", "an"}) {
    Op op = Op::kProd;
    EXPECT_FALSE(parse_op(text, &op)) << "'" << text << "'";
    EXPECT_EQ(op, Op::kProd) << "output written for '" << text << "'";
  }
  Op op;
  EXPECT_FALSE(parse_op(nullptr, &op));
}

TEST(ReduceOps, OperationClasses) {
  for (Op op : {Op::kBitOr, Op::kBitAnd, Op::kLogOr, Op::kLogAnd}) EXPECT_TRUE(integer_only(op));
  for (Op op : {Op::kSum, Op::kProd, Op::kMax, Op::kMin, Op::kAbsMax, Op::kAbsMin}) EXPECT_FALSE(integer_only(op));
  EXPECT_TRUE(takes_abs(Op::kAbsMax));
  EXPECT_TRUE(takes_abs(Op::kAbsMin));
  EXPECT_FALSE(takes_abs(Op::kMax));
  EXPECT_EQ(reduction_of(Op::kAbsMax), Op::kMax);
  EXPECT_EQ(reduction_of(Op::kAbsMin), Op::kMin);
  for (Op op : {Op::kSum, Op::kProd, Op::kMax, Op::kMin, Op::kBitOr, Op::kBitAnd, Op::kLogOr, Op::kLogAnd})
    EXPECT_EQ(reduction_of(op), op);
}

TEST(ReduceOps, Types) {
  // Numbering of enum armci_type_e in message.h.
  EXPECT_EQ(type_size(0), sizeof(int));
  EXPECT_EQ(type_size(1), sizeof(long));
  EXPECT_EQ(type_size(2), sizeof(long long));
  EXPECT_EQ(type_size(3), sizeof(float));
  EXPECT_EQ(type_size(4), sizeof(double));
  EXPECT_EQ(type_size(5), 0u);
  EXPECT_EQ(type_size(-1), 0u);
  for (int t = 0; t <= 4; ++t) EXPECT_TRUE(valid_type(t));
  EXPECT_FALSE(valid_type(-1));
  EXPECT_FALSE(valid_type(5));
  EXPECT_TRUE(is_integer_type(0));
  EXPECT_TRUE(is_integer_type(1));
  EXPECT_TRUE(is_integer_type(2));
  EXPECT_FALSE(is_integer_type(3));
  EXPECT_FALSE(is_integer_type(4));
  EXPECT_FALSE(is_integer_type(7));
  EXPECT_STREQ(type_name(2), "ARMCI_LONG_LONG");
  EXPECT_STREQ(type_name(4), "ARMCI_DOUBLE");
  EXPECT_STREQ(type_name(9), "unknown type");
}

// Every row of ARMCIX_MSG_TYPES, against a table written out here by hand.
TEST(ReduceOps, EveryTypeRow) {
  struct Row {
    int type;
    const char* name;
    std::size_t size;
    bool integer;
  } rows[] = {{ARMCI_INT, "ARMCI_INT", sizeof(int), true},
              {ARMCI_LONG, "ARMCI_LONG", sizeof(long), true},
              {ARMCI_LONG_LONG, "ARMCI_LONG_LONG", sizeof(long long), true},
              {ARMCI_FLOAT, "ARMCI_FLOAT", sizeof(float), false},
              {ARMCI_DOUBLE, "ARMCI_DOUBLE", sizeof(double), false}};
  ASSERT_EQ(kElemTypeCount, 5);
  for (const Row& r : rows) {
    EXPECT_TRUE(valid_type(r.type)) << r.name;
    EXPECT_STREQ(type_name(r.type), r.name);
    EXPECT_EQ(type_size(r.type), r.size) << r.name;
    EXPECT_EQ(is_integer_type(r.type), r.integer) << r.name;
    bool integral = false;
    with_type(r.type, [&](auto tag) { integral = std::is_integral_v<decltype(tag)>; });
    EXPECT_EQ(integral, r.integer) << r.name;
  }
  EXPECT_STREQ(kElemTypeNames, " ARMCI_INT ARMCI_LONG ARMCI_LONG_LONG ARMCI_FLOAT ARMCI_DOUBLE");
  bool called = false;
  with_type(kElemTypeCount, [&](auto) { called = true; });
  EXPECT_FALSE(called) << "with_type ran a kernel for a type outside the list";
}

TEST(ReduceOps, WithTypeDispatchesTheCType) {
  for (int t = 0; t <= 4; ++t) {
    std::size_t seen = 0;
    bool floating = false;
    with_type(t, [&](auto tag) {
      seen = sizeof(tag);
      floating = std::is_floating_point_v<decltype(tag)>;
    });
    EXPECT_EQ(seen, type_size(t)) << t;
    EXPECT_EQ(floating, !is_integer_type(t)) << t;
  }
  bool called = false;
  with_type(5, [&](auto) { called = true; });
  EXPECT_FALSE(called);
}

TEST(ReduceOps, AbsValue) {
  EXPECT_EQ(abs_value(-5), 5);
  EXPECT_EQ(abs_value(7), 7);
  EXPECT_EQ(abs_value(0), 0);
  EXPECT_EQ(abs_value(-(1L << 40) - 3), (1L << 40) + 3);
  EXPECT_EQ(abs_value(-(1LL << 50)), 1LL << 50);
  EXPECT_EQ(abs_value(-2.5f), 2.5f);
  EXPECT_EQ(abs_value(-1e300), 1e300);
  EXPECT_EQ(abs_value(3.25), 3.25);
  // The most negative integer has no absolute value; it wraps (defined, no UB) as two's complement abs().
  EXPECT_EQ(abs_value(INT_MIN), INT_MIN);
  EXPECT_EQ(abs_value(LLONG_MIN), LLONG_MIN);
  EXPECT_EQ(abs_value(INT_MIN + 1), INT_MAX);
}

TEST(ReduceOps, AbsCopyInPlaceAndOutOfPlace) {
  std::vector<long long> in = {-3, 4, -(1LL << 41), 0, 9};
  std::vector<long long> out(in.size(), -1);
  abs_copy(in.data(), out.data(), in.size());
  EXPECT_EQ(out, (std::vector<long long>{3, 4, 1LL << 41, 0, 9}));
  EXPECT_EQ(in[0], -3) << "input modified";
  abs_copy(in.data(), in.data(), in.size());
  EXPECT_EQ(in, out);

  std::vector<double> d = {-1.5, 2.0, -0.25};
  abs_copy_typed(4, d.data(), d.data(), d.size());
  EXPECT_EQ(d, (std::vector<double>{1.5, 2.0, 0.25}));
  std::vector<int> i = {-1, -2};
  std::vector<int> io(2);
  abs_copy_typed(0, i.data(), io.data(), 0);  // n == 0 touches nothing
  EXPECT_EQ(io, (std::vector<int>{0, 0}));
  abs_copy_typed(0, i.data(), io.data(), 2);
  EXPECT_EQ(io, (std::vector<int>{1, 2}));
}

// --- selection records -------------------------------------------------------------------------------------

// A record as armci_msg_sel builds it: header + payload (key first, then a tag identifying the source).
template <typename K>
struct Payload {
  K key;
  int tag;
};

template <typename K>
std::vector<unsigned char> make_record(int type, bool want_max, int rank, bool contribute, K key, int tag) {
  SelHeader h{};
  h.contribute = contribute ? 1 : 0;
  h.type = type;
  h.rank = rank;
  h.want_max = want_max ? 1 : 0;
  h.payload_bytes = sizeof(Payload<K>);
  Payload<K> p{key, tag};
  std::vector<unsigned char> rec(sizeof h + sizeof p);
  std::memcpy(rec.data(), &h, sizeof h);
  std::memcpy(rec.data() + sizeof h, &p, sizeof p);
  return rec;
}

template <typename K>
Payload<K> payload_of(const std::vector<unsigned char>& rec) {
  Payload<K> p;
  std::memcpy(&p, rec.data() + sizeof(SelHeader), sizeof p);
  return p;
}

SelHeader header_of(const std::vector<unsigned char>& rec) {
  SelHeader h;
  std::memcpy(&h, rec.data(), sizeof h);
  return h;
}

TEST(SelCombine, MinAndMaxPickTheKeyAndCopyTheWholeRecord) {
  auto a = make_record<int>(0, false, 0, true, -7, 100);
  auto b = make_record<int>(0, false, 1, true, 3, 101);
  auto out = b;
  sel_combine(a.data(), out.data());
  EXPECT_EQ(payload_of<int>(out).key, -7);
  EXPECT_EQ(payload_of<int>(out).tag, 100);
  EXPECT_EQ(header_of(out).rank, 0);

  auto c = make_record<int>(0, true, 0, true, -7, 100);
  auto d = make_record<int>(0, true, 1, true, 3, 101);
  out = d;
  sel_combine(c.data(), out.data());
  EXPECT_EQ(payload_of<int>(out).tag, 101) << "max keeps the larger key";
  out = c;
  sel_combine(d.data(), out.data());
  EXPECT_EQ(payload_of<int>(out).tag, 101);
}

TEST(SelCombine, TiesGoToTheLowerRank) {
  auto lo = make_record<double>(4, false, 2, true, 1.5, 2);
  auto hi = make_record<double>(4, false, 5, true, 1.5, 5);
  auto out = hi;
  sel_combine(lo.data(), out.data());
  EXPECT_EQ(payload_of<double>(out).tag, 2);
  out = lo;
  sel_combine(hi.data(), out.data());
  EXPECT_EQ(payload_of<double>(out).tag, 2);
}

TEST(SelCombine, ContributorsBeatNonContributors) {
  // A non-contributor's key is garbage (here: a key that would win) and must never be chosen.
  auto ghost = make_record<long long>(2, false, 0, false, LLONG_MIN, 0);
  auto real = make_record<long long>(2, false, 3, true, 1LL << 45, 3);
  auto out = real;
  sel_combine(ghost.data(), out.data());
  EXPECT_EQ(payload_of<long long>(out).tag, 3);
  out = ghost;
  sel_combine(real.data(), out.data());
  EXPECT_EQ(payload_of<long long>(out).tag, 3);
  EXPECT_EQ(header_of(out).contribute, 1);
  auto ghost2 = make_record<long long>(2, false, 1, false, 0, 1);
  out = ghost2;
  sel_combine(ghost.data(), out.data());
  EXPECT_EQ(header_of(out).contribute, 0) << "no contributor stays no contributor";
}

TEST(SelCombine, FloatAndLongKeys) {
  auto a = make_record<float>(3, true, 0, true, -0.5f, 0);
  auto b = make_record<float>(3, true, 1, true, -0.25f, 1);
  auto out = a;
  sel_combine(b.data(), out.data());
  EXPECT_EQ(payload_of<float>(out).tag, 1);
  auto c = make_record<long>(1, false, 0, true, 1L << 42, 0);
  auto d = make_record<long>(1, false, 1, true, (1L << 42) + 1, 1);
  out = d;
  sel_combine(c.data(), out.data());
  EXPECT_EQ(payload_of<long>(out).tag, 0);
}

// Folding the records in any order (any reduction tree MPI chooses) gives the same winner as the oracle.
TEST(SelCombine, OrderIndependent) {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 200; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const bool want_max = trial % 2;
    const int n = 1 + static_cast<int>(rng() % 7);
    std::vector<std::vector<unsigned char>> recs;
    int best = -1;
    int best_key = 0;
    for (int r = 0; r < n; ++r) {
      bool contributes = rng() % 4 != 0;
      int key = static_cast<int>(rng() % 5) - 2;  // small range: many ties
      recs.push_back(make_record<int>(0, want_max, r, contributes, key, r));
      if (contributes && (best < 0 || (want_max ? key > best_key : key < best_key))) {
        best = r;
        best_key = key;
      }
    }
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    for (int perm = 0; perm < 5; ++perm) {
      std::shuffle(order.begin(), order.end(), rng);
      // Left fold in this order, then also a pairwise tree, as MPI might do.
      auto acc = recs[order[0]];
      for (int i = 1; i < n; ++i) sel_combine(recs[order[i]].data(), acc.data());
      std::vector<std::vector<unsigned char>> level;
      for (int i : order) level.push_back(recs[i]);
      while (level.size() > 1) {
        std::vector<std::vector<unsigned char>> next;
        for (std::size_t i = 0; i + 1 < level.size(); i += 2) {
          auto x = level[i + 1];
          sel_combine(level[i].data(), x.data());
          next.push_back(x);
        }
        if (level.size() % 2) next.push_back(level.back());
        level.swap(next);
      }
      if (best < 0) {
        EXPECT_EQ(header_of(acc).contribute, 0);
        EXPECT_EQ(header_of(level[0]).contribute, 0);
      } else {
        EXPECT_EQ(payload_of<int>(acc).tag, best);
        EXPECT_EQ(payload_of<int>(level[0]).tag, best);
      }
    }
  }
}

}  // namespace
}  // namespace msg
}  // namespace armcix
