// MPI_Waitall: one wrapper per object file, so that a PMPI tool that defines MPI_Waitall itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Waitall", 0);
  if (!yield_p2p()) return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Waitall)(count, requests, statuses); });
  return poll_with_pauses([&](int* done) { return PMPI_Testall(count, requests, done, statuses); });
}

}  // extern "C"
