// MPI_Comm_create_group: one wrapper per object file, so that a PMPI tool that defines MPI_Comm_create_group itself
// links ahead of the wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Comm_create_group", 0);
  return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Comm_create_group)(world_or(comm), group, tag, newcomm); });
}

}  // extern "C"
