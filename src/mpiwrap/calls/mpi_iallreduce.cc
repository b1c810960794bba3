// MPI_Iallreduce: one wrapper per object file, so that a PMPI tool that defines MPI_Iallreduce itself links ahead of
// the wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request) {
  return ARMCIX_NEXT(MPI_Iallreduce)(sendbuf, recvbuf, count, datatype, op, world_or(comm), request);
}

}  // extern "C"
