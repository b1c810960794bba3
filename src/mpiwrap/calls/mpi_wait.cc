// MPI_Wait: one wrapper per object file, so that a PMPI tool that defines MPI_Wait itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Wait", 0);
  if (!yield_p2p()) return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Wait)(request, status); });
  return complete(MPI_SUCCESS, request, status);
}

}  // extern "C"
