// Non-blocking operations and handles (src/nb/request.*, the ARMCI_Nb* entry points).
//
// Every rank issues operations to every rank (itself included), computes while they are in flight,
// completes them in one of several ways and checks every byte against a reference computed locally.
// Completion is checked from both sides: after a wait the origin buffer must be reusable -- the tests
// overwrite it, and the target must still end up with the original data -- and get results must be in
// place.  Remote visibility is relied on only after ARMCI_Fence or ARMCI_Barrier.  Note that
// ARMCI_Barrier itself completes every outstanding operation, so the tests always complete (and check)
// before the barrier that precedes the target-side verification.
//
// With the default configuration all ranks of a test job share one node, and the node-local path
// (ARMCI_SHM=1) finishes most operations at issue time.  The manifest runs this program again with
// ARMCI_SHM=0 / ARMCI_NODE_SIZE, small ARMCI_MAX_OUTSTANDING*, ARMCI_SHR_BUF_METHOD=COPY and
// ARMCI_PROGRESS_THREAD=1 so that the same tests drive MPI RMA, the request table and flow control.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "test_util.h"

namespace armcix {
std::size_t requests_in_flight();  // live explicit-handle requests (src/nb/request.h)
}

using namespace armcix_test;

namespace {

constexpr long kMaxPolls = 50000000;  // a Test loop that has not finished by then is hung, not slow
constexpr char kFill = 0x3c;          // untouched bytes of target areas
constexpr char kSentinel = 0x77;      // untouched bytes of local result buffers

// ---- Deterministic data ------------------------------------------------------------------------------

uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}
uint64_t key(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  return mix(mix(mix(mix(a + 1) ^ b) ^ c) ^ d);
}
char byte_of(int a, int b, long i, int salt) {
  return static_cast<char>(key(a, b, i, salt) & 0xff);
}

std::vector<char> pattern(int a, int b, long n, int salt) {
  std::vector<char> v(n);
  for (long i = 0; i < n; ++i) v[i] = byte_of(a, b, i, salt);
  return v;
}

// Overwrites a buffer whose operations have completed: the targets must never see these bytes.
template <class T>
void scribble(std::vector<T>& v) {
  std::memset(static_cast<void*>(v.data()), 0xa5, v.size() * sizeof(T));
}

// Something to compute while operations are in flight.
double burn(int iters = 500) {
  static volatile double sink = 1;
  double x = sink;
  for (int i = 0; i < iters; ++i) x = x * 0.999999 + 1.0 / (i + 1.5);
  sink = x;
  return x;
}

std::string show(char c) {
  return std::to_string(static_cast<int>(static_cast<unsigned char>(c)));
}
template <class T>
std::string show(const T& v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// Compares n values; on mismatch reports how many differ and the first one.
template <class T>
::testing::AssertionResult Same(const std::string& what, const T* got, const T* want, long n) {
  long bad = 0, first = -1;
  for (long i = 0; i < n; ++i)
    if (!(got[i] == want[i])) {
      if (first < 0) first = i;
      ++bad;
    }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << bad << " of " << n << " values differ, first at index "
                                       << first << " (got " << show(got[first]) << ", want " << show(want[first])
                                       << ")";
}
template <class T>
::testing::AssertionResult Same(const std::string& what, const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << what << ": size " << got.size() << " != " << want.size();
  return Same(what, got.data(), want.data(), static_cast<long>(got.size()));
}

std::string name(const char* what, int a, int b = -1) {
  std::string s = std::string(what) + " " + std::to_string(a);
  if (b >= 0) s += "/" + std::to_string(b);
  return s;
}

// Targets in the order this rank addresses them: the next rank first, itself last.
std::vector<int> targets() {
  std::vector<int> t;
  for (int j = 0; j < nproc(); ++j) t.push_back((me() + 1 + j) % nproc());
  return t;
}

// Resident set size of this process, from /proc/self/status (-1 if unavailable).
long vmrss_kib() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

// Checks (and, on rank 0, reports) the growth of VmRSS over a loop of non-blocking operations.  With
// flow control it stays well under 1 MiB here; with the limits lifted (ARMCI_MAX_OUTSTANDING*=16777216)
// 100,000 outstanding MPI gets cost ~16 MiB, which this bound catches.
void expect_bounded_growth(const char* what, long before_kib, long after_kib) {
  constexpr long kBoundKib = 8 * 1024;
  if (me() == 0) std::printf("[   info   ] %s: VmRSS %+ld KiB\n", what, after_kib - before_kib);
  EXPECT_GE(before_kib, 0) << "no VmRSS in /proc/self/status";
  EXPECT_LT(after_kib - before_kib, kBoundKib)
      << what << ": VmRSS grew from " << before_kib << " KiB to " << after_kib << " KiB";
}

// ---- Global memory -------------------------------------------------------------------------------------

// Every rank's slice of an ARMCI_Malloc allocation, seen from `base` bytes into each slice.
class Slices {
 public:
  char* at(int p, long off = 0) const { return static_cast<char*>(ptrs_[p]) + base_ + off; }
  template <class T>
  T* typed(int p, long elem = 0) const {
    return reinterpret_cast<T*>(at(p)) + elem;
  }
  // The same slices from `off` bytes further on.
  Slices shifted(long off) const {
    Slices s = *this;
    s.base_ += off;
    return s;
  }
  // Writes this rank's slice with local stores made visible to later RMA.  Follow with ARMCI_Barrier.
  void init_local(const std::function<void(char*)>& fill) const {
    ARMCI_Access_begin(ptrs_[me()]);
    fill(at(me()));
    ARMCI_Access_end(ptrs_[me()]);
  }
  // Copy of part of this rank's slice (after a barrier: includes every completed remote update).
  template <class T = char>
  std::vector<T> snapshot(long first_elem, long count) const {
    std::vector<T> v(count);
    ARMCI_Access_begin(ptrs_[me()]);
    std::memcpy(static_cast<void*>(v.data()), typed<T>(me(), first_elem), count * sizeof(T));
    ARMCI_Access_end(ptrs_[me()]);
    return v;
  }

 protected:
  std::vector<void*> ptrs_;
  long base_ = 0;
};

// One ARMCI_Malloc allocation for the scope of a test (every rank constructs and destroys it in the same
// order: both are collective).
class Global : public Slices {
 public:
  explicit Global(long bytes) {
    ptrs_.assign(nproc(), nullptr);
    EXPECT_EQ(ARMCI_Malloc(ptrs_.data(), bytes), 0);
  }
  ~Global() { ARMCI_Free(ptrs_[me()]); }
  Global(const Global&) = delete;
  Global& operator=(const Global&) = delete;
};

// ---- Completion modes ------------------------------------------------------------------------------

enum class Mode { kWait, kTest, kAggregate, kImplicitWaitProc, kImplicitWaitAll };
const Mode kAllModes[] = {Mode::kWait, Mode::kTest, Mode::kAggregate, Mode::kImplicitWaitProc, Mode::kImplicitWaitAll};

const char* mode_name(Mode m);
void PrintTo(Mode m, std::ostream* os) {
  *os << mode_name(m);
}

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::kWait:
      return "ExplicitWait";
    case Mode::kTest:
      return "ExplicitTest";
    case Mode::kAggregate:
      return "Aggregate";
    case Mode::kImplicitWaitProc:
      return "ImplicitWaitProc";
    case Mode::kImplicitWaitAll:
      return "ImplicitWaitAll";
  }
  return "?";
}

// Hands out the handle argument for each operation and completes them all according to the mode:
//   kWait       one fresh handle per operation, ARMCI_Wait in reverse issue order;
//   kTest       one fresh handle per operation, ARMCI_Test polling until it returns 0;
//   kAggregate  every operation under one aggregate handle, one ARMCI_Wait;
//   kImplicit*  NULL handles, then ARMCI_WaitProc for every target, or ARMCI_WaitAll.
class Completion {
 public:
  explicit Completion(Mode m) : mode_(m) {
    if (m == Mode::kAggregate) {
      ARMCI_INIT_HANDLE(&aggregate_);
      ARMCI_SET_AGGREGATE_HANDLE(&aggregate_);
    }
  }
  armci_hdl_t* next() {
    switch (mode_) {
      case Mode::kWait:
      case Mode::kTest:
        handles_.emplace_back();  // deque: earlier handles keep their address
        ARMCI_INIT_HANDLE(&handles_.back());
        return &handles_.back();
      case Mode::kAggregate:
        return &aggregate_;
      default:
        return nullptr;
    }
  }
  void complete() {
    switch (mode_) {
      case Mode::kWait:
        for (auto it = handles_.rbegin(); it != handles_.rend(); ++it) EXPECT_EQ(ARMCI_Wait(&*it), 0);
        break;
      case Mode::kTest: {
        long unfinished = 0;
        for (auto& h : handles_) {
          long polls = 0;
          while (ARMCI_Test(&h) != 0 && ++polls < kMaxPolls) burn(50);
          if (polls >= kMaxPolls) ++unfinished;
        }
        EXPECT_EQ(unfinished, 0) << "handles whose ARMCI_Test never returned 0";
        break;
      }
      case Mode::kAggregate:
        ARMCI_UNSET_AGGREGATE_HANDLE(&aggregate_);
        EXPECT_EQ(ARMCI_Wait(&aggregate_), 0);
        break;
      case Mode::kImplicitWaitProc:
        for (int t : targets()) EXPECT_EQ(ARMCI_WaitProc(t), 0);
        break;
      case Mode::kImplicitWaitAll:
        EXPECT_EQ(ARMCI_WaitAll(), 0);
        break;
    }
  }

 private:
  Mode mode_;
  std::deque<armci_hdl_t> handles_;
  armci_hdl_t aggregate_{};
};

// The tests over every completion mode share one allocation: allocating and freeing one per test costs
// far more than the tests themselves at 4 oversubscribed ranks.  Each test initialises every byte it
// checks, behind a barrier, before any rank's operations can reach it.
class NbModes : public ::testing::TestWithParam<Mode> {
 public:
  static void SetUpTestSuite() { shared_ = new Global(kSharedBytesPerRank * nproc()); }
  static void TearDownTestSuite() {
    delete shared_;
    shared_ = nullptr;
  }

 protected:
  int salt(int test) const { return 100 * test + static_cast<int>(GetParam()); }
  // The shared slices, of which a test uses the first `bytes`.
  static const Slices& shared(long bytes) {
    EXPECT_LE(bytes, kSharedBytesPerRank * nproc()) << "the shared allocation is too small for this test";
    return *shared_;
  }
  static constexpr long kSharedBytesPerRank = 16384;

 private:
  static Global* shared_;
};
Global* NbModes::shared_ = nullptr;

// ---- Typed helpers for accumulate -------------------------------------------------------------------

// Values from test_util.h's make_value (small integers): every sum below is exact in every type.

// One accumulate type's part of the AccumulateEveryType test: kN elements at `first` (in elements of T)
// of every slice, accumulated into by every rank -- a scaled contribution in three operations and an
// unscaled one (which MPI reads from the user's buffer directly) over part of the array.
template <class T>
struct AccCase {
  static constexpr long kN = 97;
  static constexpr long kCuts[4] = {0, 1, 50, kN};
  static constexpr long kLo2 = 10, kHi2 = 60;
  int datatype;
  long first;  // in elements of T
  int salt;
  std::vector<std::vector<T>> a, b;
  T s1, one;

  AccCase(int dt, long first_byte, int sl)
      : datatype(dt),
        first(first_byte / static_cast<long>(sizeof(T))),
        salt(sl),
        s1(scale1(me())),
        one(make_value<T>(1, 0)) {}
  static T init(int t, long i) { return make_value<T>(t * 100 + i % 13, i % 4); }
  T src1(int o, int t, long i) const { return make_value<T>(o + t + i % 5 + 1 + salt % 3, i % 3 - 1); }
  static T src2(int o, int t, long i) { return make_value<T>((o * 7 + t + i) % 9 - 4, o - t); }
  static T scale1(int o) { return make_value<T>(o + 2, 1); }
  static long bytes() { return kN * static_cast<long>(sizeof(T)); }

