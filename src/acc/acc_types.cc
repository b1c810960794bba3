#include "acc/acc_types.h"

#include <armci.h>

#include <complex>
#include <cstring>

#include "base/error.h"

namespace armcix {

namespace {

const AccType kTypes[] = {
    {ARMCI_ACC_INT, "ARMCI_ACC_INT", MPI_INT, sizeof(int), 1},
    {ARMCI_ACC_LNG, "ARMCI_ACC_LNG", MPI_LONG, sizeof(long), 1},
    {ARMCI_ACC_FLT, "ARMCI_ACC_FLT", MPI_FLOAT, sizeof(float), 1},
    {ARMCI_ACC_DBL, "ARMCI_ACC_DBL", MPI_DOUBLE, sizeof(double), 1},
    {ARMCI_ACC_CPL, "ARMCI_ACC_CPL", MPI_FLOAT, 2 * sizeof(float), 2},
    {ARMCI_ACC_DCP, "ARMCI_ACC_DCP", MPI_DOUBLE, 2 * sizeof(double), 2},
};

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

// Dispatches on the ARMCI type to a kernel instantiated for the matching C++ element type.
template <template <typename> class K, typename... Args>
void dispatch(const AccType& t, std::size_t bytes, Args... args) {
  std::size_t n = bytes / t.elem_bytes;
  switch (t.armci_type) {
    case ARMCI_ACC_INT:
      return K<int>::run(args..., n);
    case ARMCI_ACC_LNG:
      return K<long>::run(args..., n);
    case ARMCI_ACC_FLT:
      return K<float>::run(args..., n);
    case ARMCI_ACC_DBL:
      return K<double>::run(args..., n);
    case ARMCI_ACC_CPL:
      return K<std::complex<float>>::run(args..., n);
    case ARMCI_ACC_DCP:
      return K<std::complex<double>>::run(args..., n);
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

const AccType& acc_type(const char* call, int datatype) {
  ARMCIX_REQUIRE(datatype >= ARMCI_ACC_INT && datatype <= ARMCI_ACC_DCP, call,
                 "argument 'datatype' = %d is not an accumulate type (ARMCI_ACC_INT..ARMCI_ACC_DCP = %d..%d)", datatype,
                 ARMCI_ACC_INT, ARMCI_ACC_DCP);
  return kTypes[datatype - ARMCI_ACC_INT];
}

bool scale_is_one(const AccType& t, const void* scale) {
  switch (t.armci_type) {
    case ARMCI_ACC_INT:
      return *static_cast<const int*>(scale) == 1;
    case ARMCI_ACC_LNG:
      return *static_cast<const long*>(scale) == 1;
    case ARMCI_ACC_FLT:
      return *static_cast<const float*>(scale) == 1.0f;
    case ARMCI_ACC_DBL:
      return *static_cast<const double*>(scale) == 1.0;
    case ARMCI_ACC_CPL:
      return *static_cast<const std::complex<float>*>(scale) == std::complex<float>(1, 0);
    case ARMCI_ACC_DCP:
      return *static_cast<const std::complex<double>*>(scale) == std::complex<double>(1, 0);
  }
  return false;
}

void scale_copy(const AccType& t, const void* scale, const void* in, void* out, std::size_t bytes) {
  dispatch<ScaleCopy>(t, bytes, scale, in, out);
}

void scale_add(const AccType& t, const void* scale, const void* src, void* dst, std::size_t bytes) {
  dispatch<ScaleAdd>(t, bytes, scale, src, dst);
}

}  // namespace armcix
