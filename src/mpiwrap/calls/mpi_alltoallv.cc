// MPI_Alltoallv: one wrapper per object file, so that a PMPI tool that defines MPI_Alltoallv itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Alltoallv", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer([&] {
      return ARMCIX_NEXT(MPI_Alltoallv)(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                        comm);
    });
  MPI_Request req;
  return complete(
      PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, &req), &req,
      MPI_STATUS_IGNORE);
}

}  // extern "C"
