// MPI_Waitany: one wrapper per object file, so that a PMPI tool that defines MPI_Waitany itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Waitany", 0);
  if (!yield_p2p()) return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Waitany)(count, requests, index, status); });
  return poll_with_pauses([&](int* done) { return PMPI_Testany(count, requests, index, done, status); });
}

}  // extern "C"
