// MPI_Iprobe: one wrapper per object file, so that a PMPI tool that defines MPI_Iprobe itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  return ARMCIX_NEXT(MPI_Iprobe)(source, tag, world_or(comm), flag, status);
}

}  // extern "C"
