// MPI_Comm_split: one wrapper per object file, so that a PMPI tool that defines MPI_Comm_split itself links ahead of
// the wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Comm_split", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Comm_split)(comm, color, key, newcomm); });
  if (!use_comm_templates() || (color < 0 && color != MPI_UNDEFINED)) {  // a bad color: MPI reports it
    if (int rc = arrive_together(comm); rc != MPI_SUCCESS) return rc;
    return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Comm_split)(comm, color, key, newcomm); });
  }
  int n = 0;
  PMPI_Comm_size(comm, &n);
  std::vector<int> color_key(2 * static_cast<std::size_t>(n));
  const int mine[2] = {color, key};
  MPI_Request req;
  if (int rc = complete(PMPI_Iallgather(mine, 2, MPI_INT, color_key.data(), 2, MPI_INT, comm, &req), &req,
                        MPI_STATUS_IGNORE);
      rc != MPI_SUCCESS)
    return rc;
  // My color's processes ordered by key, ties by rank in `comm` (MPI_Comm_split's order).
  std::vector<int> members;
  if (color != MPI_UNDEFINED) {
    for (int r = 0; r < n; ++r)
      if (color_key[2 * r] == color) members.push_back(r);
    std::stable_sort(members.begin(), members.end(),
                     [&](int a, int b) { return color_key[2 * a + 1] < color_key[2 * b + 1]; });
  }
  return create_from_template(comm, members, newcomm);
}

}  // extern "C"
