// MPI tests of the noncontiguous transfers: strided (ARMCI_PutS/GetS/AccS, their Nb forms,
// armci_read_strided/armci_write_strided) and I/O vectors (ARMCI_PutV/GetV/AccV and Nb forms), under
// whichever engines the environment selects (ARMCI_STRIDED_METHOD, ARMCI_PACK_CHUNK, ARMCI_IOV_METHOD,
// ARMCI_IOV_BATCHED_LIMIT, ARMCI_SHR_BUF_METHOD); tests/manifest.txt runs the program under each of them.
// Node peers are reached by load/store unless ARMCI_SHM=0 or ARMCI_NODE_SIZE puts them on other simulated
// nodes, so the MPI engines are exercised only under those settings.
//
// Every transfer is generated from a seed all ranks can derive (base seed, case, iteration, origin rank),
// so the target of an operation rebuilds the origin's shape and data and checks its whole slice -- the
// bytes written and the ones around them -- against a locally computed reference; a get is checked by its
// origin the same way.  Accumulated values are integers or dyadic fractions small enough that every sum
// is exact in any order, so results are compared exactly.  A failure prints the base seed, the case seed
// and the shape: ARMCIX_TEST_SEED=<base seed> with the same rank count, settings and ARMCIX_TEST_SCALE
// replays it.
// ARMCIX_TEST_SCALE multiplies the iteration counts (default: full at 2 ranks, a third above that, where
// 4 ranks oversubscribe 2 cores and every barrier is slow).
#include <algorithm>
#include <cctype>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "test_util.h"

