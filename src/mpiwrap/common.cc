#include <dlfcn.h>

#include "mpiwrap/wrap.h"

namespace armcix::mpiwrap {

namespace {

// Tells libarmci at load time (shared) or start-up (static: this object comes with any wrapper) that the
// wrappers are in the program, so that ARMCI_Init can tell a missing library from a bypassed MPI_Init.
__attribute__((constructor)) void announce() {
  note_mpi_wrappers();
}

}  // namespace

void* next_definition(const char* name, void* fallback) {
  void* next = dlsym(RTLD_NEXT, name);
  return next ? next : fallback;
}

int complete(int started, MPI_Request* req, MPI_Status* status, HandOff handoff) {
  if (started != MPI_SUCCESS) return started;
  return poll_with_pauses([&](int* done) { return PMPI_Test(req, done, status); }, handoff);
}

int arrive_together(MPI_Comm comm) {
  MPI_Request req;
  return complete(PMPI_Ibarrier(comm, &req), &req, MPI_STATUS_IGNORE);
}

}  // namespace armcix::mpiwrap
