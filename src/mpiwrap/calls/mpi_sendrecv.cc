// MPI_Sendrecv: one wrapper per object file, so that a PMPI tool that defines MPI_Sendrecv itself links ahead of the
// wrapper archive without a "multiple definition" (mpiwrap/wrap.h).
#include "base/mpi_library.h"
#include "mpiwrap/wrap.h"

using namespace armcix;           // NOLINT(google-build-using-namespace)
using namespace armcix::mpiwrap;  // NOLINT(google-build-using-namespace)

extern "C" {

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  ARMCIX_TIME_CALL(CallKind::Mpi, "MPI_Sendrecv", 0);
  comm = world_or(comm);
  if (!yield_p2p())
    return with_yield_timer([&] {
      return ARMCIX_NEXT(MPI_Sendrecv)(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                                       source, recvtag, comm, status);
    });
  MPI_Request reqs[2];
  int rc = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &reqs[0]);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &reqs[1]);
  if (rc != MPI_SUCCESS) {
    // The call fails as a whole: take the receive back (its own errors do not matter any more).
    PMPI_Cancel(&reqs[0]);
    PMPI_Request_free(&reqs[0]);
    return rc;
  }
  // The receive first (its status is the call's), then the send.
  rc = complete(MPI_SUCCESS, &reqs[0], status);
  if (source == MPI_PROC_NULL && status != MPI_STATUS_IGNORE && mpi_has_proc_null_status_bug()) {
    // What the blocking call reports; MPICH 4.0's request status says source 0, tag 0 (base/mpi_library.h).
    status->MPI_SOURCE = MPI_PROC_NULL;
    status->MPI_TAG = MPI_ANY_TAG;
  }
  const int send_rc = complete(MPI_SUCCESS, &reqs[1], MPI_STATUS_IGNORE);
  return rc != MPI_SUCCESS ? rc : send_rc;
}

}  // extern "C"
