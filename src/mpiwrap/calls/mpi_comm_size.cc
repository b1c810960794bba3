// MPI_Comm_size: one wrapper per object file, so that a PMPI tool that defines MPI_Comm_size itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Comm_size(MPI_Comm comm, int* size) {
  return ARMCIX_NEXT(MPI_Comm_size)(world_or(comm), size);
}

}  // extern "C"