  void init_local(const Slices& g) const {
    for (long i = 0; i < kN; ++i) g.typed<T>(me(), first)[i] = init(me(), i);
  }
  void issue(const Slices& g, Completion& c) {
    const int n = nproc(), r = me();
    a.assign(n, std::vector<T>(kN));
    b.assign(n, std::vector<T>(kN));
    for (int t = 0; t < n; ++t)
      for (long i = 0; i < kN; ++i) a[t][i] = src1(r, t, i), b[t][i] = src2(r, t, i);
    for (int t : targets()) {
      T* remote = g.typed<T>(t, first);
      for (int k = 0; k < 3; ++k)
        EXPECT_EQ(ARMCI_NbAcc(datatype, &s1, a[t].data() + kCuts[k], remote + kCuts[k],
                              static_cast<int>((kCuts[k + 1] - kCuts[k]) * sizeof(T)), t, c.next()),
                  0);
      EXPECT_EQ(ARMCI_NbAcc(datatype, &one, b[t].data() + kLo2, remote + kLo2,
                            static_cast<int>((kHi2 - kLo2) * sizeof(T)), t, c.next()),
                0);
    }
  }
  void scribble_sources() {
    for (auto& v : a) scribble(v);
    for (auto& v : b) scribble(v);
  }
  std::vector<T> reference(int t) const {
    std::vector<T> v(kN);
    for (long i = 0; i < kN; ++i) {
      v[i] = init(t, i);
      for (int o = 0; o < nproc(); ++o) {
        v[i] += scale1(o) * src1(o, t, i);
        if (i >= kLo2 && i < kHi2) v[i] += src2(o, t, i);
      }
    }
    return v;
  }
  // `slice` is a copy of target t's whole slice.
  void verify(const std::string& what, const std::vector<char>& slice, int t) const {
    std::vector<T> got(kN);
    std::memcpy(static_cast<void*>(got.data()), slice.data() + first * sizeof(T), bytes());
    EXPECT_TRUE(Same(what, got, reference(t)));
  }
};

// ---- Tests over every completion mode ----------------------------------------------------------------

TEST_P(NbModes, ContiguousPutGet) {
  const int n = nproc(), r = me();
  const int salt_put = salt(1), salt_get = salt(1) + 50;
  constexpr long kSeg = 1000, kGuard = 16, kSlot = kSeg + kGuard;
  const long cuts[] = {0, 1, 8, 200, 601, kSeg};  // one segment = five operations of odd sizes
  // Slice: put area (slot s written by rank s, kGuard bytes never written), then source area (slot s read
  // by rank s).
  const Slices& g = shared(2 * n * kSlot);
  g.init_local([&](char* base) {
    std::memset(base, kFill, 2 * n * kSlot);
    for (int s = 0; s < n; ++s) {
      auto p = pattern(r, s, kSeg, salt_get);
      std::memcpy(base + (n + s) * kSlot, p.data(), kSeg);
    }
  });
  ARMCI_Barrier();

  std::vector<std::vector<char>> src(n), got(n);
  for (int t = 0; t < n; ++t) src[t] = pattern(r, t, kSeg, salt_put), got[t].assign(kSlot, kSentinel);
  Completion c(GetParam());
  for (int k = 0; k < 5; ++k)
    for (int t : targets()) {
      const long off = cuts[k], len = cuts[k + 1] - cuts[k];
      EXPECT_EQ(ARMCI_NbPut(src[t].data() + off, g.at(t, r * kSlot + off), len, t, c.next()), 0);
      EXPECT_EQ(ARMCI_NbGet(g.at(t, (n + r) * kSlot + off), got[t].data() + kGuard / 2 + off, len, t, c.next()), 0);
      burn();
    }
  burn();
  c.complete();
  for (int t = 0; t < n; ++t) {
    std::vector<char> want(kSlot, kSentinel);
    auto p = pattern(t, r, kSeg, salt_get);
    std::copy(p.begin(), p.end(), want.begin() + kGuard / 2);
    EXPECT_TRUE(Same(name("NbGet result from", t), got[t], want));
  }
  for (auto& s : src) scribble(s);

  ARMCI_Barrier();
  auto mine = g.snapshot(0, n * kSlot);
  for (int s = 0; s < n; ++s) {
    std::vector<char> want(kSlot, kFill);
    auto p = pattern(s, r, kSeg, salt_put);
    std::copy(p.begin(), p.end(), want.begin());
    EXPECT_TRUE(Same(name("NbPut slot written by", s), mine.data() + s * kSlot, want.data(), kSlot));
  }
}

// All six accumulate types, every rank into the same elements of every rank, all under one completion.
TEST_P(NbModes, AccumulateEveryType) {
  const int n = nproc(), r = me();
  const int sl = salt(2);
  // One array per type, 16-byte aligned, in one allocation.
  const long step = 16 * ((AccCase<std::complex<double>>::bytes() + 15) / 16);
  AccCase<int> ci(ARMCI_ACC_INT, 0, sl);
  AccCase<long> cl(ARMCI_ACC_LNG, step, sl);
  AccCase<float> cf(ARMCI_ACC_FLT, 2 * step, sl);
  AccCase<double> cd(ARMCI_ACC_DBL, 3 * step, sl);
  AccCase<std::complex<float>> cc(ARMCI_ACC_CPL, 4 * step, sl);
  AccCase<std::complex<double>> cz(ARMCI_ACC_DCP, 5 * step, sl);
  auto each = [&](auto&& f) {
    f("ARMCI_ACC_INT", ci), f("ARMCI_ACC_LNG", cl), f("ARMCI_ACC_FLT", cf);
    f("ARMCI_ACC_DBL", cd), f("ARMCI_ACC_CPL", cc), f("ARMCI_ACC_DCP", cz);
  };
  const long slice = 6 * step;
  const Slices& g = shared(slice);
  g.init_local([&](char*) { each([&](const char*, auto& k) { k.init_local(g); }); });
  ARMCI_Barrier();
  Completion c(GetParam());
  each([&](const char*, auto& k) { k.issue(g, c); });
  burn();
  c.complete();
  each([&](const char*, auto& k) { k.scribble_sources(); });
  ARMCI_Barrier();
  const std::vector<char> mine = g.snapshot(0, slice);
  each([&](const char* type, auto& k) { k.verify(std::string(type) + " array on its owner", mine, r); });
  // Every target's arrays read back (non-blocking too) agree with the same references.
  std::vector<std::vector<char>> back(n, std::vector<char>(slice));
  std::vector<armci_hdl_t> h(n);
  for (int t : targets()) {
    ARMCI_INIT_HANDLE(&h[t]);
    EXPECT_EQ(ARMCI_NbGet(g.at(t), back[t].data(), slice, t, &h[t]), 0);
  }
  for (int t : targets()) {
    EXPECT_EQ(ARMCI_Wait(&h[t]), 0);
    each([&](const char* type, auto& k) {
      k.verify(std::string(type) + " array read back from " + std::to_string(t), back[t], t);
    });
  }
  ARMCI_Barrier();  // every reader is done before the next test rewrites the slices
}

TEST_P(NbModes, Strided) {
  const int n = nproc(), r = me();
  const int sl = salt(3);
  // Remote blocks are [kP][kR][kC] doubles; local buffers [kP][kLR][kLC]; the transferred sub-block is
  // kCols x kRows x kP, at (plane 0, row 1, col 2) remotely and (0, 1, 1) locally: two stride levels,
  // different strides on the two sides.
  constexpr int kP = 3, kR = 6, kC = 10, kLR = 5, kLC = 9, kRows = 4, kCols = 7;
  constexpr long kB = kP * kR * kC, kLB = kP * kLR * kLC;
  auto ridx = [](int p, int row, int col) { return (p * kR + row + 1) * kC + col + 2; };
  auto lidx = [](int p, int row, int col) { return (p * kLR + row + 1) * kLC + col + 1; };
  int rstride[2] = {kC * 8, kR * kC * 8}, lstride[2] = {kLC * 8, kLR * kLC * 8};
  int count[3] = {kCols * 8, kRows, kP};
  // Slice (doubles): put area (block s written by rank s) | accumulate block (everyone) | source block.
  const long acc_at = n * kB, src_at = (n + 1) * kB;
  auto put_init = [](long i) { return -1.0 - i; };
  auto acc_init = [](long i) { return i * 0.25; };
  auto source = [sl](int t, long i) { return t * 1000.0 + i + sl; };
  auto put_val = [sl](int o, int t, long i) { return o * 100.0 + t * 10.0 + i * 0.5 + sl; };
  auto acc_val = [](int o, int t, long i) { return static_cast<double>(i % 7 - 3 + o - t); };
  auto scale = [](int o) { return o + 0.5; };

  const Slices& g = shared((n + 2) * kB * 8);
  g.init_local([&](char*) {
    double* d = g.typed<double>(r);
    for (long i = 0; i < n * kB; ++i) d[i] = put_init(i % kB);
    for (long i = 0; i < kB; ++i) d[acc_at + i] = acc_init(i), d[src_at + i] = source(r, i);
  });
  ARMCI_Barrier();

  std::vector<std::vector<double>> pl(n), al(n), gl(n, std::vector<double>(kLB, -7777.0));
  for (int t = 0; t < n; ++t) {
    pl[t].resize(kLB), al[t].resize(kLB);
    for (long i = 0; i < kLB; ++i) pl[t][i] = put_val(r, t, i), al[t][i] = acc_val(r, t, i);
  }
  const double my_scale = scale(r);
  Completion c(GetParam());
  for (int t : targets()) {
    double* remote = g.typed<double>(t);
    EXPECT_EQ(ARMCI_NbPutS(pl[t].data() + lidx(0, 0, 0), lstride, remote + r * kB + ridx(0, 0, 0), rstride, count, 2, t,
                           c.next()),
              0);
    EXPECT_EQ(ARMCI_NbGetS(remote + src_at + ridx(0, 0, 0), rstride, gl[t].data() + lidx(0, 0, 0), lstride, count, 2, t,
                           c.next()),
              0);
    EXPECT_EQ(ARMCI_NbAccS(ARMCI_ACC_DBL, const_cast<double*>(&my_scale), al[t].data() + lidx(0, 0, 0), lstride,
                           remote + acc_at + ridx(0, 0, 0), rstride, count, 2, t, c.next()),
              0);
    burn();
  }
  c.complete();
  for (int t = 0; t < n; ++t) {
    std::vector<double> want(kLB, -7777.0);
    for (int p = 0; p < kP; ++p)
      for (int row = 0; row < kRows; ++row)
        for (int col = 0; col < kCols; ++col) want[lidx(p, row, col)] = source(t, ridx(p, row, col));
    EXPECT_TRUE(Same(name("NbGetS result from", t), gl[t], want));
  }
  for (int t = 0; t < n; ++t) scribble(pl[t]), scribble(al[t]);

  ARMCI_Barrier();
  auto mine = g.snapshot<double>(0, (n + 1) * kB);
  std::vector<double> acc_want(kB);
  for (long i = 0; i < kB; ++i) acc_want[i] = acc_init(i);
  for (int s = 0; s < n; ++s) {
    std::vector<double> want(kB);
    for (long i = 0; i < kB; ++i) want[i] = put_init(i);
    for (int p = 0; p < kP; ++p)
      for (int row = 0; row < kRows; ++row)
        for (int col = 0; col < kCols; ++col) {
          want[ridx(p, row, col)] = put_val(s, r, lidx(p, row, col));
          acc_want[ridx(p, row, col)] += scale(s) * acc_val(s, r, lidx(p, row, col));
        }
    EXPECT_TRUE(Same(name("NbPutS block written by", s), mine.data() + s * kB, want.data(), kB));
  }
  EXPECT_TRUE(Same("NbAccS block", mine.data() + acc_at, acc_want.data(), kB));
}

