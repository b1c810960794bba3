#include "transfer/datatypes.h"

#include <utility>

#include "runtime/error.h"

namespace armcix {

OwnedType& OwnedType::operator=(OwnedType&& o) noexcept {
  std::swap(t_, o.t_);
  return *this;
}

OwnedType::~OwnedType() {
  if (t_ != MPI_DATATYPE_NULL) MPI_Type_free(&t_);
}

OwnedType strided_type(MPI_Datatype elem, int per_run, const int* count, const long* stride, int levels) {
  MPI_Datatype t;
  ARMCIX_MPI(MPI_Type_contiguous(per_run, elem, &t));
  for (int i = 1; i <= levels; ++i) {
    if (count[i] == 1) continue;  // adds nothing; its stride is meaningless
    MPI_Datatype outer;
    ARMCIX_MPI(MPI_Type_create_hvector(count[i], 1, static_cast<MPI_Aint>(stride[i - 1]), t, &outer));
    ARMCIX_MPI(MPI_Type_free(&t));
    t = outer;
  }
  ARMCIX_MPI(MPI_Type_commit(&t));
  return OwnedType(t);
}

OwnedType indexed_type(MPI_Datatype elem, int per_block, const MPI_Aint* displs, int n) {
  MPI_Datatype block, t;
  ARMCIX_MPI(MPI_Type_contiguous(per_block, elem, &block));
  ARMCIX_MPI(MPI_Type_create_hindexed_block(n, 1, displs, block, &t));
  ARMCIX_MPI(MPI_Type_free(&block));
  ARMCIX_MPI(MPI_Type_commit(&t));
  return OwnedType(t);
}

}  // namespace armcix
