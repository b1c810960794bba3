// MPI_Gather: one wrapper per object file, so that a PMPI tool that defines MPI_Gather itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Gather", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer([&] {
      return ARMCIX_NEXT(MPI_Gather)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    });
  MPI_Request req;
  return complete(PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &req), &req,
                  MPI_STATUS_IGNORE);
}

}  // extern "C"
