#include "acc/acc_types.h"

#include <armci.h>

#include <complex>
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

template <typename T>
void scale_copy_t(const void* scale, const void* in, void* out, std::size_t n) {
  const T s = *static_cast<const T*>(scale);
  const T* src = static_cast<const T*>(in);
  T* dst = static_cast<T*>(out);
  for (std::size_t i = 0; i < n; ++i) dst[i] = s * src[i];
}

template <typename T>
void scale_add_t(const void* scale, const void* in, void* out, std::size_t n) {
  const T s = *static_cast<const T*>(scale);
  const T* src = static_cast<const T*>(in);
  T* dst = static_cast<T*>(out);
  for (std::size_t i = 0; i < n; ++i) dst[i] += s * src[i];
}

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
struct ScaleCopy {
  static void run(const void* s, const void* in, void* out, std::size_t n) { scale_copy_t<T>(s, in, out, n); }
};
template <typename T>
struct ScaleAdd {
  static void run(const void* s, const void* in, void* out, std::size_t n) { scale_add_t<T>(s, in, out, n); }
};

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

}  // namespace armcix
