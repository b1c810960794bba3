// MPI_Irecv: one wrapper per object file, so that a PMPI tool that defines MPI_Irecv itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  return ARMCIX_NEXT(MPI_Irecv)(buf, count, datatype, source, tag, world_or(comm), request);
}

}  // extern "C"