TEST_P(NbModes, Vector) {
  const int n = nproc(), r = me();
  const int sl = salt(4);
  using Z = std::complex<double>;
  // Slice: put area (512-byte slot per origin) | source area (512 bytes) | accumulate area (8 complex).
  constexpr long kSlot = 512;
  const long src_at = n * kSlot, acc_at = (n + 1) * kSlot;
  const long put_remote0[] = {0, 40, 100, 180, 300}, put_local0[] = {0, 24, 48, 72, 96};  // 24-byte segments
  const long put_remote1[] = {400, 420, 441}, put_local1[] = {120, 127, 134};             // 7-byte segments
  const long get_remote[] = {0, 64, 200, 496}, get_local[] = {8, 40, 72, 104};            // 16-byte segments
  const long acc_remote[] = {0, 3, 6}, acc_local[] = {0, 2, 4};  // complex elements, 2 per segment
  auto acc_init = [](long i) { return Z(static_cast<double>(i), -static_cast<double>(i)); };
  auto acc_val = [](int o, int t, long i) { return Z(static_cast<double>(o + i % 3), static_cast<double>(t - 1)); };
  auto scale = [](int o) { return Z(o + 1.0, -1.0); };

  const Slices& g = shared((n + 1) * kSlot + 8 * sizeof(Z));
  g.init_local([&](char* base) {
    std::memset(base, kFill, n * kSlot);
    auto p = pattern(r, -1, kSlot, sl + 1);
    std::memcpy(base + src_at, p.data(), kSlot);
    for (long i = 0; i < 8; ++i) g.typed<Z>(r, acc_at / static_cast<long>(sizeof(Z)))[i] = acc_init(i);
  });
  ARMCI_Barrier();

  struct Origin {  // everything one target's operations use, alive until completion
    std::vector<char> put_src, get_dst;
    std::vector<Z> acc_src;
    std::vector<void*> ps0, pd0, ps1, pd1, gs, gd, as, ad;
    armci_giov_t put[2], get[1], acc[1];
  };
  std::vector<Origin> o(n);
  const Z my_scale = scale(r);
  Completion c(GetParam());
  for (int t : targets()) {
    Origin& x = o[t];
    x.put_src = pattern(r, t, 160, sl);
    x.get_dst.assign(128, kSentinel);
    x.acc_src.resize(6);
    for (long i = 0; i < 6; ++i) x.acc_src[i] = acc_val(r, t, i);
    for (int i = 0; i < 5; ++i)
      x.ps0.push_back(&x.put_src[put_local0[i]]), x.pd0.push_back(g.at(t, r * kSlot + put_remote0[i]));
    for (int i = 0; i < 3; ++i)
      x.ps1.push_back(&x.put_src[put_local1[i]]), x.pd1.push_back(g.at(t, r * kSlot + put_remote1[i]));
    for (int i = 0; i < 4; ++i)
      x.gs.push_back(g.at(t, src_at + get_remote[i])), x.gd.push_back(&x.get_dst[get_local[i]]);
    Z* remote_acc = g.typed<Z>(t, acc_at / static_cast<long>(sizeof(Z)));
    for (int i = 0; i < 3; ++i) x.as.push_back(&x.acc_src[acc_local[i]]), x.ad.push_back(remote_acc + acc_remote[i]);
    x.put[0] = {x.ps0.data(), x.pd0.data(), 24, 5};
    x.put[1] = {x.ps1.data(), x.pd1.data(), 7, 3};
    x.get[0] = {x.gs.data(), x.gd.data(), 16, 4};
    x.acc[0] = {x.as.data(), x.ad.data(), static_cast<int>(2 * sizeof(Z)), 3};
    EXPECT_EQ(ARMCI_NbPutV(x.put, 2, t, c.next()), 0);
    EXPECT_EQ(ARMCI_NbGetV(x.get, 1, t, c.next()), 0);
    EXPECT_EQ(ARMCI_NbAccV(ARMCI_ACC_DCP, const_cast<Z*>(&my_scale), x.acc, 1, t, c.next()), 0);
    burn();
  }
  c.complete();
  for (int t = 0; t < n; ++t) {
    std::vector<char> want(128, kSentinel);
    auto p = pattern(t, -1, kSlot, sl + 1);
    for (int i = 0; i < 4; ++i) std::memcpy(&want[get_local[i]], &p[get_remote[i]], 16);
    EXPECT_TRUE(Same(name("NbGetV result from", t), o[t].get_dst, want));
    scribble(o[t].put_src), scribble(o[t].acc_src);
  }

  ARMCI_Barrier();
  auto mine = g.snapshot(0, n * kSlot);
  for (int s = 0; s < n; ++s) {
    std::vector<char> want(kSlot, kFill);
    auto p = pattern(s, r, 160, sl);
    for (int i = 0; i < 5; ++i) std::memcpy(&want[put_remote0[i]], &p[put_local0[i]], 24);
    for (int i = 0; i < 3; ++i) std::memcpy(&want[put_remote1[i]], &p[put_local1[i]], 7);
    EXPECT_TRUE(Same(name("NbPutV slot written by", s), mine.data() + s * kSlot, want.data(), kSlot));
  }
  std::vector<Z> acc_want(8);
  for (long i = 0; i < 8; ++i) acc_want[i] = acc_init(i);
  for (int s = 0; s < n; ++s)
    for (int seg = 0; seg < 3; ++seg)
      for (int e = 0; e < 2; ++e) acc_want[acc_remote[seg] + e] += scale(s) * acc_val(s, r, acc_local[seg] + e);
  EXPECT_TRUE(Same("NbAccV elements", g.snapshot<Z>(acc_at / static_cast<long>(sizeof(Z)), 8), acc_want));
}

TEST_P(NbModes, PutValues) {
  const int n = nproc(), r = me();
  const int sl = salt(5);
  // Slot per origin: int at 0, long at 8, float at 16, double at 24.
  auto vi = [sl](int o, int t) { return 1000 * o + 10 * t + sl; };
  auto vl = [sl](int o, int t) { return (1L << 40) + 1000L * o + t + sl; };
  auto vf = [](int o, int t) { return o + 0.25f * t + 0.5f; };
  auto vd = [sl](int o, int t) { return o * 1e10 + t * 0.125 + sl; };
  const Slices& g = shared(32L * n);
  g.init_local([&](char* base) { std::memset(base, kFill, 32L * n); });
  ARMCI_Barrier();
  Completion c(GetParam());
  for (int t : targets()) {
    EXPECT_EQ(ARMCI_NbPutValueInt(vi(r, t), g.at(t, 32L * r), t, c.next()), 0);
    EXPECT_EQ(ARMCI_NbPutValueLong(vl(r, t), g.at(t, 32L * r + 8), t, c.next()), 0);
    EXPECT_EQ(ARMCI_NbPutValueFloat(vf(r, t), g.at(t, 32L * r + 16), t, c.next()), 0);
    EXPECT_EQ(ARMCI_NbPutValueDouble(vd(r, t), g.at(t, 32L * r + 24), t, c.next()), 0);
    burn();
  }
  c.complete();
  ARMCI_Barrier();
  auto mine = g.snapshot(0, 32L * n);
  for (int s = 0; s < n; ++s) {
    int i;
    long l;
    float f;
    double d;
    std::memcpy(&i, &mine[32L * s], 4);
    std::memcpy(&l, &mine[32L * s + 8], 8);
    std::memcpy(&f, &mine[32L * s + 16], 4);
    std::memcpy(&d, &mine[32L * s + 24], 8);
    EXPECT_EQ(i, vi(s, r)) << "NbPutValueInt from " << s;
    EXPECT_EQ(l, vl(s, r)) << "NbPutValueLong from " << s;
    EXPECT_EQ(f, vf(s, r)) << "NbPutValueFloat from " << s;
    EXPECT_EQ(d, vd(s, r)) << "NbPutValueDouble from " << s;
    EXPECT_EQ(mine[32L * s + 4], kFill) << "byte after the int from " << s;
    EXPECT_EQ(mine[32L * s + 20], kFill) << "byte after the float from " << s;
  }
}

// Gets and puts whose source or destination is this rank's own global memory (with
// ARMCI_SHR_BUF_METHOD=COPY they are staged, and a get's copy-out runs at completion).
TEST_P(NbModes, LocalSideInGlobalMemory) {
  const int n = nproc(), r = me();
  const int sl = salt(6);
  constexpr long kLen = 600;
  const Slices& remote = shared(8192L * n + 2 * n * kLen);  // put area (slot per origin) | source area
  const Slices local = remote.shifted(8192L * n);           // this rank's own global memory: put sources | get results
  remote.init_local([&](char* base) {
    std::memset(base, kFill, n * kLen);
    for (int s = 0; s < n; ++s) {
      auto p = pattern(r, s, kLen, sl);
      std::memcpy(base + (n + s) * kLen, p.data(), kLen);
    }
  });
  local.init_local([&](char* base) {
    for (int t = 0; t < n; ++t) {
      auto p = pattern(r, t, kLen, sl + 1);
      std::memcpy(base + t * kLen, p.data(), kLen);
    }
    std::memset(base + n * kLen, kSentinel, n * kLen);
  });
  ARMCI_Barrier();
  Completion c(GetParam());
  for (int t : targets()) {
    EXPECT_EQ(ARMCI_NbPut(local.at(r, t * kLen), remote.at(t, r * kLen), kLen, t, c.next()), 0);
    EXPECT_EQ(ARMCI_NbGet(remote.at(t, (n + r) * kLen), local.at(r, (n + t) * kLen), kLen, t, c.next()), 0);
  }
  burn();
  c.complete();
  // The get results are in place now; the put sources are ours again.
  auto gets = local.snapshot(n * kLen, n * kLen);
  for (int t = 0; t < n; ++t)
    EXPECT_TRUE(
        Same(name("NbGet into global memory from", t), gets.data() + t * kLen, pattern(t, r, kLen, sl).data(), kLen));
  local.init_local([&](char* base) { std::memset(base, 0x5a, n * kLen); });
  ARMCI_Barrier();
  auto mine = remote.snapshot(0, n * kLen);
  for (int s = 0; s < n; ++s)
    EXPECT_TRUE(
        Same(name("NbPut from global memory by", s), mine.data() + s * kLen, pattern(s, r, kLen, sl + 1).data(), kLen));
}

// Location consistency: an origin sees its own non-blocking operations to one location in issue order,
// even before it completes them and whatever order it completes them in.  That includes a write issued
// after a get of the same location (the get must return the old value).
TEST_P(NbModes, OwnOperationsToOneLocationStayOrdered) {
  const int n = nproc(), r = me();
  const int sl = salt(7);
  const Slices& g = shared(64L * n);  // 8 longs per origin
  g.init_local([&](char* base) { std::memset(base, 0, 64L * n); });
  ARMCI_Barrier();
  auto v1_of = [sl](int o, int t, int i) { return static_cast<long>(key(o, t, i, sl) >> 8); };
  auto v2_of = [&](int o, int t, int i) { return v1_of(o, t, i) ^ 0x5555; };
  auto add_of = [](int t, int i) { return static_cast<long>(i + 1 + t); };
  std::vector<std::vector<long>> v1(n, std::vector<long>(4)), v2(n, std::vector<long>(4)), add(n, std::vector<long>(4));
  std::vector<std::vector<long>> seen1(n, std::vector<long>(4, -1)), seen2(n, std::vector<long>(4, -1)),
      seen3(n, std::vector<long>(4, -1));
  long one = 1;
  Completion c(GetParam());
  for (int t : targets()) {
    long* loc = g.typed<long>(t, 8L * r);
    for (int i = 0; i < 4; ++i) v1[t][i] = v1_of(r, t, i), v2[t][i] = v2_of(r, t, i), add[t][i] = add_of(t, i);
    EXPECT_EQ(ARMCI_NbPut(v1[t].data(), loc, 32, t, c.next()), 0);
    EXPECT_EQ(ARMCI_NbGet(loc, seen1[t].data(), 32, t, c.next()), 0);                     // read after write
    EXPECT_EQ(ARMCI_NbAcc(ARMCI_ACC_LNG, &one, add[t].data(), loc, 32, t, c.next()), 0);  // write after read
    EXPECT_EQ(ARMCI_NbGet(loc, seen2[t].data(), 32, t, c.next()), 0);
    EXPECT_EQ(ARMCI_NbPut(v2[t].data(), loc + 4, 32, t, c.next()), 0);
    EXPECT_EQ(ARMCI_NbGet(loc + 4, seen3[t].data(), 32, t, c.next()), 0);
    EXPECT_EQ(ARMCI_NbPut(v1[t].data(), loc + 4, 16, t, c.next()), 0);  // write after read, write after write
  }
  c.complete();
  for (int t = 0; t < n; ++t) {
    std::vector<long> after_acc(4);
    for (int i = 0; i < 4; ++i) after_acc[i] = v1[t][i] + add[t][i];
    EXPECT_TRUE(Same(name("get after put (and before acc) to", t), seen1[t], v1[t]));
    EXPECT_TRUE(Same(name("get after put+acc to", t), seen2[t], after_acc));
    EXPECT_TRUE(Same(name("get after put (and before another put) to", t), seen3[t], v2[t]));
  }
  ARMCI_Barrier();
  auto mine = g.snapshot<long>(0, 8L * n);
  for (int s = 0; s < n; ++s) {
    std::vector<long> want(8);
    for (int i = 0; i < 4; ++i) {
      want[i] = v1_of(s, r, i) + add_of(r, i);
      want[4 + i] = i < 2 ? v1_of(s, r, i) : v2_of(s, r, i);
    }
    EXPECT_TRUE(Same(name("final values written by", s), mine.data() + 8 * s, want.data(), 8));
  }
}

