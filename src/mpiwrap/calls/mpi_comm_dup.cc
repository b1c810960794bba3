// MPI_Comm_dup: one wrapper per object file, so that a PMPI tool that defines MPI_Comm_dup itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Comm_dup", 0);
  comm = world_or(comm);
  if (!yield_collective(comm)) return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Comm_dup)(comm, newcomm); });
  MPI_Request req;
  return complete(PMPI_Comm_idup(comm, newcomm, &req), &req, MPI_STATUS_IGNORE);
}

}  // extern "C"
