// MPI_Waitsome: one wrapper per object file, so that a PMPI tool that defines MPI_Waitsome itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Waitsome", 0);
  if (!yield_p2p())
    return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Waitsome)(incount, requests, outcount, indices, statuses); });
  return poll_with_pauses([&](int* done) {
    const int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
    *done = *outcount != 0;
    return rc;
  });
}

}  // extern "C"