INSTANTIATE_TEST_SUITE_P(Completion, NbModes, ::testing::ValuesIn(kAllModes),
                         [](const ::testing::TestParamInfo<Mode>& i) { return std::string(mode_name(i.param)); });

// ---- Handles: Test / Wait semantics ------------------------------------------------------------------

TEST(NbHandles, TestAndWaitOnUnusedHandlesReturnZero) {
  armci_hdl_t h;
  ARMCI_INIT_HANDLE(&h);
  EXPECT_EQ(ARMCI_Test(&h), 0);
  EXPECT_EQ(ARMCI_Test(&h), 0);
  EXPECT_EQ(ARMCI_Wait(&h), 0);
  armci_hdl_t w;
  ARMCI_INIT_HANDLE(&w);
  EXPECT_EQ(ARMCI_Wait(&w), 0);
  armci_hdl_t a;  // aggregate, nothing issued
  ARMCI_INIT_HANDLE(&a);
  ARMCI_SET_AGGREGATE_HANDLE(&a);
  EXPECT_EQ(ARMCI_Test(&a), 0);
  ARMCI_UNSET_AGGREGATE_HANDLE(&a);
  EXPECT_EQ(ARMCI_Wait(&a), 0);
  // A waited handle initialised again is as good as new.
  ARMCI_INIT_HANDLE(&h);
  EXPECT_EQ(ARMCI_Wait(&h), 0);
  EXPECT_EQ(ARMCI_WaitAll(), 0);  // nothing outstanding
  for (int t = 0; t < nproc(); ++t) EXPECT_EQ(ARMCI_WaitProc(t), 0);
}

// More operations under handles in flight to one target than MPI itself may hold: Open MPI 5's osc ucx
// aborted at the 255th request-based operation to a rank on another host (UCX's 8-bit endpoint count), so
// armci-x completes them earlier there (nb/request.cc, base/mpi_library.h: mpi_request_rma_bound).  Each
// rank reads and accumulates to one partner, half the job away (on another simulated host when blocked).
TEST(NbHandles, HundredsInFlightToOneTargetThenWaited) {
  const int n = nproc(), r = me(), t = (r + n / 2) % n;  // a rotation: each rank is one rank's partner
  constexpr int kMany = 300;
  Global g(2 * kMany * static_cast<long>(sizeof(long)));
  g.init_local([&](char* base) {
    long* v = reinterpret_cast<long*>(base);
    for (int i = 0; i < kMany; ++i) {
      v[i] = r * 1000000L + i;
      v[kMany + i] = 0;
    }
  });
  ARMCI_Barrier();
  std::vector<armci_hdl_t> h(kMany);
  std::vector<long> got(kMany, -1);
  for (int i = 0; i < kMany; ++i) {
    ARMCI_INIT_HANDLE(&h[i]);
    EXPECT_EQ(ARMCI_NbGet(g.typed<long>(t, i), &got[i], sizeof(long), t, &h[i]), 0);
  }
  for (armci_hdl_t& x : h) EXPECT_EQ(ARMCI_Wait(&x), 0);
  for (int i = 0; i < kMany; ++i) EXPECT_EQ(got[i], t * 1000000L + i) << "get " << i;
  const long scale = 1;
  std::vector<long> add(kMany);
  for (int i = 0; i < kMany; ++i) {
    add[i] = i + 1;
    ARMCI_INIT_HANDLE(&h[i]);
    EXPECT_EQ(ARMCI_NbAcc(ARMCI_ACC_LNG, const_cast<long*>(&scale), &add[i], g.typed<long>(t, kMany + i), sizeof(long),
                          t, &h[i]),
              0);
  }
  for (armci_hdl_t& x : h) EXPECT_EQ(ARMCI_Wait(&x), 0);
  ARMCI_Barrier();
  std::vector<long> sums = g.snapshot<long>(kMany, kMany);
  for (int i = 0; i < kMany; ++i) EXPECT_EQ(sums[i], i + 1) << "accumulate " << i;
  ARMCI_Barrier();
}

// Round-robin ARMCI_Test over many handles; each operation's effect is checked the moment its Test
// reports completion (get data in place, put source reusable).
TEST(NbHandles, TestPollingLoop) {
  const int n = nproc(), r = me();
  constexpr int kChunks = 8;
  constexpr long kChunk = 257;
  Global g(2 * n * kChunks * kChunk);  // put area (origin slot) | source area (reader slot)
  const long area = n * kChunks * kChunk;
  g.init_local([&](char* base) {
    std::memset(base, kFill, area);
    for (int s = 0; s < n; ++s) {
      auto p = pattern(r, s, kChunks * kChunk, 71);
      std::memcpy(base + area + s * kChunks * kChunk, p.data(), p.size());
    }
  });
  ARMCI_Barrier();
  struct Op {
    armci_hdl_t h;
    bool is_get;
    int t, k;
    bool done = false;
  };
  std::vector<Op> ops;
  std::vector<std::vector<char>> src(n), dst(n, std::vector<char>(kChunks * kChunk, kSentinel));
  for (int t = 0; t < n; ++t) src[t] = pattern(r, t, kChunks * kChunk, 72);
  ops.reserve(2 * n * kChunks);
  for (int k = 0; k < kChunks; ++k)
    for (int t : targets()) {
      for (bool get : {false, true}) {
        ops.push_back(Op{armci_hdl_t{}, get, t, k});
        Op& op = ops.back();
        ARMCI_INIT_HANDLE(&op.h);
        long off = k * kChunk;
        if (get)
          EXPECT_EQ(ARMCI_NbGet(g.at(t, area + r * kChunks * kChunk + off), &dst[t][off], kChunk, t, &op.h), 0);
        else
          EXPECT_EQ(ARMCI_NbPut(&src[t][off], g.at(t, r * kChunks * kChunk + off), kChunk, t, &op.h), 0);
      }
    }
  long remaining = static_cast<long>(ops.size()), rounds = 0;
  while (remaining > 0 && rounds++ < kMaxPolls) {
    for (Op& op : ops) {
      if (op.done || ARMCI_Test(&op.h) != 0) continue;
      op.done = true;
      --remaining;
      long off = op.k * kChunk;
      if (op.is_get) {
        auto want = pattern(op.t, r, kChunks * kChunk, 71);
        EXPECT_TRUE(Same(name("chunk (target/chunk) got", op.t, op.k), &dst[op.t][off], &want[off], kChunk));
      } else {
        std::memset(&src[op.t][off], 0x11, kChunk);
      }
    }
    burn(100);
    if (rounds % 16 == 0) ARMCIX_Progress();
  }
  EXPECT_EQ(remaining, 0) << "operations never reported complete by ARMCI_Test";
  // Completed handles: Test again still says complete, and a wait returns at once.
  for (Op& op : ops) {
    EXPECT_EQ(ARMCI_Test(&op.h), 0);
    EXPECT_EQ(ARMCI_Wait(&op.h), 0);
  }
  ARMCI_Barrier();
  auto mine = g.snapshot(0, area);
  for (int s = 0; s < n; ++s)
    EXPECT_TRUE(Same(name("put area of origin", s), mine.data() + s * kChunks * kChunk,
                     pattern(s, r, kChunks * kChunk, 72).data(), kChunks * kChunk));
  ARMCI_Barrier();
}

// A get followed, before it is waited, by a put to another location of the same target: the get's data
// must be in place when its wait returns.  (MPICH 4.0.2 ch4:ucx does not complete such a get with
// MPI_Win_flush_local, only with MPI_Win_flush.)
TEST(NbHandles, GetThenPutToSameTarget) {
  const int n = nproc(), r = me();
  constexpr int kRounds = 40;  // even: each target is used once with each kind of handle, in turn
  Global g(2 * 64L * n);       // source words (slot per reader) | put words (slot per origin)
  auto value = [](int t, int round, int i) { return static_cast<long>(key(t, round, i, 131) >> 2); };
  long bad_explicit = 0, bad_implicit = 0;
  for (int round = 0; round < kRounds; ++round) {
    g.init_local([&](char*) {
      for (int s = 0; s < n; ++s)
        for (int i = 0; i < 8; ++i) g.typed<long>(r, 8 * s)[i] = value(r, round, i);
    });
    ARMCI_Barrier();
    const int t = (r + 1 + round / 2) % n;  // each target twice in a row: explicit, then implicit handles
    std::vector<long> got(8, -1), put(8, round);
    armci_hdl_t hg, hp;
    ARMCI_INIT_HANDLE(&hg);
    ARMCI_INIT_HANDLE(&hp);
    const bool implicit = round % 2 == 1;
    EXPECT_EQ(ARMCI_NbGet(g.typed<long>(t, 8L * r), got.data(), 64, t, implicit ? nullptr : &hg), 0);
    EXPECT_EQ(ARMCI_NbPut(put.data(), g.typed<long>(t, 8L * (n + r)), 64, t, implicit ? nullptr : &hp), 0);
    if (implicit) {
      EXPECT_EQ(ARMCI_WaitProc(t), 0);
    } else {
      EXPECT_EQ(ARMCI_Wait(&hp), 0);
      EXPECT_EQ(ARMCI_Wait(&hg), 0);
    }
    long bad = 0;
    for (int i = 0; i < 8; ++i) bad += got[i] != value(t, round, i);
    (implicit ? bad_implicit : bad_explicit) += bad > 0;
    ARMCI_Barrier();
  }
  EXPECT_EQ(bad_explicit, 0) << "rounds (of " << kRounds / 2 << ") whose get result was wrong after ARMCI_Wait";
  EXPECT_EQ(bad_implicit, 0) << "rounds (of " << kRounds / 2 << ") whose get result was wrong after ARMCI_WaitProc";
}

// ARMCI_WaitAll also completes operations issued with explicit handles; waiting those handles afterwards
// is still fine.
TEST(NbHandles, WaitAllCompletesExplicitHandles) {
  const int n = nproc(), r = me();
  constexpr long kLen = 333;
  Global g(n * kLen);
  g.init_local([&](char* base) {
    for (int s = 0; s < n; ++s) {
      auto p = pattern(r, s, kLen, 81);
      std::memcpy(base + s * kLen, p.data(), kLen);
    }
  });
  ARMCI_Barrier();
  std::vector<armci_hdl_t> h(n);
  std::vector<std::vector<char>> dst(n, std::vector<char>(kLen, kSentinel));
  for (int t : targets()) {
    ARMCI_INIT_HANDLE(&h[t]);
    EXPECT_EQ(ARMCI_NbGet(g.at(t, r * kLen), dst[t].data(), kLen, t, &h[t]), 0);
  }
  EXPECT_EQ(ARMCI_WaitAll(), 0);
  for (int t = 0; t < n; ++t)
    EXPECT_TRUE(Same(name("get completed by WaitAll from", t), dst[t], pattern(t, r, kLen, 81)));
  for (int t = 0; t < n; ++t) EXPECT_EQ(ARMCI_Wait(&h[t]), 0);
  ARMCI_Barrier();
}

