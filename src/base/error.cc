#include "base/error.h"

#include <armci.h>
#include <armcix.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/state.h"

namespace {
ARMCIX_Error_handler_t g_error_handler = nullptr;
}

namespace armcix {

void print_to_stderr(const char* fmt, ...) {
  char text[4096];  // PIPE_BUF: one write of at most this much to a pipe is not interleaved with others
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  std::size_t left = std::min(static_cast<std::size_t>(n), sizeof text - 1);
  const char* p = text;
  std::fflush(stderr);  // whatever the program put on stderr before comes first
  while (left > 0) {
    ssize_t w = ::write(STDERR_FILENO, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    left -= static_cast<std::size_t>(w);
  }
}

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
  armcix::print_to_stderr("[%d] ARMCI Error: %s (code %d)\n", rank, msg ? msg : "", code);
  armcix::abort_job(MPI_COMM_WORLD, code ? code : 1);
}

}  // extern "C"
