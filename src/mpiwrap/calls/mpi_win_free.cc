// MPI_Win_free: one wrapper per object file, so that a PMPI tool that defines MPI_Win_free itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Win_free(MPI_Win* win) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Win_free", 0);
  return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Win_free)(win); });
}

}  // extern "C"