namespace {

using armcix_test::me;
using armcix_test::nproc;

constexpr long kSliceBytes = 160 * 1024;  // A: the main target allocation (per rank)
constexpr long kLocalBytes = 160 * 1024;  // origin space: a private vector, or B (a second allocation)
constexpr long kSpanBytes = 32 * 1024;    // C: a third allocation, for vectors spanning two allocations
constexpr long kMaxBytes = 64 * 1024;     // bytes moved by one generated transfer, at most
constexpr long kMaxSegments = 512;        // contiguous segments of one strided transfer, at most
constexpr int kBytes = -1;                // the "type" of put/get data: raw bytes

// ---- environment ------------------------------------------------------------------------------------

std::string env_upper(const char* name) {
  const char* v = std::getenv(name);
  std::string s = v ? v : "";
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string iov_method() {
  std::string m = env_upper("ARMCI_IOV_METHOD");
  return m.empty() ? "AUTO" : m;
}

// AUTO and CONSRV apply overlapping or multi-allocation vectors segment by segment, in order; BATCHED and
// DIRECT reject them.
bool iov_orders_segments() {
  std::string m = iov_method();
  return m == "AUTO" || m == "CONSRV";
}

// The settings that choose engines, for failure messages.
std::string engine_settings() {
  std::string s;
  for (const char* v : {"ARMCI_SHM", "ARMCI_NODE_SIZE", "ARMCI_USE_WIN_ALLOCATE", "ARMCI_STRIDED_METHOD",
                        "ARMCI_PACK_CHUNK", "ARMCI_IOV_METHOD", "ARMCI_IOV_BATCHED_LIMIT", "ARMCI_SHR_BUF_METHOD"})
    if (const char* x = std::getenv(v)) s += std::string(s.empty() ? "" : " ") + v + "=" + x;
  return s.empty() ? "default engine settings" : s;
}

uint64_t base_seed() {
  static const uint64_t seed = [] {
    const char* v = std::getenv("ARMCIX_TEST_SEED");
    return v && *v ? std::strtoull(v, nullptr, 0) : 0x57121DEDull;
  }();
  return seed;
}

int scaled(int at_two_ranks) {
  double f = nproc() <= 2 ? 1.0 : 1.0 / 3;
  if (const char* v = std::getenv("ARMCIX_TEST_SCALE")) f *= std::atof(v);
  return std::max(1, static_cast<int>(at_two_ranks * f + 0.5));
}

// ---- deterministic randomness -----------------------------------------------------------------------

struct Rng {  // splitmix64: tiny, and identical on every rank and platform
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  long uniform(long lo, long hi) {  // inclusive
    return lo + static_cast<long>(next() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool one_in(int k) { return next() % static_cast<uint64_t>(k) == 0; }
};

uint64_t derive(uint64_t a, uint64_t b, uint64_t c = 0, uint64_t d = 0) {
  uint64_t h = a;
  for (uint64_t v : {b, c, d}) h = Rng(h ^ (v * 0xD6E8FEB86659FD93ull)).next();
  return h;
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// ---- accumulate types ---------------------------------------------------------------------------------

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

const int kAccTypes[] = {ARMCI_ACC_INT, ARMCI_ACC_LNG, ARMCI_ACC_FLT, ARMCI_ACC_DBL, ARMCI_ACC_CPL, ARMCI_ACC_DCP};

template <typename F>
void with_type(int type, F&& f) {
  switch (type) {
    case ARMCI_ACC_INT:
      f(int{});
      break;
    case ARMCI_ACC_LNG:
      f(long{});
      break;
    case ARMCI_ACC_FLT:
      f(float{});
      break;
    case ARMCI_ACC_DBL:
      f(double{});
      break;
    case ARMCI_ACC_CPL:
      f(cfloat{});
      break;
    case ARMCI_ACC_DCP:
      f(cdouble{});
      break;
    default:
      break;
  }
}

int elem_size(int type) {
  int n = 1;
  with_type(type, [&](auto t) { n = static_cast<int>(sizeof(t)); });
  return n;
}

const char* type_name(int type) {
  switch (type) {
    case ARMCI_ACC_INT:
      return "INT";
    case ARMCI_ACC_LNG:
      return "LNG";
    case ARMCI_ACC_FLT:
      return "FLT";
    case ARMCI_ACC_DBL:
      return "DBL";
    case ARMCI_ACC_CPL:
      return "CPL";
    case ARMCI_ACC_DCP:
      return "DCP";
  }
  return "bytes";
}

// Pattern values: integers and multiples of 1/4 or 1/8 small enough that products with the scales below and
// sums of a few hundred of them are exact.
template <typename T>
T value_from(uint64_t r);
template <>
int value_from<int>(uint64_t r) {
  return static_cast<int>(r % 2000001) - 1000000;
}
template <>
long value_from<long>(uint64_t r) {
  return static_cast<long>(r >> 24) - (1L << 39);
}
template <>
float value_from<float>(uint64_t r) {
  return static_cast<float>(static_cast<int>(r % 4001) - 2000) * 0.25f;
}
template <>
double value_from<double>(uint64_t r) {
  return static_cast<double>(static_cast<long>(r % 2000001) - 1000000) * 0.125;
}
template <>
cfloat value_from<cfloat>(uint64_t r) {
  return {value_from<float>(r), value_from<float>(r >> 32)};
}
template <>
cdouble value_from<cdouble>(uint64_t r) {
  return {value_from<double>(r), value_from<double>(r >> 32)};
}

// The scale of an accumulate, as the bytes ARMCI reads through `void* scale`.
struct Scale {
  alignas(16) unsigned char bytes[16] = {};
  int type = kBytes;
  std::string text;
  void* ptr() { return bytes; }
  const void* ptr() const { return bytes; }
};

// mult = 0: the scale 1 (the unscaled path); otherwise a non-trivial scale times mult.
Scale make_scale(int type, int mult) {
  Scale s;
  s.type = type;
  std::ostringstream os;
  with_type(type, [&](auto t) {
    using T = decltype(t);
    T v;
    if (mult == 0) {
      v = T(1);
    } else {
      if constexpr (std::is_same_v<T, int>) v = 3;
      if constexpr (std::is_same_v<T, long>) v = -7;
      if constexpr (std::is_same_v<T, float>) v = -1.5f;
      if constexpr (std::is_same_v<T, double>) v = 2.5;
      if constexpr (std::is_same_v<T, cfloat>) v = cfloat(2, -1);
      if constexpr (std::is_same_v<T, cdouble>) v = cdouble(0.5, -1.5);
      v *= T(mult);
    }
    std::memcpy(s.bytes, &v, sizeof v);
    os << v;
  });
  s.text = os.str();
  return s;
}

// Fills n bytes with the pattern of `seed`: raw bytes, or values of `type` laid from p (n is a multiple of
// the element size wherever typed data are used).
void fill(char* p, long n, uint64_t seed, int type) {
  Rng r(seed);
  if (type == kBytes) {
    for (long i = 0; i < n; i += 8) {
      uint64_t v = r.next();
      std::memcpy(p + i, &v, static_cast<std::size_t>(std::min<long>(8, n - i)));
    }
    return;
  }
  with_type(type, [&](auto t) {
    using T = decltype(t);
    for (long i = 0; i + static_cast<long>(sizeof(T)) <= n; i += sizeof(T)) {
      T v = value_from<T>(r.next());
      std::memcpy(p + i, &v, sizeof v);
    }
  });
}

// dst[i] += scale * src[i] over `bytes` of type `type`: what ARMCI's accumulate does.
void acc_ref(int type, const Scale& sc, char* dst, const char* src, long bytes) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    T s;
    std::memcpy(&s, sc.bytes, sizeof s);
    for (long i = 0; i + static_cast<long>(sizeof(T)) <= bytes; i += sizeof(T)) {
      T a, b;
      std::memcpy(&a, dst + i, sizeof a);
      std::memcpy(&b, src + i, sizeof b);
      a += s * b;
      std::memcpy(dst + i, &a, sizeof a);
    }
  });
}

std::string format_elem(const char* p, int type) {
  std::ostringstream os;
  if (type == kBytes) {
    os << static_cast<int>(static_cast<unsigned char>(*p));
  } else {
    with_type(type, [&](auto t) {
      decltype(t) v;
      std::memcpy(&v, p, sizeof v);
      os << v;
    });
  }
  return os.str();
}

bool elem_equal(const char* a, const char* b, int type) {
  if (type == kBytes) return *a == *b;
  bool eq = false;
  with_type(type, [&](auto t) {
    decltype(t) x, y;
    std::memcpy(&x, a, sizeof x);
    std::memcpy(&y, b, sizeof y);
    eq = x == y;  // value comparison: -0.0 == 0.0
  });
  return eq;
}

// "" if got == want, else the number of differing elements and the first few.
std::string diff(const char* got, const char* want, long n, int type) {
  if (std::memcmp(got, want, static_cast<std::size_t>(n)) == 0) return "";
  const long unit = type == kBytes ? 1 : elem_size(type);
  long bad = 0;
  std::ostringstream os;
  for (long i = 0; i + unit <= n; i += unit) {
    if (elem_equal(got + i, want + i, type)) continue;
    if (bad++ < 6)
      os << "\n    at byte offset " << i << ": got " << format_elem(got + i, type) << ", want "
         << format_elem(want + i, type);
  }
  if (bad == 0) return "";
  return std::to_string(bad) + " differing " + (type == kBytes ? "bytes" : type_name(type)) + os.str();
}

// ---- allocations ----------------------------------------------------------------------------------------

class Alloc {
 public:
  explicit Alloc(long bytes) : ptrs_(nproc()) { EXPECT_EQ(ARMCI_Malloc(ptrs_.data(), bytes), 0); }
  ~Alloc() { ARMCI_Free(ptrs_[me()]); }
  Alloc(const Alloc&) = delete;
  Alloc& operator=(const Alloc&) = delete;
  char* at(int p) const { return static_cast<char*>(ptrs_[p]); }
  char* mine() const { return at(me()); }

 private:
  std::vector<void*> ptrs_;
};

// Direct load/store access to this rank's slice of an allocation.
class Access {
 public:
  explicit Access(char* p, bool on = true) : p_(on ? p : nullptr) {
    if (p_) ARMCI_Access_begin(p_);
  }
  ~Access() {
    if (p_) ARMCI_Access_end(p_);
  }
  Access(const Access&) = delete;
  Access& operator=(const Access&) = delete;

 private:
  char* p_;
};

struct Arena {  // collective: every test that transfers creates one
  Alloc a{kSliceBytes};
  Alloc b{kLocalBytes};
  Alloc c{kSpanBytes};
};

// ---- shapes ---------------------------------------------------------------------------------------------

struct Seg {  // one contiguous piece of a transfer
  long lo;    // offset in the local buffer
  long ro;    // offset in the target's slice of allocation `alloc`
  int bytes;
  int alloc;  // 0 = A, 1 = C
};

struct Shape {  // a strided transfer; "local" is src of put/acc and dst of get
  int levels = 0;
  int count[ARMCI_MAX_STRIDE_LEVEL + 1] = {};
  int lstride[ARMCI_MAX_STRIDE_LEVEL] = {};
  int rstride[ARMCI_MAX_STRIDE_LEVEL] = {};
  long lext = 0, rext = 0;
  long loff = 0, roff = 0;

  long nseg() const {
    long n = 1;
    for (int i = 1; i <= levels; ++i) n *= count[i];
    return n;
  }
  long bytes() const { return nseg() * count[0]; }
  std::string str() const {
    std::ostringstream os;
    auto arr = [&](const int* a, int n) {
      os << "[";
      for (int i = 0; i < n; ++i) os << (i ? "," : "") << a[i];
      os << "]";
    };
    os << "levels=" << levels << " count=";
    arr(count, levels + 1);
    os << " local_stride=";
    arr(lstride, levels);
    os << " remote_stride=";
    arr(rstride, levels);
    os << " local_off=" << loff << " remote_off=" << roff << " (" << nseg() << " segments, " << bytes() << " bytes)";
    return os.str();
  }
};

long extent_of(const Shape& s, const int* stride) {
  long e = s.count[0];
  for (int i = 1; i <= s.levels; ++i)
    if (s.count[i] > 1) e += static_cast<long>(s.count[i] - 1) * stride[i - 1];
  return e;
}

// Each stride clears the block below it (with a random gap, sometimes none); a level with a count of 1
// sometimes gets a small stride, which ARMCI never uses.
void random_strides(Rng& r, const Shape& s, int unit, long gap_cap, int* stride) {
  long ext = s.count[0];
  for (int i = 1; i <= s.levels; ++i) {
    long st;
    if (s.count[i] == 1 && r.one_in(3))
      st = unit * r.uniform(0, 2);
    else
      st = ext + unit * (r.one_in(3) ? 0 : r.uniform(0, gap_cap));
    stride[i - 1] = static_cast<int>(st);
    if (s.count[i] > 1) ext += (s.count[i] - 1) * st;
  }
}

struct Limits {
  long max_bytes = kMaxBytes;
  long max_seg = kMaxSegments;
  long lspace = kLocalBytes;  // local offsets + extent stay below this
  long rspace = kSliceBytes;  // remote offsets + extent stay below this
};

Shape random_shape(Rng& r, int levels, int unit, const Limits& lim) {
  Shape s;
  s.levels = levels;
  const long max_bytes = std::min({lim.max_bytes, lim.lspace, lim.rspace});
  long max_units0 = (r.one_in(6) ? 4096 : 256) / unit;
  max_units0 = std::max(1L, std::min(max_units0, max_bytes / unit));
  s.count[0] = static_cast<int>(unit * r.uniform(1, max_units0));
  long nseg = 1;
  const long cap = levels <= 1 ? 64 : levels <= 3 ? 8 : 3;
  for (int i = 1; i <= levels; ++i) {
    long budget = std::min(lim.max_seg / nseg, max_bytes / (nseg * s.count[0]));
    s.count[i] = static_cast<int>(r.uniform(1, std::max(1L, std::min(cap, budget))));
    nseg *= s.count[i];
  }
  // Gaps widen the extents; without gaps they equal the bytes moved, which fit.
  for (long gap_cap : {64L, 8L, 0L}) {
    random_strides(r, s, unit, gap_cap, s.lstride);
    random_strides(r, s, unit, gap_cap, s.rstride);
    s.lext = extent_of(s, s.lstride);
    s.rext = extent_of(s, s.rstride);
    if (s.lext <= lim.lspace && s.rext <= lim.rspace) break;
  }
  s.loff = unit * r.uniform(0, (lim.lspace - s.lext) / unit);
  s.roff = unit * r.uniform(0, (lim.rspace - s.rext) / unit);
  return s;
}

// The segments of a shape in ARMCI order (level 1 varies fastest), computed by index decomposition rather
// than by the library's odometer.
std::vector<Seg> segments_of(const Shape& s) {
  std::vector<Seg> out;
  const long n = s.nseg();
  out.reserve(static_cast<std::size_t>(n));
  for (long k = 0; k < n; ++k) {
    long rem = k, lo = s.loff, ro = s.roff;
    for (int i = 1; i <= s.levels; ++i) {
      long d = rem % s.count[i];
      rem /= s.count[i];
      lo += d * s.lstride[i - 1];
      ro += d * s.rstride[i - 1];
    }
    out.push_back({lo, ro, s.count[0], 0});
  }
  return out;
}

// ---- I/O vectors ----------------------------------------------------------------------------------------

struct IovPlan {
  std::vector<int> bytes;              // per descriptor
  std::vector<std::vector<Seg>> desc;  // per descriptor, in order

  std::vector<Seg> flat() const {
    std::vector<Seg> out;
    for (const auto& d : desc) out.insert(out.end(), d.begin(), d.end());
    return out;
  }
  std::string str() const {
    std::ostringstream os;
    os << desc.size() << " descriptors:";
    for (std::size_t d = 0; d < desc.size(); ++d) {
      os << " {bytes=" << bytes[d] << " n=" << desc[d].size() << " (local,remote,alloc):";
      for (std::size_t i = 0; i < desc[d].size() && i < 4; ++i)
        os << " (" << desc[d][i].lo << "," << desc[d][i].ro << "," << desc[d][i].alloc << ")";
      os << (desc[d].size() > 4 ? " ...}" : "}");
    }
    return os.str();
  }
};

// Disjoint: no overlap where ARMCI forbids it (the remote side of a put, the local side of a get).
// OverlapWithin: segments of descriptor 0 overlap on the written side (put, get) or the remote side (acc).
// OverlapAcross: put segments overlap across descriptors only.
// Span: descriptor 0 has segments in two allocations of the target (otherwise as Disjoint).
enum class IovMode { Disjoint, OverlapWithin, OverlapAcross, Span };

const char* mode_name(IovMode m) {
  switch (m) {
    case IovMode::Disjoint:
      return "disjoint";
    case IovMode::OverlapWithin:
      return "overlap-within";
    case IovMode::OverlapAcross:
      return "overlap-across";
    case IovMode::Span:
      return "span";
  }
  return "?";
}

class Occupancy {
 public:
  explicit Occupancy(long n) : used_(static_cast<std::size_t>(n), 0) {}
  bool free(long p, int n) const {
    for (long i = p; i < p + n; ++i)
      if (used_[static_cast<std::size_t>(i)]) return false;
    return true;
  }
  void take(long p, int n) { std::fill(used_.begin() + p, used_.begin() + p + n, 1); }
  long size() const { return static_cast<long>(used_.size()); }

 private:
  std::vector<char> used_;
};

// A random free aligned place for n bytes, or -1.
long place(Rng& r, int unit, int n, const Occupancy& occ) {
  for (int tries = 0; tries < 64; ++tries) {
    long p = unit * r.uniform(0, (occ.size() - n) / unit);
    if (occ.free(p, n)) return p;
  }
  return -1;
}

// An aligned place for n bytes in [0, space) overlapping [q, q + qn).
long overlapping(Rng& r, int unit, long q, int qn, int n, long space) {
  long p = q + unit * r.uniform(-(n / unit) + 1, qn / unit - 1);
  return std::max(0L, std::min(p, space - n));
}

IovPlan random_plan(Rng& r, bool is_put, bool is_get, int unit, IovMode mode, long lspace, const long rspace[2]) {
  IovPlan plan;
  const bool span = mode == IovMode::Span;
  long budget = std::min<long>(span ? 16 * 1024 : kMaxBytes, std::min(lspace, rspace[0]) / 2);
  if (span) budget = std::min(budget, rspace[1] / 2);
  Occupancy remote_all[2] = {Occupancy(rspace[0]), Occupancy(rspace[1])}, local_all(lspace);
  const bool put_disjoint_all = is_put && (mode == IovMode::Disjoint || span);
  const bool put_disjoint_desc = is_put && mode == IovMode::OverlapAcross;
  const bool get_disjoint_all = is_get && mode != IovMode::OverlapWithin;
  const long ndesc = r.uniform(mode == IovMode::OverlapAcross ? 2 : 1, 4);
  for (long d = 0; d < ndesc; ++d) {
    const int bytes = static_cast<int>(unit * r.uniform(1, (r.one_in(5) ? 2048 : 256) / unit));
    if (bytes * 2 > budget) break;
    const bool forced = d == 0 && (mode == IovMode::OverlapWithin || span);
    // Fewer segments where AUTO falls back to CONSRV, which completes every segment separately.
    const long nseg = std::min(r.uniform(forced ? 2 : 1, mode == IovMode::Disjoint ? 40 : 16), budget / bytes);
    Occupancy remote_desc(rspace[0]);
    std::vector<Seg> segs;
    for (long i = 0; i < nseg; ++i) {
      Seg s{0, 0, bytes, 0};
      if (span) s.alloc = forced && i < 2 ? static_cast<int>(i) : static_cast<int>(r.uniform(0, 1));
      const long rsp = rspace[s.alloc];
      const bool overlap_here = mode == IovMode::OverlapWithin && d == 0 && i > 0 && (i == 1 || r.one_in(2));
      if (overlap_here && !is_get) {
        const Seg& o = segs[static_cast<std::size_t>(r.uniform(0, i - 1))];
        s.ro = overlapping(r, unit, o.ro, o.bytes, bytes, rsp);
      } else if (mode == IovMode::OverlapAcross && d > 0 && i == 0) {
        const auto& first = plan.desc[0];
        const Seg& o = first[static_cast<std::size_t>(r.uniform(0, static_cast<long>(first.size()) - 1))];
        s.ro = overlapping(r, unit, o.ro, o.bytes, bytes, rsp);
      } else if (put_disjoint_all) {
        s.ro = place(r, unit, bytes, remote_all[s.alloc]);
      } else if (put_disjoint_desc) {
        s.ro = place(r, unit, bytes, remote_desc);
      } else {
        s.ro = unit * r.uniform(0, (rsp - bytes) / unit);
      }
      if (s.ro < 0) break;
      if (overlap_here && is_get) {
        const Seg& o = segs[static_cast<std::size_t>(r.uniform(0, i - 1))];
        s.lo = overlapping(r, unit, o.lo, o.bytes, bytes, lspace);
      } else if (get_disjoint_all) {
        s.lo = place(r, unit, bytes, local_all);
      } else {
        s.lo = unit * r.uniform(0, (lspace - bytes) / unit);
      }
      if (s.lo < 0) break;
      if (put_disjoint_all) remote_all[s.alloc].take(s.ro, bytes);
      if (put_disjoint_desc) remote_desc.take(s.ro, bytes);
      if (get_disjoint_all) local_all.take(s.lo, bytes);
      segs.push_back(s);
    }
    budget -= bytes * static_cast<long>(segs.size());
    plan.bytes.push_back(bytes);
    plan.desc.push_back(std::move(segs));
  }
  return plan;
}

IovPlan plan_from_shape(const Shape& s) {
  IovPlan p;
  p.bytes.push_back(s.count[0]);
  p.desc.push_back(segments_of(s));
  return p;
}

// ---- operations -----------------------------------------------------------------------------------------

enum class Op { Put, Get, Acc };
enum class Api { Strided, Vector };
enum class Completion { Blocking, Handle, NullWaitAll, NullWaitProc };

const char* completion_name(Completion c) {
  switch (c) {
    case Completion::Blocking:
      return "blocking";
    case Completion::Handle:
      return "handle+ARMCI_Wait";
    case Completion::NullWaitAll:
      return "NULL handle+ARMCI_WaitAll";
    case Completion::NullWaitProc:
      return "NULL handle+ARMCI_WaitProc";
  }
  return "?";
}

std::string call_name(Op op, Api api, bool nb) {
  std::string s = nb ? "ARMCI_Nb" : "ARMCI_";
  s += op == Op::Put ? "Put" : op == Op::Get ? "Get" : "Acc";
  s += api == Api::Strided ? "S" : "V";
  return s;
}

// Calls the ARMCI strided operation for shape s; local/remote are the bases the shape's offsets refer to.
void strided_call(Op op, int type, const Scale& sc, char* local, char* remote, const Shape& s, int proc, bool nb,
                  armci_hdl_t* h) {
  // The API takes non-const arrays.
  int count[ARMCI_MAX_STRIDE_LEVEL + 1], ls[ARMCI_MAX_STRIDE_LEVEL], rs[ARMCI_MAX_STRIDE_LEVEL];
  std::memcpy(count, s.count, sizeof count);
  std::memcpy(ls, s.lstride, sizeof ls);
  std::memcpy(rs, s.rstride, sizeof rs);
  char* l = local + s.loff;
  char* r = remote + s.roff;
  void* scale = const_cast<void*>(sc.ptr());
  int rc = -1;
  switch (op) {
    case Op::Put:
      rc = nb ? ARMCI_NbPutS(l, ls, r, rs, count, s.levels, proc, h) : ARMCI_PutS(l, ls, r, rs, count, s.levels, proc);
      break;
    case Op::Get:
      rc = nb ? ARMCI_NbGetS(r, rs, l, ls, count, s.levels, proc, h) : ARMCI_GetS(r, rs, l, ls, count, s.levels, proc);
      break;
    case Op::Acc:
      rc = nb ? ARMCI_NbAccS(type, scale, l, ls, r, rs, count, s.levels, proc, h)
              : ARMCI_AccS(type, scale, l, ls, r, rs, count, s.levels, proc);
      break;
  }
  EXPECT_EQ(rc, 0);
}

// Calls the ARMCI vector operation for plan p; remote[a] is the base of allocation a on the target.
void iov_call(Op op, int type, const Scale& sc, char* local, char* const remote[2], const IovPlan& p, int proc, bool nb,
              armci_hdl_t* h) {
  std::vector<std::vector<void*>> src(p.desc.size()), dst(p.desc.size());
  std::vector<armci_giov_t> v(p.desc.size());
  for (std::size_t d = 0; d < p.desc.size(); ++d) {
    for (const Seg& s : p.desc[d]) {
      void* l = local + s.lo;
      void* r = remote[s.alloc] + s.ro;
      src[d].push_back(op == Op::Get ? r : l);
      dst[d].push_back(op == Op::Get ? l : r);
    }
    v[d].src_ptr_array = src[d].data();
    v[d].dst_ptr_array = dst[d].data();
    v[d].bytes = p.bytes[d];
    v[d].ptr_array_len = static_cast<int>(p.desc[d].size());
  }
  const int len = static_cast<int>(v.size());
  void* scale = const_cast<void*>(sc.ptr());
  int rc = -1;
  switch (op) {
    case Op::Put:
      rc = nb ? ARMCI_NbPutV(v.data(), len, proc, h) : ARMCI_PutV(v.data(), len, proc);
      break;
    case Op::Get:
      rc = nb ? ARMCI_NbGetV(v.data(), len, proc, h) : ARMCI_GetV(v.data(), len, proc);
      break;
    case Op::Acc:
      rc = nb ? ARMCI_NbAccV(type, scale, v.data(), len, proc, h) : ARMCI_AccV(type, scale, v.data(), len, proc);
      break;
  }
  EXPECT_EQ(rc, 0);
}

// Applies segments in order to the reference copies: remote[a] is allocation a of the target.
void ref_apply(Op op, int type, const Scale& sc, const std::vector<Seg>& segs, char* local, char* const remote[2]) {
  for (const Seg& s : segs) {
    char* r = remote[s.alloc] + s.ro;
    char* l = local + s.lo;
    switch (op) {
      case Op::Put:
        std::memcpy(r, l, static_cast<std::size_t>(s.bytes));
        break;
      case Op::Get:
        std::memcpy(l, r, static_cast<std::size_t>(s.bytes));
        break;
      case Op::Acc:
        acc_ref(type, sc, r, l, s.bytes);
        break;
    }
  }
}

// For puts that ARMCI does not order: every byte covered by some segment must hold the value one of them
// wrote, every other byte its initial value.  "" if so.
std::string check_one_of(const char* got, const char* init, long n, const std::vector<Seg>& segs, const char* local,
                         int alloc) {
  std::map<long, std::vector<char>> written;
  for (const Seg& s : segs)
    if (s.alloc == alloc)
      for (int i = 0; i < s.bytes; ++i) written[s.ro + i].push_back(local[s.lo + i]);
  long bad = 0;
  std::ostringstream os;
  for (long i = 0; i < n; ++i) {
    auto it = written.find(i);
    bool ok = it == written.end() ? got[i] == init[i]
                                  : std::find(it->second.begin(), it->second.end(), got[i]) != it->second.end();
    if (!ok && bad++ < 6) os << "\n    at byte offset " << i << ": got " << format_elem(got + i, kBytes);
  }
  return bad ? std::to_string(bad) + " bytes hold a value no segment wrote" + os.str() : "";
}

// ---- the randomized single-origin driver ---------------------------------------------------------------

struct Case {
  Op op = Op::Put;
  int type = kBytes;  // ARMCI_ACC_* for accumulates
  Api api = Api::Strided;
  IovMode mode = IovMode::Disjoint;
  Completion completion = Completion::Blocking;
  int shift = 1;               // target = (me + shift) % nproc
  bool global_origin = false;  // origin buffer in this rank's slice of B instead of private memory
  int parts = 1;               // operations issued before completion, to disjoint parts of the buffers
  int level_offset = 0;        // iteration it uses stride_levels (it + level_offset) % 8

  bool nb() const { return completion != Completion::Blocking; }
  std::string str() const {
    std::ostringstream os;
    os << call_name(op, api, nb()) << " type=" << type_name(type);
    if (api == Api::Vector) os << " mode=" << mode_name(mode);
    os << " completion=" << completion_name(completion) << " shift=" << shift
       << " origin_in_global_memory=" << global_origin << " parts=" << parts << " level_offset=" << level_offset;
    return os.str();
  }
  uint64_t tag() const { return fnv1a(str()); }
  // BATCHED and DIRECT refuse what they cannot order; AUTO and CONSRV take it.
  bool rejected() const {
    return api == Api::Vector && !iov_orders_segments() &&
           ((mode == IovMode::OverlapWithin && op != Op::Acc) || mode == IovMode::Span);
  }
  bool unordered_overlap() const {
    return api == Api::Vector && !iov_orders_segments() && mode == IovMode::OverlapAcross && op == Op::Put;
  }
};

struct Transfer {
  uint64_t seed = 0;
  Shape shape;
  IovPlan plan;
  std::vector<Seg> segs;  // in issue order, offsets relative to the whole local buffer / slices
  Scale scale;
  std::string str(Api api) const {
    std::ostringstream os;
    os << "transfer seed=0x" << std::hex << seed << std::dec << " scale=" << scale.text << " "
       << (api == Api::Strided ? shape.str() : plan.str());
    return os.str();
  }
};

long part_size(long space, int parts) {
  return (space / parts) & ~15L;
}

Transfer make_transfer(const Case& c, int it, int origin, int part) {
  Transfer t;
  t.seed = derive(base_seed(), c.tag(), static_cast<uint64_t>(it), static_cast<uint64_t>(origin * 64 + part));
  Rng r(t.seed);
  const int unit = c.type == kBytes ? 1 : elem_size(c.type);
  const long lsp = part_size(kLocalBytes, c.parts), rsp = part_size(kSliceBytes, c.parts),
             csp = part_size(kSpanBytes, c.parts);
  const long lbase = part * lsp, rbase = part * rsp, cbase = part * csp;
  if (c.api == Api::Strided) {
    Limits lim;
    lim.lspace = lsp;
    lim.rspace = rsp;
    t.shape = random_shape(r, (it + c.level_offset) % ARMCI_MAX_STRIDE_LEVEL, unit, lim);
    t.shape.loff += lbase;
    t.shape.roff += rbase;
    t.segs = segments_of(t.shape);
  } else {
    const long rspace[2] = {rsp, csp};
    t.plan = random_plan(r, c.op == Op::Put, c.op == Op::Get, unit, c.mode, lsp, rspace);
    for (auto& d : t.plan.desc)
      for (Seg& s : d) {
        s.lo += lbase;
        s.ro += s.alloc == 0 ? rbase : cbase;
      }
    t.segs = t.plan.flat();
  }
  if (c.op == Op::Acc) t.scale = make_scale(c.type, r.one_in(4) ? 0 : 1);
  return t;
}

uint64_t slice_seed(uint64_t tag, int it, int rank, int alloc) {
  return derive(base_seed(), tag, static_cast<uint64_t>(it), static_cast<uint64_t>(1000 + 2 * rank + alloc));
}
uint64_t local_seed(uint64_t tag, int it, int rank) {
  return derive(base_seed(), tag, static_cast<uint64_t>(it), static_cast<uint64_t>(100000 + rank));
}

void issue(const Case& c, const Transfer& t, char* local, char* const remote[2], int target, armci_hdl_t* h) {
  armci_hdl_t* hp = nullptr;
  if (c.completion == Completion::Handle) {
    ARMCI_INIT_HANDLE(h);
    hp = h;
  }
  if (c.api == Api::Strided)
    strided_call(c.op, c.type, t.scale, local, remote[0], t.shape, target, c.nb(), hp);
  else
    iov_call(c.op, c.type, t.scale, local, remote, t.plan, target, c.nb(), hp);
}

void complete(const Case& c, std::vector<armci_hdl_t>& h, int target) {
  switch (c.completion) {
    case Completion::Blocking:
      break;
    case Completion::Handle:
      for (auto it = h.rbegin(); it != h.rend(); ++it) EXPECT_EQ(ARMCI_Wait(&*it), 0);
      break;
    case Completion::NullWaitAll:
      EXPECT_EQ(ARMCI_WaitAll(), 0);
      break;
    case Completion::NullWaitProc:
      EXPECT_EQ(ARMCI_WaitProc(target), 0);
      break;
  }
}

// Every rank is the origin of c.parts operations to (me + shift) and the target of those of (me - shift).
void run_case(const Case& c, int iters, Arena& ar) {
  const int n = nproc(), r = me();
  const int target = (r + c.shift) % n, from = ((r - c.shift) % n + n) % n;
  const uint64_t tag = c.tag();
  const int type = c.type;
  std::vector<char> private_local(kLocalBytes), ref_local(kLocalBytes), ref_a(kSliceBytes), ref_c(kSpanBytes);
  std::vector<char> their_a(kSliceBytes), their_c(kSpanBytes);
  char* const remote[2] = {ar.a.at(target), ar.c.at(target)};
  char* const ref_remote[2] = {ref_a.data(), ref_c.data()};
  char* const their_remote[2] = {their_a.data(), their_c.data()};
  char* const local = c.global_origin ? ar.b.mine() : private_local.data();
  SCOPED_TRACE(c.str() + " | base_seed=" + std::to_string(base_seed()) + " | " + engine_settings());
  for (int it = 0; it < iters; ++it) {
    std::vector<Transfer> mine, incoming;
    for (int p = 0; p < c.parts; ++p) {
      mine.push_back(make_transfer(c, it, r, p));
      incoming.push_back(make_transfer(c, it, from, p));
    }
    {
      Access aa(ar.a.mine()), ac(ar.c.mine());
      fill(ar.a.mine(), kSliceBytes, slice_seed(tag, it, r, 0), type);
      fill(ar.c.mine(), kSpanBytes, slice_seed(tag, it, r, 1), type);
    }
    {
      Access al(local, c.global_origin);
      fill(local, kLocalBytes, local_seed(tag, it, r), type);
    }
    ARMCI_Barrier();
    {
      std::ostringstream os;
      os << "iteration " << it << ": as origin " << r << " -> target " << target;
      for (const Transfer& t : mine) os << "\n  " << t.str(c.api);
      SCOPED_TRACE(os.str());
      std::vector<armci_hdl_t> h(static_cast<std::size_t>(c.parts));
      for (int p = 0; p < c.parts; ++p) {
        if (c.rejected()) {
          // Named strings: the macro's loop over the expected substrings outlives temporaries.
          const std::string call = call_name(c.op, c.api, c.nb()), method = iov_method();
          const char* what = c.mode == IovMode::Span ? "span several allocations" : "overlap";
          EXPECT_ARMCI_ERROR(issue(c, mine[p], local, remote, target, &h[p]), call.c_str(), what, method.c_str());
        } else {
          issue(c, mine[p], local, remote, target, &h[p]);
        }
      }
      complete(c, h, target);
      Access al(local, c.global_origin);
      if (c.op == Op::Get) {
        fill(ref_local.data(), kLocalBytes, local_seed(tag, it, r), type);
        fill(their_a.data(), kSliceBytes, slice_seed(tag, it, target, 0), type);
        fill(their_c.data(), kSpanBytes, slice_seed(tag, it, target, 1), type);
        if (!c.rejected())
          for (const Transfer& t : mine) ref_apply(c.op, type, t.scale, t.segs, ref_local.data(), their_remote);
        std::string d = diff(local, ref_local.data(), kLocalBytes, type);
        EXPECT_TRUE(d.empty()) << "local buffer after the get: " << d;
      } else {
        // The operation is complete locally (returned, or waited for): the origin may reuse its buffer, and
        // the target must not see these new values.
        fill(local, kLocalBytes, ~local_seed(tag, it, r), type);
      }
    }
    ARMCI_Barrier();
    {
      std::ostringstream os;
      os << "iteration " << it << ": as target " << r << " of origin " << from;
      for (const Transfer& t : incoming) os << "\n  " << t.str(c.api);
      SCOPED_TRACE(os.str());
      fill(ref_a.data(), kSliceBytes, slice_seed(tag, it, r, 0), type);
      fill(ref_c.data(), kSpanBytes, slice_seed(tag, it, r, 1), type);
      fill(ref_local.data(), kLocalBytes, local_seed(tag, it, from), type);
      Access aa(ar.a.mine()), ac(ar.c.mine());
      if (c.unordered_overlap()) {
        std::vector<Seg> all;
        for (const Transfer& t : incoming) all.insert(all.end(), t.segs.begin(), t.segs.end());
        std::string d = check_one_of(ar.a.mine(), ref_a.data(), kSliceBytes, all, ref_local.data(), 0);
        EXPECT_TRUE(d.empty()) << "slice of A: " << d;
      } else {
        if (c.op != Op::Get && !c.rejected())
          for (const Transfer& t : incoming) ref_apply(c.op, type, t.scale, t.segs, ref_local.data(), ref_remote);
        std::string d = diff(ar.a.mine(), ref_a.data(), kSliceBytes, type);
        EXPECT_TRUE(d.empty()) << "slice of A: " << d;
      }
      std::string d = diff(ar.c.mine(), ref_c.data(), kSpanBytes, type);
      EXPECT_TRUE(d.empty()) << "slice of C: " << d;
    }
  }
  ARMCI_Barrier();
}

// Runs `c` for self and neighbour targets and both kinds of origin buffer.  With fewer than 8 iterations
// per run, the runs start at different stride levels so that self and neighbour targets, and private and
// global origins, each see as many levels as possible (all of them from 4 iterations per run).
void run_all_targets(Case c, int iters, Arena& ar, bool both_origins = true) {
  const int start[4] = {0, 1, 3, 2};  // in units of `iters`, for (self, private), (self, global), ...
  for (int shift : {0, 1})
    for (bool global : {false, true}) {
      if (global && !both_origins) continue;
      c.shift = shift;
      c.global_origin = global;
      c.level_offset = start[2 * shift + (global ? 1 : 0)] * iters % ARMCI_MAX_STRIDE_LEVEL;
      run_case(c, iters, ar);
    }
}

// ---- 1. randomized strided shapes -------------------------------------------------------------------

TEST(StridedRandom, PutS) {
  Arena ar;
  run_all_targets(Case{Op::Put}, scaled(8), ar);
}

TEST(StridedRandom, GetS) {
  Arena ar;
  Case c;
  c.op = Op::Get;
  run_all_targets(c, scaled(8), ar);
}

TEST(StridedRandom, AccSEveryType) {
  Arena ar;
  for (int type : kAccTypes) {
    Case c;
    c.op = Op::Acc;
    c.type = type;
    run_all_targets(c, scaled(4), ar);
  }
}

// ---- 2. I/O vectors ---------------------------------------------------------------------------------

Case vector_case(Op op, int type, IovMode mode) {
  Case c;
  c.op = op;
  c.type = type;
  c.api = Api::Vector;
  c.mode = mode;
  return c;
}

TEST(IovRandom, PutV) {
  Arena ar;
  run_all_targets(vector_case(Op::Put, kBytes, IovMode::Disjoint), scaled(8), ar);
}

TEST(IovRandom, GetV) {
  Arena ar;
  run_all_targets(vector_case(Op::Get, kBytes, IovMode::Disjoint), scaled(8), ar);
}

// Remote segments of an accumulate vector may overlap (MPI orders accumulates): exact sums.
TEST(IovRandom, AccVEveryType) {
  Arena ar;
  for (int type : kAccTypes) run_all_targets(vector_case(Op::Acc, type, IovMode::Disjoint), scaled(4), ar);
}

// AUTO and CONSRV: in order, later segments win.  BATCHED and DIRECT: an error naming the call.
TEST(IovOverlap, PutVSegmentsOverlapWithinDescriptor) {
  Arena ar;
  run_all_targets(vector_case(Op::Put, kBytes, IovMode::OverlapWithin), scaled(6), ar, false);
}

TEST(IovOverlap, GetVLocalSegmentsOverlapWithinDescriptor) {
  Arena ar;
  run_all_targets(vector_case(Op::Get, kBytes, IovMode::OverlapWithin), scaled(6), ar, false);
}

// Overlap across descriptors only: in order under AUTO/CONSRV, one of the written values otherwise.
TEST(IovOverlap, PutVSegmentsOverlapAcrossDescriptors) {
  Arena ar;
  run_all_targets(vector_case(Op::Put, kBytes, IovMode::OverlapAcross), scaled(6), ar, false);
}

TEST(IovOverlap, AccVOverlappingSegmentsGiveExactSums) {
  Arena ar;
  for (int type : kAccTypes) run_all_targets(vector_case(Op::Acc, type, IovMode::OverlapWithin), scaled(4), ar, false);
}

TEST(IovSpan, SegmentsInTwoAllocations) {
  Arena ar;
  run_all_targets(vector_case(Op::Put, kBytes, IovMode::Span), scaled(4), ar, false);
  run_all_targets(vector_case(Op::Get, kBytes, IovMode::Span), scaled(4), ar, false);
  run_all_targets(vector_case(Op::Acc, ARMCI_ACC_INT, IovMode::Span), scaled(3), ar, false);
  run_all_targets(vector_case(Op::Acc, ARMCI_ACC_DCP, IovMode::Span), scaled(3), ar, false);
}

// ---- 4. non-blocking --------------------------------------------------------------------------------

void run_nonblocking(Api api) {
  Arena ar;
  int k = 0;
  for (Completion comp : {Completion::Handle, Completion::NullWaitAll, Completion::NullWaitProc})
    for (Op op : {Op::Put, Op::Get, Op::Acc}) {
      Case c;
      c.op = op;
      c.api = api;
      c.type = op == Op::Acc ? kAccTypes[k++ % 6] : kBytes;
      c.completion = comp;
      c.parts = 3;
      run_all_targets(c, scaled(2), ar);
    }
}

TEST(Nonblocking, StridedWithHandlesAndNullHandles) {
  run_nonblocking(Api::Strided);
}

// 128 KiB in 512 rows: more than one chunk of the PACK engine even at the default ARMCI_PACK_CHUNK (64k),
// so the pipelined path runs under a handle, and under the implicit request of a NULL handle.
TEST(Nonblocking, LargeStridedPutAndAccUnderOneHandle) {
  Arena ar;
  const int n = nproc(), r = me(), target = (r + 1) % n, from = (r + n - 1) % n;
  const int rows = 512, row = 256;
  int count[2] = {row, rows}, lstride[1] = {row + 16}, rstride[1] = {row + 8};
  std::vector<char> local(static_cast<std::size_t>(rows) * (row + 16));
  const Scale scale = make_scale(ARMCI_ACC_DBL, 1);
  auto source = [&](int origin, int k) {  // the values origin sends in step k
    std::vector<char> v(local.size());
    fill(v.data(), static_cast<long>(v.size()), derive(base_seed(), 77, origin, k), ARMCI_ACC_DBL);
    return v;
  };
  for (bool null_handle : {false, true}) {
    SCOPED_TRACE(std::string(null_handle ? "NULL handle + ARMCI_WaitAll" : "handle + ARMCI_Wait") + " | " +
                 engine_settings());
    {
      Access aa(ar.a.mine());
      fill(ar.a.mine(), kSliceBytes, derive(base_seed(), 77, r, 99), ARMCI_ACC_DBL);
    }
    ARMCI_Barrier();
    for (int k = 0; k < 2; ++k) {  // k = 0: NbPutS, k = 1: NbAccS over the same rows
      local = source(r, k);
      armci_hdl_t h;
      ARMCI_INIT_HANDLE(&h);
      armci_hdl_t* hp = null_handle ? nullptr : &h;
      if (k == 0)
        EXPECT_EQ(ARMCI_NbPutS(local.data(), lstride, ar.a.at(target), rstride, count, 1, target, hp), 0);
      else
        EXPECT_EQ(ARMCI_NbAccS(ARMCI_ACC_DBL, const_cast<void*>(scale.ptr()), local.data(), lstride, ar.a.at(target),
                               rstride, count, 1, target, hp),
                  0);
      EXPECT_EQ(null_handle ? ARMCI_WaitAll() : ARMCI_Wait(&h), 0);
      std::fill(local.begin(), local.end(), 0);  // complete locally: the target must not see this
    }
    ARMCI_Barrier();
    std::vector<char> ref(kSliceBytes);
    fill(ref.data(), kSliceBytes, derive(base_seed(), 77, r, 99), ARMCI_ACC_DBL);
    for (int k = 0; k < 2; ++k) {
      std::vector<char> src = source(from, k);
      for (int i = 0; i < rows; ++i) {
        char* dst = ref.data() + static_cast<long>(i) * rstride[0];
        const char* s = src.data() + static_cast<long>(i) * lstride[0];
        if (k == 0)
          std::memcpy(dst, s, row);
        else
          acc_ref(ARMCI_ACC_DBL, scale, dst, s, row);
      }
    }
    {
      Access aa(ar.a.mine());
      std::string d = diff(ar.a.mine(), ref.data(), kSliceBytes, ARMCI_ACC_DBL);
      EXPECT_TRUE(d.empty()) << "target " << r << " after NbPutS + NbAccS from " << from << ": " << d;
    }
    ARMCI_Barrier();
  }
}
TEST(Nonblocking, VectorWithHandlesAndNullHandles) {
  run_nonblocking(Api::Vector);
}

// ---- 3. accumulate atomicity and ordering ----------------------------------------------------------------

// Every rank accumulates `reps` random transfers, with its own scale, into the first 4 KiB of one target's
// slice, concurrently and without synchronisation: the transfers overlap within and across ranks, and the
// result must be the exact sum.
void run_concurrent_acc(Api api, int type, int iters, Arena& ar) {
  const int n = nproc(), r = me(), reps = 6;
  Case c;
  c.op = Op::Acc;
  c.type = type;
  c.api = api;
  const uint64_t tag = fnv1a("concurrent " + c.str());
  const int unit = elem_size(type);
  Limits lim;
  lim.max_bytes = 2048;
  lim.rspace = 4096;
  lim.lspace = 16 * 1024;
  const long rspace[2] = {lim.rspace, lim.rspace};
  auto make = [&](int it, int origin, int rep) {
    Transfer t;
    t.seed = derive(base_seed(), tag, static_cast<uint64_t>(it), static_cast<uint64_t>(origin * 64 + rep));
    Rng g(t.seed);
    if (api == Api::Strided) {
      t.shape = random_shape(g, (it + rep) % ARMCI_MAX_STRIDE_LEVEL, unit, lim);
      t.segs = segments_of(t.shape);
    } else {
      t.plan = random_plan(g, false, false, unit, IovMode::OverlapWithin, lim.lspace, rspace);
      t.segs = t.plan.flat();
    }
    t.scale = make_scale(type, origin + 1 + rep % 2);
    return t;
  };
  std::vector<char> local(static_cast<std::size_t>(lim.lspace)), ref(kSliceBytes);
  char* const ref_remote[2] = {ref.data(), nullptr};
  SCOPED_TRACE(std::string("concurrent accumulates: ") + c.str() + " | base_seed=" + std::to_string(base_seed()) +
               " | " + engine_settings());
  for (int it = 0; it < iters; ++it) {
    const int target = it % n;
    char* const remote[2] = {ar.a.at(target), nullptr};
    {
      Access aa(ar.a.mine());
      fill(ar.a.mine(), kSliceBytes, slice_seed(tag, it, r, 0), type);
    }
    fill(local.data(), lim.lspace, local_seed(tag, it, r), type);
    ARMCI_Barrier();
    for (int rep = 0; rep < reps; ++rep) {
      Transfer t = make(it, r, rep);
      SCOPED_TRACE("iteration " + std::to_string(it) + " rep " + std::to_string(rep) + " origin " + std::to_string(r) +
                   ": " + t.str(api));
      if (api == Api::Strided)
        strided_call(Op::Acc, type, t.scale, local.data(), remote[0], t.shape, target, false, nullptr);
      else
        iov_call(Op::Acc, type, t.scale, local.data(), remote, t.plan, target, false, nullptr);
    }
    ARMCI_Barrier();
    if (r == target) {
      fill(ref.data(), kSliceBytes, slice_seed(tag, it, r, 0), type);
      for (int q = 0; q < n; ++q) {
        fill(local.data(), lim.lspace, local_seed(tag, it, q), type);
        for (int rep = 0; rep < reps; ++rep) {
          Transfer t = make(it, q, rep);
          ref_apply(Op::Acc, type, t.scale, t.segs, local.data(), ref_remote);
        }
      }
      Access aa(ar.a.mine());
      std::string d = diff(ar.a.mine(), ref.data(), kSliceBytes, type);
      EXPECT_TRUE(d.empty()) << "iteration " << it << " target " << r << ": " << d;
    }
  }
  ARMCI_Barrier();
}

TEST(AccAtomicity, ConcurrentOverlappingAccSGiveExactSums) {
  Arena ar;
  for (int type : kAccTypes) run_concurrent_acc(Api::Strided, type, scaled(4), ar);
}

TEST(AccAtomicity, ConcurrentOverlappingAccVGiveExactSums) {
  Arena ar;
  for (int type : kAccTypes) run_concurrent_acc(Api::Vector, type, scaled(4), ar);
}

// Location consistency: put, accumulate, accumulate, get from one origin to the same segments, with no
// fence, see each other in issue order.  Each step picks the strided or the vector call (same segments),
// so the ordering also holds across the two engines.  The origin reuses its buffer between the steps.
TEST(Ordering, PutAccAccGetSeeEachOtherInIssueOrder) {
  Arena ar;
  const int n = nproc(), r = me(), iters = scaled(48);
  const uint64_t tag = fnv1a("ordering");
  const long half = kLocalBytes / 2;
  std::vector<char> private_local(kLocalBytes), ref_local(kLocalBytes), ref_a(kSliceBytes);
  struct Plan {
    Transfer t;
    int type, shift;
    bool global;
    bool vec[4];
    uint64_t seeds[4];
    std::string str() const {
      std::ostringstream os;
      os << "type=" << type_name(type) << " shift=" << shift << " origin_in_global_memory=" << global << " steps=";
      for (int i = 0; i < 4; ++i) os << (i ? "," : "") << (vec[i] ? "V" : "S");
      os << " " << t.str(Api::Strided);
      return os.str();
    }
  };
  auto make = [&](int it, int origin) {
    Plan p;
    p.type = kAccTypes[it % 6];
    p.shift = (it / 6) % 2;
    p.global = (it / 12) % 2 == 1;
    p.t.seed = derive(base_seed(), tag, static_cast<uint64_t>(it), static_cast<uint64_t>(origin));
    Rng g(p.t.seed);
    Limits lim;
    lim.lspace = half;
    p.t.shape = random_shape(g, it % ARMCI_MAX_STRIDE_LEVEL, elem_size(p.type), lim);
    p.t.segs = segments_of(p.t.shape);
    p.t.plan = plan_from_shape(p.t.shape);
    p.t.scale = make_scale(p.type, 1);
    for (int i = 0; i < 4; ++i) {
      p.vec[i] = g.one_in(2);
      p.seeds[i] = g.next();
    }
    return p;
  };
  // Reference: the target slice after the four steps, and the get's result buffer.
  auto reference = [&](const Plan& p, int it, int target, char* slice, char* result) {
    char* const rem[2] = {slice, nullptr};
    fill(slice, kSliceBytes, slice_seed(tag, it, target, 0), p.type);
    fill(ref_local.data(), half, p.seeds[0], p.type);
    ref_apply(Op::Put, p.type, p.t.scale, p.t.segs, ref_local.data(), rem);
    fill(ref_local.data(), half, p.seeds[1], p.type);
    ref_apply(Op::Acc, p.type, p.t.scale, p.t.segs, ref_local.data(), rem);
    fill(ref_local.data(), half, p.seeds[2], p.type);
    ref_apply(Op::Acc, p.type, p.t.scale, p.t.segs, ref_local.data(), rem);
    if (result) {
      fill(result, half, p.seeds[3], p.type);
      ref_apply(Op::Get, p.type, p.t.scale, p.t.segs, result, rem);
    }
  };
  SCOPED_TRACE("base_seed=" + std::to_string(base_seed()) + " | " + engine_settings());
  for (int it = 0; it < iters; ++it) {
    Plan p = make(it, r);
    const int target = (r + p.shift) % n, from = ((r - p.shift) % n + n) % n;
    {
      Access aa(ar.a.mine());
      fill(ar.a.mine(), kSliceBytes, slice_seed(tag, it, r, 0), p.type);
    }
    ARMCI_Barrier();
    {
      SCOPED_TRACE("iteration " + std::to_string(it) + ": origin " + std::to_string(r) + " -> target " +
                   std::to_string(target) + " " + p.str());
      char* local = p.global ? ar.b.mine() : private_local.data();
      char* const remote[2] = {ar.a.at(target), nullptr};
      const Op ops[4] = {Op::Put, Op::Acc, Op::Acc, Op::Get};
      for (int i = 0; i < 4; ++i) {
        char* base = i == 3 ? local + half : local;
        {
          Access al(local, p.global);
          fill(base, half, p.seeds[i], p.type);
        }
        if (p.vec[i])
          iov_call(ops[i], p.type, p.t.scale, base, remote, p.t.plan, target, false, nullptr);
        else
          strided_call(ops[i], p.type, p.t.scale, base, remote[0], p.t.shape, target, false, nullptr);
      }
      reference(p, it, target, ref_a.data(), ref_local.data() + half);
      Access al(local, p.global);
      std::string d = diff(local + half, ref_local.data() + half, half, p.type);
      EXPECT_TRUE(d.empty()) << "result of the get: " << d;
    }
    ARMCI_Barrier();
    Plan q = make(it, from);
    SCOPED_TRACE("iteration " + std::to_string(it) + ": target " + std::to_string(r) + " of origin " +
                 std::to_string(from) + " " + q.str());
    reference(q, it, r, ref_a.data(), nullptr);
    Access aa(ar.a.mine());
    std::string d = diff(ar.a.mine(), ref_a.data(), kSliceBytes, p.type);
    EXPECT_TRUE(d.empty()) << "target slice: " << d;
  }
  ARMCI_Barrier();
}

// Many 200-byte rows with gaps between them on the target: with ARMCI_STRIDED_METHOD=PACK and a small
// ARMCI_PACK_CHUNK this is dozens of pipelined chunks through two reused pack buffers.
TEST(Strided, ManyRowsWithGapsArriveIntact) {
  Arena ar;
  const int n = nproc(), r = me(), target = (r + 1) % n, from = (r + n - 1) % n;
  int count[2] = {200, 324}, lstride[1] = {216}, rstride[1] = {232};
  std::vector<char> local(static_cast<std::size_t>(count[1]) * lstride[0]), ref(kSliceBytes);
  const Scale scale = make_scale(ARMCI_ACC_DBL, 1);
  for (int rep = 0; rep < 6; ++rep) {
    const bool acc = rep % 2 == 1;
    const int type = acc ? ARMCI_ACC_DBL : kBytes;
    SCOPED_TRACE(std::string(acc ? "ARMCI_AccS" : "ARMCI_PutS") + " of count={200,324} local_stride={216} " +
                 "remote_stride={232}, repetition " + std::to_string(rep) + " | " + engine_settings());
    auto seed = [&](int rank, int what) { return derive(base_seed(), 4242, rep * 16 + what, rank); };
    {
      Access aa(ar.a.mine());
      fill(ar.a.mine(), kSliceBytes, seed(r, 0), type);
    }
    fill(local.data(), static_cast<long>(local.size()), seed(r, 1), type);
    ARMCI_Barrier();
    if (acc)
      EXPECT_EQ(ARMCI_AccS(ARMCI_ACC_DBL, const_cast<void*>(scale.ptr()), local.data(), lstride, ar.a.at(target),
                           rstride, count, 1, target),
                0);
    else
      EXPECT_EQ(ARMCI_PutS(local.data(), lstride, ar.a.at(target), rstride, count, 1, target), 0);
    ARMCI_Barrier();
    fill(ref.data(), kSliceBytes, seed(r, 0), type);
    fill(local.data(), static_cast<long>(local.size()), seed(from, 1), type);
    for (int i = 0; i < count[1]; ++i) {
      char* dst = ref.data() + static_cast<long>(i) * rstride[0];
      const char* src = local.data() + static_cast<long>(i) * lstride[0];
      if (acc)
        acc_ref(ARMCI_ACC_DBL, scale, dst, src, count[0]);
      else
        std::memcpy(dst, src, static_cast<std::size_t>(count[0]));
    }
    Access aa(ar.a.mine());
    std::string d = diff(ar.a.mine(), ref.data(), kSliceBytes, type);
    EXPECT_TRUE(d.empty()) << "target " << r << " (origin " << from << "): " << d;
  }
  ARMCI_Barrier();
}

// ---- 5. armci_read_strided / armci_write_strided ----------------------------------------------------------
// write packs the strided region into the buffer, read unpacks the buffer into the region (the direction
// ARMCI-MPI 0.3.1 and classic ARMCI use; GA's ghost-cell exchange depends on it).

// Runs longer than a chunk and than the accumulate piece (to another node: IOV, each run's accumulate in
// pieces of at most 56 KiB, transfer/rma.h), with gaps between them on both sides, every ARMCI type.
TEST(Strided, LongRunsArriveIntactAndSumExactly) {
  Arena ar;
  const int n = nproc(), r = me(), target = (r + 1) % n, from = (r + n - 1) % n;
  const int run = 60000, rows = 2;  // 60,000 bytes: a multiple of 8 and 16, above one 56 KiB piece
  ASSERT_LE(static_cast<long>(rows) * (run + 160), kSliceBytes);
  int count[2] = {run, rows}, lstride[1] = {run + 48}, rstride[1] = {run + 160};
  std::vector<char> local(static_cast<std::size_t>(rows) * lstride[0]), ref(kSliceBytes);
  const int types[] = {kBytes,        ARMCI_ACC_INT, ARMCI_ACC_LNG, ARMCI_ACC_FLT,
                       ARMCI_ACC_DBL, ARMCI_ACC_CPL, ARMCI_ACC_DCP};
  for (int type : types) {
    const bool acc = type != kBytes;
    const Scale scale = make_scale(acc ? type : ARMCI_ACC_DBL, 3);
    SCOPED_TRACE(std::string(acc ? "ARMCI_AccS" : "ARMCI_PutS") + " of 2 runs of 60000 bytes, type " +
                 std::to_string(type) + " | " + engine_settings());
    auto seed = [&](int rank, int what) { return derive(base_seed(), 4343, (type + 2) * 16 + what, rank); };
    {
      Access aa(ar.a.mine());
      fill(ar.a.mine(), kSliceBytes, seed(r, 0), acc ? type : kBytes);
    }
    fill(local.data(), static_cast<long>(local.size()), seed(r, 1), acc ? type : kBytes);
    ARMCI_Barrier();
    if (acc)
      EXPECT_EQ(ARMCI_AccS(type, const_cast<void*>(scale.ptr()), local.data(), lstride, ar.a.at(target), rstride, count,
                           1, target),
                0);
    else
      EXPECT_EQ(ARMCI_PutS(local.data(), lstride, ar.a.at(target), rstride, count, 1, target), 0);
    ARMCI_Barrier();
    fill(ref.data(), kSliceBytes, seed(r, 0), acc ? type : kBytes);
    fill(local.data(), static_cast<long>(local.size()), seed(from, 1), acc ? type : kBytes);
    for (int i = 0; i < rows; ++i) {
      char* dst = ref.data() + static_cast<long>(i) * rstride[0];
      const char* src = local.data() + static_cast<long>(i) * lstride[0];
      if (acc)
        acc_ref(type, scale, dst, src, run);
      else
        std::memcpy(dst, src, static_cast<std::size_t>(run));
    }
    Access aa(ar.a.mine());
    std::string d = diff(ar.a.mine(), ref.data(), kSliceBytes, acc ? type : kBytes);
    EXPECT_TRUE(d.empty()) << "target " << r << " (origin " << from << "): " << d;
    ARMCI_Barrier();
  }
  ARMCI_Barrier();
}

TEST(LocalStrided, WritePacksAndReadUnpacks) {
  int region[4][10];  // a 4 x 2 int patch at column 0 of a 4 x 10 array
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 10; ++j) region[i][j] = 10 * i + j;
  int stride[1] = {10 * static_cast<int>(sizeof(int))};
  int count[2] = {2 * static_cast<int>(sizeof(int)), 4};
  int buf[8];
  std::fill(buf, buf + 8, -1);
  armci_write_strided(&region[0][0], 1, stride, count, reinterpret_cast<char*>(buf));
  const int packed[8] = {0, 1, 10, 11, 20, 21, 30, 31};
  for (int k = 0; k < 8; ++k) EXPECT_EQ(buf[k], packed[k]) << "armci_write_strided: buffer element " << k;
  EXPECT_EQ(region[3][1], 31) << "armci_write_strided changed the region";
  for (int k = 0; k < 8; ++k) buf[k] = -k;
  armci_read_strided(&region[0][0], 1, stride, count, reinterpret_cast<char*>(buf));
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 10; ++j)
      EXPECT_EQ(region[i][j], j < 2 ? -(2 * i + j) : 10 * i + j)
          << "armci_read_strided: region[" << i << "][" << j << "]";
}

