// MPI tests of the ARMCI message-passing API (include/message.h): every function, at any number of ranks,
// against values computed locally from the rank-dependent inputs.  Node-dependent expectations (SCOPE_NODE,
// SCOPE_MASTERS, armci_msg_clus_*) use the same node layout as the library: ARMCI_NODE_SIZE=k blocks of k
// ranks, otherwise shared-memory nodes; the manifest runs this program with and without ARMCI_NODE_SIZE.
//
// Every rank runs every test and makes the same collective calls; assertions are EXPECT_* so that a
// failure on one rank never skips a collective the others are waiting in.

#include <message.h>
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "base/state.h"  // the resolved ARMCI_WAIT_BACKOFF_US
#include "test_util.h"
#include "shm/node_sync.h"

namespace {

using armcix_test::domain_firsts;
using armcix_test::me;
using armcix_test::nproc;

char* op(const char* s) {
  return const_cast<char*>(s);
}  // the C API takes char*

// --- node layout, computed independently of the library ----------------------------------------------------

// The scopes' "node" is the SMP domain armci_domain_* reports (message.cc): MPI's node where its ranks are
// consecutive, else each run of consecutive ranks on it (round-robin placement: MPICH cliques give nodes
// {0,2} {1,3}).  The oracle takes the domains from MPI's nodes on its own (test_util.h, domain_firsts).

struct Topology {
  std::vector<int> node_of;               // world rank -> node index (nodes ordered by lowest rank)
  std::vector<std::vector<int>> members;  // node -> world ranks, ascending
  std::vector<int> masters;               // node -> lowest world rank
  int my_node() const { return node_of[me()]; }
  bool is_master(int p) const { return masters[node_of[p]] == p; }
};

Topology topology() {
  const int np = nproc();
  const std::vector<int> firsts = domain_firsts();  // per rank, its domain's lowest rank
  std::vector<int> sorted(firsts);
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  Topology t;
  t.masters = sorted;
  t.members.resize(sorted.size());
  t.node_of.resize(np);
  for (int p = 0; p < np; ++p) {
    t.node_of[p] = static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), firsts[p]) - sorted.begin());
    t.members[t.node_of[p]].push_back(p);
  }
  return t;
}

std::vector<int> all_ranks() {
  std::vector<int> v(nproc());
  for (int p = 0; p < nproc(); ++p) v[p] = p;
  return v;
}

// --- inputs and a local oracle -----------------------------------------------------------------------------

// Rank p's input for the additive/ordering operations: signs mixed, one element beyond 2^40 for 64-bit types
// (and exactly representable for float/double, so the sum does not depend on the reduction order).
template <typename T>
std::vector<T> values(int p) {
  T big;
  if constexpr (std::is_same_v<T, long long> || (std::is_same_v<T, long> && sizeof(long) == 8))
    big = static_cast<T>(1LL << 41);
  else if constexpr (std::is_floating_point_v<T>)
    big = static_cast<T>(0.5);
  else
    big = static_cast<T>(1000);
  return {static_cast<T>(p + 1), static_cast<T>(-3 * (p + 1)), static_cast<T>(p % 2 ? -(2 * p + 1) : 3 * p),
          static_cast<T>(static_cast<T>(p) * big - static_cast<T>(7)), static_cast<T>(p == 1 ? -100 : 10 + p)};
}

// Small factors for "*": beyond the first 8 ranks every factor is 1 or -1, so that the product over any
// number of ranks stays exact in float (24-bit mantissa: 16! is not) and within int, whatever order MPI
// multiplies in.
template <typename T>
std::vector<T> factors(int p) {
  const bool first = p < 8;  // ranks 0-7 contribute magnitudes above 1
  const int scale = first ? 2 : 1;
  const int a = first ? p + 1 : 1;
  const int b = p % 2 ? -1 : scale;
  const int c = p % 3 == 0 ? 1 : -scale;
  return {static_cast<T>(a), static_cast<T>(b), static_cast<T>(c)};
}

// Bit patterns (and zeros for the logical operations) for the integer-only operations.
template <typename T>
std::vector<T> bits(int p) {
  static_assert(std::is_integral_v<T>, "bitwise and logical operations are for integers");
  return {static_cast<T>(T{1} << p), static_cast<T>(~(T{1} << p)), static_cast<T>(0xF0 | p),
          static_cast<T>(p == 0 ? 0 : 5), static_cast<T>(p % 2)};
}

template <typename T>
T tabs(T v) {
  return v < 0 ? static_cast<T>(-v) : v;
}

template <typename T>
T combine(const std::string& o, T a, T b) {
  if (o == "+") return static_cast<T>(a + b);
  if (o == "*") return static_cast<T>(a * b);
  if (o == "max") return std::max(a, b);
  if (o == "min") return std::min(a, b);
  if (o == "absmax") return std::max(tabs(a), tabs(b));
  if (o == "absmin") return std::min(tabs(a), tabs(b));
  if constexpr (std::is_integral_v<T>) {
    if (o == "or") return static_cast<T>(a | b);
    if (o == "and") return static_cast<T>(a & b);
    if (o == "||") return static_cast<T>(a || b);
    if (o == "&&") return static_cast<T>(a && b);
  }
  ADD_FAILURE() << "oracle has no op " << o;
  return a;
}

template <typename T>
std::vector<T> expected(const std::string& o, const std::vector<int>& ranks, std::vector<T> (*input)(int)) {
  std::vector<T> acc = input(ranks[0]);
  if (o == "absmax" || o == "absmin")
    for (T& v : acc) v = tabs(v);
  for (std::size_t i = 1; i < ranks.size(); ++i) {
    std::vector<T> x = input(ranks[i]);
    for (std::size_t j = 0; j < acc.size(); ++j) acc[j] = combine(o, acc[j], x[j]);
  }
  return acc;
}

template <typename T>
std::vector<T> (*input_for(const std::string& o))(int) {
  if (o == "*") return &factors<T>;
  if constexpr (std::is_integral_v<T>)
    if (o == "or" || o == "and" || o == "||" || o == "&&") return &bits<T>;
  return &values<T>;
}

const char* kAllOps[] = {"+", "*", "max", "min", "absmax", "absmin", "or", "and", "||", "&&"};
const char* kFloatOps[] = {"+", "*", "max", "min", "absmax", "absmin"};

template <typename T>
constexpr int armci_type() {
  if constexpr (std::is_same_v<T, int>) return ARMCI_INT;
  if constexpr (std::is_same_v<T, long>) return ARMCI_LONG;
  if constexpr (std::is_same_v<T, long long>) return ARMCI_LONG_LONG;
  if constexpr (std::is_same_v<T, float>) return ARMCI_FLOAT;
  return ARMCI_DOUBLE;
}

template <typename T>
std::vector<std::string> ops_for() {
  std::vector<std::string> v;
  if constexpr (std::is_integral_v<T>)
    for (const char* o : kAllOps) v.push_back(o);
  else
    for (const char* o : kFloatOps) v.push_back(o);
  return v;
}

// Runs `gop` (which reduces over `ranks`, or leaves x alone on ranks outside them) for every op.
template <typename T>
void check_gop(const char* what, const std::function<void(T*, int, char*)>& gop, const std::vector<int>& ranks,
               bool participates) {
  for (const std::string& o : ops_for<T>()) {
    SCOPED_TRACE(std::string(what) + " op " + o);
    auto input = input_for<T>(o);
    std::vector<T> x = input(me());
    gop(x.data(), static_cast<int>(x.size()), op(o.c_str()));
    EXPECT_EQ(x, participates ? expected<T>(o, ranks, input) : input(me()));
  }
}

