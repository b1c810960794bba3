// MPI_Comm_create: one wrapper per object file, so that a PMPI tool that defines MPI_Comm_create itself links ahead of
// the wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Comm_create", 0);
  comm = world_or(comm);
  if (!yield_collective(comm))
    return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Comm_create)(comm, group, newcomm); });
  if (!use_comm_templates() || group == MPI_GROUP_NULL) {
    if (int rc = arrive_together(comm); rc != MPI_SUCCESS) return rc;
    return with_yield_timer([&] { return ARMCIX_NEXT(MPI_Comm_create)(comm, group, newcomm); });
  }
  // The members: `group` in its order, as ranks in `comm` (every process passes its own new
  // communicator's group, MPI-2.2); none if this process is not in it.
  int in_group = MPI_UNDEFINED, size = 0;
  PMPI_Group_rank(group, &in_group);
  PMPI_Group_size(group, &size);
  std::vector<int> members;
  if (in_group != MPI_UNDEFINED) {
    MPI_Group comm_group;
    if (int rc = PMPI_Comm_group(comm, &comm_group); rc != MPI_SUCCESS) return rc;
    std::vector<int> ranks(static_cast<std::size_t>(size));
    std::iota(ranks.begin(), ranks.end(), 0);
    members.assign(ranks.size(), MPI_UNDEFINED);
    const int rc = PMPI_Group_translate_ranks(group, size, ranks.data(), comm_group, members.data());
    PMPI_Group_free(&comm_group);
    if (rc != MPI_SUCCESS) return rc;
  }
  return create_from_template(comm, members, newcomm);
}

}  // extern "C"
