#include "base/error.h"

#include <armci.h>
#include <armcix.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/state.h"

namespace {
ARMCIX_Error_handler_t g_error_handler = nullptr;
}

namespace armcix {

void fail(const char* call, const char* fmt, ...) {
  char text[1024];
  int n = std::snprintf(text, sizeof text, "%s: ", call);
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(text + n, sizeof text - n, fmt, ap);
  va_end(ap);
  ARMCI_Error(text, 1);
  std::abort();  // ARMCI_Error does not return unless a handler misbehaves
}

void mpi_failed(const char* mpi_call, int rc, const char* file, int line) {
  char err[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, err, &len);
  fail("MPI", "%s failed at %s:%d: %s", mpi_call, file, line, err);
}

void abort_job(MPI_Comm comm, int code) {
  int mpi_up = 0, mpi_down = 0;
  MPI_Initialized(&mpi_up);
  MPI_Finalized(&mpi_down);
  // Abort the whole job so that the other ranks do not hang waiting for this one.  The pause first gives
  // the launcher (Hydra forwards stderr through its proxies) time to pass the message on before MPI_Abort
  // tears the job down: once in a CI run the message of every rank was lost without it.
  if (mpi_up && !mpi_down) {
    usleep(100 * 1000);
    MPI_Abort(comm, code);
  }
  std::_Exit(code);
}

}  // namespace armcix

extern "C" {

ARMCIX_Error_handler_t ARMCIX_Set_error_handler(ARMCIX_Error_handler_t handler) {
  ARMCIX_Error_handler_t previous = g_error_handler;
  g_error_handler = handler;
  return previous;
}

void ARMCI_Error(const char* msg, int code) {
  if (g_error_handler) g_error_handler(msg ? msg : "", code);
  int rank = armcix::initialized() ? armcix::rt().me : -1;
  std::fprintf(stderr, "[%d] ARMCI Error: %s (code %d)\n", rank, msg ? msg : "", code);
  std::fflush(stderr);
  armcix::abort_job(MPI_COMM_WORLD, code ? code : 1);
}

}  // extern "C"
