#include "runtime/mpi_hooks.h"

#include <mpi.h>

#include "base/error.h"
#include "progress/progress_ranks.h"
#include "progress/progress_roles.h"
#include "runtime/runtime.h"

namespace armcix {

void after_mpi_init(int* argc, char*** argv, int asked) {
  if (!progress_roles_at_mpi_init()) return;
  initialize(argc, argv, asked, MPI_COMM_WORLD, false);  // serves, finalizes and exits
  fail("MPI_Init", "a progress rank returned from ARMCI_Init");
}

void before_mpi_finalize() {
  release_unused_progress_ranks();
  progress_ranks_meet_at_mpi_finalize();
}

}  // namespace armcix