TEST(LocalStrided, ReadAndWriteMatchReference) {
  const uint64_t tag = fnv1a("local strided");
  std::vector<char> region(kLocalBytes), want_region(kLocalBytes), buf(kMaxBytes), want_buf(kMaxBytes);
  for (int it = 0; it < 96; ++it) {
    const uint64_t seed = derive(base_seed(), tag, static_cast<uint64_t>(it), static_cast<uint64_t>(me()));
    Rng g(seed);
    Limits lim;
    lim.rspace = kLocalBytes;
    Shape s = random_shape(g, it % ARMCI_MAX_STRIDE_LEVEL, 1, lim);
    SCOPED_TRACE("iteration " + std::to_string(it) + " seed=" + std::to_string(seed) +
                 " base_seed=" + std::to_string(base_seed()) + " " + s.str() + " (the local stride is used)");
    const long total = s.bytes();
    int count[ARMCI_MAX_STRIDE_LEVEL + 1], stride[ARMCI_MAX_STRIDE_LEVEL];
    std::memcpy(count, s.count, sizeof count);
    std::memcpy(stride, s.lstride, sizeof stride);
    const std::vector<Seg> segs = segments_of(s);

    fill(region.data(), kLocalBytes, g.next(), kBytes);
    fill(buf.data(), kMaxBytes, g.next(), kBytes);
    want_buf = buf;
    long k = 0;
    for (const Seg& sg : segs) {
      std::memcpy(want_buf.data() + k, region.data() + sg.lo, static_cast<std::size_t>(sg.bytes));
      k += sg.bytes;
    }
    armci_write_strided(region.data() + s.loff, s.levels, stride, count, buf.data());
    std::string d = diff(buf.data(), want_buf.data(), kMaxBytes, kBytes);
    EXPECT_TRUE(d.empty()) << "armci_write_strided: buffer (" << total << " bytes expected): " << d;

    fill(buf.data(), kMaxBytes, g.next(), kBytes);
    want_region = region;
    k = 0;
    for (const Seg& sg : segs) {
      std::memcpy(want_region.data() + sg.lo, buf.data() + k, static_cast<std::size_t>(sg.bytes));
      k += sg.bytes;
    }
    armci_read_strided(region.data() + s.loff, s.levels, stride, count, buf.data());
    d = diff(region.data(), want_region.data(), kLocalBytes, kBytes);
    EXPECT_TRUE(d.empty()) << "armci_read_strided: region: " << d;
  }
}