// --- basic utilities ---------------------------------------------------------------------------------------

TEST(Msg, MeNprocTimer) {
  EXPECT_EQ(armci_msg_me(), me());
  EXPECT_EQ(armci_msg_nproc(), nproc());
  double t0 = armci_timer();
  double t1 = armci_timer();
  EXPECT_GE(t1, t0);
  EXPECT_GT(t0, 0.0);
}

TEST(Msg, Barriers) {
  armci_msg_barrier();
  parmci_msg_barrier();
  // After a barrier every rank has passed the previous one: count arrivals through a reduction.
  int one = 1;
  armci_msg_igop(&one, 1, op("+"));
  EXPECT_EQ(one, nproc());
}

// --- reductions --------------------------------------------------------------------------------------------

template <typename T>
void typed_gop_all(void (*fn)(T*, int, char*), const char* name) {
  check_gop<T>(
      name, [fn](T* x, int n, char* o) { fn(x, n, o); }, all_ranks(), true);
}

TEST(Msg, GopInt) {
  typed_gop_all<int>(&armci_msg_igop, "armci_msg_igop");
}
TEST(Msg, GopLong) {
  typed_gop_all<long>(&armci_msg_lgop, "armci_msg_lgop");
}
TEST(Msg, GopLongLong) {
  typed_gop_all<long long>(&armci_msg_llgop, "armci_msg_llgop");
}
TEST(Msg, GopFloat) {
  typed_gop_all<float>(&armci_msg_fgop, "armci_msg_fgop");
}
TEST(Msg, GopDouble) {
  typed_gop_all<double>(&armci_msg_dgop, "armci_msg_dgop");
}

TEST(Msg, GopLongLongBeyond2To40) {
  long long x[2] = {(1LL << 40) + me(), -(1LL << 42) * (me() + 1)};
  armci_msg_llgop(x, 2, op("+"));
  long long np = nproc();
  EXPECT_EQ(x[0], np * (1LL << 40) + np * (np - 1) / 2);
  EXPECT_EQ(x[1], -(1LL << 42) * (np * (np + 1) / 2));
  long long y = (me() % 2 ? -1 : 1) * ((1LL << 45) + me());
  armci_msg_llgop(&y, 1, op("absmax"));
  EXPECT_EQ(y, (1LL << 45) + np - 1);
}

TEST(Msg, GopZeroLengthAndNull) {
  armci_msg_igop(nullptr, 0, op("+"));
  armci_msg_dgop(nullptr, 0, op("max"));
  armci_msg_gop_scope(SCOPE_NODE, nullptr, 0, op("+"), ARMCI_LONG);
  armci_msg_reduce(nullptr, 0, op("+"), ARMCI_INT);
  int x = 5;
  armci_msg_igop(&x, 0, op("+"));
  EXPECT_EQ(x, 5);
}

TEST(Msg, GopLargeArray) {
  // Above the on-stack scratch size: exercises the heap path of the absmax pre-pass too.
  const int n = 3000;
  std::vector<double> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = y[i] = (me() % 2 ? -1.0 : 1.0) * (i + me());
  armci_msg_dgop(x.data(), n, op("+"));
  armci_msg_reduce(y.data(), n, op("absmax"), ARMCI_DOUBLE);
  bool ok_sum = true, ok_max = true;
  for (int i = 0; i < n; ++i) {
    double sum = 0;
    for (int p = 0; p < nproc(); ++p) sum += (p % 2 ? -1.0 : 1.0) * (i + p);
    ok_sum &= x[i] == sum;
    double want = me() == 0 ? static_cast<double>(i + nproc() - 1) : (me() % 2 ? -1.0 : 1.0) * (i + me());
    ok_max &= y[i] == want;
  }
  EXPECT_TRUE(ok_sum);
  EXPECT_TRUE(ok_max);
}

template <typename T>
void gop_scopes() {
  Topology t = topology();
  const int type = armci_type<T>();
  auto in_scope = [type](int scope) {
    return [scope, type](T* x, int n, char* o) { armci_msg_gop_scope(scope, x, n, o, type); };
  };
  check_gop<T>("SCOPE_ALL", in_scope(SCOPE_ALL), all_ranks(), true);
  check_gop<T>("SCOPE_NODE", in_scope(SCOPE_NODE), t.members[t.my_node()], true);
  check_gop<T>("SCOPE_MASTERS", in_scope(SCOPE_MASTERS), t.masters, t.is_master(me()));
}

TEST(Msg, GopScopeInt) {
  gop_scopes<int>();
}
TEST(Msg, GopScopeLong) {
  gop_scopes<long>();
}
TEST(Msg, GopScopeLongLong) {
  gop_scopes<long long>();
}
TEST(Msg, GopScopeFloat) {
  gop_scopes<float>();
}
TEST(Msg, GopScopeDouble) {
  gop_scopes<double>();
}

TEST(Msg, ClusGops) {
  Topology t = topology();
  const bool m = t.is_master(me());
  check_gop<int>(
      "clus_igop", [](int* x, int n, char* o) { armci_msg_clus_igop(x, n, o); }, t.masters, m);
  check_gop<long>(
      "clus_lgop", [](long* x, int n, char* o) { armci_msg_clus_lgop(x, n, o); }, t.masters, m);
  check_gop<long long>(
      "clus_llgop", [](long long* x, int n, char* o) { armci_msg_clus_llgop(x, n, o); }, t.masters, m);
  check_gop<float>(
      "clus_fgop", [](float* x, int n, char* o) { armci_msg_clus_fgop(x, n, o); }, t.masters, m);
  check_gop<double>(
      "clus_dgop", [](double* x, int n, char* o) { armci_msg_clus_dgop(x, n, o); }, t.masters, m);
}

TEST(Msg, ClusGopCalledOnlyByMasters) {
  // ARMCI's own code calls the cluster operations on the masters only; that must not hang.
  Topology t = topology();
  double x = me() + 0.5;
  if (t.is_master(me())) armci_msg_clus_dgop(&x, 1, op("+"));
  double want = 0;
  for (int p : t.masters) want += p + 0.5;
  EXPECT_EQ(x, t.is_master(me()) ? want : me() + 0.5);
  armci_msg_barrier();
}

TEST(Msg, ReduceToRankZero) {
  for (const std::string& o : ops_for<long>()) {
    SCOPED_TRACE("op " + o);
    auto input = input_for<long>(o);
    std::vector<long> x = input(me());
    armci_msg_reduce(x.data(), static_cast<int>(x.size()), op(o.c_str()), ARMCI_LONG);
    EXPECT_EQ(x, me() == 0 ? expected<long>(o, all_ranks(), input) : input(me()));
  }
  for (const std::string& o : ops_for<double>()) {
    SCOPED_TRACE("double op " + o);
    auto input = input_for<double>(o);
    std::vector<double> x = input(me());
    armci_msg_reduce(x.data(), static_cast<int>(x.size()), op(o.c_str()), ARMCI_DOUBLE);
    EXPECT_EQ(x, me() == 0 ? expected<double>(o, all_ranks(), input) : input(me()));
  }
}

