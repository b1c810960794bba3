// MPI_Reduce_scatter: one wrapper per object file, so that a PMPI tool that defines MPI_Reduce_scatter itself links
// ahead of the wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Reduce_scatter", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer(
        [&] { return ARMCIX_NEXT(MPI_Reduce_scatter)(sendbuf, recvbuf, recvcounts, datatype, op, comm); });
  MPI_Request req;
  return complete(PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, &req), &req,
                  MPI_STATUS_IGNORE);
}

}  // extern "C"
