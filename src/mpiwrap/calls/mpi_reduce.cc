// MPI_Reduce: one wrapper per object file, so that a PMPI tool that defines MPI_Reduce itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Reduce", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Reduce)(sendbuf, recvbuf, count, datatype, op, root, comm); });
  MPI_Request req;
  return complete(PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, &req), &req, MPI_STATUS_IGNORE);
}

}  // extern "C"
