// MPI_Probe: one wrapper per object file, so that a PMPI tool that defines MPI_Probe itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Probe", 0);
  comm = world_or(comm);
  if (!yield_p2p() || source == MPI_PROC_NULL)
    return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Probe)(source, tag, comm, status); });  // returns at once
  return poll_with_pauses([&](int* found) { return PMPI_Iprobe(source, tag, comm, found, status); });
}

}  // extern "C"
