// Accumulate element types (ARMCI_ACC_INT..DCP) and the scaling ARMCI applies before adding:
// dst += scale * src.  MPI accumulates only sums the scaled data, so scaling happens at the origin.
#pragma once

#include <mpi.h>

#include <cstddef>

namespace armcix {

struct AccType {
  int armci_type;  // ARMCI_ACC_*
  const char* name;
  MPI_Datatype mpi_elem;  // MPI type summed by MPI_Accumulate (float/double pairs for complex)
  int elem_bytes;         // bytes of one ARMCI element (8 for CPL, 16 for DCP)
  int mpi_per_elem;       // MPI elements per ARMCI element (2 for complex)
};

// Validates `datatype` for `call` and returns its description.
const AccType& acc_type(const char* call, int datatype);

// True if `scale` is the multiplicative identity for the type, so the source can be used unscaled.
bool scale_is_one(const AccType& t, const void* scale);

// out[i] = scale * in[i] for `bytes` bytes of elements of type t.  out and in may be the same buffer.
void scale_copy(const AccType& t, const void* scale, const void* in, void* out, std::size_t bytes);

// dst[i] += scale * src[i], for the local (load/store) accumulate path and for reference checks.
void scale_add(const AccType& t, const void* scale, const void* src, void* dst, std::size_t bytes);

}  // namespace armcix
