// MPI_Comm_compare: one wrapper per object file, so that a PMPI tool that defines MPI_Comm_compare itself links ahead
// of the wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  return ARMCIX_NEXT(MPI_Comm_compare)(world_or(comm1), world_or(comm2), result);
}

}  // extern "C"
