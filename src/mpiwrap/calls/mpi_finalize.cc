// MPI_Finalize: one wrapper per object file, so that a PMPI tool that defines MPI_Finalize itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Finalize(void) {
  before_mpi_finalize();
  const int rc = with_yield_timer([&] { return ARMCIX_NEXT(MPI_Finalize)(); });
  yield_timer_release();  // the last timed call: the signal is the program's again
  return rc;
}

}  // extern "C"