TEST(Msg, ReduceScope) {
  Topology t = topology();
  for (const char* o : {"+", "absmin", "max"}) {
    SCOPED_TRACE(std::string("op ") + o);
    std::vector<int> x = values<int>(me());
    armci_msg_reduce_scope(SCOPE_ALL, x.data(), 5, op(o), ARMCI_INT);
    EXPECT_EQ(x, me() == 0 ? expected<int>(o, all_ranks(), &values<int>) : values<int>(me()));

    std::vector<float> f = values<float>(me());
    armci_msg_reduce_scope(SCOPE_NODE, f.data(), 5, op(o), ARMCI_FLOAT);
    const auto& node = t.members[t.my_node()];
    EXPECT_EQ(f, me() == node[0] ? expected<float>(o, node, &values<float>) : values<float>(me()));

    std::vector<long long> l = values<long long>(me());
    armci_msg_reduce_scope(SCOPE_MASTERS, l.data(), 5, op(o), ARMCI_LONG_LONG);
    EXPECT_EQ(l, me() == 0 ? expected<long long>(o, t.masters, &values<long long>) : values<long long>(me()));
  }
}

// --- broadcasts --------------------------------------------------------------------------------------------

TEST(Msg, BcastFromEveryRoot) {
  for (int root = 0; root < nproc(); ++root) {
    SCOPED_TRACE("root " + std::to_string(root));
    long long a[3] = {-1, -1, -1}, b[3] = {-1, -1, -1};
    if (me() == root) {
      a[0] = b[0] = root;
      a[1] = b[1] = (1LL << 44) + root;
      a[2] = b[2] = -root - 17;
    }
    armci_msg_bcast(a, sizeof a, root);
    armci_msg_brdcst(b, sizeof b, root);
    for (long long* v : {a, b}) {
      EXPECT_EQ(v[0], root);
      EXPECT_EQ(v[1], (1LL << 44) + root);
      EXPECT_EQ(v[2], -root - 17);
    }
  }
  char c = 'x';
  armci_msg_bcast(&c, 0, nproc() - 1);  // zero bytes: nothing moves
  EXPECT_EQ(c, 'x');
}

TEST(Msg, BcastLarge) {
  std::vector<int> v(100000, -1);
  if (me() == nproc() - 1)
    for (int i = 0; i < 100000; ++i) v[i] = i * 3;
  armci_msg_bcast(v.data(), static_cast<int>(v.size() * sizeof(int)), nproc() - 1);
  bool ok = true;
  for (int i = 0; i < 100000; ++i) ok &= v[i] == i * 3;
  EXPECT_TRUE(ok);
}

TEST(Msg, BcastScope) {
  Topology t = topology();
  for (int root = 0; root < nproc(); ++root) {
    int v = me() == root ? 1000 + root : -1;
    armci_msg_bcast_scope(SCOPE_ALL, &v, sizeof v, root);
    EXPECT_EQ(v, 1000 + root);
  }
  // SCOPE_NODE: each node broadcasts from each of its members in turn (root is a world rank on my node).
  const auto& node = t.members[t.my_node()];
  for (int root : node) {
    double v = me() == root ? root + 0.25 : -1;
    armci_msg_bcast_scope(SCOPE_NODE, &v, sizeof v, root);
    EXPECT_EQ(v, root + 0.25);
  }
  // SCOPE_MASTERS: every rank calls with each master as root; only masters receive.
  for (int root : t.masters) {
    int v = me() == root ? 7 * root + 1 : -1;
    armci_msg_bcast_scope(SCOPE_MASTERS, &v, sizeof v, root);
    EXPECT_EQ(v, t.is_master(me()) ? 7 * root + 1 : -1) << "root " << root;
  }
}

TEST(Msg, ClusBrdcst) {
  Topology t = topology();
  long v[2] = {-1, -1};
  if (me() == 0) {
    v[0] = 4242;
    v[1] = -99;
  }
  armci_msg_clus_brdcst(v, sizeof v);
  if (t.is_master(me())) {
    EXPECT_EQ(v[0], 4242);
    EXPECT_EQ(v[1], -99);
  } else {
    EXPECT_EQ(v[0], -1);
  }
}

// --- point to point ----------------------------------------------------------------------------------------

TEST(Msg, SndRcvRing) {
  const int np = nproc(), right = (me() + 1) % np, left = (me() + np - 1) % np;
  const int tag = 31;
  long long out[4] = {me(), (1LL << 42) + me(), -me(), 77};
  long long in[8] = {0};
  int len = -1;
  // Small messages go eagerly, but alternate anyway so that the ring cannot deadlock under any protocol.
  if (me() % 2 == 0) {
    armci_msg_snd(tag, out, sizeof out, right);
    armci_msg_rcv(tag, in, sizeof in, &len, left);
  } else {
    armci_msg_rcv(tag, in, sizeof in, &len, left);
    armci_msg_snd(tag, out, sizeof out, right);
  }
  EXPECT_EQ(len, static_cast<int>(sizeof out));
  EXPECT_EQ(in[0], left);
  EXPECT_EQ(in[1], (1LL << 42) + left);
  EXPECT_EQ(in[2], -left);
  EXPECT_EQ(in[3], 77);
  // msglen may be NULL, and a zero-length message is a message.
  if (me() % 2 == 0) {
    armci_msg_snd(tag + 1, nullptr, 0, right);
    armci_msg_rcv(tag + 1, in, sizeof in, nullptr, left);
  } else {
    armci_msg_rcv(tag + 1, nullptr, 0, &len, left);
    EXPECT_EQ(len, 0);
    armci_msg_snd(tag + 1, nullptr, 0, right);
  }
  armci_msg_barrier();
}

TEST(Msg, TagsAreMatched) {
  if (nproc() < 2) GTEST_SKIP() << "needs two ranks";
  // Rank 1 sends tag 5 then tag 6; rank 0 receives tag 6 first.
  if (me() == 1) {
    int a = 5, b = 6;
    armci_msg_snd(5, &a, sizeof a, 0);
    armci_msg_snd(6, &b, sizeof b, 0);
  } else if (me() == 0) {
    int x = 0, y = 0;
    armci_msg_rcv(6, &x, sizeof x, nullptr, 1);
    armci_msg_rcv(5, &y, sizeof y, nullptr, 1);
    EXPECT_EQ(x, 6);
    EXPECT_EQ(y, 5);
  }
  armci_msg_barrier();
}

TEST(Msg, RcvAny) {
  const int tag = 44;
  if (me() != 0) {
    int payload[2] = {me(), me() * me()};
    armci_msg_snd(tag, payload, sizeof payload, 0);
  } else {
    std::set<int> from;
    for (int i = 1; i < nproc(); ++i) {
      int payload[2] = {-1, -1};
      int len = -1;
      int src = armci_msg_rcvany(tag, payload, sizeof payload, &len);
      EXPECT_EQ(len, static_cast<int>(sizeof payload));
      EXPECT_EQ(payload[0], src);
      EXPECT_EQ(payload[1], src * src);
      from.insert(src);
    }
    EXPECT_EQ(static_cast<int>(from.size()), nproc() - 1);
    EXPECT_EQ(from.count(0), 0u);
  }
  armci_msg_barrier();
}

