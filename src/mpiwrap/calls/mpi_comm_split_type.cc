// MPI_Comm_split_type: one wrapper per object file, so that a PMPI tool that defines MPI_Comm_split_type itself links
// ahead of the wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Comm_split_type", 0);
  comm = world_or(comm);
  if (yield_collective(comm))
    if (int rc = arrive_together(comm); rc != MPI_SUCCESS) return rc;
  return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Comm_split_type)(comm, split_type, key, info, newcomm); });
}

}  // extern "C"