// ARMCI_MAX_STRIDE_LEVEL (8) levels is legal, as in classic ARMCI: 2^8 segments of 8 bytes, the remote side
// with a gap after every segment.  Put, read back with GetS and a plain Get of the whole slice (gaps
// untouched), then AccS doubles it.
TEST(Strided, EightLevelsAsClassicArmci) {
  const int np = nproc(), r = me();
  const int t = (r + 1) % np;
  constexpr int L = ARMCI_MAX_STRIDE_LEVEL;
  constexpr int kSlice = 4096;
  std::vector<void*> ptrs(np);
  ASSERT_EQ(ARMCI_Malloc(ptrs.data(), kSlice), 0);
  std::memset(ptrs[r], 0, kSlice);
  ARMCI_Barrier();
  int count[L + 1], ls[L], rs[L];
  count[0] = 8;
  for (int i = 1; i <= L; ++i) count[i] = 2;
  for (int i = 0; i < L; ++i) {
    ls[i] = 8 << i;   // compact: 2 KiB in all
    rs[i] = 16 << i;  // 8-byte gap after each segment: spans 4088 bytes
  }
  std::vector<double> src(256), back(256, -1.0);
  for (int k = 0; k < 256; ++k) src[k] = 1000.0 * r + k;
  ASSERT_EQ(ARMCI_PutS(src.data(), ls, ptrs[t], rs, count, L, t), 0);
  ASSERT_EQ(ARMCI_GetS(ptrs[t], rs, back.data(), ls, count, L, t), 0);
  EXPECT_EQ(back, src);
  // Segment k lands at remote offset 16 * k (k's bits select the strides); odd 8-byte words stay zero.
  std::vector<double> image(kSlice / sizeof(double), -1.0);
  ASSERT_EQ(ARMCI_Get(ptrs[t], image.data(), kSlice, t), 0);
  for (int k = 0; k < 256; ++k) {
    EXPECT_EQ(image[2 * k], src[k]) << "segment " << k;
    EXPECT_EQ(image[2 * k + 1], 0.0) << "gap after segment " << k;
  }
  double one = 1.0;
  ASSERT_EQ(ARMCI_AccS(ARMCI_ACC_DBL, &one, src.data(), ls, ptrs[t], rs, count, L, t), 0);
  ASSERT_EQ(ARMCI_GetS(ptrs[t], rs, back.data(), ls, count, L, t), 0);
  for (int k = 0; k < 256; ++k) EXPECT_EQ(back[k], 2 * src[k]) << "segment " << k;
  ARMCI_Barrier();
  ARMCI_Free(ptrs[r]);
}

