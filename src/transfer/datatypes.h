// MPI derived datatypes for the DIRECT and PACK engines, freed automatically.
#pragma once

#include <mpi.h>

namespace armcix {

class OwnedType {
 public:
  OwnedType() = default;
  explicit OwnedType(MPI_Datatype t) : t_(t) {}
  OwnedType(OwnedType&& o) noexcept : t_(o.t_) { o.t_ = MPI_DATATYPE_NULL; }
  OwnedType& operator=(OwnedType&& o) noexcept;
  OwnedType(const OwnedType&) = delete;
  OwnedType& operator=(const OwnedType&) = delete;
  ~OwnedType();
  MPI_Datatype get() const { return t_; }

 private:
  MPI_Datatype t_ = MPI_DATATYPE_NULL;
};

// Nested hvectors: `per_run` elements contiguous (the block length of the innermost hvector), then
// count[1..levels] repetitions at byte strides stride[0..levels-1].  Committed.
OwnedType strided_type(MPI_Datatype elem, int per_run, const int* count, const long* stride, int levels);

// `n` blocks of `per_block` elements at the given byte displacements.  Committed.
OwnedType indexed_type(MPI_Datatype elem, int per_block, const MPI_Aint* displs, int n);

// The same blocks as one hvector when they are evenly spaced, else indexed_type.  displs[0] must be 0 (the
// caller gives the first block's target displacement to the MPI call), so that both forms mean the same.
OwnedType blocks_type(MPI_Datatype elem, int per_block, const MPI_Aint* displs, int n);

}  // namespace armcix
