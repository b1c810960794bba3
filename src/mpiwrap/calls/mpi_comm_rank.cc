// MPI_Comm_rank: one wrapper per object file, so that a PMPI tool that defines MPI_Comm_rank itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  return ARMCIX_NEXT(MPI_Comm_rank)(world_or(comm), rank);
}

}  // extern "C"
