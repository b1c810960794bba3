// MPI_Comm_set_errhandler: one wrapper per object file, so that a PMPI tool that defines MPI_Comm_set_errhandler itself
// links ahead of the wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  return ARMCIX_NEXT(MPI_Comm_set_errhandler)(world_or(comm), errhandler);
}

}  // extern "C"
