// Internal interface of the message-passing layer (src/msg): what message.cc's C entry points share with
// scopes.cc (module state, argument checks, MPI mappings, scopes) and operations.cc (the collectives behind
// them).  Internal to the library: none of it is part of the public API.
#pragma once

#include <message.h>
#include <mpi.h>

#include <cstddef>
#include <vector>

#include "groups/group.h"
#include "msg/reduce_ops.h"

namespace armcix {
namespace msg {

// MPI_Comm_create_group tags for the communicators built here; distinct from each other so that two
// creations cannot match even when their member sets overlap.
constexpr int kTagMasters = 0x4d53;     // "MS"
constexpr int kTagGroupScope = 0x4753;  // "GS"
constexpr int kTagDomain = 0x444d;      // "DM"
constexpr int kTagGroupClus = 0x4743;   // "GC"

// A communicator we created for one call, freed on every exit path (including an error thrown by a
// test's error handler).
class OwnedComm {
 public:
  OwnedComm() = default;
  OwnedComm(const OwnedComm&) = delete;
  OwnedComm& operator=(const OwnedComm&) = delete;
  ~OwnedComm() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  MPI_Comm* out() { return &comm_; }
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// --- module state (scopes.cc) ------------------------------------------------------------------------------

MPI_Op sel_op();
MPI_Datatype sel_record_type(int bytes);

// --- argument checks (scopes.cc) ---------------------------------------------------------------------------

const char* scope_name(int scope);
void check_scope(const char* call, int scope);
void check_buffer(const char* call, const char* buf_arg, const void* buf, const char* count_arg, int count);
void check_type(const char* call, int type);
Op check_op(const char* call, const char* op, int type);
void check_tag(const char* call, int tag);
void check_member_group(const char* call, ARMCI_Group* group);
void check_group_rank(const char* call, const char* arg, int rank, const ARMCI_Group* group);

// --- MPI mappings (scopes.cc) ------------------------------------------------------------------------------

MPI_Datatype mpi_type(int type);
MPI_Op mpi_op(Op op);

// --- scopes (scopes.cc) ------------------------------------------------------------------------------------

// The communicator of a scope for the calling rank, and the scope's members in communicator rank order
// (as world ranks for the world, as group ranks for a group).  comm == MPI_COMM_NULL: the caller is not
// in the scope (a non-master in SCOPE_MASTERS) and does nothing.
struct Scope {
  MPI_Comm comm = MPI_COMM_NULL;
  const std::vector<int>* members = nullptr;  // null: the identity (SCOPE_ALL)
  std::vector<int> own_members;
  OwnedComm owned;

  // Communicator rank of a member (world or group rank), or -1 if it is not in the scope.
  int rank_of(int member) const {
    if (members == nullptr) return member;
    for (std::size_t i = 0; i < members->size(); ++i)
      if ((*members)[i] == member) return static_cast<int>(i);
    return -1;
  }
};

void world_scope_members(int scope, Scope* s);
void world_scope_comm(int scope, Scope* s);
void world_scope(int scope, Scope* s);
void group_scope(int scope, ARMCI_Group* group, Scope* s);
int scope_root(const char* call, int scope, const Scope& s, int root);

// --- the operations (operations.cc) ------------------------------------------------------------------------

void bcast_on(MPI_Comm comm, void* buf, int len, int root);
void gop_scope(const char* call, int scope, void* x, int n, const char* op, int type);
void group_gop_scope(const char* call, int scope, void* x, int n, const char* op, int type, ARMCI_Group* group);
void reduce_scope(const char* call, int scope, void* x, int n, const char* op, int type);
void bcast_scope(const char* call, int scope, void* buf, int len, int root);
void sel_scope(const char* call, int scope, void* x, int n, const char* op, int type, int contribute);
void tree_links(const std::vector<int>& ranks, int index, int* root, int* up, int* left, int* right);

}  // namespace msg
}  // namespace armcix
