// MPI_Allreduce: one wrapper per object file, so that a PMPI tool that defines MPI_Allreduce itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Allreduce", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Allreduce)(sendbuf, recvbuf, count, datatype, op, comm); });
  MPI_Request req;
  return complete(PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, &req), &req, MPI_STATUS_IGNORE);
}

}  // extern "C"