TEST(Msg, RcvTooShortBufferIsReported) {
  if (nproc() < 2) GTEST_SKIP() << "needs two ranks";
  if (me() == 0) {
    char big[16] = "0123456789abcde";
    armci_msg_snd(9, big, sizeof big, 1);
  } else if (me() == 1) {
    char small[8];
    EXPECT_ARMCI_ERROR(armci_msg_rcv(9, small, sizeof small, nullptr, 0), "armci_msg_rcv", "buflen", "16");
  }
  armci_msg_barrier();
  // The oversized message was consumed: the next one on the same tag is the right one.
  if (me() == 0) {
    int v = 123;
    armci_msg_snd(9, &v, sizeof v, 1);
  } else if (me() == 1) {
    int v = 0;
    armci_msg_rcv(9, &v, sizeof v, nullptr, 0);
    EXPECT_EQ(v, 123);
  }
  armci_msg_barrier();
}

// --- selection ---------------------------------------------------------------------------------------------

struct DRecord {
  double key;
  int rank;
  int check;
  long long payload[3];
};

struct LLRecord {
  long long key;
  int rank;
  int check;
};

TEST(Msg, SelMinMaxDouble) {
  const int np = nproc();
  auto key_of = [](int p) { return (p % 2 ? -1.0 : 1.0) * (p + 0.5); };
  for (const char* o : {"min", "max"}) {
    SCOPED_TRACE(o);
    DRecord r{key_of(me()), me(), 1000 + me(), {me() * 10LL, (1LL << 41) + me(), -me() * 1LL}};
    armci_msg_sel(&r, sizeof r, op(o), ARMCI_DOUBLE, 1);
    int best = 0;
    for (int p = 1; p < np; ++p)
      if (std::strcmp(o, "min") == 0 ? key_of(p) < key_of(best) : key_of(p) > key_of(best)) best = p;
    EXPECT_EQ(r.key, key_of(best));
    EXPECT_EQ(r.rank, best);
    EXPECT_EQ(r.check, 1000 + best);
    EXPECT_EQ(r.payload[1], (1LL << 41) + best);
    EXPECT_EQ(r.payload[2], -best * 1LL);
  }
}

TEST(Msg, SelPartialContributionAndTies) {
  const int np = nproc();
  // Only odd ranks contribute, all with the same key: the lowest contributing rank wins, and
  // non-contributors' (better) keys are ignored.
  LLRecord r{me() % 2 ? (1LL << 43) : -(1LL << 50), me(), me() * 3};
  armci_msg_sel(&r, sizeof r, op("min"), ARMCI_LONG_LONG, me() % 2);
  if (np >= 2) {
    EXPECT_EQ(r.key, 1LL << 43);
    EXPECT_EQ(r.rank, 1);
    EXPECT_EQ(r.check, 3);
  }
  // Nobody contributes: every record stays as it was.
  LLRecord q{42, me(), -1};
  armci_msg_sel(&q, sizeof q, op("max"), ARMCI_LONG_LONG, 0);
  EXPECT_EQ(q.key, 42);
  EXPECT_EQ(q.rank, me());
  EXPECT_EQ(q.check, -1);
  // An int key and a plain n == sizeof(key) record.
  int k = me() == np - 1 ? -5 : me();
  armci_msg_sel(&k, sizeof k, op("min"), ARMCI_INT, 1);
  EXPECT_EQ(k, -5);
  float fk = static_cast<float>(me()) * 0.5f;
  armci_msg_sel(&fk, sizeof fk, op("max"), ARMCI_FLOAT, 1);
  EXPECT_EQ(fk, (np - 1) * 0.5f);
  long lk = -(1L << 40) * me();
  armci_msg_sel(&lk, sizeof lk, op("min"), ARMCI_LONG, 1);
  EXPECT_EQ(lk, -(1L << 40) * (np - 1));
}

TEST(Msg, SelLargeRecord) {
  // Above the on-stack scratch size.
  std::vector<int> rec(400, me());
  rec[0] = 100 - me();
  armci_msg_sel(rec.data(), static_cast<int>(rec.size() * sizeof(int)), op("max"), ARMCI_INT, 1);
  EXPECT_EQ(rec[0], 100);
  EXPECT_EQ(rec[399], 0);
  EXPECT_EQ(std::count(rec.begin() + 1, rec.end(), 0), 399);
}

TEST(Msg, SelScope) {
  Topology t = topology();
  for (int scope : {SCOPE_ALL, SCOPE_NODE, SCOPE_MASTERS}) {
    SCOPED_TRACE("scope " + std::to_string(scope));
    LLRecord r{-(1LL << 40) - me(), me(), 5};
    armci_msg_sel_scope(scope, &r, sizeof r, op("min"), ARMCI_LONG_LONG, 1);
    const std::vector<int> ranks = scope == SCOPE_ALL    ? all_ranks()
                                   : scope == SCOPE_NODE ? t.members[t.my_node()]
                                                         : t.masters;
    const bool in = scope != SCOPE_MASTERS || t.is_master(me());
    const int winner = in ? ranks.back() : me();
    EXPECT_EQ(r.rank, winner);
    EXPECT_EQ(r.key, -(1LL << 40) - winner);
  }
}

// --- binary trees ------------------------------------------------------------------------------------------

// Gathers every rank's (root, up, left, right) and checks they form one binary tree over `ranks` rooted at
// ranks[0], with ranks outside the scope reporting -1 links.
void check_tree(int scope, const std::vector<int>& ranks, const std::vector<int>& outsiders) {
  int link[4] = {-2, -2, -2, -2};
  armci_msg_bintree(scope, &link[0], &link[1], &link[2], &link[3]);
  std::vector<int> all(4 * nproc());
  MPI_Allgather(link, 4, MPI_INT, all.data(), 4, MPI_INT, MPI_COMM_WORLD);
  auto root = [&](int p) { return all[4 * p]; };
  auto up = [&](int p) { return all[4 * p + 1]; };
  auto left = [&](int p) { return all[4 * p + 2]; };
  auto right = [&](int p) { return all[4 * p + 3]; };
  std::set<int> in(ranks.begin(), ranks.end());
  for (int p : outsiders) {
    EXPECT_EQ(up(p), -1) << p;
    EXPECT_EQ(left(p), -1) << p;
    EXPECT_EQ(right(p), -1) << p;
  }
  int edges = 0;
  for (int p : ranks) {
    EXPECT_EQ(root(p), ranks[0]) << p;
    if (p == ranks[0]) {
      EXPECT_EQ(up(p), -1);
    } else {
      ASSERT_TRUE(in.count(up(p))) << "rank " << p << " has parent " << up(p);
      EXPECT_TRUE(left(up(p)) == p || right(up(p)) == p) << "parent " << up(p) << " does not list " << p;
    }
    for (int c : {left(p), right(p)}) {
      if (c == -1) continue;
      ASSERT_TRUE(in.count(c)) << "rank " << p << " has child " << c;
      EXPECT_EQ(up(c), p) << "child " << c << " of " << p;
      ++edges;
    }
    EXPECT_FALSE(left(p) == -1 && right(p) != -1) << "right child without left child at " << p;
  }
  EXPECT_EQ(edges, static_cast<int>(ranks.size()) - 1);
  // Connected: walking up from every member reaches the root within |ranks| steps.
  for (int p : ranks) {
    int q = p, steps = 0;
    while (q != ranks[0] && q >= 0 && steps <= static_cast<int>(ranks.size())) q = up(q), ++steps;
    EXPECT_EQ(q, ranks[0]) << "from " << p;
  }
}

