// The message-passing layer's module state (the communicators and the selection operation it builds
// lazily), argument checks, mappings onto MPI types and operations, and scopes (message.cc describes the
// scopes).  msg_internal.h declares what the other files of src/msg use.
#include <message.h>
#include <mpi.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "base/error.h"
#include "base/state.h"
#include "groups/group.h"
#include "msg/msg_internal.h"
#include "msg/reduce_ops.h"
#include "runtime/modules.h"

namespace {

using armcix::rt;
using armcix::msg::kTagDomain;
using armcix::msg::kTagMasters;

// --- module state (lives from first use to ARMCI_Finalize) -------------------------------------------------

struct State {
  std::vector<int> master_ranks;              // world rank of node k's master at index k
  MPI_Comm masters = MPI_COMM_NULL;           // domain masters of the world, built lazily on the masters only
  MPI_Comm domain = MPI_COMM_NULL;            // my domain where it is not my whole node, built lazily in it
  MPI_Op sel_op = MPI_OP_NULL;                // record selection for armci_msg_sel*
  MPI_Datatype sel_type = MPI_DATATYPE_NULL;  // one record; cached because GA repeats the same size
  int sel_type_bytes = 0;
};
State g_state;

}  // namespace

// Idempotent: nothing to free unless a collective built it.
void armcix::msg_finalize() {
  if (g_state.masters != MPI_COMM_NULL) MPI_Comm_free(&g_state.masters);
  if (g_state.domain != MPI_COMM_NULL) MPI_Comm_free(&g_state.domain);
  if (g_state.sel_op != MPI_OP_NULL) MPI_Op_free(&g_state.sel_op);
  if (g_state.sel_type != MPI_DATATYPE_NULL) MPI_Type_free(&g_state.sel_type);
  g_state = State();
}

namespace {

bool is_world_master() {
  return rt().domain_members[rt().domain_id][0] == rt().me;
}

// Built once per ARMCI_Init cycle (the topology may differ between cycles, so msg_finalize clears it).
const std::vector<int>& world_masters() {
  if (g_state.master_ranks.empty()) {
    for (const auto& domain : rt().domain_members) g_state.master_ranks.push_back(domain[0]);
  }
  return g_state.master_ranks;
}

MPI_Comm world_masters_comm() {
  if (g_state.masters == MPI_COMM_NULL) {
    const std::vector<int>& masters = world_masters();  // communicator rank k = domain k
    MPI_Group world_group, masters_group;
    ARMCIX_MPI(MPI_Comm_group(rt().world, &world_group));
    ARMCIX_MPI(MPI_Group_incl(world_group, static_cast<int>(masters.size()), masters.data(), &masters_group));
    ARMCIX_MPI(MPI_Comm_create_group(rt().world, masters_group, kTagMasters, &g_state.masters));
    ARMCIX_MPI(MPI_Group_free(&masters_group));
    ARMCIX_MPI(MPI_Group_free(&world_group));
    ARMCIX_MPI(MPI_Comm_set_errhandler(g_state.masters, MPI_ERRORS_RETURN));
  }
  return g_state.masters;
}

// My domain's communicator: the node's where they coincide (blocked placement), else one of its own, made
// among the domain's members only (they are all in the call: a SCOPE_NODE operation is collective over it).
MPI_Comm world_domain_comm() {
  const armcix::Runtime& r = rt();
  const std::vector<int>& members = r.domain_members[r.domain_id];
  if (members.size() == r.node_members[r.node_id].size()) return r.node_comm;
  if (members.size() == 1) return MPI_COMM_SELF;
  if (g_state.domain == MPI_COMM_NULL) {
    MPI_Group world_group, domain_group;
    ARMCIX_MPI(MPI_Comm_group(r.world, &world_group));
    ARMCIX_MPI(MPI_Group_incl(world_group, static_cast<int>(members.size()), members.data(), &domain_group));
    ARMCIX_MPI(MPI_Comm_create_group(r.world, domain_group, kTagDomain, &g_state.domain));
    ARMCIX_MPI(MPI_Group_free(&domain_group));
    ARMCIX_MPI(MPI_Group_free(&world_group));
    ARMCIX_MPI(MPI_Comm_set_errhandler(g_state.domain, MPI_ERRORS_RETURN));
  }
  return g_state.domain;
}

extern "C" void sel_reduce_fn(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<unsigned char*>(in);
  auto* b = static_cast<unsigned char*>(inout);
  for (int i = 0; i < *len; ++i) {
    armcix::msg::SelHeader h;
    std::memcpy(&h, a, sizeof h);
    const std::size_t stride = sizeof h + static_cast<std::size_t>(h.payload_bytes);
    armcix::msg::sel_combine(a, b);
    a += stride;
    b += stride;
  }
}

}  // namespace

