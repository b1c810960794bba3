// MPI_Barrier: one wrapper per object file, so that a PMPI tool that defines MPI_Barrier itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Barrier", 0);
  comm = world_or(comm);
  if (!yield_collective(comm)) return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Barrier)(comm); });
  MPI_Request req;
  return complete(PMPI_Ibarrier(comm, &req), &req, MPI_STATUS_IGNORE, HandOff::Allowed);
}

}  // extern "C"