// Contiguous gets and accumulates under an explicit handle complete by their own MPI request when the
// target is on another node (nb/request.h), strided ones and puts by a flush: both kinds under one aggregate
// handle, and a plain handle with only request-completed operations (ARMCI_Test really tests it), completed
// by Wait, Test, WaitAll or WaitProc.  Then a put to bytes a completed get read, and another get: the
// pair's state must not keep the completed gets in flight, nor forget the new put.
TEST(NbHandles, GetsAndAccumulatesMixedWithStridedUnderOneHandle) {
  const int n = nproc(), r = me();
  constexpr long kN = 256;  // doubles per block
  // Slice (doubles): source blocks (one per reader) | acc blocks (one per origin) | put blocks (per origin)
  Global g(3 * n * kN * 8);
  auto source = [](int t, int reader, long i) { return t * 10000.0 + reader * 1000.0 + i; };
  auto acc_val = [](int o, int t, long i) { return static_cast<double>((o + 2 * t + i) % 11 - 5); };
  auto put_val = [](int o, int t, int round, long i) { return o * 100.0 + t + round * 0.5 + i * 0.25; };
  const char* kHow[] = {"Wait", "Test", "WaitAll", "WaitProc"};
  for (int how = 0; how < 4; ++how) {
    SCOPED_TRACE(kHow[how]);
    g.init_local([&](char*) {
      double* d = g.typed<double>(r);
      for (int s = 0; s < n; ++s)
        for (long i = 0; i < kN; ++i)
          d[s * kN + i] = source(r, s, i), d[(n + s) * kN + i] = 1.0, d[(2 * n + s) * kN + i] = 0;
    });
    ARMCI_Barrier();
    std::vector<armci_hdl_t> agg(n), plain(n);
    std::vector<std::vector<double>> got(n, std::vector<double>(kN, -1)), got_s(n, std::vector<double>(kN, -1)),
        got_p(n, std::vector<double>(kN, -1)), acc(n, std::vector<double>(kN)), put(n, std::vector<double>(kN));
    double two = 2.0, one = 1.0;
    const int half = static_cast<int>(kN / 2 * 8);
    int stride = 2 * 8, count[2] = {8, static_cast<int>(kN / 4)};  // strided: every other double of a quarter
    for (int t : targets()) {
      double* src_blk = g.typed<double>(t, r * kN);
      double* acc_blk = g.typed<double>(t, (n + r) * kN);
      double* put_blk = g.typed<double>(t, (2 * n + r) * kN);
      for (long i = 0; i < kN; ++i) acc[t][i] = acc_val(r, t, i), put[t][i] = put_val(r, t, how, i);
      ARMCI_INIT_HANDLE(&agg[t]);
      ARMCI_SET_AGGREGATE_HANDLE(&agg[t]);
      EXPECT_EQ(ARMCI_NbGet(src_blk, got[t].data(), half, t, &agg[t]), 0);
      EXPECT_EQ(ARMCI_NbGetS(src_blk + kN / 2, &stride, got_s[t].data(), &stride, count, 1, t, &agg[t]), 0);
      EXPECT_EQ(ARMCI_NbAcc(ARMCI_ACC_DBL, &two, acc[t].data(), acc_blk, half, t, &agg[t]), 0);  // scaled: staged
      EXPECT_EQ(ARMCI_NbAccS(ARMCI_ACC_DBL, &one, acc[t].data() + kN / 2, &stride, acc_blk + kN / 2, &stride, count, 1,
                             t, &agg[t]),
                0);
      EXPECT_EQ(ARMCI_NbPut(put[t].data(), put_blk, half, t, &agg[t]), 0);
      ARMCI_UNSET_AGGREGATE_HANDLE(&agg[t]);
      ARMCI_INIT_HANDLE(&plain[t]);  // only contiguous gets and accumulates
      EXPECT_EQ(ARMCI_NbGet(src_blk + kN / 2 + 1, got_p[t].data(), 8, t, &plain[t]), 0);
      EXPECT_EQ(ARMCI_NbAcc(ARMCI_ACC_DBL, &one, acc[t].data() + kN / 2 + 1, acc_blk + kN / 2 + 1, 8, t, &plain[t]), 0);
      burn();
    }
    for (int t : targets()) {
      switch (how) {
        case 0:
          EXPECT_EQ(ARMCI_Wait(&plain[t]), 0);
          EXPECT_EQ(ARMCI_Wait(&agg[t]), 0);
          break;
        case 1: {
          long polls = 0;
          while (ARMCI_Test(&plain[t]) != 0 && ++polls < kMaxPolls) burn(50);
          while (ARMCI_Test(&agg[t]) != 0 && ++polls < kMaxPolls) burn(50);
          EXPECT_LT(polls, kMaxPolls) << "ARMCI_Test never returned 0 for target " << t;
          break;
        }
        case 2:
          if (t == targets().front()) {
            EXPECT_EQ(ARMCI_WaitAll(), 0);
          }
          break;
        case 3:
          EXPECT_EQ(ARMCI_WaitProc(t), 0);
          break;
      }
    }
    for (int t = 0; t < n; ++t) {
      std::vector<double> want(kN, -1), want_s(kN, -1), want_p(kN, -1);
      for (long i = 0; i < kN / 2; ++i) want[i] = source(t, r, i);
      for (long i = 0; i < kN / 2; i += 2) want_s[i] = source(t, r, kN / 2 + i);
      want_p[0] = source(t, r, kN / 2 + 1);
      EXPECT_TRUE(Same(name("NbGet under the aggregate handle from", t), got[t], want));
      EXPECT_TRUE(Same(name("NbGetS under the aggregate handle from", t), got_s[t], want_s));
      EXPECT_TRUE(Same(name("NbGet under a plain handle from", t), got_p[t], want_p));
      scribble(acc[t]), scribble(put[t]);
    }
    if (how >= 2)
      for (int t : targets()) {
        EXPECT_EQ(ARMCI_Wait(&agg[t]), 0);
        EXPECT_EQ(ARMCI_Wait(&plain[t]), 0);
      }
    // A put to what the gets read, then a get of it: ordered after the completed gets, and seen.
    for (int t : targets()) {
      double* src_blk = g.typed<double>(t, r * kN);
      std::vector<double> v(4), back(4, -1);
      for (int i = 0; i < 4; ++i) v[i] = -1000.0 * (how + 1) - i;
      armci_hdl_t h;
      ARMCI_INIT_HANDLE(&h);
      EXPECT_EQ(ARMCI_NbGet(src_blk + 8, back.data(), 32, t, &h), 0);
      EXPECT_EQ(ARMCI_Wait(&h), 0);
      EXPECT_EQ(back[0], source(t, r, 8)) << "target " << t;
      EXPECT_EQ(ARMCI_Put(v.data(), src_blk, 32, t), 0);
      EXPECT_EQ(ARMCI_Get(src_blk, back.data(), 32, t), 0);
      EXPECT_EQ(back, v) << "get after a put after completed gets, target " << t;
    }
    ARMCI_Barrier();
    auto mine = g.snapshot<double>(0, 3 * n * kN);
    for (int s = 0; s < n; ++s) {
      std::vector<double> acc_want(kN, 1.0), put_want(kN, 0.0);
      for (long i = 0; i < kN / 2; ++i) acc_want[i] += 2.0 * acc_val(s, r, i), put_want[i] = put_val(s, r, how, i);
      for (long i = kN / 2; i < kN; i += 2) acc_want[i] += acc_val(s, r, i);
      acc_want[kN / 2 + 1] += acc_val(s, r, kN / 2 + 1);
      EXPECT_TRUE(Same(name("accumulates by", s), mine.data() + (n + s) * kN, acc_want.data(), kN));
      EXPECT_TRUE(Same(name("put by", s), mine.data() + (2 * n + s) * kN, put_want.data(), kN));
    }
    ARMCI_Barrier();
  }
}

// ---- WaitProc: local completion vs remote completion ------------------------------------------------

// After ARMCI_WaitProc(p) the implicit operations to p are locally complete: their origin buffers may be
// reused and their gets are in place -- while operations to other targets may still be in flight.
TEST(NbWaitProc, CompletesImplicitOperationsToOneTarget) {
  const int n = nproc(), r = me();
  constexpr long kLen = 4096;
  Global g(2 * n * kLen);  // put area | source area
  g.init_local([&](char* base) {
    std::memset(base, kFill, n * kLen);
    for (int s = 0; s < n; ++s) {
      auto p = pattern(r, s, kLen, 91);
      std::memcpy(base + (n + s) * kLen, p.data(), kLen);
    }
  });
  ARMCI_Barrier();
  std::vector<std::vector<char>> src(n), dst(n, std::vector<char>(kLen, kSentinel));
  for (int t = 0; t < n; ++t) src[t] = pattern(r, t, kLen, 92);
  for (int k = 0; k < 4; ++k)  // four quarter-size operations of each kind per target
    for (int t : targets()) {
      long off = k * kLen / 4;
      EXPECT_EQ(ARMCI_NbPut(&src[t][off], g.at(t, r * kLen + off), kLen / 4, t, nullptr), 0);
      EXPECT_EQ(ARMCI_NbGet(g.at(t, (n + r) * kLen + off), &dst[t][off], kLen / 4, t, nullptr), 0);
    }
  for (int t : targets()) {
    burn();
    EXPECT_EQ(ARMCI_WaitProc(t), 0);
    EXPECT_TRUE(Same(name("gets completed by WaitProc", t), dst[t], pattern(t, r, kLen, 91)));
    scribble(src[t]);
  }
  ARMCI_Barrier();
  auto mine = g.snapshot(0, n * kLen);
  for (int s = 0; s < n; ++s)
    EXPECT_TRUE(Same(name("puts from", s), mine.data() + s * kLen, pattern(s, r, kLen, 92).data(), kLen));
  ARMCI_Barrier();
}

// Gets whose destination is this rank's own ARMCI memory, completed by ARMCI_WaitProc(p) or ARMCI_Fence(p)
// alone: the data is in place when the call returns, for explicit handles as for implicit ones, and for
// contiguous, strided and vector gets.  Such a get may land in a staging buffer first
// (ARMCI_SHR_BUF_METHOD=COPY, or packed for a strided get between nodes) or complete by its own MPI request
// (an explicit handle to another node): its copy-out belongs to the target it read, whatever else the handle
// holds.  ARMCI-MPI completes gets at issue, so a program written for it reads the data right after either
// call.  A second target's operations stay under the same handles, so completing one target must not
// require, or forget, the others.
TEST(NbWaitProc, GetsIntoArmciMemoryAreInPlaceAfterWaitProcAndFence) {
  const int n = nproc(), r = me();
  constexpr long kLen = 2048;           // bytes per target per kind
  constexpr int kRows = 8, kRow = 128;  // strided: kRows rows of kRow bytes, every other row of the source
  Global src(3 * n * kLen);             // what every rank reads: [kind][reader][kLen]
  Global dst(3 * n * kLen);             // where this rank's gets land: [kind][target][kLen]
  src.init_local([&](char* base) {
    for (int k = 0; k < 3; ++k)
      for (int s = 0; s < n; ++s) {
        auto p = pattern(r, s, kLen, 200 + k);
        std::memcpy(base + (k * n + s) * kLen, p.data(), kLen);
      }
  });
  ARMCI_Barrier();
  for (int how = 0; how < 4; ++how) {  // {explicit handle, implicit} x {WaitProc, Fence}
    const bool implicit = how & 1, fence = how & 2;
    SCOPED_TRACE(std::string(implicit ? "implicit" : "explicit handles") + " + " + (fence ? "Fence" : "WaitProc"));
    dst.init_local([&](char* base) { std::memset(base, kSentinel, 3 * n * kLen); });
    ARMCI_Barrier();
    std::vector<armci_hdl_t> h(3 * n);        // one per (kind, target): a handle with a strided get (a flush to
    for (auto& x : h) ARMCI_INIT_HANDLE(&x);  // the target) would carry a contiguous one with it
    std::vector<std::vector<void*>> vsrc(n), vdst(n);
    std::vector<armci_giov_t> iov(n);
    for (int t : targets()) {
      auto hp = [&](int kind) { return implicit ? nullptr : &h[kind * n + t]; };
      char* mine = dst.at(r);
      // contiguous: the whole kLen
      EXPECT_EQ(ARMCI_NbGet(src.at(t, (0 * n + r) * kLen), mine + (0 * n + t) * kLen, kLen, t, hp(0)), 0);
      // strided: kRows rows of kRow bytes, source rows 2*kRow apart, packed at the destination
      int src_stride = 2 * kRow, dst_stride = kRow, count[2] = {kRow, kRows};
      EXPECT_EQ(ARMCI_NbGetS(src.at(t, (1 * n + r) * kLen), &src_stride, mine + (1 * n + t) * kLen, &dst_stride, count,
                             1, t, hp(1)),
                0);
      // vector: 16 segments of kLen/16 bytes, in reverse order
      for (int seg = 0; seg < 16; ++seg) {
        vsrc[t].push_back(src.at(t, (2 * n + r) * kLen + seg * kLen / 16));
        vdst[t].push_back(mine + (2 * n + t) * kLen + (15 - seg) * kLen / 16);
      }
      iov[t] = armci_giov_t{vsrc[t].data(), vdst[t].data(), static_cast<int>(kLen / 16), 16};
      EXPECT_EQ(ARMCI_NbGetV(&iov[t], 1, t, hp(2)), 0);
    }
    for (int t : targets()) {
      burn();
      if (fence)
        ARMCI_Fence(t);
      else
        EXPECT_EQ(ARMCI_WaitProc(t), 0);
      // Read right after the call, before any other completion point.
      auto got = dst.snapshot(0, 3 * n * kLen);
      auto want = pattern(t, r, kLen, 200);
      EXPECT_TRUE(Same(name("contiguous get from", t), got.data() + (0 * n + t) * kLen, want.data(), kLen));
      want = pattern(t, r, kLen, 201);
      std::vector<char> strided_want;
      for (int row = 0; row < kRows; ++row)
        strided_want.insert(strided_want.end(), want.begin() + row * 2 * kRow, want.begin() + row * 2 * kRow + kRow);
      EXPECT_TRUE(
          Same(name("strided get from", t), got.data() + (1 * n + t) * kLen, strided_want.data(), kRows * kRow));
      want = pattern(t, r, kLen, 202);
      std::vector<char> vector_want(kLen);
      for (int seg = 0; seg < 16; ++seg)
        std::memcpy(&vector_want[(15 - seg) * kLen / 16], &want[seg * kLen / 16], kLen / 16);
      EXPECT_TRUE(Same(name("vector get from", t), got.data() + (2 * n + t) * kLen, vector_want.data(), kLen));
    }
    if (!implicit) {
      for (auto& x : h) EXPECT_EQ(ARMCI_Wait(&x), 0);
    }
    ARMCI_Barrier();
  }
}

