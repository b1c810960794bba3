// MPI_Recv: one wrapper per object file, so that a PMPI tool that defines MPI_Recv itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Recv", 0);
  comm = world_or(comm);
  // MPI_PROC_NULL returns at once, and a request's status would say source 0, tag 0 on MPICH 4.0 instead of
  // MPI_PROC_NULL and MPI_ANY_TAG (base/mpi_library.h): the blocking call has nothing to wait for anyway.
  if (!yield_p2p() || source == MPI_PROC_NULL)
    return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Recv)(buf, count, datatype, source, tag, comm, status); });
  MPI_Request req;
  return complete(PMPI_Irecv(buf, count, datatype, source, tag, comm, &req), &req, status);
}

}  // extern "C"
