// MPI_Alltoall: one wrapper per object file, so that a PMPI tool that defines MPI_Alltoall itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Alltoall", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer(
        [&] { return ARMCIX_NEXT(MPI_Alltoall)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); });
  MPI_Request req;
  return complete(PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &req), &req,
                  MPI_STATUS_IGNORE);
}

}  // extern "C"
