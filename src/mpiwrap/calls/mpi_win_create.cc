// MPI_Win_create: one wrapper per object file, so that a PMPI tool that defines MPI_Win_create itself links ahead of
// the wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Win_create", 0);
  comm = world_or(comm);
  if (yield_collective(comm))
    if (int rc = arrive_together(comm); rc != MPI_SUCCESS) return rc;
  return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Win_create)(base, size, disp_unit, info, comm, win); });
}

}  // extern "C"
