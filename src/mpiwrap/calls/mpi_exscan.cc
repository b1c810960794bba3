// MPI_Exscan: one wrapper per object file, so that a PMPI tool that defines MPI_Exscan itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Exscan", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Exscan)(sendbuf, recvbuf, count, datatype, op, comm); });
  MPI_Request req;
  return complete(PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, &req), &req, MPI_STATUS_IGNORE);
}

}  // extern "C"