// More staged gets under explicit handles than ARMCI_MAX_OUTSTANDING allows in flight, each into this rank's
// own ARMCI memory: every rank its own node, ARMCI_SHR_BUF_METHOD=COPY (manifest: nb-waitproc-bound), so each
// get to another rank is an MPI_Rget into a staging buffer whose copy-out runs when its handle completes.
// Past the bound the MPI requests are completed early (nb/request.cc, request_add_mpi), which leaves the
// copy-outs behind: ARMCI_WaitProc(p) / ARMCI_Fence(p) alone must still run them before returning.
TEST(NbWaitProc, StagedGetsBeyondTheOutstandingBoundAreInPlace) {
  const int n = nproc(), r = me();
  constexpr int kGets = 24;  // per target, well past the manifest's ARMCI_MAX_OUTSTANDING=4
  constexpr long kLen = 256;
  constexpr long kArea = kGets * kLen;
  Global src(n * kArea);  // [reader][get]
  Global dst(n * kArea);  // [target][get]: where this rank's gets land
  src.init_local([&](char* base) {
    for (int s = 0; s < n; ++s) {
      auto p = pattern(r, s, kArea, 230);
      std::memcpy(base + s * kArea, p.data(), kArea);
    }
  });
  ARMCI_Barrier();
  for (int fence = 0; fence < 2; ++fence) {
    SCOPED_TRACE(fence ? "Fence" : "WaitProc");
    dst.init_local([&](char* base) { std::memset(base, kSentinel, n * kArea); });
    ARMCI_Barrier();
    std::vector<armci_hdl_t> h(n * kGets);
    for (int t : targets())
      for (int k = 0; k < kGets; ++k) {
        ARMCI_INIT_HANDLE(&h[t * kGets + k]);
        EXPECT_EQ(
            ARMCI_NbGet(src.at(t, r * kArea + k * kLen), dst.at(r, t * kArea + k * kLen), kLen, t, &h[t * kGets + k]),
            0);
      }
    for (int t : targets()) {
      if (fence)
        ARMCI_Fence(t);
      else
        EXPECT_EQ(ARMCI_WaitProc(t), 0);
      EXPECT_TRUE(Same(name(fence ? "gets completed by Fence from" : "gets completed by WaitProc from", t),
                       dst.snapshot(t * kArea, kArea), pattern(t, r, kArea, 230)));
    }
    for (auto& x : h) EXPECT_EQ(ARMCI_Wait(&x), 0);
    ARMCI_Barrier();
  }
}

// Remote completion needs ARMCI_Fence(p) (or a barrier): after WaitProc/Wait + Fence(p) and a plain
// MPI_Barrier -- which completes no ARMCI operation by itself -- p sees the data.
TEST(NbWaitProc, FenceAfterLocalCompletionMakesDataVisible) {
  const int n = nproc(), r = me();
  constexpr long kLen = 2048;
  const int to = (r + 1) % n, from = (r + n - 1) % n;
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE(variant == 0   ? "implicit NbPut + WaitProc"
                 : variant == 1 ? "NbPut + Wait"
                                : "implicit NbAcc + WaitProc");
    Global g(kLen);
    g.init_local([&](char* base) { std::memset(base, 0, kLen); });
    ARMCI_Barrier();
    std::vector<char> src = pattern(r, to, kLen, 100 + variant);
    std::vector<int> isrc(kLen / 4);
    for (long i = 0; i < kLen / 4; ++i) isrc[i] = static_cast<int>(key(r, to, i, variant) % 1000);
    int scale = 3;
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    if (variant == 0) {
      for (int k = 0; k < 8; ++k)
        EXPECT_EQ(ARMCI_NbPut(&src[k * kLen / 8], g.at(to, k * kLen / 8), kLen / 8, to, nullptr), 0);
      EXPECT_EQ(ARMCI_WaitProc(to), 0);
    } else if (variant == 1) {
      EXPECT_EQ(ARMCI_NbPut(src.data(), g.at(to), kLen, to, &h), 0);
      EXPECT_EQ(ARMCI_Wait(&h), 0);
    } else {
      for (int k = 0; k < 4; ++k)
        EXPECT_EQ(
            ARMCI_NbAcc(ARMCI_ACC_INT, &scale, &isrc[k * kLen / 16], g.at(to, k * kLen / 4), kLen / 4, to, nullptr), 0);
      EXPECT_EQ(ARMCI_WaitProc(to), 0);
    }
    scribble(src), scribble(isrc);
    ARMCI_Fence(to);
    MPI_Barrier(MPI_COMM_WORLD);
    if (variant < 2) {
      EXPECT_TRUE(Same(name("data from", from), g.snapshot(0, kLen), pattern(from, r, kLen, 100 + variant)));
    } else {
      std::vector<int> want(kLen / 4);
      for (long i = 0; i < kLen / 4; ++i) want[i] = 3 * static_cast<int>(key(from, r, i, variant) % 1000);
      EXPECT_TRUE(Same(name("accumulated data from", from), g.snapshot<int>(0, kLen / 4), want));
    }
    MPI_Barrier(MPI_COMM_WORLD);  // nobody frees the window while another rank still reads it
  }
}

// ---- Flow control -------------------------------------------------------------------------------------

// 100,000 implicit 8-byte puts without any wait: no failure, bounded memory, every value lands.  A "hot"
// word per origin is rewritten every 997th operation: the last write wins.  (The ordering layer flushes
// before every put that follows a put to the same target, so puts never pile up inside MPI; gets and
// accumulates, below, do.)
// The puts run twice from the same origin words and the memory is measured over the second round: UCX
// 1.18 (Debian 13, under MPICH 4.2.1) keeps a registration-cache region (~100 bytes) for every distinct
// origin buffer a put came from (ucs_rcache_create_region under ucp_put_nbx, seen with valgrind massif),
// 10.6 MiB for 100,000 distinct 8-byte origins whatever ARMCI_MAX_OUTSTANDING says, and nothing more when
// the same origins are used again (UCX_RCACHE_MAX_REGIONS=1000: +0.5 MiB).  That memory is UCX's, keyed by
// address; ours would grow per operation, in the second round as in the first (doc/user-guide.md, "Known
// MPI problems").
TEST(NbFlow, HundredThousandImplicitPuts) {
  const int n = nproc(), r = me();
  constexpr long kOps = 100000, kHotEvery = 997;
  const long per = (kOps + n - 1) / n;  // operations from one origin to one target
  auto target_of = [n](int o, long i) { return static_cast<int>((o + 1 + i) % n); };
  auto value = [](int o, long i) { return static_cast<int64_t>(key(o, i, 7, 111) >> 1); };
  Global g((n * per + n) * 8);
  g.init_local([&](char*) { std::fill_n(g.typed<int64_t>(r), n * per + n, int64_t{-1}); });
  ARMCI_Barrier();
  std::vector<int64_t> vals(kOps), hot(kOps / kHotEvery + 1);
  for (long i = 0; i < kOps; ++i) vals[i] = value(r, i);
  for (long j = 0; j < static_cast<long>(hot.size()); ++j) hot[j] = value(r, -1 - j);
  long failures = 0;
  long rss0 = 0;
  for (int round = 0; round < 2; ++round) {
    if (round == 1) {
      EXPECT_EQ(ARMCI_WaitAll(), 0);
      rss0 = vmrss_kib();
    }
    for (long i = 0; i < kOps; ++i) {
      const int t = target_of(r, i);
      failures += ARMCI_NbPut(&vals[i], g.typed<int64_t>(t, r * per + i / n), 8, t, nullptr) != 0;
      if (i % kHotEvery == 0)
        failures += ARMCI_NbPut(&hot[i / kHotEvery], g.typed<int64_t>(t, n * per + r), 8, t, nullptr) != 0;
    }
  }
  const long rss1 = vmrss_kib();
  EXPECT_EQ(failures, 0);
  expect_bounded_growth("100,000 implicit puts", rss0, rss1);
  EXPECT_EQ(ARMCI_WaitAll(), 0);
  scribble(vals), scribble(hot);
  ARMCI_Barrier();
  auto mine = g.snapshot<int64_t>(0, n * per + n);
  std::vector<int64_t> want(n * per + n, -1);
  for (int o = 0; o < n; ++o)
    for (long i = 0; i < kOps; ++i)
      if (target_of(o, i) == r) {
        want[o * per + i / n] = value(o, i);
        if (i % kHotEvery == 0) want[n * per + o] = value(o, -1 - i / kHotEvery);
      }
  EXPECT_TRUE(Same("values of 100,000 implicit puts", mine, want));
  ARMCI_Barrier();
}

// Gets are not serialised by the ordering layer, so these really pile up until flow control flushes.
TEST(NbFlow, HundredThousandImplicitGets) {
  const int n = nproc(), r = me();
  constexpr long kOps = 100000;
  const long words = (kOps + n - 1) / n;
  auto value = [](int t, long w) { return static_cast<int64_t>(key(t, w, 9, 112) >> 1); };
  Global g(words * 8);
  g.init_local([&](char*) {
    for (long w = 0; w < words; ++w) g.typed<int64_t>(r)[w] = value(r, w);
  });
  ARMCI_Barrier();
  std::vector<int64_t> got(kOps, -1);
  long failures = 0;
  long rss0 = 0;
  // Two rounds into the same buffers, growth measured over the second: UCX 1.18 (Debian 13) keeps a
  // registration-cache region per distinct local buffer the first time it is used (as for the puts above).
  for (int round = 0; round < 2; ++round) {
    if (round == 1) {
      EXPECT_EQ(ARMCI_WaitAll(), 0);
      std::fill(got.begin(), got.end(), int64_t{-1});
      rss0 = vmrss_kib();
    }
    for (long i = 0; i < kOps; ++i) {
      const int t = static_cast<int>((r + 1 + i) % n);
      failures += ARMCI_NbGet(g.typed<int64_t>(t, (i * 7 + r) % words), &got[i], 8, t, nullptr) != 0;
    }
  }
  const long rss1 = vmrss_kib();
  EXPECT_EQ(failures, 0);
  expect_bounded_growth("100,000 implicit gets", rss0, rss1);
  EXPECT_EQ(ARMCI_WaitAll(), 0);
  std::vector<int64_t> want(kOps);
  for (long i = 0; i < kOps; ++i) want[i] = value(static_cast<int>((r + 1 + i) % n), (i * 7 + r) % words);
  EXPECT_TRUE(Same("results of 100,000 implicit gets", got, want));
  ARMCI_Barrier();
}

// Scaled accumulates each keep a private scaled copy until completion; flow control must bound them.
TEST(NbFlow, ManyImplicitScaledAccumulates) {
  const int n = nproc(), r = me();
  // MPI accumulates are slow here; at the default limit (256 a target) this still flushes ~10 times a target.
  constexpr long kOps = 6000, kWords = 16;
  auto value = [](int o, long i) { return static_cast<long>(key(o, i, 3, 113) % 100); };
  Global g(kWords * 8);
  g.init_local([&](char*) { std::fill_n(g.typed<long>(r), kWords, 5L); });
  ARMCI_Barrier();
  std::vector<long> vals(kOps);
  for (long i = 0; i < kOps; ++i) vals[i] = value(r, i);
  long scale = 3, failures = 0;
  const long rss0 = vmrss_kib();
  for (long i = 0; i < kOps; ++i) {
    const int t = static_cast<int>((r + 1 + i) % n);
    failures += ARMCI_NbAcc(ARMCI_ACC_LNG, &scale, &vals[i], g.typed<long>(t, i % kWords), 8, t, nullptr) != 0;
  }
  const long rss1 = vmrss_kib();
  EXPECT_EQ(failures, 0);
  expect_bounded_growth("scaled implicit accumulates", rss0, rss1);
  for (int t : targets()) EXPECT_EQ(ARMCI_WaitProc(t), 0);
  scribble(vals);
  ARMCI_Barrier();
  std::vector<long> want(kWords, 5L);
  for (int o = 0; o < n; ++o)
    for (long i = 0; i < kOps; ++i)
      if ((o + 1 + i) % n == r) want[i % kWords] += 3 * value(o, i);
  EXPECT_TRUE(Same("sums of scaled implicit accumulates", g.snapshot<long>(0, kWords), want));
  ARMCI_Barrier();
}

