#include "transfer/datatypes.h"

#include <utility>

#include "base/error.h"

namespace armcix {

OwnedType& OwnedType::operator=(OwnedType&& o) noexcept {
  std::swap(t_, o.t_);
  return *this;
}

OwnedType::~OwnedType() {
  if (t_ != MPI_DATATYPE_NULL) MPI_Type_free(&t_);
}

OwnedType strided_type(MPI_Datatype elem, int per_run, const int* count, const long* stride, int levels) {
  // The runs are a block length of `elem`s in the innermost hvector, not a contiguous type of their own:
  // MPICH built without yaksa packs and unpacks the flat form faster (doc/design.md, "Strided transfers").
  MPI_Datatype t = MPI_DATATYPE_NULL;
  for (int i = 1; i <= levels; ++i) {
    if (count[i] == 1) continue;  // adds nothing; its stride is meaningless
    MPI_Datatype outer;
    if (t == MPI_DATATYPE_NULL) {
      ARMCIX_MPI(MPI_Type_create_hvector(count[i], per_run, static_cast<MPI_Aint>(stride[i - 1]), elem, &outer));
    } else {
      ARMCIX_MPI(MPI_Type_create_hvector(count[i], 1, static_cast<MPI_Aint>(stride[i - 1]), t, &outer));
      ARMCIX_MPI(MPI_Type_free(&t));
    }
    t = outer;
  }
  if (t == MPI_DATATYPE_NULL) ARMCIX_MPI(MPI_Type_contiguous(per_run, elem, &t));
  ARMCIX_MPI(MPI_Type_commit(&t));
  return OwnedType(t);
}

OwnedType indexed_type(MPI_Datatype elem, int per_block, const MPI_Aint* displs, int n) {
  MPI_Datatype t;
  ARMCIX_MPI(MPI_Type_create_hindexed_block(n, per_block, displs, elem, &t));
  ARMCIX_MPI(MPI_Type_commit(&t));
  return OwnedType(t);
}

OwnedType blocks_type(MPI_Datatype elem, int per_block, const MPI_Aint* displs, int n) {
  bool even = n > 1;
  for (int i = 2; even && i < n; ++i) even = displs[i] - displs[i - 1] == displs[1] - displs[0];
  if (!even) return indexed_type(elem, per_block, displs, n);
  MPI_Datatype t;
  ARMCIX_MPI(MPI_Type_create_hvector(n, per_block, displs[1] - displs[0], elem, &t));
  ARMCIX_MPI(MPI_Type_commit(&t));
  return OwnedType(t);
}

}  // namespace armcix