// ---- zero-sized transfers ----------------------------------------------------------------------------------

TEST(Strided, ZeroCountsMoveNothing) {
  Arena ar;
  const int n = nproc(), r = me(), target = (r + 1) % n;
  const uint64_t tag = fnv1a("zero counts");
  {
    Access aa(ar.a.mine());
    fill(ar.a.mine(), kSliceBytes, slice_seed(tag, 0, r, 0), kBytes);
  }
  ARMCI_Barrier();
  std::vector<char> local(4096, 7), before = local;
  char* rem = ar.a.at(target);
  int stride[2] = {64, 512};
  double two = 2;
  for (auto count : {std::vector<int>{0, 4, 2}, std::vector<int>{16, 0, 2}, std::vector<int>{16, 4, 0}}) {
    SCOPED_TRACE("count = {" + std::to_string(count[0]) + "," + std::to_string(count[1]) + "," +
                 std::to_string(count[2]) + "}");
    EXPECT_EQ(ARMCI_PutS(local.data(), stride, rem, stride, count.data(), 2, target), 0);
    EXPECT_EQ(ARMCI_AccS(ARMCI_ACC_DBL, &two, local.data(), stride, rem, stride, count.data(), 2, target), 0);
    EXPECT_EQ(ARMCI_GetS(rem, stride, local.data(), stride, count.data(), 2, target), 0);
    EXPECT_TRUE(local == before) << "ARMCI_GetS with a zero count wrote to the local buffer";
  }
  void* src[2] = {local.data(), local.data() + 64};
  void* dst[2] = {rem, rem + 64};
  armci_giov_t v[2] = {{src, dst, 0, 2}, {src, dst, 16, 0}};
  EXPECT_EQ(ARMCI_PutV(v, 2, target), 0);
  EXPECT_EQ(ARMCI_AccV(ARMCI_ACC_DBL, &two, v, 2, target), 0);
  EXPECT_EQ(ARMCI_PutV(v, 0, target), 0);
  ARMCI_Barrier();
  std::vector<char> ref(kSliceBytes);
  fill(ref.data(), kSliceBytes, slice_seed(tag, 0, r, 0), kBytes);
  Access aa(ar.a.mine());
  std::string d = diff(ar.a.mine(), ref.data(), kSliceBytes, kBytes);
  EXPECT_TRUE(d.empty()) << "zero-sized transfers changed the target: " << d;
}