// 10,000 operations with their own handles, all outstanding at once, waited in reverse order.
TEST(NbFlow, TenThousandExplicitHandlesWaitedInReverse) {
  const int n = nproc(), r = me();
  constexpr long kOps = 10000;
  const long per = (kOps + n - 1) / n;
  auto value = [](int o, long i) { return static_cast<int64_t>(key(o, i, 5, 114) >> 1); };
  Global g(n * per * 8);
  g.init_local([&](char*) { std::fill_n(g.typed<int64_t>(r), n * per, int64_t{-1}); });
  ARMCI_Barrier();
  std::vector<int64_t> vals(kOps);
  for (long i = 0; i < kOps; ++i) vals[i] = value(r, i);
  std::vector<armci_hdl_t> h(kOps);
  long failures = 0;
  for (long i = 0; i < kOps; ++i) {
    const int t = static_cast<int>((r + 1 + i) % n);
    ARMCI_INIT_HANDLE(&h[i]);
    failures += ARMCI_NbPut(&vals[i], g.typed<int64_t>(t, r * per + i / n), 8, t, &h[i]) != 0;
  }
  EXPECT_EQ(failures, 0);
  for (long i = kOps - 1; i >= 0; --i) {
    failures += ARMCI_Wait(&h[i]) != 0;
    vals[i] = -2;  // reusable the moment its own wait returns
  }
  EXPECT_EQ(failures, 0);
  ARMCI_Barrier();
  std::vector<int64_t> want(n * per, -1);
  for (int o = 0; o < n; ++o)
    for (long i = 0; i < kOps; ++i)
      if ((o + 1 + i) % n == r) want[o * per + i / n] = value(o, i);
  EXPECT_TRUE(Same("values of 10,000 explicit-handle puts", g.snapshot<int64_t>(0, n * per), want));
  ARMCI_Barrier();
}

// ---- Handles never waited ------------------------------------------------------------------------------

// ARMCI (as ARMCI-MPI) does not require a handle to be waited: ARMCI_WaitAll, WaitProc(p), Fence(p) and
// Barrier complete its operations too, and a program may then initialise it again -- or initialise it again
// over a live request.  The request table must not keep such handles: at most ARMCI_MAX_OUTSTANDING of them
// are live at once (beyond, the oldest complete early), none after ARMCI_WaitAll, and every operation's data
// is right.  Here a ring of 16 handles is initialised again before each use, live or not, and only
// ARMCI_WaitAll completes them.
// At MPI_THREAD_MULTIPLE explicit-handle operations complete at issue and completed or stale handles are
// accepted as complete: GA's handle pool is shared by its threads without a lock (src/nb/request.cc,
// tolerate_shared_handles).
bool thread_multiple() {
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  return level == MPI_THREAD_MULTIPLE;
}

long max_outstanding_setting() {
  const char* e = std::getenv("ARMCI_MAX_OUTSTANDING");
  return e ? std::atol(e) : 1024;
}

TEST(NbHandles, HandlesNeverWaitedStayBounded) {
  const int n = nproc(), r = me();
  const long bound = max_outstanding_setting();
  if (bound > (1 << 16)) GTEST_SKIP() << "ARMCI_MAX_OUTSTANDING=" << bound << " is too large to cross here";
  const long kOps = 4 * bound + 1000;
  constexpr int kRing = 16;
  auto value = [](int o, int t, long i) { return static_cast<int64_t>(key(o, t, i, 240) >> 1); };
  Global src(kOps * 8);      // values every rank reads: [op]
  Global dst(n * kOps * 8);  // puts land here: [origin][op]
  src.init_local([&](char*) {
    for (long i = 0; i < kOps; ++i) src.typed<int64_t>(r)[i] = value(r, -1, i);
  });
  dst.init_local([&](char*) { std::fill_n(dst.typed<int64_t>(r), n * kOps, int64_t{-1}); });
  ARMCI_Barrier();
  std::vector<int64_t> got(kOps, -1), put_vals(kOps);
  armci_hdl_t ring[kRing];
  std::size_t most_live = 0;
  long failures = 0;
  for (int round = 0; round < 2; ++round) {  // the second round re-uses the slots the first left behind
    for (long i = 0; i < kOps; ++i) {
      const int t = static_cast<int>((r + 1 + i) % n);
      armci_hdl_t* h = &ring[i % kRing];
      ARMCI_INIT_HANDLE(h);  // live or not
      if (i % 2 == 0) {
        failures += ARMCI_NbGet(src.typed<int64_t>(t, i), &got[i], 8, t, h) != 0;
      } else {
        put_vals[i] = value(r, t, i);
        failures += ARMCI_NbPut(&put_vals[i], dst.typed<int64_t>(t, r * kOps + i), 8, t, h) != 0;
      }
      most_live = std::max(most_live, armcix::requests_in_flight());
    }
    EXPECT_EQ(ARMCI_WaitAll(), 0);
    EXPECT_EQ(armcix::requests_in_flight(), 0u) << "live handles after ARMCI_WaitAll (round " << round << ")";
  }
  EXPECT_EQ(failures, 0);
  EXPECT_LE(static_cast<long>(most_live), bound) << "most explicit-handle requests live at once, over " << 2 * kOps
                                                 << " operations with ARMCI_MAX_OUTSTANDING=" << bound;
  for (long i = 0; i < kOps; i += 2)
    if (got[i] != value((r + 1 + i) % n, -1, i)) ++failures;
  EXPECT_EQ(failures, 0) << "gets with wrong values";
  // The handles completed by ARMCI_WaitAll: waiting on or testing them returns at once.
  for (int k = 0; k < kRing; k += 2) EXPECT_EQ(ARMCI_Wait(&ring[k]), 0);
  for (int k = 1; k < kRing; k += 2) EXPECT_EQ(ARMCI_Test(&ring[k]), 0);
  ARMCI_Barrier();
  std::vector<int64_t> want(n * kOps, -1);
  for (int o = 0; o < n; ++o)
    for (long i = 1; i < kOps; i += 2)
      if ((o + 1 + i) % n == r) want[o * kOps + i] = value(o, r, i);
  EXPECT_TRUE(Same("values of explicit-handle puts completed by WaitAll", dst.snapshot<int64_t>(0, n * kOps), want));
  ARMCI_Barrier();
}

// A handle completed by WaitAll, WaitProc, Fence or Barrier gives up its request slot at once (WaitProc and
// Fence: also when its get completed at issue, node-local); waiting on it (or testing a copy of it) later
// returns 0 without touching the operation that holds the slot now.
TEST(NbHandles, WaitAfterBulkCompletionLeavesTheSlotsNextOperationAlone) {
  // No request stays live for the counts below at MPI_THREAD_MULTIPLE.
  if (thread_multiple()) GTEST_SKIP() << "handles complete at issue at MPI_THREAD_MULTIPLE";
  const int n = nproc(), r = me();
  constexpr long kLen = 4096;
  const int to = (r + 1) % n;
  Global g(2 * kLen);
  g.init_local([&](char* base) {
    auto p = pattern(r, 0, 2 * kLen, 241);
    std::memcpy(base, p.data(), 2 * kLen);
  });
  ARMCI_Barrier();
  const char* kHow[] = {"WaitAll", "WaitProc", "Fence", "Barrier"};
  const std::vector<char> want = pattern(to, 0, 2 * kLen, 241);
  for (int how = 0; how < 4; ++how) {
    SCOPED_TRACE(kHow[how]);
    EXPECT_EQ(armcix::requests_in_flight(), 0u);
    std::vector<char> a(kLen, kSentinel), b(kLen, kSentinel);
    armci_hdl_t ha, hb;
    ARMCI_INIT_HANDLE(&ha);
    EXPECT_EQ(ARMCI_NbGet(g.at(to), a.data(), kLen, to, &ha), 0);
    const armci_hdl_t copy = ha;
    int rc = 0;
    if (how == 0) rc = ARMCI_WaitAll();
    if (how == 1) rc = ARMCI_WaitProc(to);
    if (how == 2) ARMCI_Fence(to);
    if (how == 3) ARMCI_Barrier();
    EXPECT_EQ(rc, 0);
    EXPECT_TRUE(Same("get completed in bulk", a.data(), want.data(), kLen));
    EXPECT_EQ(armcix::requests_in_flight(), 0u) << "the completed handle kept its request";
    ARMCI_INIT_HANDLE(&hb);
    EXPECT_EQ(ARMCI_NbGet(g.at(to, kLen), b.data(), kLen, to, &hb), 0);
    // hb holds a slot when its get is still in flight (another node); completed at issue (node-local) none.
    const std::size_t live_with_hb = armcix::requests_in_flight();
    EXPECT_LE(live_with_hb, 1u);
    EXPECT_EQ(ARMCI_Wait(&ha), 0);
    armci_hdl_t c = copy;
    EXPECT_EQ(ARMCI_Test(&c), 0);
    EXPECT_EQ(armcix::requests_in_flight(), live_with_hb) << "waiting on the completed handle completed another";
    EXPECT_EQ(ARMCI_Wait(&hb), 0);
    EXPECT_TRUE(Same("get of the slot's next operation", b.data(), want.data() + kLen, kLen));
    // Initialised again after the bulk completion, the handle serves a new operation.
    ARMCI_INIT_HANDLE(&ha);
    std::fill(a.begin(), a.end(), kSentinel);
    EXPECT_EQ(ARMCI_NbGet(g.at(to), a.data(), kLen, to, &ha), 0);
    EXPECT_EQ(ARMCI_Wait(&ha), 0);
    EXPECT_TRUE(Same("get under the handle initialised again", a.data(), want.data(), kLen));
    ARMCI_Barrier();
  }
}

// ---- Freed regions ------------------------------------------------------------------------------------

// ARMCI_Free of a region with operations still attached to handles completes them; the handles can be
// waited afterwards and a get's data is there.
TEST(NbHandles, FreeCompletesOutstandingOperations) {
  const int n = nproc(), r = me();
  constexpr long kLen = 512;
  const int to = (r + 1) % n;
  armci_hdl_t hp, hg;
  ARMCI_INIT_HANDLE(&hp);
  ARMCI_INIT_HANDLE(&hg);
  std::vector<char> src = pattern(r, to, kLen, 121), dst(kLen, kSentinel), dst2(kLen, kSentinel);
  {
    Global g(3 * kLen);  // put target | source for the explicit get | source for the implicit get
    g.init_local([&](char* base) {
      std::memset(base, kFill, kLen);
      auto p = pattern(r, -2, kLen, 122);
      std::memcpy(base + kLen, p.data(), kLen);
      std::memcpy(base + 2 * kLen, p.data(), kLen);
    });
    ARMCI_Barrier();
    EXPECT_EQ(ARMCI_NbPut(src.data(), g.at(to), kLen, to, &hp), 0);
    EXPECT_EQ(ARMCI_NbGet(g.at(to, kLen), dst.data(), kLen, to, &hg), 0);
    EXPECT_EQ(ARMCI_NbGet(g.at(to, 2 * kLen), dst2.data(), kLen, to, nullptr), 0);
  }  // ARMCI_Free
  EXPECT_EQ(ARMCI_Wait(&hg), 0);
  EXPECT_EQ(ARMCI_Wait(&hp), 0);
  EXPECT_EQ(ARMCI_WaitProc(to), 0);
  EXPECT_EQ(ARMCI_WaitAll(), 0);
  EXPECT_TRUE(Same("explicit get completed by ARMCI_Free", dst, pattern(to, -2, kLen, 122)));
  EXPECT_TRUE(Same("implicit get completed by ARMCI_Free", dst2, pattern(to, -2, kLen, 122)));
  ARMCI_Barrier();
}

// ---- Bad input ----------------------------------------------------------------------------------------