TEST(Msg, Bintree) {
  Topology t = topology();
  {
    SCOPED_TRACE("SCOPE_ALL");
    check_tree(SCOPE_ALL, all_ranks(), {});
  }
  {
    SCOPED_TRACE("SCOPE_NODE");
    // Each rank validates its own node's tree from the gathered links; the other nodes' links refer to
    // their own trees.
    int link[4];
    armci_msg_bintree(SCOPE_NODE, &link[0], &link[1], &link[2], &link[3]);
    std::vector<int> all(4 * nproc());
    MPI_Allgather(link, 4, MPI_INT, all.data(), 4, MPI_INT, MPI_COMM_WORLD);
    for (std::size_t k = 0; k < t.members.size(); ++k) {
      const auto& node = t.members[k];
      int edges = 0;
      for (std::size_t i = 0; i < node.size(); ++i) {
        int p = node[i];
        EXPECT_EQ(all[4 * p], node[0]);
        if (i == 0) {
          EXPECT_EQ(all[4 * p + 1], -1);
        }
        for (int c : {all[4 * p + 2], all[4 * p + 3]}) {
          if (c < 0) continue;
          ++edges;
          EXPECT_EQ(t.node_of[c], static_cast<int>(k));
          EXPECT_EQ(all[4 * c + 1], p);
        }
      }
      EXPECT_EQ(edges, static_cast<int>(node.size()) - 1);
    }
  }
  {
    SCOPED_TRACE("SCOPE_MASTERS");
    std::vector<int> others;
    for (int p = 0; p < nproc(); ++p)
      if (!t.is_master(p)) others.push_back(p);
    check_tree(SCOPE_MASTERS, t.masters, others);
  }
}

// --- address exchange --------------------------------------------------------------------------------------

void* fake_address(int p) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(0x7f0000001000ULL + p * 64));
}

TEST(Msg, ExchangeAddress) {
  std::vector<void*> ptrs(nproc(), reinterpret_cast<void*>(0xdead));
  ptrs[me()] = fake_address(me());
  armci_exchange_address(ptrs.data(), nproc());
  for (int p = 0; p < nproc(); ++p) EXPECT_EQ(ptrs[p], fake_address(p)) << p;
}

// --- groups ------------------------------------------------------------------------------------------------

// Creates a group of the given default-group ranks; false (on every rank) if groups are not available yet.
bool make_group(const std::vector<int>& ranks, ARMCI_Group* g) {
  bool ok = true;
  std::string why;
  {
    armcix_test::ErrorCapture capture;
    try {
      ARMCI_Group_create(static_cast<int>(ranks.size()), const_cast<int*>(ranks.data()), g);
    } catch (const armcix_test::ArmciError& e) {
      ok = false;
      why = e.message;
    }
  }
  ok = armcix_test::all_ok(ok);
  if (!ok && me() == 0) std::printf("ARMCI_Group_create unavailable: %s\n", why.c_str());
  return ok;
}

// The group's ranks in reverse world order, so that group ranks differ from world ranks.
std::vector<int> reversed_ranks() {
  std::vector<int> v = all_ranks();
  std::reverse(v.begin(), v.end());
  return v;
}

struct GroupInfo {
  std::vector<int> node_members;  // group ranks on my node, ascending
  std::vector<int> masters;       // lowest group rank of every node, ascending
  bool is_master = false;
};

GroupInfo group_info(const std::vector<int>& ranks, const Topology& t) {
  GroupInfo gi;
  std::vector<char> seen(t.masters.size(), 0);
  int my_g = -1;
  for (int g = 0; g < static_cast<int>(ranks.size()); ++g) {
    if (ranks[g] == me()) my_g = g;
    if (t.node_of[ranks[g]] == t.my_node()) gi.node_members.push_back(g);
    if (!seen[t.node_of[ranks[g]]]) {
      seen[t.node_of[ranks[g]]] = 1;
      gi.masters.push_back(g);
    }
  }
  gi.is_master = std::find(gi.masters.begin(), gi.masters.end(), my_g) != gi.masters.end();
  return gi;
}

TEST(MsgGroup, GopsBcastBarrierAddress) {
  Topology t = topology();
  const std::vector<int> ranks = reversed_ranks();
  ARMCI_Group g;
  if (!make_group(ranks, &g)) GTEST_SKIP() << "ARMCI_Group_create is not available";
  GroupInfo gi = group_info(ranks, t);
  const int grank = g.rank;
  EXPECT_EQ(g.size, nproc());
  EXPECT_EQ(grank, nproc() - 1 - me());
  // Inputs are indexed by group rank.
  std::vector<int> granks(g.size);
  for (int i = 0; i < g.size; ++i) granks[i] = i;

  armci_msg_group_barrier(&g);
  parmci_msg_group_barrier(&g);

  auto gcheck = [&](auto tag, auto fn, const char* name) {
    using T = decltype(tag);
    for (const std::string& o : ops_for<T>()) {
      SCOPED_TRACE(std::string(name) + " op " + o);
      auto input = input_for<T>(o);
      std::vector<T> x = input(grank);
      fn(x.data(), static_cast<int>(x.size()), op(o.c_str()), &g);
      EXPECT_EQ(x, expected<T>(o, granks, input));
    }
  };
  gcheck(int{}, &armci_msg_group_igop, "group_igop");
  gcheck(long{}, &armci_msg_group_lgop, "group_lgop");
  gcheck(0LL, &armci_msg_group_llgop, "group_llgop");
  gcheck(float{}, &armci_msg_group_fgop, "group_fgop");
  gcheck(double{}, &armci_msg_group_dgop, "group_dgop");

  for (int scope : {SCOPE_ALL, SCOPE_NODE, SCOPE_MASTERS}) {
    SCOPED_TRACE("group scope " + std::to_string(scope));
    const std::vector<int>& members = scope == SCOPE_ALL ? granks : scope == SCOPE_NODE ? gi.node_members : gi.masters;
    const bool in = scope != SCOPE_MASTERS || gi.is_master;
    for (const char* o : {"+", "absmax", "or"}) {
      std::vector<long long> x = input_for<long long>(o)(grank);
      armci_msg_group_gop_scope(scope, x.data(), static_cast<int>(x.size()), op(o), ARMCI_LONG_LONG, &g);
      EXPECT_EQ(x, in ? expected<long long>(o, members, input_for<long long>(o)) : input_for<long long>(o)(grank)) << o;
    }
    std::vector<double> d = values<double>(grank);
    armci_msg_group_gop_scope(scope, d.data(), 5, op("min"), ARMCI_DOUBLE, &g);
    EXPECT_EQ(d, in ? expected<double>("min", members, &values<double>) : values<double>(grank));
    // Broadcast from every member of the scope.  The root argument is the member's ABSOLUTE rank (what
    // ARMCI-MPI expects and GA passes); the group is in reverse order, so group and world ranks differ.
    for (int root : members) {
      int v = grank == root ? 500 + root : -1;
      armci_msg_group_bcast_scope(scope, &v, sizeof v, ranks[root], &g);
      EXPECT_EQ(v, in ? 500 + root : -1) << "group root " << root << " = absolute " << ranks[root];
    }
  }

  std::vector<void*> ptrs(g.size, nullptr);
  ptrs[grank] = fake_address(me());
  armci_exchange_address_grp(ptrs.data(), g.size, &g);
  for (int i = 0; i < g.size; ++i) EXPECT_EQ(ptrs[i], fake_address(ranks[i])) << i;

  // Clusters of two consecutive group ranks broadcast from their first rank, all at once.
  const int cm = (grank / 2) * 2, cn = std::min(2, g.size - cm);
  long v[2] = {-1, -1};
  if (grank == cm) v[0] = 900 + cm, v[1] = -cm;
  armci_grp_clus_brdcst(v, sizeof v, cm, cn, &g);
  EXPECT_EQ(v[0], 900 + cm);
  EXPECT_EQ(v[1], -cm);
  // One cluster spanning the whole group.
  int w = grank == 0 ? 31337 : 0;
  armci_grp_clus_brdcst(&w, sizeof w, 0, g.size, &g);
  EXPECT_EQ(w, 31337);

  ARMCI_Group_free(&g);
}

