// MPI_Init: one wrapper per object file, so that a PMPI tool that defines MPI_Init itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  if (Config::progress_thread_requested()) {
    int provided = MPI_THREAD_SINGLE;
    return MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
  }
  const int rc = ARMCIX_NEXT(MPI_Init)(argc, argv);
  if (rc == MPI_SUCCESS) after_mpi_init(argc, argv, MPI_THREAD_SINGLE);
  return rc;
}

}  // extern "C"