TEST(NbErrors, NullHandles) {
  EXPECT_ARMCI_ERROR(ARMCI_Wait(nullptr), "ARMCI_Wait", "'handle'");
  EXPECT_ARMCI_ERROR(ARMCI_Test(nullptr), "ARMCI_Test", "'handle'");
  EXPECT_ARMCI_ERROR(ARMCI_SET_AGGREGATE_HANDLE(nullptr), "ARMCI_SET_AGGREGATE_HANDLE", "'handle'");
  EXPECT_ARMCI_ERROR(ARMCI_UNSET_AGGREGATE_HANDLE(nullptr), "ARMCI_UNSET_AGGREGATE_HANDLE", "'handle'");
}

TEST(NbErrors, HandlesNeverInitialised) {
  const int n = nproc(), r = me();
  Global g(8L * n);
  long v = 1;
  for (armci_hdl_t bad : {armci_hdl_t{12345, 7}, armci_hdl_t{-77, 0}, armci_hdl_t{1 << 30, 3}}) {
    SCOPED_TRACE("handle {" + std::to_string(bad.target) + ", " + std::to_string(bad.aggregate) + "}");
    armci_hdl_t h = bad;
    EXPECT_ARMCI_ERROR(ARMCI_Wait(&h), "ARMCI_Wait", "'handle'");
    h = bad;
    EXPECT_ARMCI_ERROR(ARMCI_Test(&h), "ARMCI_Test", "'handle'");
    h = bad;
    EXPECT_ARMCI_ERROR(ARMCI_NbPut(&v, g.at(r, 8L * r), 8, r, &h), "ARMCI_NbPut", "'handle'");
    h = bad;
    EXPECT_ARMCI_ERROR(ARMCI_NbGet(g.at(r, 8L * r), &v, 8, r, &h), "ARMCI_NbGet", "'handle'");
    h = bad;
    EXPECT_ARMCI_ERROR(ARMCI_NbPutValueInt(3, g.at(r, 8L * r), r, &h), "ARMCI_NbPutValueInt", "'handle'");
  }
  ARMCI_Barrier();
}

// A zero-filled handle (say, a member of a struct nobody passed to ARMCI_INIT_HANDLE) is as invalid as
// any other garbage -- also while implicit (NULL-handle) operations are open, whose requests live in the
// same slot table with generation 0.
TEST(NbErrors, ZeroFilledHandleIsNeverValid) {
  const int n = nproc(), r = me();
  Global g(8L * n);
  long v = r;
  for (int t : targets()) EXPECT_EQ(ARMCI_NbPut(&v, g.at(t, 8L * r), 8, t, nullptr), 0);
  std::vector<std::string> accepted;
  {
    ErrorCapture capture;
    // Beyond every slot this program creates (at most ~10,000 handles are outstanding at once).
    for (int slot = 0; slot < (1 << 14); ++slot) {
      armci_hdl_t z{slot, 0};
      try {
        ARMCI_Test(&z);
        accepted.push_back("Test{" + std::to_string(slot) + ",0}");
      } catch (const ArmciError&) {
      }
      z = armci_hdl_t{slot, 1};  // the aggregate bit set
      try {
        ARMCI_Wait(&z);
        accepted.push_back("Wait{" + std::to_string(slot) + ",1}");
      } catch (const ArmciError&) {
      }
    }
  }
  std::string list;
  for (auto& a : accepted) list += a + " ";
  EXPECT_TRUE(accepted.empty()) << "never-initialised handles accepted: " << list;
  EXPECT_EQ(ARMCI_WaitAll(), 0);
  ARMCI_Barrier();
}

TEST(NbErrors, WaitTwiceAndStaleHandles) {
  if (thread_multiple()) GTEST_SKIP() << "stale handles are tolerated at MPI_THREAD_MULTIPLE";
  const int n = nproc(), r = me();
  Global g(64L * n);
  g.init_local([&](char* base) { std::memset(base, 0, 64L * n); });
  ARMCI_Barrier();
  const int to = (r + 1) % n;
  long a = 11, b = 22;
  armci_hdl_t h;
  ARMCI_INIT_HANDLE(&h);
  EXPECT_EQ(ARMCI_NbPut(&a, g.at(to, 64L * r), 8, to, &h), 0);
  armci_hdl_t copy = h;
  EXPECT_EQ(ARMCI_Wait(&h), 0);
  EXPECT_ARMCI_ERROR(ARMCI_Wait(&h), "ARMCI_Wait", "'handle'", "already");
  // A copy of the completed handle names a request that no longer exists ...
  armci_hdl_t stale = copy;
  EXPECT_ARMCI_ERROR(ARMCI_Wait(&stale), "ARMCI_Wait", "'handle'");
  // ... also once its slot holds another operation (the most recently freed slot is the likely reuse).
  std::vector<armci_hdl_t> fresh(8);
  std::vector<long> vals(8);
  for (int k = 0; k < 8; ++k) {
    vals[k] = 100 + k;
    ARMCI_INIT_HANDLE(&fresh[k]);
    EXPECT_EQ(ARMCI_NbPut(&vals[k], g.at(to, 64L * r + 8 * k), 8, to, &fresh[k]), 0);
  }
  stale = copy;
  EXPECT_ARMCI_ERROR(ARMCI_Wait(&stale), "ARMCI_Wait", "'handle'");
  stale = copy;
  EXPECT_ARMCI_ERROR(ARMCI_Test(&stale), "ARMCI_Test", "'handle'");
  stale = copy;
  EXPECT_ARMCI_ERROR(ARMCI_NbPut(&b, g.at(to, 64L * r), 8, to, &stale), "ARMCI_NbPut", "'handle'");
  // The operations that own the slot now were not disturbed.
  for (int k = 0; k < 8; ++k) EXPECT_EQ(ARMCI_Wait(&fresh[k]), 0);
  // An unused handle waited twice is an error too.
  armci_hdl_t unused;
  ARMCI_INIT_HANDLE(&unused);
  EXPECT_EQ(ARMCI_Wait(&unused), 0);
  EXPECT_ARMCI_ERROR(ARMCI_Wait(&unused), "ARMCI_Wait", "'handle'", "already");
  ARMCI_Barrier();
  const int from = (r + n - 1) % n;
  auto mine = g.snapshot<long>(8L * from, 8);
  std::vector<long> want{100, 101, 102, 103, 104, 105, 106, 107};
  EXPECT_TRUE(Same(name("values from", from), mine, want));
  ARMCI_Barrier();
}

// Handles of every kind of call, to every target -- whether its operation completed at issue (node-local: the
// handle takes no slot) or is still in flight -- follow one set of rules: waited once, then an error; a copy
// of a waited handle is an error; a copy of a handle a WaitAll completed is not; reused after a wait without
// being initialised again, it serves the next call.
TEST(NbErrors, HandlesFollowOneRuleWhereverTheirOperationWent) {
  if (thread_multiple()) GTEST_SKIP() << "stale handles are tolerated at MPI_THREAD_MULTIPLE";
  const int n = nproc(), r = me();
  Global g(64L * n);
  g.init_local([&](char* base) { std::memset(base, 0, 64L * n); });
  ARMCI_Barrier();
  for (int t = 0; t < n; ++t) {
    SCOPED_TRACE("target " + std::to_string(t));
    for (int kind = 0; kind < 3; ++kind) {  // NbPut, NbPutValueLong, NbGetS levels 0
      SCOPED_TRACE("kind " + std::to_string(kind));
      long v = 1000 * r + 10 * t + kind, got = -1;
      int c[1] = {8};
      auto issue = [&](armci_hdl_t* h) {
        if (kind == 0) return ARMCI_NbPut(&v, g.at(t, 64L * r), 8, t, h);
        if (kind == 1) return ARMCI_NbPutValueLong(v, g.at(t, 64L * r), t, h);
        return ARMCI_NbGetS(g.at(t, 64L * r), nullptr, &got, nullptr, c, 0, t, h);
      };
      armci_hdl_t h;
      ARMCI_INIT_HANDLE(&h);
      EXPECT_EQ(issue(&h), 0);
      armci_hdl_t copy = h;
      EXPECT_EQ(ARMCI_Wait(&h), 0);
      EXPECT_ARMCI_ERROR(ARMCI_Wait(&h), "ARMCI_Wait", "'handle'", "already");
      armci_hdl_t stale = copy;
      EXPECT_ARMCI_ERROR(ARMCI_Wait(&stale), "ARMCI_Wait", "'handle'");
      stale = copy;
      EXPECT_ARMCI_ERROR(ARMCI_Test(&stale), "ARMCI_Test", "'handle'");
      // Reused without ARMCI_INIT_HANDLE after its wait (classic ARMCI's tests do so).
      EXPECT_EQ(issue(&h), 0);
      copy = h;
      EXPECT_EQ(ARMCI_WaitAll(), 0);
      EXPECT_EQ(ARMCI_Wait(&h), 0);
      stale = copy;
      EXPECT_EQ(ARMCI_Test(&stale), 0) << "a copy of a handle ARMCI_WaitAll completed";
      if (kind == 2) {
        EXPECT_EQ(got, 1000 * r + 10 * t + 1) << "levels-0 get after the value put";
      }
    }
  }
  ARMCI_Barrier();
}

TEST(NbErrors, BadProc) {
  const int n = nproc();
  Global g(64L * n);
  char buf[64] = {};
  double one = 1;
  int stride[1] = {8}, count[2] = {8, 2};
  void* sp[1] = {buf};
  void* dp[1] = {g.at(0)};
  armci_giov_t iov{sp, dp, 8, 1};
  for (int bad : {-1, n, n + 100}) {
    SCOPED_TRACE("proc " + std::to_string(bad));
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    EXPECT_ARMCI_ERROR(ARMCI_NbPut(buf, g.at(0), 8, bad, &h), "ARMCI_NbPut", "'proc'");
    EXPECT_ARMCI_ERROR(ARMCI_NbPut(buf, g.at(0), 8, bad, nullptr), "ARMCI_NbPut", "'proc'");
    EXPECT_ARMCI_ERROR(ARMCI_NbGet(g.at(0), buf, 8, bad, &h), "ARMCI_NbGet", "'proc'");
    EXPECT_ARMCI_ERROR(ARMCI_NbAcc(ARMCI_ACC_DBL, &one, buf, g.at(0), 8, bad, nullptr), "ARMCI_NbAcc", "'proc'");
    EXPECT_ARMCI_ERROR(ARMCI_NbPutS(buf, stride, g.at(0), stride, count, 1, bad, &h), "ARMCI_NbPutS", "'proc'");
    EXPECT_ARMCI_ERROR(ARMCI_NbGetS(g.at(0), stride, buf, stride, count, 1, bad, nullptr), "ARMCI_NbGetS", "'proc'");
    EXPECT_ARMCI_ERROR(ARMCI_NbAccS(ARMCI_ACC_DBL, &one, buf, stride, g.at(0), stride, count, 1, bad, &h),
                       "ARMCI_NbAccS", "'proc'");
    EXPECT_ARMCI_ERROR(ARMCI_NbPutV(&iov, 1, bad, &h), "ARMCI_NbPutV", "'proc'");
    EXPECT_ARMCI_ERROR(ARMCI_NbGetV(&iov, 1, bad, nullptr), "ARMCI_NbGetV", "'proc'");
    EXPECT_ARMCI_ERROR(ARMCI_NbAccV(ARMCI_ACC_DBL, &one, &iov, 1, bad, &h), "ARMCI_NbAccV", "'proc'");
    EXPECT_ARMCI_ERROR(ARMCI_NbPutValueInt(1, g.at(0), bad, &h), "ARMCI_NbPutValueInt", "'proc'");
    EXPECT_ARMCI_ERROR(ARMCI_NbPutValueLong(1, g.at(0), bad, nullptr), "ARMCI_NbPutValueLong", "'proc'");
    EXPECT_ARMCI_ERROR(ARMCI_NbPutValueFloat(1, g.at(0), bad, &h), "ARMCI_NbPutValueFloat", "'proc'");
    EXPECT_ARMCI_ERROR(ARMCI_NbPutValueDouble(1, g.at(0), bad, &h), "ARMCI_NbPutValueDouble", "'proc'");
    EXPECT_ARMCI_ERROR(ARMCI_WaitProc(bad), "ARMCI_WaitProc", "'proc'");
    // The rejected calls left the handle unused.
    EXPECT_EQ(ARMCI_Wait(&h), 0);
  }
  ARMCI_Barrier();
}

}  // namespace
