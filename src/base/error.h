// Error reporting: every bad-input path ends in ARMCI_Error with a message that names the ARMCI call and
// the offending argument, and every MPI call's return code is checked.
#pragma once

#include <mpi.h>

#include <cstdarg>

namespace armcix {

// Formats "<call>: <message>" and hands it to ARMCI_Error (which runs the installed handler, then aborts).
[[noreturn]] void fail(const char* call, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// Reports a failed MPI call (with MPI's own error string) through fail().
[[noreturn]] void mpi_failed(const char* mpi_call, int rc, const char* file, int line);

// Ends the whole job: a pause that lets the launcher pass on what this rank wrote to stderr, then
// MPI_Abort on `comm` if MPI is running, else _Exit.  The one abort path (ARMCI_Error, armci_msg_abort).
[[noreturn]] void abort_job(MPI_Comm comm, int code);

// Prints one message on standard error in a single write(2), so that the lines of ranks printing at once
// stay whole through the launcher's pipes: glibc 2.37 and newer (Debian 13) write printf output to an
// unbuffered stream in 128-byte pieces, and two ranks' errors came out spliced mid-line.
void print_to_stderr(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace armcix

// Checks an MPI call.  MPI's default handler on our communicators is set to MPI_ERRORS_RETURN so that the
// failure reaches ARMCI_Error with the call that made it.
#define ARMCIX_MPI(call)                                                                        \
  do {                                                                                          \
    int armcix_rc_ = (call);                                                                    \
    if (armcix_rc_ != MPI_SUCCESS) ::armcix::mpi_failed(#call, armcix_rc_, __FILE__, __LINE__); \
  } while (0)

// Argument checks.  Cheap enough to stay on in release builds: an ARMCI program that passes a bad pointer
// gets a message instead of silent corruption.
#define ARMCIX_REQUIRE(cond, call, ...)                                  \
  do {                                                                   \
    if (__builtin_expect(!(cond), 0)) ::armcix::fail(call, __VA_ARGS__); \
  } while (0)