TEST(MsgGroup, SubgroupOfEvenRanks) {
  std::vector<int> ranks;
  for (int p = 0; p < nproc(); p += 2) ranks.push_back(p);
  ARMCI_Group g;
  if (!make_group(ranks, &g)) GTEST_SKIP() << "ARMCI_Group_create is not available";
  if (me() % 2 == 0) {
    const int grank = g.rank;
    EXPECT_EQ(grank, me() / 2);
    int x[2] = {me(), 1 << me()};
    armci_msg_group_igop(x, 2, op("+"), &g);
    int sum = 0, bitsum = 0;
    for (int p : ranks) sum += p, bitsum += 1 << p;
    EXPECT_EQ(x[0], sum);
    EXPECT_EQ(x[1], bitsum);
    for (int root = 0; root < g.size; ++root) {
      double d = grank == root ? root * 1.5 : -1;
      armci_msg_group_bcast_scope(SCOPE_ALL, &d, sizeof d, ranks[root], &g);
      EXPECT_EQ(d, root * 1.5);
    }
    if (nproc() > 1) {
      // Rank 1 exists but is not a member: an absolute root outside the group is rejected.
      double d = 0;
      EXPECT_ARMCI_ERROR(armci_msg_group_bcast_scope(SCOPE_ALL, &d, sizeof d, 1, &g), "armci_msg_group_bcast_scope",
                         "'root'", "not a member");
    }
    armci_msg_group_barrier(&g);
  } else {
    EXPECT_EQ(g.comm, MPI_COMM_NULL);
    int x = 1;
    EXPECT_ARMCI_ERROR(armci_msg_group_igop(&x, 1, op("+"), &g), "armci_msg_group_igop", "member");
  }
  ARMCI_Group_free(&g);
  armci_msg_barrier();
}

// Global Arrays passes op strings from Fortran (ga_igop_, ga_dgop_ in its fapi.c) and from packed string
// literals without a NUL right after the operation, so what follows is garbage: GA 5.8.2's test.x, bin.x,
// scan.x, sparse.x and overlay.x, built from source on Open MPI, handed us "+'", "maxmin..." and "minmax".
// The operation is the longest spelling the string starts with, as in ARMCI-MPI.
TEST(Msg, OperationsFollowedByGarbageAsGlobalArraysPassesThem) {
  const int n = nproc();
  int x = me() + 1;
  armci_msg_igop(&x, 1, op("+'"));
  EXPECT_EQ(x, n * (n + 1) / 2);
  double d = me();
  armci_msg_dgop(&d, 1, op("max'"));
  EXPECT_EQ(d, n - 1);
  long l = me() + 5;
  armci_msg_lgop(&l, 1, op("absminx"));
  EXPECT_EQ(l, 5);
  double s = me();
  armci_msg_sel(&s, sizeof s, op("maxminibincnt"), ARMCI_DOUBLE, 1);
  EXPECT_EQ(s, n - 1);
  s = me();
  armci_msg_sel(&s, sizeof s, op("minmax"), ARMCI_DOUBLE, 1);
  EXPECT_EQ(s, 0);
}

// --- bad input ---------------------------------------------------------------------------------------------
// Every rank makes the same bad call: each fails locally before communicating.

TEST(MsgErrors, UnknownOp) {
  int x[2] = {1, 2};
  EXPECT_ARMCI_ERROR(armci_msg_igop(x, 2, op("mean")), "armci_msg_igop", "'op'", "mean");
  EXPECT_ARMCI_ERROR(armci_msg_lgop(reinterpret_cast<long*>(x), 1, op("")), "armci_msg_lgop", "'op'");
  EXPECT_ARMCI_ERROR(armci_msg_igop(x, 2, nullptr), "armci_msg_igop", "'op'");
  EXPECT_ARMCI_ERROR(armci_msg_reduce(x, 2, op("sum"), ARMCI_INT), "armci_msg_reduce", "'op'", "sum");
  EXPECT_ARMCI_ERROR(armci_msg_clus_igop(x, 2, op("xor")), "armci_msg_clus_igop", "'op'");
  float f = 1;
  EXPECT_ARMCI_ERROR(armci_msg_fgop(&f, 1, op("or")), "armci_msg_fgop", "'op'", "integer");
  double d = 1;
  EXPECT_ARMCI_ERROR(armci_msg_dgop(&d, 1, op("&&")), "armci_msg_dgop", "'op'");
  EXPECT_ARMCI_ERROR(armci_msg_sel(&d, sizeof d, op("+"), ARMCI_DOUBLE, 1), "armci_msg_sel", "'op'");
  EXPECT_ARMCI_ERROR(armci_msg_sel(&d, sizeof d, op("absmax"), ARMCI_DOUBLE, 1), "armci_msg_sel", "'op'", "selection");
  EXPECT_EQ(x[0], 1);
  EXPECT_EQ(x[1], 2);
}

TEST(MsgErrors, NullBufferAndNegativeCount) {
  int x = 0;
  EXPECT_ARMCI_ERROR(armci_msg_dgop(nullptr, 3, op("+")), "armci_msg_dgop", "'x'", "NULL");
  EXPECT_ARMCI_ERROR(armci_msg_igop(&x, -1, op("+")), "armci_msg_igop", "'n'", "-1");
  EXPECT_ARMCI_ERROR(armci_msg_gop_scope(SCOPE_ALL, nullptr, 1, op("+"), ARMCI_INT), "armci_msg_gop_scope", "'x'");
  EXPECT_ARMCI_ERROR(armci_msg_reduce_scope(SCOPE_NODE, &x, -5, op("+"), ARMCI_INT), "armci_msg_reduce_scope", "'n'");
  EXPECT_ARMCI_ERROR(armci_msg_bcast(nullptr, 4, 0), "armci_msg_bcast", "'buffer'");
  EXPECT_ARMCI_ERROR(armci_msg_brdcst(&x, -4, 0), "armci_msg_brdcst", "'len'");
  EXPECT_ARMCI_ERROR(armci_msg_clus_brdcst(nullptr, 8), "armci_msg_clus_brdcst", "'buf'");
  EXPECT_ARMCI_ERROR(armci_msg_sel(nullptr, 8, op("min"), ARMCI_INT, 1), "armci_msg_sel", "'x'");
  EXPECT_ARMCI_ERROR(armci_msg_sel(&x, 2, op("min"), ARMCI_INT, 1), "armci_msg_sel", "'n'");
  EXPECT_ARMCI_ERROR(armci_msg_snd(1, nullptr, 4, 0), "armci_msg_snd", "'buffer'");
  EXPECT_ARMCI_ERROR(armci_msg_rcv(1, &x, -1, nullptr, 0), "armci_msg_rcv", "'buflen'");
  EXPECT_ARMCI_ERROR(armci_msg_rcvany(1, nullptr, 4, nullptr), "armci_msg_rcvany", "'buffer'");
  EXPECT_ARMCI_ERROR(armci_exchange_address(nullptr, nproc()), "armci_exchange_address", "'ptr_ar'");
  int* r = &x;
  EXPECT_ARMCI_ERROR(armci_msg_bintree(SCOPE_ALL, nullptr, r, r, r), "armci_msg_bintree", "'Root'");
  EXPECT_ARMCI_ERROR(armci_msg_bintree(SCOPE_ALL, r, r, r, nullptr), "armci_msg_bintree", "'Right'");
}