namespace armcix {
namespace msg {

MPI_Op sel_op() {
  if (g_state.sel_op == MPI_OP_NULL) {
    ARMCIX_MPI(MPI_Op_create(&sel_reduce_fn, /*commute=*/1, &g_state.sel_op));
  }
  return g_state.sel_op;
}

// A single datatype for the whole record, so that MPI never splits a record between two calls of the
// reduction function (it may split a count of MPI_BYTEs).
MPI_Datatype sel_record_type(int bytes) {
  if (g_state.sel_type_bytes != bytes) {
    if (g_state.sel_type != MPI_DATATYPE_NULL) ARMCIX_MPI(MPI_Type_free(&g_state.sel_type));
    g_state.sel_type_bytes = 0;
    ARMCIX_MPI(MPI_Type_contiguous(bytes, MPI_BYTE, &g_state.sel_type));
    ARMCIX_MPI(MPI_Type_commit(&g_state.sel_type));
    g_state.sel_type_bytes = bytes;
  }
  return g_state.sel_type;
}

// --- argument checks ---------------------------------------------------------------------------------------

const char* scope_name(int scope) {
  switch (scope) {
    case SCOPE_ALL:
      return "SCOPE_ALL";
    case SCOPE_NODE:
      return "SCOPE_NODE";
    case SCOPE_MASTERS:
      return "SCOPE_MASTERS";
    default:
      return "?";
  }
}

void check_scope(const char* call, int scope) {
  ARMCIX_REQUIRE(scope == SCOPE_ALL || scope == SCOPE_NODE || scope == SCOPE_MASTERS, call,
                 "argument 'scope' = %d is not SCOPE_ALL (%d), SCOPE_NODE (%d) or SCOPE_MASTERS (%d)", scope, SCOPE_ALL,
                 SCOPE_NODE, SCOPE_MASTERS);
}

// A buffer of `count` units: count >= 0, and buf non-NULL when count > 0.
void check_buffer(const char* call, const char* buf_arg, const void* buf, const char* count_arg, int count) {
  ARMCIX_REQUIRE(count >= 0, call, "argument '%s' = %d is negative", count_arg, count);
  ARMCIX_REQUIRE(buf != nullptr || count == 0, call, "argument '%s' is NULL but '%s' = %d", buf_arg, count_arg, count);
}

void check_type(const char* call, int type) {
  ARMCIX_REQUIRE(armcix::msg::valid_type(type), call, "argument 'type' = %d is not one of%s (0..%d)", type,
                 armcix::msg::kElemTypeNames, armcix::msg::kElemTypeCount - 1);
}

Op check_op(const char* call, const char* op, int type) {
  ARMCIX_REQUIRE(op != nullptr, call, "argument 'op' is NULL");
  Op parsed;
  ARMCIX_REQUIRE(armcix::msg::parse_op(op, &parsed), call,
                 // At most 16 characters: a Fortran caller's string has no terminating NUL (reduce_ops.h).
                 "argument 'op' = \"%.16s\" does not start with a known operation (+ * max min absmax absmin or and "
                 "&& ||)",
                 op);
  ARMCIX_REQUIRE(!armcix::msg::integer_only(parsed) || armcix::msg::is_integer_type(type), call,
                 "argument 'op' = \"%.16s\" is defined for integer types only, not for type %s", op,
                 armcix::msg::type_name(type));
  return parsed;
}

// Tags 0..MPI_TAG_UB-1: MPI_TAG_UB itself carries armci_notify's messages on the same communicator.
void check_tag(const char* call, int tag) {
  const int last = rt().notify_tag - 1;
  ARMCIX_REQUIRE(tag >= 0 && tag <= last, call,
                 "argument 'tag' = %d is outside 0..%d (MPI_TAG_UB = %d is armci_notify's)", tag, last,
                 rt().notify_tag);
}

// Validates a group handle the caller must be a member of.
void check_member_group(const char* call, ARMCI_Group* group) {
  armcix::check_group(call, group, true);
}

void check_group_rank(const char* call, const char* arg, int rank, const ARMCI_Group* group) {
  ARMCIX_REQUIRE(rank >= 0 && rank < group->size, call, "argument '%s' = %d is not a rank of the group (0..%d)", arg,
                 rank, group->size - 1);
}

// --- MPI mappings ------------------------------------------------------------------------------------------

MPI_Datatype mpi_type(int type) {
  switch (type) {
#define ARMCIX_MSG_CASE(e, T, M, integer) \
  case e:                                 \
    return M;
    ARMCIX_MSG_TYPES(ARMCIX_MSG_CASE)
#undef ARMCIX_MSG_CASE
    default:
      return MPI_DATATYPE_NULL;  // check_type() stops a bad type first
  }
}

MPI_Op mpi_op(Op op) {
  switch (armcix::msg::reduction_of(op)) {
    case Op::kSum:
      return MPI_SUM;
    case Op::kProd:
      return MPI_PROD;
    case Op::kMax:
      return MPI_MAX;
    case Op::kMin:
      return MPI_MIN;
    case Op::kBitOr:
      return MPI_BOR;
    case Op::kBitAnd:
      return MPI_BAND;
    case Op::kLogOr:
      return MPI_LOR;
    case Op::kLogAnd:
      return MPI_LAND;
    default:
      return MPI_OP_NULL;  // absmax/absmin were mapped by reduction_of()
  }
}

// --- scopes ------------------------------------------------------------------------------------------------

// World scopes: the members, then (separately, so that a root can be checked before the masters'
// communicator is first built) the communicator.  Cheap: every communicator is built once.
void world_scope_members(int scope, Scope* s) {
  if (scope == SCOPE_NODE) s->members = &rt().domain_members[rt().domain_id];
  if (scope == SCOPE_MASTERS) s->members = &world_masters();
}

void world_scope_comm(int scope, Scope* s) {
  switch (scope) {
    case SCOPE_ALL:
      s->comm = rt().world;
      break;
    case SCOPE_NODE:
      s->comm = world_domain_comm();
      break;
    default:
      s->comm = is_world_master() ? world_masters_comm() : MPI_COMM_NULL;
      break;  // SCOPE_MASTERS
  }
}

void world_scope(int scope, Scope* s) {
  world_scope_members(scope, s);
  world_scope_comm(scope, s);
}

// Group scopes.  SCOPE_NODE and SCOPE_MASTERS build a communicator for the call among the participants
// only (ARMCI_Group is a plain struct copied by its users, so there is nowhere safe to cache it).
void group_scope(int scope, ARMCI_Group* group, Scope* s) {
  if (scope == SCOPE_ALL) {
    s->comm = group->comm;
    return;
  }
  const auto& domain_of = rt().domain_of;
  const int my_domain = rt().domain_id;
  std::vector<int>& m = s->own_members;
  if (scope == SCOPE_NODE) {
    for (int g = 0; g < group->size; ++g)
      if (domain_of[group->grp_to_abs[g]] == my_domain) m.push_back(g);
  } else {
    std::vector<char> seen(rt().domain_count, 0);
    for (int g = 0; g < group->size; ++g) {
      int domain = domain_of[group->grp_to_abs[g]];
      if (!seen[domain]) {
        seen[domain] = 1;
        m.push_back(g);
      }
    }
  }
  s->members = &m;
  if (s->rank_of(group->rank) < 0) return;  // not a participant
  if (static_cast<int>(m.size()) == group->size) {
    s->comm = group->comm;  // the scope is the whole group: m is the identity
    return;
  }
  if (m.size() == 1) {
    s->comm = MPI_COMM_SELF;
    return;
  }
  MPI_Group gg, sub;
  ARMCIX_MPI(MPI_Comm_group(group->comm, &gg));
  ARMCIX_MPI(MPI_Group_incl(gg, static_cast<int>(m.size()), m.data(), &sub));
  ARMCIX_MPI(MPI_Comm_create_group(group->comm, sub, kTagGroupScope, s->owned.out()));
  ARMCIX_MPI(MPI_Group_free(&sub));
  ARMCIX_MPI(MPI_Group_free(&gg));
  s->comm = s->owned.get();
}

// Root of a broadcast, given as a world rank (or group rank), translated into the scope's communicator.
// Every rank checks it, in the scope or not, so that a bad root fails everywhere alike.
int scope_root(const char* call, int scope, const Scope& s, int root) {
  int r = s.rank_of(root);
  ARMCIX_REQUIRE(r >= 0, call, "argument 'root' = %d is not in the caller's %s", root, scope_name(scope));
  return r;
}

}  // namespace msg
}  // namespace armcix
