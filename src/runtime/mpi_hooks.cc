#include "runtime/mpi_hooks.h"

#include <mpi.h>

#include <atomic>

#include "base/error.h"
#include "progress/progress_ranks.h"
#include "progress/progress_roles.h"
#include "runtime/runtime.h"

namespace armcix {

namespace {
std::atomic<bool> g_wrappers{false};
std::atomic<bool> g_init_wrapped{false};
}  // namespace

void note_mpi_wrappers() {
  g_wrappers.store(true, std::memory_order_relaxed);
}

bool mpi_wrappers_present() {
  return g_wrappers.load(std::memory_order_relaxed);
}

bool mpi_init_wrapped() {
  return g_init_wrapped.load(std::memory_order_relaxed);
}

void after_mpi_init(int* argc, char*** argv, int asked) {
  g_init_wrapped.store(true, std::memory_order_relaxed);
  if (!progress_roles_at_mpi_init()) return;
  initialize(argc, argv, asked, MPI_COMM_WORLD, false);  // serves, finalizes and exits
  fail("MPI_Init", "a progress rank returned from ARMCI_Init");
}

void before_mpi_finalize() {
  release_unused_progress_ranks();
  progress_ranks_meet_at_mpi_finalize();
}

}  // namespace armcix
