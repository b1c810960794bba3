#include "acc/acc_types.h"

#include <armci.h>

#include <complex>
#include <cstdint>
#include <cstring>

#include "base/error.h"

namespace armcix {

namespace {

// ARMCI-MPI's ABI (include/armci.h): programs and Global Arrays built against ARMCI-MPI pass these numbers.
static_assert(ARMCI_ACC_INT == 0 && ARMCI_ACC_LNG == 1 && ARMCI_ACC_FLT == 2 && ARMCI_ACC_DBL == 3 &&
                  ARMCI_ACC_CPL == 4 && ARMCI_ACC_DCP == 5,
              "ARMCI_ACC_* values differ from ARMCI-MPI's ABI");

// The table, one row per line of ARMCIX_ACC_TYPES, so that kTypes[datatype] is datatype's row: the
// static_asserts below keep the list in value order with no gaps.
const AccType kTypes[] = {
#define ARMCIX_ACC_ROW(e, T, C, M) {e, #e, M, AccTraits<e>::elem_bytes, AccTraits<e>::mpi_per_elem},
    ARMCIX_ACC_TYPES(ARMCIX_ACC_ROW)
#undef ARMCIX_ACC_ROW
};
static_assert(sizeof kTypes / sizeof kTypes[0] == kAccTypeCount, "one table row per type");

constexpr int kValues[] = {
#define ARMCIX_ACC_VALUE(e, T, C, M) e,
    ARMCIX_ACC_TYPES(ARMCIX_ACC_VALUE)
#undef ARMCIX_ACC_VALUE
};
constexpr bool rows_in_value_order() {
  for (int i = 0; i < kAccTypeCount; ++i)
    if (kValues[i] != i) return false;
  return true;
}
static_assert(rows_in_value_order(), "ARMCIX_ACC_TYPES must list ARMCI_ACC_INT (0) upwards without gaps");

// The kernels run on components (int, long, float, double; a complex element is two) in pairs of vectors
// through the compilers' vector extensions (GCC and Clang): 16-byte vectors on baseline x86-64 (SSE2) and on
// Arm (NEON), 32-byte ones on x86-64 processors with AVX2, chosen at run time (g_vector_bytes).  Wider vector
// types on a baseline target are split through the stack and lose, so the 32-byte loop runs only inside a
// function compiled for AVX2.  A 512 KiB double accumulate: 16.6 us one element at a time, 9.6 with 16-byte
// vectors, 7.9 with 32-byte ones (one core of the 2-core test machine, AMD EPYC, data in L2/L3).  GCC's -O2
// does not vectorize the plain loop (it cannot rule out that dst and src overlap, and its "very cheap" cost
// model adds no run-time check): a node-local accumulate of a large tile ran one element at a time (what that
// cost: doc/performance.md, "Against GA's own ports").  Loads and stores go through memcpy: neither side need
// be aligned.  Ranges that overlap without coinciding take the scalar loop, whose element-by-element order is
// what a caller of such overlapping buffers saw before.
template <typename C>
bool overlap_partially(const C* a, const C* b, std::size_t n) {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x != y && x < y + n * sizeof(C) && y < x + n * sizeof(C);
}

// out[i] = s * in[i] (Copy) or out[i] += s * in[i] (Add), skipping the product when s is one.
enum class Kernel { Copy, Add };

// Two vectors of `Bytes` bytes per step over the first elements of in and out; returns how many it did.  The
// count starts at zero in a local (a reference to a caller's index was reloaded after every store through
// `out`, which might alias it; a caller's non-zero start cost the 16-byte loop 15-20% on 128-192-byte rows).
// Always inlined, so that the 32-byte instance is compiled inside the AVX2 function that calls it.
template <std::size_t Bytes, Kernel K, bool Unit, typename C>
inline __attribute__((always_inline)) std::size_t components_vec(C s, const C* in, C* out, std::size_t n) {
  typedef C V __attribute__((vector_size(Bytes)));
  constexpr std::size_t lanes = sizeof(V) / sizeof(C);
  const V vs = V{} + s;
  std::size_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    V a0, a1;  // two named vectors, not an array: an array goes through the stack
    std::memcpy(&a0, in + i, sizeof a0);
    std::memcpy(&a1, in + i + lanes, sizeof a1);
    if (!Unit) {
      a0 = vs * a0;
      a1 = vs * a1;
    }
    if (K == Kernel::Add) {
      V b0, b1;
      std::memcpy(&b0, out + i, sizeof b0);
      std::memcpy(&b1, out + i + lanes, sizeof b1);
      a0 = b0 + a0;
      a1 = b1 + a1;
    }
    std::memcpy(out + i, &a0, sizeof a0);
    std::memcpy(out + i + lanes, &a1, sizeof a1);
  }
  return i;
}

#if defined(__x86_64__) && defined(__GNUC__)
template <Kernel K, bool Unit, typename C>
__attribute__((target("avx2"))) std::size_t components_avx2(C s, const C* in, C* out, std::size_t n) {
  return components_vec<32, K, Unit>(s, in, out, n);
}

bool cpu_has_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}
#else
bool cpu_has_avx2() {
  return false;
}
#endif

int g_vector_bytes = cpu_has_avx2() ? 32 : 16;  // set_acc_vector_bytes changes it (tests)

