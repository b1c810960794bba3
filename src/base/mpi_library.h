// Which MPI library and version this process runs on (MPI_Get_library_version), for the work-arounds that
// only some versions need.  doc/user-guide.md, "MPI work-arounds by version", lists each with its evidence.
#pragma once

#include <string>

namespace armcix {

// Open MPI's first major version without the osc/rdma window-name collision (issue 7393): the one place that
// says so, for mpi_has_window_name_collision() and ARMCI_WINDOW_GATE's default (base/config.h).
constexpr int kOmpiWinNameFixedIn = 5;

struct MpiLibrary {
  enum class Kind { Mpich, OpenMpi, Other };
  Kind kind = Kind::Other;
  int major = 0, minor = 0, patch = 0;  // 0.0.0 when the text names no version
  std::string text;                     // MPI_Get_library_version's own words (the verbose banner shows them)

  bool is_open_mpi() const { return kind == Kind::OpenMpi; }
  bool is_mpich() const { return kind == Kind::Mpich; }
  // True for a known version below major.minor (an unknown version counts as new).
  bool before(int major_, int minor_) const {
    return (major != 0 || minor != 0) && (major < major_ || (major == major_ && minor < minor_));
  }
};

// Parses MPI_Get_library_version's text: MPICH's "MPICH Version:\t4.0.2\n..." and Open MPI's
// "Open MPI v5.0.7, package: ...".  Derived MPIs that name MPICH the same way (Intel MPI, MVAPICH) are
// Other unless their text says "MPICH Version:".
MpiLibrary parse_mpi_library_version(const char* text);

// This process's library, read once (MPI_Get_library_version may be called before MPI_Init).
const MpiLibrary& mpi_library();

// The work-arounds chosen by version (each is documented where it is applied).
// Open MPI 4's osc/rdma window-name collision (issue 7393): gone in 5.0.
bool mpi_has_window_name_collision();
// MPICH 4.0's MPI_Wait status of an MPI_PROC_NULL receive (source 0, tag 0): gone in 4.2.1.
bool mpi_has_proc_null_status_bug();

// Open MPI 5's osc ucx: each request-based RMA operation (MPI_Rget, MPI_Raccumulate, ...) holds a UCX endpoint
// reference until it completes, and UCX aborts at the 255th (an 8-bit count: `refcount < UINT8_MAX' in
// flush.c); not on 4.1.  How many such requests armci-x keeps in flight there.
constexpr int kOmpiRequestRmaBound = 128;
// kOmpiRequestRmaBound on Open MPI 5 and later, else 0 (no bound of MPI's own).
int mpi_request_rma_bound();

// True if the MPI library is Open MPI (any version).
bool mpi_is_open_mpi();

}  // namespace armcix
