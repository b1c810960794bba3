// MPI_Send: one wrapper per object file, so that a PMPI tool that defines MPI_Send itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Send", 0);
  comm = world_or(comm);
  if (!yield_p2p())
    return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Send)(buf, count, datatype, dest, tag, comm); });
  MPI_Request req;
  return complete(PMPI_Isend(buf, count, datatype, dest, tag, comm, &req), &req, MPI_STATUS_IGNORE);
}

}  // extern "C"