// Returns the first element not done.
template <Kernel K, bool Unit, typename C>
std::size_t components_vectors(C s, const C* in, C* out, std::size_t n) {
  std::size_t i = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  // Rows under 256 bytes (at most three 32-byte steps) stay on the 16-byte loop, without the AVX2 function's
  // call and its vzeroupper.
  if (g_vector_bytes == 32 && n * sizeof(C) >= 256) i = components_avx2<K, Unit>(s, in, out, n);
#endif
  return i + components_vec<16, K, Unit>(s, in + i, out + i, n - i);  // the rest after 32-byte steps, or all
}

template <Kernel K, typename C>
void components(C s, const C* in, C* out, std::size_t n) {
  const bool unit = s == C(1);
  std::size_t i = 0;
  if (!overlap_partially(in, out, n)) {
    i = unit ? components_vectors<K, true>(s, in, out, n) : components_vectors<K, false>(s, in, out, n);
  }
  for (; i < n; ++i) {
    const C v = unit ? in[i] : s * in[i];
    if (K == Kernel::Add)
      out[i] += v;
    else
      out[i] = v;
  }
}

template <Kernel K, typename T>
struct Scale {
  static void run(const void* scale, const void* in, void* out, std::size_t n) {
    components<K>(*static_cast<const T*>(scale), static_cast<const T*>(in), static_cast<T*>(out), n);
  }
};

// Complex: a scale of one is a sum of components (2n of them); any other scale the complex product.
template <Kernel K, typename C>
struct Scale<K, std::complex<C>> {
  using T = std::complex<C>;
  static void run(const void* scale, const void* in, void* out, std::size_t n) {
    const T s = *static_cast<const T*>(scale);
    if (s == T(1)) {
      components<K>(C(1), static_cast<const C*>(in), static_cast<C*>(out), 2 * n);
      return;
    }
    const T* src = static_cast<const T*>(in);
    T* dst = static_cast<T*>(out);
    for (std::size_t i = 0; i < n; ++i) {
      if (K == Kernel::Add)
        dst[i] += s * src[i];
      else
        dst[i] = s * src[i];
    }
  }
};

// An AccType that did not come from acc_type() (the only source of rows): fail loudly rather than return
// with the output unwritten, as the hand-kept switch without a default once did.
[[noreturn]] void bad_row(const char* fn, const AccType& t) {
  fail(fn, "argument 't' has type %d, which is not an accumulate type (%s..%s = 0..%d)", t.armci_type, kTypes[0].name,
       kTypes[kAccTypeCount - 1].name, kAccTypeCount - 1);
}

// Dispatches on the ARMCI type to a kernel instantiated for the row's C++ element type.
template <template <typename> class K, typename... Args>
void dispatch(const char* fn, const AccType& t, std::size_t bytes, Args... args) {
  std::size_t n = bytes / t.elem_bytes;
  switch (t.armci_type) {
#define ARMCIX_ACC_CASE(e, T, C, M) \
  case e:                           \
    return K<T>::run(args..., n);
    ARMCIX_ACC_TYPES(ARMCIX_ACC_CASE)
#undef ARMCIX_ACC_CASE
    default:
      bad_row(fn, t);
  }
}

template <typename T>
using ScaleCopy = Scale<Kernel::Copy, T>;
template <typename T>
using ScaleAdd = Scale<Kernel::Add, T>;

}  // namespace

// The range check is the switch over the list: every listed value is a valid index into kTypes.
const AccType& acc_type(const char* call, int datatype) {
  switch (datatype) {
#define ARMCIX_ACC_CASE(e, T, C, M) case e:
    ARMCIX_ACC_TYPES(ARMCIX_ACC_CASE)
#undef ARMCIX_ACC_CASE
    return kTypes[datatype];
    default:
      fail(call, "argument 'datatype' = %d is not an accumulate type (%s..%s = %d..%d)", datatype, kTypes[0].name,
           kTypes[kAccTypeCount - 1].name, 0, kAccTypeCount - 1);
  }
}

// T(1) is the identity of every row's type: 1, 1.0f, 1.0, and (1, 0) for the complex types.
bool scale_is_one(const AccType& t, const void* scale) {
  switch (t.armci_type) {
#define ARMCIX_ACC_CASE(e, T, C, M) \
  case e:                           \
    return *static_cast<const T*>(scale) == T(1);
    ARMCIX_ACC_TYPES(ARMCIX_ACC_CASE)
#undef ARMCIX_ACC_CASE
    default:
      bad_row("scale_is_one", t);
  }
}

void scale_copy(const AccType& t, const void* scale, const void* in, void* out, std::size_t bytes) {
  dispatch<ScaleCopy>("scale_copy", t, bytes, scale, in, out);
}

void scale_add(const AccType& t, const void* scale, const void* src, void* dst, std::size_t bytes) {
  dispatch<ScaleAdd>("scale_add", t, bytes, scale, src, dst);
}

int acc_vector_bytes() {
  return g_vector_bytes;
}

bool set_acc_vector_bytes(int bytes) {
  if (bytes != 16 && !(bytes == 32 && cpu_has_avx2())) return false;
  g_vector_bytes = bytes;
  return true;
}

}  // namespace armcix