// ---- 6. bad input ---------------------------------------------------------------------------------------

TEST(BadInput, StridedCallsNameTheCallAndArgument) {
  Arena ar;
  const int n = nproc(), r = me(), p = (r + 1) % n;
  char* rem = ar.a.at(p);
  alignas(16) char loc[1024] = {};
  alignas(16) char not_global[1024] = {};
  int ok_s[2] = {64, 512}, small_s[2] = {8, 512}, cnt[3] = {16, 4, 2};
  double two = 2;

  // Counts.
  {
    int c[2] = {-1, 2};
    EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, ok_s, rem, ok_s, c, 1, p), "ARMCI_PutS", "'count[0]' = -1");
    EXPECT_ARMCI_ERROR(ARMCI_GetS(rem, ok_s, loc, ok_s, c, 1, p), "ARMCI_GetS", "'count[0]' = -1");
    EXPECT_ARMCI_ERROR(ARMCI_AccS(ARMCI_ACC_DBL, &two, loc, ok_s, rem, ok_s, c, 1, p), "ARMCI_AccS", "'count[0]' = -1");
    int c1[3] = {16, 2, -3};
    EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, ok_s, rem, ok_s, c1, 2, p), "ARMCI_PutS", "'count[2]' = -3");
  }
  // Strides smaller than the block they stride over (only where the level repeats).
  {
    int c[2] = {16, 2};
    EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, small_s, rem, ok_s, c, 1, p), "ARMCI_PutS", "'src_stride_arr[0]' = 8",
                       "smaller than");
    EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, ok_s, rem, small_s, c, 1, p), "ARMCI_PutS", "'dst_stride_arr[0]' = 8");
    EXPECT_ARMCI_ERROR(ARMCI_GetS(rem, small_s, loc, ok_s, c, 1, p), "ARMCI_GetS", "'src_stride_arr[0]' = 8");
    EXPECT_ARMCI_ERROR(ARMCI_GetS(rem, ok_s, loc, small_s, c, 1, p), "ARMCI_GetS", "'dst_stride_arr[0]' = 8");
    EXPECT_ARMCI_ERROR(ARMCI_AccS(ARMCI_ACC_DBL, &two, loc, small_s, rem, ok_s, c, 1, p), "ARMCI_AccS",
                       "'src_stride_arr[0]' = 8");
    EXPECT_ARMCI_ERROR(ARMCI_AccS(ARMCI_ACC_DBL, &two, loc, ok_s, rem, small_s, c, 1, p), "ARMCI_AccS",
                       "'dst_stride_arr[0]' = 8");
    // Level 2 must clear the whole level-1 block: 8 + 2 * 8 = 24 bytes > 20.
    int c2[3] = {8, 3, 2}, s2[2] = {8, 20};
    EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, ok_s, rem, s2, c2, 2, p), "ARMCI_PutS", "'dst_stride_arr[1]' = 20");
    int neg[2] = {-16, 512};
    EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, neg, rem, ok_s, c, 1, p), "ARMCI_PutS", "'src_stride_arr[0]' = -16");
  }
  // stride_levels out of range.
  {
    int c[ARMCI_MAX_STRIDE_LEVEL + 2] = {8, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    int s[ARMCI_MAX_STRIDE_LEVEL + 1] = {8, 8, 8, 8, 8, 8, 8, 8, 8};
    EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, s, rem, s, c, -1, p), "ARMCI_PutS", "'stride_levels' = -1");
    EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, s, rem, s, c, 9, p), "ARMCI_PutS", "'stride_levels' = 9", "(0..8)");
    EXPECT_ARMCI_ERROR(ARMCI_GetS(rem, s, loc, s, c, 9, p), "ARMCI_GetS", "'stride_levels' = 9");
    EXPECT_ARMCI_ERROR(ARMCI_AccS(ARMCI_ACC_DBL, &two, loc, s, rem, s, c, 9, p), "ARMCI_AccS", "'stride_levels' = 9");
  }
  // NULL arrays and pointers.
  EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, ok_s, rem, ok_s, nullptr, 1, p), "ARMCI_PutS", "'count' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_GetS(rem, ok_s, loc, ok_s, nullptr, 0, p), "ARMCI_GetS", "'count' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, nullptr, rem, ok_s, cnt, 2, p), "ARMCI_PutS", "'src_stride_arr' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, ok_s, rem, nullptr, cnt, 2, p), "ARMCI_PutS", "'dst_stride_arr' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_GetS(rem, nullptr, loc, ok_s, cnt, 2, p), "ARMCI_GetS", "'src_stride_arr' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_GetS(rem, ok_s, loc, nullptr, cnt, 2, p), "ARMCI_GetS", "'dst_stride_arr' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_AccS(ARMCI_ACC_DBL, &two, loc, nullptr, rem, ok_s, cnt, 2, p), "ARMCI_AccS",
                     "'src_stride_arr' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_PutS(nullptr, ok_s, rem, ok_s, cnt, 2, p), "ARMCI_PutS", "'src_ptr' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, ok_s, nullptr, ok_s, cnt, 2, p), "ARMCI_PutS", "'dst_ptr' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_GetS(nullptr, ok_s, loc, ok_s, cnt, 2, p), "ARMCI_GetS", "'src_ptr' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_GetS(rem, ok_s, nullptr, ok_s, cnt, 2, p), "ARMCI_GetS", "'dst_ptr' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_AccS(ARMCI_ACC_DBL, &two, nullptr, ok_s, rem, ok_s, cnt, 2, p), "ARMCI_AccS",
                     "'src_ptr' is NULL");
  // Remote range past the end of the allocation: extent 16 + 3 * 64 + 512 = 720 bytes from 100 before the end.
  char* near_end = rem + kSliceBytes - 100;
  EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, ok_s, near_end, ok_s, cnt, 2, p), "ARMCI_PutS", "'dst_ptr'", "run past the end");
  EXPECT_ARMCI_ERROR(ARMCI_GetS(near_end, ok_s, loc, ok_s, cnt, 2, p), "ARMCI_GetS", "'src_ptr'", "run past the end");
  EXPECT_ARMCI_ERROR(ARMCI_AccS(ARMCI_ACC_DBL, &two, loc, ok_s, near_end, ok_s, cnt, 2, p), "ARMCI_AccS", "'dst_ptr'",
                     "run past the end");
  {
    // One level: 4 rows of 16 bytes 64 apart end 16 bytes past the slice, though the first row fits.
    int c[2] = {16, 4};
    EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, ok_s, rem + kSliceBytes - 192, ok_s, c, 1, p), "ARMCI_PutS", "run past the end");
  }
  // Remote address in no allocation.
  EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, ok_s, not_global, ok_s, cnt, 2, p), "ARMCI_PutS", "'dst_ptr'",
                     "not inside memory allocated");
  EXPECT_ARMCI_ERROR(ARMCI_GetS(not_global, ok_s, loc, ok_s, cnt, 2, p), "ARMCI_GetS", "'src_ptr'",
                     "not inside memory allocated");
  EXPECT_ARMCI_ERROR(ARMCI_AccS(ARMCI_ACC_DBL, &two, loc, ok_s, not_global, ok_s, cnt, 2, p), "ARMCI_AccS", "'dst_ptr'",
                     "not inside memory allocated");
  // Bad process.
  EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, ok_s, rem, ok_s, cnt, 2, n), "ARMCI_PutS", "'proc'");
  EXPECT_ARMCI_ERROR(ARMCI_GetS(rem, ok_s, loc, ok_s, cnt, 2, -1), "ARMCI_GetS", "'proc'");
  // Accumulate specifics.
  {
    int c[2] = {6, 4};
    int s[1] = {64};
    EXPECT_ARMCI_ERROR(ARMCI_AccS(ARMCI_ACC_DBL, &two, loc, s, rem, s, c, 1, p), "ARMCI_AccS", "'count[0]' = 6",
                       "not a multiple");
    int c16[2] = {12, 4};
    cdouble z(1, 1);
    EXPECT_ARMCI_ERROR(ARMCI_AccS(ARMCI_ACC_DCP, &z, loc, s, rem, s, c16, 1, p), "ARMCI_AccS", "'count[0]' = 12",
                       "not a multiple");
    EXPECT_ARMCI_ERROR(ARMCI_AccS(42, &two, loc, ok_s, rem, ok_s, cnt, 2, p), "ARMCI_AccS", "'datatype' = 42");
    EXPECT_ARMCI_ERROR(ARMCI_AccS(-1, &two, loc, ok_s, rem, ok_s, cnt, 2, p), "ARMCI_AccS", "'datatype' = -1");
    EXPECT_ARMCI_ERROR(ARMCI_AccS(ARMCI_ACC_DBL, nullptr, loc, ok_s, rem, ok_s, cnt, 2, p), "ARMCI_AccS",
                       "'scale' is NULL");
  }
  // Non-blocking forms name themselves (NULL handles: nothing is left to wait for but the implicit request).
  {
    int c[2] = {-1, 2};
    EXPECT_ARMCI_ERROR(ARMCI_NbPutS(loc, ok_s, rem, ok_s, c, 1, p, nullptr), "ARMCI_NbPutS", "'count[0]' = -1");
    EXPECT_ARMCI_ERROR(ARMCI_NbGetS(rem, small_s, loc, ok_s, cnt, 1, p, nullptr), "ARMCI_NbGetS",
                       "'src_stride_arr[0]' = 8");
    EXPECT_ARMCI_ERROR(ARMCI_NbAccS(42, &two, loc, ok_s, rem, ok_s, cnt, 2, p, nullptr), "ARMCI_NbAccS",
                       "'datatype' = 42");
    EXPECT_ARMCI_ERROR(ARMCI_NbPutS(loc, ok_s, not_global, ok_s, cnt, 2, p, nullptr), "ARMCI_NbPutS", "'dst_ptr'");
  }
  ARMCI_Barrier();
}

