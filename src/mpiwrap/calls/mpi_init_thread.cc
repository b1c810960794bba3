// MPI_Init_thread: one wrapper per object file, so that a PMPI tool that defines MPI_Init_thread itself links ahead of
// the wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int asked = required;
  if (required < MPI_THREAD_MULTIPLE && Config::progress_thread_requested()) {
    set_program_thread_request(required);
    required = MPI_THREAD_MULTIPLE;
  }
  const int rc = ARMCIX_NEXT(MPI_Init_thread)(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) after_mpi_init(argc, argv, asked);
  return rc;
}

}  // extern "C"
