// Accumulate element types (ARMCI_ACC_INT..DCP) and the scaling ARMCI applies before adding:
// dst += scale * src.  MPI accumulates only sums the scaled data, so scaling happens at the origin.
//
// The types are one list, ARMCIX_ACC_TYPES: the table, the range check, the kernel dispatch and
// scale_is_one are all expanded from it (acc_types.cc), and so is AccTraits, which transfer/rmw.cc uses for its
// int and long operands.  Before, those were four hand-kept lists, and a type missing from the dispatch
// switch silently skipped the scaling: a staged accumulate went out uninitialised.
#pragma once

#include <armci.h>
#include <mpi.h>

#include <complex>
#include <cstddef>

// X(ENUM, C type, component C type, MPI datatype of a component), in the order of the values of enum
// ARMCI_Acc_e (include/armci.h, ARMCI-MPI's ABI: ARMCI_ACC_INT..ARMCI_ACC_DCP = 0..5).  The component is
// what MPI_Accumulate sums: a complex element is two of them, and their componentwise sum is the complex
// sum (MPI_Accumulate with MPI_SUM needs no complex MPI type).  An armci-x extension type would
// be declared in include/armcix.h with the next value and get a row here; there is none today.
#define ARMCIX_ACC_TYPES(X)                               \
  X(ARMCI_ACC_INT, int, int, MPI_INT)                     \
  X(ARMCI_ACC_LNG, long, long, MPI_LONG)                  \
  X(ARMCI_ACC_FLT, float, float, MPI_FLOAT)               \
  X(ARMCI_ACC_DBL, double, double, MPI_DOUBLE)            \
  X(ARMCI_ACC_CPL, std::complex<float>, float, MPI_FLOAT) \
  X(ARMCI_ACC_DCP, std::complex<double>, double, MPI_DOUBLE)

namespace armcix {

struct AccType {
  int armci_type;  // ARMCI_ACC_*
  const char* name;
  MPI_Datatype mpi_elem;  // MPI type summed by MPI_Accumulate (float/double pairs for complex)
  int elem_bytes;         // bytes of one ARMCI element (8 for CPL, 16 for DCP)
  int mpi_per_elem;       // MPI elements per ARMCI element (2 for complex)
};

// Number of accumulate types: the rows of ARMCIX_ACC_TYPES.
#define ARMCIX_ACC_COUNT_ROW(e, T, C, M) +1
inline constexpr int kAccTypeCount = 0 ARMCIX_ACC_TYPES(ARMCIX_ACC_COUNT_ROW);
#undef ARMCIX_ACC_COUNT_ROW

// The compile-time view of one row, for code that is written per C type (transfer/rmw.cc).
template <int ArmciType>
struct AccTraits;
#define ARMCIX_ACC_TRAITS_ROW(e, T, C, M)                                             \
  template <>                                                                         \
  struct AccTraits<e> {                                                               \
    using type = T;                                                                   \
    using component = C;                                                              \
    static constexpr int elem_bytes = static_cast<int>(sizeof(T));                    \
    static constexpr int mpi_per_elem = static_cast<int>(sizeof(T) / sizeof(C));      \
    static MPI_Datatype mpi_elem() { return M; }                                      \
    static_assert(sizeof(T) % sizeof(C) == 0, #e ": C type is not whole components"); \
  };
ARMCIX_ACC_TYPES(ARMCIX_ACC_TRAITS_ROW)
#undef ARMCIX_ACC_TRAITS_ROW

// Validates `datatype` for `call` and returns its description; a bad type ends in ARMCI_Error naming the
// call and the argument.
const AccType& acc_type(const char* call, int datatype);

// True if `scale` is the multiplicative identity for the type, so the source can be used unscaled.
bool scale_is_one(const AccType& t, const void* scale);

// out[i] = scale * in[i] for `bytes` bytes of elements of type t.  out and in may be the same buffer.
void scale_copy(const AccType& t, const void* scale, const void* in, void* out, std::size_t bytes);

// dst[i] += scale * src[i], for the local (load/store) accumulate path and for reference checks.
void scale_add(const AccType& t, const void* scale, const void* src, void* dst, std::size_t bytes);

// The vector width of scale_copy and scale_add, bytes: 32 on x86-64 with AVX2, else 16.  Tests run the kernels
// at each width the processor has: set_acc_vector_bytes(16 or 32) returns false (and changes nothing) for a
// width it does not.
int acc_vector_bytes();
bool set_acc_vector_bytes(int bytes);

}  // namespace armcix