TEST(MsgErrors, BadTypeAndScope) {
  int x = 0;
  EXPECT_ARMCI_ERROR(armci_msg_gop_scope(SCOPE_ALL, &x, 1, op("+"), 9), "armci_msg_gop_scope", "'type'", "9");
  EXPECT_ARMCI_ERROR(armci_msg_reduce(&x, 1, op("+"), -1), "armci_msg_reduce", "'type'");
  EXPECT_ARMCI_ERROR(armci_msg_sel(&x, sizeof x, op("min"), 5, 1), "armci_msg_sel", "'type'");
  EXPECT_ARMCI_ERROR(armci_msg_gop_scope(7, &x, 1, op("+"), ARMCI_INT), "armci_msg_gop_scope", "'scope'", "7");
  EXPECT_ARMCI_ERROR(armci_msg_bcast_scope(-1, &x, sizeof x, 0), "armci_msg_bcast_scope", "'scope'");
  EXPECT_ARMCI_ERROR(armci_msg_sel_scope(3, &x, sizeof x, op("min"), ARMCI_INT, 1), "armci_msg_sel_scope", "'scope'");
  EXPECT_ARMCI_ERROR(armci_msg_reduce_scope(4, &x, 1, op("+"), ARMCI_INT), "armci_msg_reduce_scope", "'scope'");
  int* r = &x;
  EXPECT_ARMCI_ERROR(armci_msg_bintree(5, r, r, r, r), "armci_msg_bintree", "'scope'");
}

TEST(MsgErrors, BadRanksAndTags) {
  int x = 0;
  const int np = nproc();
  EXPECT_ARMCI_ERROR(armci_msg_bcast(&x, sizeof x, np), "armci_msg_bcast", "'root'");
  EXPECT_ARMCI_ERROR(armci_msg_brdcst(&x, sizeof x, -1), "armci_msg_brdcst", "'root'");
  EXPECT_ARMCI_ERROR(armci_msg_bcast_scope(SCOPE_ALL, &x, sizeof x, np + 3), "armci_msg_bcast_scope", "'root'");
  EXPECT_ARMCI_ERROR(armci_msg_snd(1, &x, sizeof x, np), "armci_msg_snd", "'to'");
  EXPECT_ARMCI_ERROR(armci_msg_snd(-1, &x, sizeof x, 0), "armci_msg_snd", "'tag'");
  EXPECT_ARMCI_ERROR(armci_msg_rcv(1, &x, sizeof x, nullptr, -1), "armci_msg_rcv", "'from'");
  EXPECT_ARMCI_ERROR(armci_msg_rcv(-3, &x, sizeof x, nullptr, 0), "armci_msg_rcv", "'tag'");
  EXPECT_ARMCI_ERROR(armci_msg_rcvany(-3, &x, sizeof x, nullptr), "armci_msg_rcvany", "'tag'");
  // MPI_TAG_UB itself carries armci_notify's messages on the same communicator.
  int* ub = nullptr;
  int has_ub = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &has_ub);
  ASSERT_TRUE(has_ub && ub);
  EXPECT_ARMCI_ERROR(armci_msg_snd(*ub, &x, sizeof x, 0), "armci_msg_snd", "'tag'");
  EXPECT_ARMCI_ERROR(armci_msg_rcvany(*ub, &x, sizeof x, nullptr), "armci_msg_rcvany", "armci_notify");
  std::vector<void*> ptrs(np + 1);
  EXPECT_ARMCI_ERROR(armci_exchange_address(ptrs.data(), np + 1), "armci_exchange_address", "'n'");
  // A root outside the caller's scope: SCOPE_NODE with a rank of another node, SCOPE_MASTERS with a
  // non-master.
  Topology t = topology();
  for (int p = 0; p < np; ++p) {
    if (t.node_of[p] != t.my_node()) {
      EXPECT_ARMCI_ERROR(armci_msg_bcast_scope(SCOPE_NODE, &x, sizeof x, p), "armci_msg_bcast_scope", "'root'",
                         "SCOPE_NODE");
      break;
    }
  }
  for (int p = 0; p < np; ++p) {
    if (!t.is_master(p)) {
      EXPECT_ARMCI_ERROR(armci_msg_bcast_scope(SCOPE_MASTERS, &x, sizeof x, p), "armci_msg_bcast_scope", "'root'",
                         "SCOPE_MASTERS");
      break;
    }
  }
}

TEST(MsgErrors, BadGroupArguments) {
  ARMCI_Group w;
  ARMCI_Group_get_world(&w);
  int x = 0;
  EXPECT_ARMCI_ERROR(armci_msg_group_igop(&x, 1, op("+"), nullptr), "armci_msg_group_igop", "'group'");
  EXPECT_ARMCI_ERROR(armci_msg_group_barrier(nullptr), "armci_msg_group_barrier", "'group'");
  EXPECT_ARMCI_ERROR(parmci_msg_group_barrier(nullptr), "armci_msg_group_barrier", "'group'");
  EXPECT_ARMCI_ERROR(armci_msg_group_dgop(nullptr, 1, op("+"), &w), "armci_msg_group_dgop", "'x'");
  EXPECT_ARMCI_ERROR(armci_msg_group_fgop(reinterpret_cast<float*>(&x), 1, op("and"), &w), "armci_msg_group_fgop",
                     "'op'");
  EXPECT_ARMCI_ERROR(armci_msg_group_gop_scope(SCOPE_ALL, &x, 1, op("+"), 11, &w), "armci_msg_group_gop_scope",
                     "'type'");
  EXPECT_ARMCI_ERROR(armci_msg_group_gop_scope(8, &x, 1, op("+"), ARMCI_INT, &w), "armci_msg_group_gop_scope",
                     "'scope'");
  EXPECT_ARMCI_ERROR(armci_msg_group_bcast_scope(SCOPE_ALL, &x, sizeof x, w.size, &w), "armci_msg_group_bcast_scope",
                     "'root'");
  EXPECT_ARMCI_ERROR(armci_msg_group_bcast_scope(SCOPE_ALL, nullptr, 4, 0, &w), "armci_msg_group_bcast_scope", "'buf'");
  std::vector<void*> ptrs(w.size + 1);
  EXPECT_ARMCI_ERROR(armci_exchange_address_grp(ptrs.data(), w.size + 1, &w), "armci_exchange_address_grp", "'n'");
  EXPECT_ARMCI_ERROR(armci_grp_clus_brdcst(&x, sizeof x, 0, 0, &w), "armci_grp_clus_brdcst", "'grp_clus_nproc'");
  EXPECT_ARMCI_ERROR(armci_grp_clus_brdcst(&x, sizeof x, w.size, 1, &w), "armci_grp_clus_brdcst", "'grp_master'");
  EXPECT_ARMCI_ERROR(armci_grp_clus_brdcst(&x, sizeof x, -1, 1, &w), "armci_grp_clus_brdcst", "'grp_master'");
  if (w.size > 1) {
    // A cluster that does not contain the caller.
    int other = w.rank == 0 ? 1 : 0;
    EXPECT_ARMCI_ERROR(armci_grp_clus_brdcst(&x, sizeof x, other, 1, &w), "armci_grp_clus_brdcst", "cluster");
  }
}