// Stride levels 0 -- GA's 1-D sections -- is one segment, which the strided dispatch issues as the contiguous
// operation without building a shape (src/transfer/strided.cc, one_segment): the same data and the same checks
// as a shaped call, to every target (itself, its node, other nodes), blocking and under a handle, with NULL
// stride arrays (unused at levels 0).
TEST(OneSegment, LevelsZeroMovesDataToEveryTarget) {
  Arena ar;
  const int n = nproc(), r = me();
  constexpr int kArea = 64;  // bytes; per origin: put | nb put | acc (twice) | spare
  auto area = [&](int t, int origin, int k) { return ar.a.at(t) + (origin * 4 + k) * kArea; };
  auto byte_of = [](int origin, int t, int k, int i) {
    return static_cast<char>((origin * 31 + t * 7 + k * 3 + i) & 0x7f);
  };
  {
    Access acc(ar.a.mine());
    std::memset(ar.a.mine(), 0, static_cast<std::size_t>(n) * 4 * kArea);
  }
  ARMCI_Barrier();
  int bytes[1] = {kArea};
  double two = 2;
  for (int t = 0; t < n; ++t) {
    char put_src[kArea], nb_src[kArea];
    for (int i = 0; i < kArea; ++i) {
      put_src[i] = byte_of(r, t, 0, i);
      nb_src[i] = byte_of(r, t, 1, i);
    }
    double acc_src[kArea / 8];
    for (int i = 0; i < kArea / 8; ++i) acc_src[i] = (r + 1) * 100.0 + t * 10 + i;
    // Levels 0 with NULL strides (unused), or 2 levels that each repeat once (one column of a section).
    int one_col[3] = {kArea, 1, 1}, strides[2] = {kArea, kArea};
    if (t % 2 == 0)
      EXPECT_EQ(ARMCI_PutS(put_src, nullptr, area(t, r, 0), nullptr, bytes, 0, t), 0);
    else
      EXPECT_EQ(ARMCI_PutS(put_src, strides, area(t, r, 0), strides, one_col, 2, t), 0);
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    EXPECT_EQ(ARMCI_NbPutS(nb_src, nullptr, area(t, r, 1), nullptr, bytes, 0, t, &h), 0);
    EXPECT_EQ(ARMCI_Wait(&h), 0);
    EXPECT_EQ(ARMCI_AccS(ARMCI_ACC_DBL, &two, acc_src, nullptr, area(t, r, 2), nullptr, bytes, 0, t), 0);
    ARMCI_INIT_HANDLE(&h);
    EXPECT_EQ(ARMCI_NbAccS(ARMCI_ACC_DBL, &two, acc_src, nullptr, area(t, r, 2), nullptr, bytes, 0, t, &h), 0);
    EXPECT_EQ(ARMCI_Wait(&h), 0);
  }
  ARMCI_Barrier();
  for (int t = 0; t < n; ++t) {
    char got_put[kArea], got_nb[kArea];
    double got_acc[kArea / 8];
    EXPECT_EQ(ARMCI_GetS(area(t, r, 0), nullptr, got_put, nullptr, bytes, 0, t), 0);
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    int one_col[2] = {kArea, 1}, strides[1] = {kArea};
    EXPECT_EQ(ARMCI_NbGetS(area(t, r, 1), strides, got_nb, strides, one_col, 1, t, &h), 0);
    EXPECT_EQ(ARMCI_Wait(&h), 0);
    ARMCI_INIT_HANDLE(&h);
    EXPECT_EQ(ARMCI_NbGetS(area(t, r, 2), nullptr, got_acc, nullptr, bytes, 0, t, &h), 0);
    EXPECT_EQ(ARMCI_Wait(&h), 0);
    int wrong = 0;
    for (int i = 0; i < kArea; ++i) {
      wrong += got_put[i] != byte_of(r, t, 0, i);
      wrong += got_nb[i] != byte_of(r, t, 1, i);
    }
    for (int i = 0; i < kArea / 8; ++i) wrong += got_acc[i] != 4 * ((r + 1) * 100.0 + t * 10 + i);
    EXPECT_EQ(wrong, 0) << "target " << t << ": wrong bytes or sums after levels-0 put, nb put, acc, nb acc";
  }
  ARMCI_Barrier();
}

TEST(BadInput, OneSegmentCallsCheckAsShapedOnes) {
  Arena ar;
  const int n = nproc(), r = me(), p = (r + 1) % n;
  char* rem = ar.a.at(p);
  alignas(16) char loc[1024] = {};
  alignas(16) char not_global[1024] = {};
  double two = 2;
  int neg[1] = {-1}, c64[1] = {64}, c6[1] = {6}, zero[1] = {0};
  EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, nullptr, rem, nullptr, neg, 0, p), "ARMCI_PutS", "'count[0]' = -1");
  EXPECT_ARMCI_ERROR(ARMCI_GetS(rem, nullptr, loc, nullptr, neg, 0, p), "ARMCI_GetS", "'count[0]' = -1");
  EXPECT_ARMCI_ERROR(ARMCI_AccS(ARMCI_ACC_DBL, &two, loc, nullptr, rem, nullptr, neg, 0, p), "ARMCI_AccS",
                     "'count[0]' = -1");
  EXPECT_ARMCI_ERROR(ARMCI_PutS(nullptr, nullptr, rem, nullptr, c64, 0, p), "ARMCI_PutS", "'src_ptr' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, nullptr, nullptr, nullptr, c64, 0, p), "ARMCI_PutS", "'dst_ptr' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_GetS(nullptr, nullptr, loc, nullptr, c64, 0, p), "ARMCI_GetS", "'src_ptr' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_GetS(rem, nullptr, nullptr, nullptr, c64, 0, p), "ARMCI_GetS", "'dst_ptr' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_AccS(ARMCI_ACC_DBL, &two, loc, nullptr, rem, nullptr, c6, 0, p), "ARMCI_AccS",
                     "'count[0]' = 6", "not a multiple");
  EXPECT_ARMCI_ERROR(ARMCI_AccS(42, &two, loc, nullptr, rem, nullptr, c64, 0, p), "ARMCI_AccS", "'datatype' = 42");
  EXPECT_ARMCI_ERROR(ARMCI_AccS(ARMCI_ACC_DBL, nullptr, loc, nullptr, rem, nullptr, c64, 0, p), "ARMCI_AccS",
                     "'scale' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, nullptr, rem + kSliceBytes - 32, nullptr, c64, 0, p), "ARMCI_PutS", "'dst_ptr'",
                     "run past the end");
  EXPECT_ARMCI_ERROR(ARMCI_GetS(not_global, nullptr, loc, nullptr, c64, 0, p), "ARMCI_GetS", "'src_ptr'",
                     "not inside memory allocated");
  EXPECT_ARMCI_ERROR(ARMCI_GetS(rem, nullptr, loc, nullptr, c64, 0, n), "ARMCI_GetS", "'proc'");
  // Higher levels that repeat once are one segment too; their strides must still be given.
  int one_col[3] = {64, 1, 1}, strides[2] = {64, 64};
  EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, nullptr, rem, strides, one_col, 2, p), "ARMCI_PutS", "'src_stride_arr' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_GetS(rem, strides, loc, nullptr, one_col, 2, p), "ARMCI_GetS", "'dst_stride_arr' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_GetS(rem, strides, loc, strides, one_col, 9, p), "ARMCI_GetS", "'stride_levels' = 9");
  EXPECT_ARMCI_ERROR(ARMCI_PutS(loc, strides, rem + kSliceBytes - 32, strides, one_col, 2, p), "ARMCI_PutS",
                     "'dst_ptr'", "run past the end");
  // Nothing to move: no pointer is looked at, as for a shaped call with a zero count.
  EXPECT_EQ(ARMCI_PutS(nullptr, nullptr, nullptr, nullptr, zero, 0, p), 0);
  EXPECT_EQ(ARMCI_AccS(ARMCI_ACC_DBL, &two, nullptr, nullptr, nullptr, nullptr, zero, 0, p), 0);
  // A handle whose call failed serves the next one.
  armci_hdl_t h;
  ARMCI_INIT_HANDLE(&h);
  EXPECT_ARMCI_ERROR(ARMCI_NbGetS(rem, nullptr, loc, nullptr, neg, 0, p, &h), "ARMCI_NbGetS", "'count[0]' = -1");
  EXPECT_ARMCI_ERROR(ARMCI_NbPutS(loc, nullptr, not_global, nullptr, c64, 0, p, &h), "ARMCI_NbPutS", "'dst_ptr'");
  {
    Access a(ar.a.mine());
    for (int i = 0; i < 64; ++i) ar.a.mine()[i] = static_cast<char>(r + i);
  }
  ARMCI_Barrier();
  EXPECT_EQ(ARMCI_NbGetS(rem, nullptr, loc, nullptr, c64, 0, p, &h), 0);
  EXPECT_EQ(ARMCI_Wait(&h), 0);
  int wrong = 0;
  for (int i = 0; i < 64; ++i) wrong += loc[i] != static_cast<char>(p + i);
  EXPECT_EQ(wrong, 0) << "get under a handle whose earlier calls failed";
  ARMCI_Barrier();
}

