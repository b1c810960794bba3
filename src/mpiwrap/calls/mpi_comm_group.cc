// MPI_Comm_group: one wrapper per object file, so that a PMPI tool that defines MPI_Comm_group itself links ahead of
// the wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  return ARMCIX_NEXT(MPI_Comm_group)(world_or(comm), group);
}

}  // extern "C"