// --- barriers and gops in shared memory (ARMCI_NODE_SYNC, shm/node_sync.h) ---------------------------------
// The manifest runs this program with ARMCI_NODE_SYNC=1 on one node (the shared-memory path for every
// barrier and gop test above) and with it on several simulated nodes (MPI's path).

// Resolved to 0 or 1: auto follows the back-off; used only when every rank is on one node.
TEST(NodeSync, OnWhenChosenAndOnOneNode) {
  const armcix::Runtime& r = armcix::rt();
  const char* env = std::getenv("ARMCI_NODE_SYNC");
  if (!env || std::string(env) == "auto") {
    EXPECT_EQ(r.resolved.node_sync, r.resolved.wait_backoff_us > 0 ? 1 : 0);
  }
  EXPECT_TRUE(r.resolved.node_sync == 0 || r.resolved.node_sync == 1);
  const bool one_node = topology().masters.size() == 1;
  EXPECT_EQ(armcix::node_sync_on(), r.resolved.node_sync == 1 && one_node && nproc() > 1);
}

// A barrier separates rounds: what every rank stored into its own slice before it is what every rank reads
// after it, round after round, with ranks arriving in shuffled order.
TEST(NodeSync, BarrierSeparatesRounds) {
  armcix_test::Alloc a(sizeof(int));
  *a.at<int>(me()) = -1;
  armci_msg_barrier();
  bool ok = true;
  for (int round = 0; round < 300; ++round) {
    if ((round + me()) % 5 == 0) sched_yield();  // arrive in another order
    if ((round * 7 + me()) % 13 == 0) usleep(200);
    *a.at<int>(me()) = round;
    armci_msg_barrier();
    for (int p = 0; p < nproc(); ++p) {
      int seen = -2;
      ARMCI_Get(a.ptrs[p], &seen, sizeof seen, p);
      if (seen != round && ok) ADD_FAILURE() << "round " << round << ": rank " << p << "'s value " << seen;
      ok &= seen == round;
    }
    armci_msg_barrier();  // nobody stores the next round before everyone has read this one
  }
  EXPECT_TRUE(armcix_test::all_ok(ok));
}

// Every rank gets the same bits from a floating-point gop (the slots are reduced in one order everywhere),
// over many consecutive gops of varying length (both sets of slots, and lengths at the slot size and past
// it, which go through MPI).
TEST(NodeSync, GopResultsAreIdenticalOnEveryRank) {
  const std::size_t slot_doubles = armcix::kNodeSyncSlotBytes / sizeof(double);
  const int lengths[] = {1, 3, 17, 1000, static_cast<int>(slot_doubles), static_cast<int>(slot_doubles) + 1, 2, 5};
  bool same = true, exact = true;
  for (int rep = 0; rep < 3; ++rep) {
    for (int n : lengths) {
      std::vector<double> x(static_cast<std::size_t>(n)), ints(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) {
        x[i] = 1.0 / (3.0 + me() + i + rep);  // sums that round: the order of additions shows in the bits
        ints[i] = static_cast<double>((me() + 1) * (i + rep));
      }
      armci_msg_dgop(x.data(), n, op("+"));
      armci_msg_dgop(ints.data(), n, op("+"));
      std::vector<double> all(static_cast<std::size_t>(n) * nproc());
      MPI_Allgather(x.data(), n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, MPI_COMM_WORLD);
      for (int p = 1; p < nproc(); ++p)
        same &= std::memcmp(all.data(), all.data() + static_cast<std::size_t>(p) * n, n * sizeof(double)) == 0;
      const double ranks_sum = nproc() * (nproc() + 1) / 2.0;
      for (int i = 0; i < n; ++i) exact &= ints[i] == ranks_sum * (i + rep);
    }
  }
  EXPECT_TRUE(same) << "the ranks got different bits from the same gop";
  EXPECT_TRUE(exact);
}

// Mixed operations and types through the slots back to back: integer max / min / absmax and a long
// product, each checked exactly.
TEST(NodeSync, MixedGopsBackToBack) {
  bool ok = true;
  for (int rep = 0; rep < 50; ++rep) {
    int imax = me() + rep, imin = me() + rep;
    long lprod = (me() % 2) ? 2 : 1;
    int iabs = (me() % 2 ? -1 : 1) * (me() + rep);
    armci_msg_igop(&imax, 1, op("max"));
    armci_msg_igop(&imin, 1, op("min"));
    armci_msg_lgop(&lprod, 1, op("*"));
    armci_msg_igop(&iabs, 1, op("absmax"));
    ok &= imax == nproc() - 1 + rep && imin == rep;
    ok &= lprod == (1L << (nproc() / 2));
    ok &= iabs == nproc() - 1 + rep;
  }
  EXPECT_TRUE(armcix_test::all_ok(ok));
}

// ARMCI_WAIT_BACKOFF_US unset: kOversubscribedBackoffUs when a machine runs more of the job's ranks than it
// has cores, else 0, the same on every rank.
TEST(WaitBackoff, DefaultFollowsOversubscription) {
  if (std::getenv("ARMCI_WAIT_BACKOFF_US")) GTEST_SKIP() << "ARMCI_WAIT_BACKOFF_US is set";
  // The rule: back-off everywhere if any machine has more ranks than cores (test_util.h).
  const armcix_test::MachineCount m = armcix_test::count_machine();
  const int expect = m.any_oversubscribed ? armcix::kOversubscribedBackoffUs : 0;
  EXPECT_EQ(armcix::rt().resolved.wait_backoff_us, expect)
      << m.ranks_here << " ranks on this machine, " << m.cores << " cores";
  EXPECT_EQ(armcix::rt().machine.ranks, m.ranks_here);
}

}  // namespace

// armci_notify's messages and armci_msg_*'s share the world's communicator: a message on the highest tag
// armci_msg_* accepts, received from any source, must not take a notification sent before it, and the
// notification must still arrive.
TEST(Msg, NotifyBesideMessagesOnTheHighestTag) {
  const int np = nproc(), my = me();
  if (np < 2) GTEST_SKIP() << "needs 2 processes";
  int* ub = nullptr;
  int has_ub = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &has_ub);
  ASSERT_TRUE(has_ub && ub);
  const int tag = *ub - 1;
  if (my == 0) {
    int before = armci_notify(1);
    int payload = 4242;
    armci_msg_snd(tag, &payload, sizeof payload, 1);
    EXPECT_GE(before, 1);
  } else if (my == 1) {
    int got = 0, len = 0;
    const int from = armci_msg_rcvany(tag, &got, sizeof got, &len);
    EXPECT_EQ(from, 0);
    EXPECT_EQ(got, 4242);
    EXPECT_EQ(len, static_cast<int>(sizeof got));
    int waits = 0;
    EXPECT_GE(armci_notify_wait(0, &waits), 1);
    EXPECT_GE(waits, 1);
  }
  armci_msg_barrier();
}
