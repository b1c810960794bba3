#include "base/mpi_library.h"

#include <mpi.h>

#include <cstdio>
#include <cstring>

#include "base/error.h"

namespace armcix {

namespace {

// Reads "X.Y[.Z]" at p (leading blanks skipped); leaves the version 0.0.0 if there is none.
void read_version(const char* p, MpiLibrary* lib) {
  while (*p == ' ' || *p == '\t' || *p == 'v') ++p;
  int major = 0, minor = 0, patch = 0;
  const int got = std::sscanf(p, "%d.%d.%d", &major, &minor, &patch);
  if (got < 2) return;
  lib->major = major;
  lib->minor = minor;
  lib->patch = got == 3 ? patch : 0;
}

}  // namespace

MpiLibrary parse_mpi_library_version(const char* text) {
  MpiLibrary lib;
  if (!text) return lib;
  lib.text = text;
  if (const char* p = std::strstr(text, "Open MPI v")) {
    lib.kind = MpiLibrary::Kind::OpenMpi;
    read_version(p + std::strlen("Open MPI "), &lib);
  } else if (const char* q = std::strstr(text, "MPICH Version:")) {
    lib.kind = MpiLibrary::Kind::Mpich;
    read_version(q + std::strlen("MPICH Version:"), &lib);
  } else if (std::strstr(text, "Open MPI")) {
    lib.kind = MpiLibrary::Kind::OpenMpi;
  }
  return lib;
}

const MpiLibrary& mpi_library() {
  static const MpiLibrary lib = [] {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    ARMCIX_MPI(MPI_Get_library_version(text, &len));  // allowed before MPI_Init and after MPI_Finalize
    return parse_mpi_library_version(text);
  }();
  return lib;
}

// Probed by tools/repro/ompi-window-collision.c (doc/user-guide.md, "MPI work-arounds by version").
bool mpi_has_window_name_collision() {
  return mpi_library().is_open_mpi() && mpi_library().before(kOmpiWinNameFixedIn, 0);
}

// Probed by tools/repro/mpi-workaround-probes.c procnull (same section); 4.1 not tried.
bool mpi_has_proc_null_status_bug() {
  return mpi_library().is_mpich() && mpi_library().before(4, 2);
}

// Open MPI 5 only (doc/user-guide.md, "MPI work-arounds by version"); pmodels/armci-mpi bounds it the same way.
int mpi_request_rma_bound() {
  return mpi_library().is_open_mpi() && !mpi_library().before(5, 0) ? kOmpiRequestRmaBound : 0;
}

bool mpi_is_open_mpi() {
  return mpi_library().is_open_mpi();
}

}  // namespace armcix