TEST(BadInput, VectorCallsNameTheCallAndArgument) {
  Arena ar;
  const int n = nproc(), r = me(), p = (r + 1) % n;
  char* rem = ar.a.at(p);
  alignas(16) char loc[1024] = {};
  alignas(16) char not_global[1024] = {};
  double two = 2;
  auto reset = [&](void** src, void** dst) {
    for (int i = 0; i < 4; ++i) {
      src[i] = loc + 64 * i;
      dst[i] = rem + 64 * i;
    }
  };
  void* src[4];
  void* dst[4];
  reset(src, dst);
  armci_giov_t v{src, dst, 16, 4};

  v.bytes = -1;
  EXPECT_ARMCI_ERROR(ARMCI_PutV(&v, 1, p), "ARMCI_PutV", "'iov[0].bytes' = -1");
  EXPECT_ARMCI_ERROR(ARMCI_GetV(&v, 1, p), "ARMCI_GetV", "'iov[0].bytes' = -1");
  EXPECT_ARMCI_ERROR(ARMCI_AccV(ARMCI_ACC_DBL, &two, &v, 1, p), "ARMCI_AccV", "'iov[0].bytes' = -1");
  v.bytes = 16;
  v.ptr_array_len = -2;
  EXPECT_ARMCI_ERROR(ARMCI_PutV(&v, 1, p), "ARMCI_PutV", "'iov[0].ptr_array_len' = -2");
  EXPECT_ARMCI_ERROR(ARMCI_NbGetV(&v, 1, p, nullptr), "ARMCI_NbGetV", "'iov[0].ptr_array_len' = -2");
  v.ptr_array_len = 4;
  EXPECT_ARMCI_ERROR(ARMCI_PutV(&v, -1, p), "ARMCI_PutV", "'iov_len' = -1");
  EXPECT_ARMCI_ERROR(ARMCI_PutV(nullptr, 1, p), "ARMCI_PutV", "'iov' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_PutV(&v, 1, n), "ARMCI_PutV", "'proc'");

  v.src_ptr_array = nullptr;
  EXPECT_ARMCI_ERROR(ARMCI_PutV(&v, 1, p), "ARMCI_PutV", "'iov[0].src_ptr_array' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_GetV(&v, 1, p), "ARMCI_GetV", "'iov[0].src_ptr_array' is NULL");
  v.src_ptr_array = src;
  v.dst_ptr_array = nullptr;
  EXPECT_ARMCI_ERROR(ARMCI_PutV(&v, 1, p), "ARMCI_PutV", "'iov[0].dst_ptr_array' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_AccV(ARMCI_ACC_DBL, &two, &v, 1, p), "ARMCI_AccV", "'iov[0].dst_ptr_array' is NULL");
  v.dst_ptr_array = dst;

  dst[2] = nullptr;
  EXPECT_ARMCI_ERROR(ARMCI_PutV(&v, 1, p), "ARMCI_PutV", "'iov[0].dst_ptr_array[2]' is NULL");
  reset(src, dst);
  src[1] = nullptr;
  EXPECT_ARMCI_ERROR(ARMCI_PutV(&v, 1, p), "ARMCI_PutV", "'iov[0].src_ptr_array[1]' is NULL");
  reset(src, dst);

  // Segments outside every allocation, or running past the end of one.
  dst[3] = not_global;
  EXPECT_ARMCI_ERROR(ARMCI_PutV(&v, 1, p), "ARMCI_PutV", "'iov[0].dst_ptr_array[3]'", "not inside memory allocated");
  EXPECT_ARMCI_ERROR(ARMCI_AccV(ARMCI_ACC_DBL, &two, &v, 1, p), "ARMCI_AccV", "'iov[0].dst_ptr_array[3]'",
                     "not inside memory allocated");
  reset(src, dst);
  dst[0] = not_global;
  EXPECT_ARMCI_ERROR(ARMCI_PutV(&v, 1, p), "ARMCI_PutV", "'iov[0].dst_ptr_array[0]'", "not inside memory allocated");
  reset(src, dst);
  dst[1] = rem + kSliceBytes - 8;
  EXPECT_ARMCI_ERROR(ARMCI_PutV(&v, 1, p), "ARMCI_PutV", "'iov[0].dst_ptr_array[1]'", "run past the end");
  reset(src, dst);
  // For a get the remote side is the source.
  {
    armci_giov_t g{dst, src, 16, 4};
    dst[2] = not_global;
    EXPECT_ARMCI_ERROR(ARMCI_GetV(&g, 1, p), "ARMCI_GetV", "'iov[0].src_ptr_array[2]'", "not inside memory allocated");
    reset(src, dst);
  }
  // The failing descriptor is named.
  {
    void* dst2[4];
    void* src2[4];
    reset(src2, dst2);
    dst2[1] = not_global;
    armci_giov_t two_desc[2] = {{src, dst, 16, 4}, {src2, dst2, 8, 4}};
    EXPECT_ARMCI_ERROR(ARMCI_PutV(two_desc, 2, p), "ARMCI_PutV", "'iov[1].dst_ptr_array[1]'");
  }
  // Accumulate specifics.
  v.bytes = 6;
  EXPECT_ARMCI_ERROR(ARMCI_AccV(ARMCI_ACC_DBL, &two, &v, 1, p), "ARMCI_AccV", "'iov[0].bytes' = 6", "not a multiple");
  v.bytes = 16;
  EXPECT_ARMCI_ERROR(ARMCI_AccV(42, &two, &v, 1, p), "ARMCI_AccV", "'datatype' = 42");
  EXPECT_ARMCI_ERROR(ARMCI_AccV(ARMCI_ACC_DBL, nullptr, &v, 1, p), "ARMCI_AccV", "'scale' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_NbAccV(ARMCI_ACC_DBL, nullptr, &v, 1, p, nullptr), "ARMCI_NbAccV", "'scale' is NULL");
  dst[0] = not_global;
  EXPECT_ARMCI_ERROR(ARMCI_NbPutV(&v, 1, p, nullptr), "ARMCI_NbPutV", "'iov[0].dst_ptr_array[0]'");
  reset(src, dst);
  ARMCI_Barrier();
}

// A descriptor moves at most 2 GiB (the engines count in ints, as the strided path caps a call): more is a
// named error, before anything moves.  32768 segments of 64 KiB, all on one valid place.
TEST(BadInput, VectorDescriptorOverTwoGiB) {
  Arena ar;
  const int n = nproc(), r = me(), p = (r + 1) % n;
  constexpr int kSeg = 64 * 1024, kCount = 32768;  // 2^31 bytes: one more than INT32_MAX
  std::vector<char> loc(kSeg);
  std::vector<void*> locs(kCount, loc.data()), rems(kCount, ar.a.at(p));
  armci_giov_t put{locs.data(), rems.data(), kSeg, kCount};
  EXPECT_ARMCI_ERROR(ARMCI_PutV(&put, 1, p), "ARMCI_PutV", "'iov[0]'", "32768 segments of 65536 bytes",
                     "(2147483648 bytes)", "2 GiB");
  armci_giov_t get{rems.data(), locs.data(), kSeg, kCount};
  EXPECT_ARMCI_ERROR(ARMCI_NbGetV(&get, 1, p, nullptr), "ARMCI_NbGetV", "'iov[0]'", "(2147483648 bytes)");
  // As many segments of 1 byte, apart (BATCHED and DIRECT refuse a written side that overlaps), are fine.
  for (int i = 0; i < kCount; ++i) rems[i] = ar.a.at(p) + i;
  armci_giov_t small{locs.data(), rems.data(), 1, kCount};
  EXPECT_EQ(ARMCI_PutV(&small, 1, p), 0);
  ARMCI_Barrier();
}

// Every descriptor is checked before any is issued: a call whose descriptor 1 is bad leaves the target (or,
// for a get, the local buffers) as descriptor 0 found them, with an error handler that returns to the
// program (here one that throws).  Otherwise an accumulate is left half done, which nothing can undo.
TEST(BadInput, VectorCallsCheckEveryDescriptorBeforeMovingData) {
  Arena ar;
  const int n = nproc(), r = me(), p = (r + 1) % n;
  constexpr int kBytes = 1024;
  {
    Access a(ar.a.mine());
    std::memset(ar.a.mine(), 0, kBytes);
  }
  ARMCI_Barrier();
  char* rem = ar.a.at(p);
  alignas(16) double loc[64];
  for (double& x : loc) x = 1.5;
  alignas(16) char not_global[256] = {};
  double two = 2;
  void* src0[4];
  void* dst0[4];
  void* src1[4];
  void* dst1[4];
  for (int i = 0; i < 4; ++i) {
    src0[i] = loc + 2 * i;
    dst0[i] = rem + 64 * i;
    src1[i] = loc + 8 + 2 * i;
    dst1[i] = rem + 512 + 64 * i;
  }
  armci_giov_t v[2] = {{src0, dst0, 16, 4}, {src1, dst1, 16, 4}};
  const char* method = std::getenv("ARMCI_IOV_METHOD");
  const bool explicit_mpi = method && (std::strcmp(method, "BATCHED") == 0 || std::strcmp(method, "DIRECT") == 0);

  struct Bad {
    const char* what;
    std::function<void()> apply, undo;
    std::vector<const char*> wants;
  };
  std::vector<Bad> bad = {
      {"segment outside every allocation",
       [&] { dst1[2] = not_global; },
       [&] { dst1[2] = rem + 512 + 128; },
       {"'iov[1].dst_ptr_array[2]'", "not inside memory allocated"}},
      {"segment past the end",
       [&] { dst1[3] = rem + kSliceBytes - 8; },
       [&] { dst1[3] = rem + 512 + 192; },
       {"'iov[1].dst_ptr_array[3]'", "run past the end"}},
      {"NULL segment", [&] { src1[1] = nullptr; }, [&] { src1[1] = loc + 10; }, {"'iov[1].src_ptr_array[1]' is NULL"}},
      {"negative bytes", [&] { v[1].bytes = -8; }, [&] { v[1].bytes = 16; }, {"'iov[1].bytes' = -8"}},
      {"over 2 GiB",
       [&] { v[1].bytes = 1 << 30, v[1].ptr_array_len = 2; },
       [&] { v[1].bytes = 16, v[1].ptr_array_len = 4; },
       {"'iov[1]'", "2 GiB"}},
  };
  if (explicit_mpi)  // BATCHED and DIRECT refuse a written side that overlaps itself
    bad.push_back({"overlapping segments",
                   [&] { dst1[1] = dst1[0]; },
                   [&] { dst1[1] = rem + 512 + 64; },
                   {"'iov[1].dst_ptr_array' overlap"}});
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.what);
    b.apply();
    for (const char* call : {"ARMCI_PutV", "ARMCI_NbPutV", "ARMCI_AccV", "ARMCI_NbAccV"}) {
      SCOPED_TRACE(call);
      const std::string c = call;
      auto issue = [&] {  // non-blocking forms with NULL handles: a failed call leaves no handle to wait for
        if (c == "ARMCI_PutV") ARMCI_PutV(v, 2, p);
        if (c == "ARMCI_NbPutV") ARMCI_NbPutV(v, 2, p, nullptr);
        if (c == "ARMCI_AccV") ARMCI_AccV(ARMCI_ACC_DBL, &two, v, 2, p);
        if (c == "ARMCI_NbAccV") ARMCI_NbAccV(ARMCI_ACC_DBL, &two, v, 2, p, nullptr);
      };
      std::vector<std::string> wants{call};
      for (const char* w : b.wants) wants.emplace_back(w);
      if (std::string(b.what) == "overlapping segments" && c.find("Acc") != std::string::npos)
        continue;  // accumulates to overlapping locations are fine
      EXPECT_ARMCI_ERROR(issue(), wants[0], wants[1], wants.size() > 2 ? wants[2] : wants[1]);
    }
    // Gets: descriptor 0 must not have written into the local buffers.
    {
      for (int i = 0; i < 4; ++i) std::swap(src0[i], dst0[i]), std::swap(src1[i], dst1[i]);
      armci_giov_t g[2] = {{src0, dst0, v[0].bytes, v[0].ptr_array_len}, {src1, dst1, v[1].bytes, v[1].ptr_array_len}};
      for (const char* call : {"ARMCI_GetV", "ARMCI_NbGetV"}) {
        SCOPED_TRACE(call);
        // For a get the remote side is the source: the bad remote segment is named as src_ptr_array.
        std::string named = b.wants[0];
        const bool remote_named = named.find("dst_ptr_array") != std::string::npos;
        const bool local_named = named.find("src_ptr_array") != std::string::npos;
        if (remote_named) named.replace(named.find("dst_ptr_array"), 13, "src_ptr_array");
        if (local_named) named.replace(named.find("src_ptr_array"), 13, "dst_ptr_array");
        if (std::string(b.what) == "overlapping segments") break;  // the written side of a get is local
        if (std::string(call) == "ARMCI_GetV")
          EXPECT_ARMCI_ERROR(ARMCI_GetV(g, 2, p), call, named);
        else
          EXPECT_ARMCI_ERROR(ARMCI_NbGetV(g, 2, p, nullptr), call, named);
      }
      for (int i = 0; i < 4; ++i) std::swap(src0[i], dst0[i]), std::swap(src1[i], dst1[i]);
    }
    b.undo();
  }
  ARMCI_WaitAll();
  ARMCI_Barrier();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(loc[i], 1.5) << "loc[" << i << "] was written by a failed get";
  {
    Access a(ar.a.mine());
    int written = 0;
    for (int i = 0; i < kBytes; ++i) written += ar.a.mine()[i] != 0;
    EXPECT_EQ(written, 0) << "bytes of this slice were written by failed vector calls";
  }
  ARMCI_Barrier();
}

TEST(BadInput, LocalStridedNameTheCallAndArgument) {
  char region[1024] = {}, buf[1024] = {};
  int count[3] = {16, 4, 2}, stride[2] = {64, 256}, small[2] = {8, 256};
  EXPECT_ARMCI_ERROR(armci_read_strided(nullptr, 2, stride, count, buf), "armci_read_strided", "'ptr' is NULL");
  EXPECT_ARMCI_ERROR(armci_read_strided(region, 2, stride, count, nullptr), "armci_read_strided", "'buf' is NULL");
  EXPECT_ARMCI_ERROR(armci_read_strided(region, 2, small, count, buf), "armci_read_strided", "'stride_arr[0]' = 8");
  EXPECT_ARMCI_ERROR(armci_read_strided(region, 9, stride, count, buf), "armci_read_strided", "'stride_levels' = 9");
  EXPECT_ARMCI_ERROR(armci_read_strided(region, 2, stride, nullptr, buf), "armci_read_strided", "'count' is NULL");
  EXPECT_ARMCI_ERROR(armci_write_strided(nullptr, 2, stride, count, buf), "armci_write_strided", "'ptr' is NULL");
  EXPECT_ARMCI_ERROR(armci_write_strided(region, 2, stride, count, nullptr), "armci_write_strided", "'buf' is NULL");
  EXPECT_ARMCI_ERROR(armci_write_strided(region, 2, nullptr, count, buf), "armci_write_strided",
                     "'stride_arr' is NULL");
  int neg[3] = {16, -1, 2};
  EXPECT_ARMCI_ERROR(armci_write_strided(region, 2, stride, neg, buf), "armci_write_strided", "'count[1]' = -1");
}

}  // namespace
