// Progress ranks and MPI_COMM_WORLD.  With ARMCI_PROGRESS_RANKS=k the last k processes of every node never
// return from ARMCI_Init, so a program that uses MPI_COMM_WORLD after it (a barrier, a reduction, its rank
// and size -- Global Arrays' test programs, our own tests) would wait for them forever or count them.  As
// Casper does, the library defines the MPI functions such programs call on a communicator and passes
// MPI_COMM_WORLD on to the profiling interface (PMPI_*) as the program ranks' communicator.  Without
// progress ranks every wrapper passes its arguments through unchanged: one comparison per call.
//
// The list covers the MPI calls that Global Arrays 5.8.2 (Debian's libga-mpich.a: nm -u) and our tests,
// examples and benchmarks make on a communicator.  Anything else on MPI_COMM_WORLD still sees every
// process (doc/user-guide.md, "Progress ranks").
//
// Generated from MPICH 4.0.2's mpi.h prototypes (the same in Open MPI 4.1); the functions keep MPI's names.
#include <mpi.h>

#include "runtime/progress_ranks.h"

namespace armcix {

namespace {
MPI_Comm g_program_world = MPI_COMM_NULL;  // program ranks; set once, kept until MPI_Finalize
}  // namespace

void set_program_world(MPI_Comm program) {
  g_program_world = program;
}

bool program_world_set() {
  return g_program_world != MPI_COMM_NULL;
}

}  // namespace armcix

namespace {

inline MPI_Comm world_or(MPI_Comm c) {
  return c == MPI_COMM_WORLD && armcix::g_program_world != MPI_COMM_NULL ? armcix::g_program_world : c;
}

}  // namespace

extern "C" {

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, world_or(comm));
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, world_or(comm));
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, world_or(comm));
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, world_or(comm));
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, world_or(comm));
}

int MPI_Barrier(MPI_Comm comm) {
  return PMPI_Barrier(world_or(comm));
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return PMPI_Bcast(buffer, count, datatype, root, world_or(comm));
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, world_or(comm));
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, world_or(comm));
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, world_or(comm));
}

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request) {
  return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, world_or(comm), request);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return PMPI_Ibarrier(world_or(comm), request);
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
  return PMPI_Ibcast(buffer, count, datatype, root, world_or(comm), request);
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, world_or(comm));
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return PMPI_Scan(sendbuf, recvbuf, count, datatype, op, world_or(comm));
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, world_or(comm));
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, world_or(comm));
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  return PMPI_Comm_compare(world_or(comm1), world_or(comm2), result);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  return PMPI_Comm_create(world_or(comm), group, newcomm);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  return PMPI_Comm_create_group(world_or(comm), group, tag, newcomm);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return PMPI_Comm_dup(world_or(comm), newcomm);
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  return PMPI_Comm_group(world_or(comm), group);
}

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  return PMPI_Comm_rank(world_or(comm), rank);
}

int MPI_Comm_size(MPI_Comm comm, int* size) {
  return PMPI_Comm_size(world_or(comm), size);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  return PMPI_Comm_split(world_or(comm), color, key, newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  return PMPI_Comm_split_type(world_or(comm), split_type, key, info, newcomm);
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  return PMPI_Comm_set_errhandler(world_or(comm), errhandler);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  return PMPI_Iprobe(source, tag, world_or(comm), flag, status);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  return PMPI_Irecv(buf, count, datatype, source, tag, world_or(comm), request);
}

int MPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return PMPI_Isend(buf, count, datatype, dest, tag, world_or(comm), request);
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return PMPI_Probe(source, tag, world_or(comm), status);
}

int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return PMPI_Recv(buf, count, datatype, source, tag, world_or(comm), status);
}

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return PMPI_Send(buf, count, datatype, dest, tag, world_or(comm));
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                       world_or(comm), status);
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return PMPI_Ssend(buf, count, datatype, dest, tag, world_or(comm));
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return PMPI_Win_allocate(size, disp_unit, info, world_or(comm), baseptr, win);
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return PMPI_Win_allocate_shared(size, disp_unit, info, world_or(comm), baseptr, win);
}

int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return PMPI_Win_create(base, size, disp_unit, info, world_or(comm), win);
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return PMPI_Win_create_dynamic(info, world_or(comm), win);
}

}  // extern "C"
