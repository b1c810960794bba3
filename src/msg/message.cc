// ARMCI message-passing API (include/message.h): point-to-point, broadcasts, reductions, selection and
// address exchange over MPI, on ARMCI's world communicator (rt().world) or a group's communicator.
//
// Scopes.  SCOPE_ALL is every rank of the world (or group).  SCOPE_NODE is the ranks of the caller's SMP
// domain, the node as armci_domain_* and ARMCI_Same_node report it (for a group, the group's members in the
// caller's domain).  SCOPE_MASTERS is the lowest rank of every domain (for a group, the lowest group rank of
// every domain the group spans).  Domains are MPI's nodes, except that a node whose ranks are not
// consecutive (round-robin placement) is several domains (topo/nodes.cc: Global Arrays assumes runs), and a
// reduction over SCOPE_NODE must agree with the domain sizes a program divides by.  A rank outside
// the scope -- a non-master in SCOPE_MASTERS -- returns at once without communicating and leaves its
// buffer untouched, so an operation on SCOPE_MASTERS works whether every rank calls it or only the masters
// do (ARMCI's own code does the latter).  Communicators for SCOPE_MASTERS are built only among the masters
// (MPI_Comm_create_group) for the same reason.
//
// Every argument is checked before the first communication, so a bad argument passed by every rank fails
// on every rank without leaving another one waiting inside a collective.
#include <message.h>
#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "base/error.h"
#include "base/state.h"
#include "groups/group.h"
#include "msg/reduce_ops.h"
#include "runtime/modules.h"
#include "wait/call_stats.h"
#include "wait/node_sync.h"
#include "wait/wait.h"

namespace {

using armcix::fail;
using armcix::rt;
using armcix::msg::ElemType;
using armcix::msg::Op;

// MPI_Comm_create_group tags for the communicators built here; distinct from each other so that two
// creations cannot match even when their member sets overlap.
constexpr int kTagMasters = 0x4d53;     // "MS"
constexpr int kTagGroupScope = 0x4753;  // "GS"
constexpr int kTagDomain = 0x444d;      // "DM"
constexpr int kTagGroupClus = 0x4743;   // "GC"

// Scratch memory: on the stack up to kInline bytes (GA reduces a handful of values at a time, thousands
// of times), on the heap above.
class Scratch {
 public:
  static constexpr std::size_t kInline = 512;
  explicit Scratch(std::size_t bytes) {
    if (bytes > kInline) {
      heap_.reset(new unsigned char[bytes]);
      data_ = heap_.get();
    } else {
      data_ = inline_;
    }
  }
  unsigned char* data() { return data_; }

 private:
  alignas(std::max_align_t) unsigned char inline_[kInline];
  std::unique_ptr<unsigned char[]> heap_;
  unsigned char* data_;
};

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
  ARMCIX_REQUIRE(armcix::msg::valid_type(type), call,
                 "argument 'type' = %d is not one of ARMCI_INT, ARMCI_LONG, ARMCI_LONG_LONG, ARMCI_FLOAT, "
                 "ARMCI_DOUBLE (0..4)",
                 type);
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
  switch (static_cast<ElemType>(type)) {
    case ElemType::kInt:
      return MPI_INT;
    case ElemType::kLong:
      return MPI_LONG;
    case ElemType::kLongLong:
      return MPI_LONG_LONG;
    case ElemType::kFloat:
      return MPI_FLOAT;
    case ElemType::kDouble:
      return MPI_DOUBLE;
  }
  return MPI_DATATYPE_NULL;
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

// --- the operations ----------------------------------------------------------------------------------------

// With ARMCI_WAIT_BACKOFF_US > 0 the collectives below start non-blocking and wait with back-off
// (armcix::wait_for): GA's GA_Dgop/GA_Brdcst and NWChem's task loops end in them, and with more ranks than
// cores the ranks that arrive first would otherwise spin against the ones still computing.
bool backoff() {
  return rt().resolved.wait_backoff_us > 0;
}

// Small collectives are where ranks wait for others still computing: they may hand their core to the node's
// progress ranks; large ones move data that needs this process's polls (wait/backoff.h, HandOff).
armcix::HandOff collective_handoff(std::size_t bytes) {
  return bytes <= armcix::kHandoffMaxCollectiveBytes ? armcix::HandOff::Allowed : armcix::HandOff::Never;
}

void bcast_on(MPI_Comm comm, void* buf, int len, int root) {
  if (comm == MPI_COMM_NULL || len == 0) return;
  if (backoff()) {
    MPI_Request req;
    ARMCIX_MPI(MPI_Ibcast(buf, len, MPI_BYTE, root, comm, &req));
    armcix::wait_for("armci_msg_brdcst", &req, collective_handoff(len));
    return;
  }
  ARMCIX_MPI(MPI_Bcast(buf, len, MPI_BYTE, root, comm));
}

// Reduces n elements of x over comm: to every rank (root < 0) or to root only.  Ranks other than the
// root keep x unchanged.
void reduce_on(MPI_Comm comm, void* x, int n, Op op, int type, int root) {
  if (comm == MPI_COMM_NULL || n == 0) return;
  MPI_Datatype dt = mpi_type(type);
  MPI_Op mop = mpi_op(op);
  int me = 0;
  ARMCIX_MPI(MPI_Comm_rank(comm, &me));
  const bool gets_result = root < 0 || me == root;
  const void* send = MPI_IN_PLACE;
  Scratch scratch(armcix::msg::takes_abs(op) && !gets_result ? n * armcix::msg::type_size(type) : 0);
  if (armcix::msg::takes_abs(op)) {
    // x is overwritten by the result where the result lands; elsewhere |x| goes to scratch.
    void* dst = gets_result ? x : scratch.data();
    armcix::msg::abs_copy_typed(type, x, dst, n);
    if (!gets_result) send = dst;
  } else if (!gets_result) {
    send = x;
  }
  if (root < 0 && comm == rt().world && armcix::node_sync_on()) {
    const std::size_t bytes = static_cast<std::size_t>(n) * armcix::msg::type_size(type);
    armcix::ScopeTimer timer(armcix::call_stats_slot_if_on(armcix::CallKind::Wait, "armci_msg_gop (node)"));
    if (armcix::node_allreduce("armci_msg_gop", armcix::NodeExchange::Gop, x, n, dt, mop, bytes)) return;
  }
  if (backoff()) {
    MPI_Request req;
    if (root < 0)
      ARMCIX_MPI(MPI_Iallreduce(MPI_IN_PLACE, x, n, dt, mop, comm, &req));
    else
      ARMCIX_MPI(MPI_Ireduce(send, gets_result ? x : nullptr, n, dt, mop, root, comm, &req));
    armcix::wait_for("armci_msg_gop", &req,
                     collective_handoff(static_cast<std::size_t>(n) * armcix::msg::type_size(type)));
  } else if (root < 0) {
    ARMCIX_MPI(MPI_Allreduce(MPI_IN_PLACE, x, n, dt, mop, comm));
  } else {
    ARMCIX_MPI(MPI_Reduce(send, gets_result ? x : nullptr, n, dt, mop, root, comm));
  }
}

void gop_scope(const char* call, int scope, void* x, int n, const char* op, int type) {
  armcix::require_initialized(call);
  check_scope(call, scope);
  check_type(call, type);
  check_buffer(call, "x", x, "n", n);
  Op parsed = check_op(call, op, type);
  Scope s;
  world_scope(scope, &s);
  reduce_on(s.comm, x, n, parsed, type, -1);
}

void group_gop_scope(const char* call, int scope, void* x, int n, const char* op, int type, ARMCI_Group* group) {
  armcix::require_initialized(call);
  check_member_group(call, group);
  check_scope(call, scope);
  check_type(call, type);
  check_buffer(call, "x", x, "n", n);
  Op parsed = check_op(call, op, type);
  if (n == 0) return;  // spare the scope communicator
  Scope s;
  group_scope(scope, group, &s);
  reduce_on(s.comm, x, n, parsed, type, -1);
}

void reduce_scope(const char* call, int scope, void* x, int n, const char* op, int type) {
  armcix::require_initialized(call);
  check_scope(call, scope);
  check_type(call, type);
  check_buffer(call, "x", x, "n", n);
  Op parsed = check_op(call, op, type);
  Scope s;
  world_scope(scope, &s);
  reduce_on(s.comm, x, n, parsed, type, 0);  // rank 0 of every scope communicator is its lowest rank
}

void bcast_scope(const char* call, int scope, void* buf, int len, int root) {
  armcix::require_initialized(call);
  check_scope(call, scope);
  check_buffer(call, "buffer", buf, "len", len);
  armcix::check_rank(call, "root", root);
  Scope s;
  world_scope_members(scope, &s);
  int r = scope_root(call, scope, s, root);
  if (len == 0) return;
  world_scope_comm(scope, &s);
  bcast_on(s.comm, buf, len, r);
}

void sel_scope(const char* call, int scope, void* x, int n, const char* op, int type, int contribute) {
  armcix::require_initialized(call);
  check_scope(call, scope);
  check_type(call, type);
  check_buffer(call, "x", x, "n", n);
  ARMCIX_REQUIRE(op != nullptr, call, "argument 'op' is NULL");
  // Parsed as the gops' op, a prefix (reduce_ops.h): GA passes op without a terminating NUL of its own (its
  // bin.x and scan.x handed us "maxmin..." and "minmax"); "absmax..." parses as absmax and is refused here.
  Op parsed = Op::kSum;
  const bool known = armcix::msg::parse_op(op, &parsed);
  const bool want_max = known && parsed == Op::kMax;
  ARMCIX_REQUIRE(want_max || (known && parsed == Op::kMin), call,
                 "argument 'op' = \"%.16s\" does not start with a selection (\"min\" or \"max\")", op);
  // n is the record length in bytes (GA passes sizeof its record); the key is the record's first element.
  const std::size_t key = armcix::msg::type_size(type);
  ARMCIX_REQUIRE(static_cast<std::size_t>(n) >= key, call,
                 "argument 'n' = %d bytes cannot hold a key of type %s (%zu bytes)", n, armcix::msg::type_name(type),
                 key);
  Scope s;
  world_scope(scope, &s);
  if (s.comm == MPI_COMM_NULL) return;
  const std::size_t bytes = sizeof(armcix::msg::SelHeader) + static_cast<std::size_t>(n);
  ARMCIX_REQUIRE(bytes <= 0x7fffffff, call, "argument 'n' = %d is too large", n);
  Scratch record(bytes);
  armcix::msg::SelHeader h{};
  h.contribute = contribute ? 1 : 0;
  h.type = type;
  ARMCIX_MPI(MPI_Comm_rank(s.comm, &h.rank));
  h.want_max = want_max ? 1 : 0;
  h.payload_bytes = n;
  std::memcpy(record.data(), &h, sizeof h);
  unsigned char* payload = record.data() + sizeof h;
  if (contribute)
    std::memcpy(payload, x, n);
  else
    std::memset(payload, 0, n);  // never read, but keeps MPI (and valgrind) from moving garbage
  ARMCIX_MPI(MPI_Allreduce(MPI_IN_PLACE, record.data(), 1, sel_record_type(static_cast<int>(bytes)), sel_op(), s.comm));
  std::memcpy(&h, record.data(), sizeof h);
  if (h.contribute) std::memcpy(x, payload, n);  // nobody contributed: x stays as it was
}

void tree_links(const std::vector<int>& ranks, int index, int* root, int* up, int* left, int* right) {
  const int n = static_cast<int>(ranks.size());
  *root = ranks[0];
  *up = index > 0 ? ranks[(index - 1) / 2] : -1;
  *left = 2 * index + 1 < n ? ranks[2 * index + 1] : -1;
  *right = 2 * index + 2 < n ? ranks[2 * index + 2] : -1;
}

}  // namespace

extern "C" {

// --- utility -----------------------------------------------------------------------------------------------

void armci_msg_init(int* argc, char*** argv) {
  int up = 0, down = 0;
  ARMCIX_MPI(MPI_Initialized(&up));
  ARMCIX_MPI(MPI_Finalized(&down));
  ARMCIX_REQUIRE(!down, "armci_msg_init", "MPI has already been finalized");
  if (!up) ARMCIX_MPI(MPI_Init(argc, argv));
}

// As in classic ARMCI, MPI is finalized whoever started it; ARMCI itself must be finalized first (its
// windows and communicators are MPI objects).
void armci_msg_finalize(void) {
  ARMCIX_REQUIRE(!armcix::initialized(), "armci_msg_finalize",
                 "ARMCI is still initialized: call ARMCI_Finalize before armci_msg_finalize");
  int up = 0, down = 0;
  ARMCIX_MPI(MPI_Initialized(&up));
  ARMCIX_MPI(MPI_Finalized(&down));
  if (up && !down) ARMCIX_MPI(MPI_Finalize());
}

int armci_msg_me(void) {
  armcix::require_initialized("armci_msg_me");
  return rt().me;
}

int armci_msg_nproc(void) {
  armcix::require_initialized("armci_msg_nproc");
  return rt().nproc;
}

// Works before ARMCI_Init and after ARMCI_Finalize too: it is what error paths call.
void armci_msg_abort(int code) {
  int rank = armcix::initialized() ? rt().me : -1;
  armcix::print_to_stderr("[%d] armci_msg_abort: aborting with code %d\n", rank, code);
  armcix::abort_job(armcix::initialized() ? rt().world : MPI_COMM_WORLD, code);
}

double armci_timer(void) {
  armcix::require_initialized("armci_timer");
  return MPI_Wtime();
}

// --- point to point ----------------------------------------------------------------------------------------

void armci_msg_snd(int tag, void* buffer, int len, int to) {
  const char* call = "armci_msg_snd";
  armcix::require_initialized(call);
  check_tag(call, tag);
  check_buffer(call, "buffer", buffer, "len", len);
  armcix::check_rank(call, "to", to);
  ARMCIX_MPI(MPI_Send(buffer, len, MPI_BYTE, to, tag, rt().world));
}

}  // extern "C"

namespace {

// Receives one message matched by (source, tag).  A matched probe gives the length before the receive, so
// an oversized message is reported with both lengths instead of as an MPI truncation error; it is still
// received (into a scratch buffer) so that the error leaves no half-matched message behind.
int receive(const char* call, int tag, void* buffer, int buflen, int* msglen, int source) {
  MPI_Message msg;
  MPI_Status st;
  ARMCIX_MPI(MPI_Mprobe(source, tag, rt().world, &msg, &st));
  int count = 0;
  ARMCIX_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  if (count > buflen) {
    std::vector<unsigned char> sink(count);
    ARMCIX_MPI(MPI_Mrecv(sink.data(), count, MPI_BYTE, &msg, MPI_STATUS_IGNORE));
    fail(call, "a message of %d bytes from process %d with tag %d does not fit argument 'buflen' = %d", count,
         st.MPI_SOURCE, tag, buflen);
  }
  ARMCIX_MPI(MPI_Mrecv(buffer, count, MPI_BYTE, &msg, MPI_STATUS_IGNORE));
  if (msglen) *msglen = count;
  return st.MPI_SOURCE;
}

}  // namespace

extern "C" {

void armci_msg_rcv(int tag, void* buffer, int buflen, int* msglen, int from) {
  const char* call = "armci_msg_rcv";
  armcix::require_initialized(call);
  check_tag(call, tag);
  check_buffer(call, "buffer", buffer, "buflen", buflen);
  armcix::check_rank(call, "from", from);
  receive(call, tag, buffer, buflen, msglen, from);
}

int armci_msg_rcvany(int tag, void* buffer, int buflen, int* msglen) {
  const char* call = "armci_msg_rcvany";
  armcix::require_initialized(call);
  check_tag(call, tag);
  check_buffer(call, "buffer", buffer, "buflen", buflen);
  return receive(call, tag, buffer, buflen, msglen, MPI_ANY_SOURCE);
}

// --- barriers and trees ------------------------------------------------------------------------------------

// GA_Sync is ARMCI_AllFence + armci_msg_barrier, and GA then reads its own slice with plain loads: the
// full fences on both sides of the barrier order node-local (load/store) updates made before it by any
// process against loads made after it, as MPI_Win_sync would.  The profiled twin is the implementation,
// the armci_msg_ names are weak aliases (PARMCI convention).
void parmci_msg_barrier(void) {
  armcix::require_initialized("armci_msg_barrier");
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (armcix::node_sync_on()) {
    armcix::ScopeTimer timer(armcix::call_stats_slot_if_on(armcix::CallKind::Wait, "armci_msg_barrier (node)"));
    armcix::node_barrier();
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return;
  }
  MPI_Request req;
  ARMCIX_MPI(MPI_Ibarrier(rt().world, &req));
  armcix::wait_for("armci_msg_barrier", &req);
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
void armci_msg_barrier(void) __attribute__((weak, alias("parmci_msg_barrier")));

void parmci_msg_group_barrier(ARMCI_Group* group) {
  armcix::require_initialized("armci_msg_group_barrier");
  check_member_group("armci_msg_group_barrier", group);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  MPI_Request req;
  ARMCIX_MPI(MPI_Ibarrier(group->comm, &req));
  armcix::wait_for("armci_msg_group_barrier", &req);
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
void armci_msg_group_barrier(ARMCI_Group* group) __attribute__((weak, alias("parmci_msg_group_barrier")));

// Binary tree over the scope's ranks in ascending world-rank order, rooted at the lowest: the node i of the
// tree has children 2i+1 and 2i+2.  All results are world ranks, -1 for none.  In SCOPE_MASTERS a
// non-master is not in the tree: it gets the tree's root and up = left = right = -1.
void armci_msg_bintree(int scope, int* Root, int* Up, int* Left, int* Right) {
  const char* call = "armci_msg_bintree";
  armcix::require_initialized(call);
  check_scope(call, scope);
  ARMCIX_REQUIRE(Root && Up && Left && Right, call, "argument '%s' is NULL",
                 !Root   ? "Root"
                 : !Up   ? "Up"
                 : !Left ? "Left"
                         : "Right");
  std::vector<int> ranks;
  if (scope == SCOPE_ALL) {
    ranks.resize(rt().nproc);
    for (int p = 0; p < rt().nproc; ++p) ranks[p] = p;
  } else if (scope == SCOPE_NODE) {
    ranks = rt().domain_members[rt().domain_id];
  } else {
    for (const auto& domain : rt().domain_members) ranks.push_back(domain[0]);
  }
  int index = -1;
  for (std::size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i] == rt().me) index = static_cast<int>(i);
  if (index < 0) {
    *Root = ranks[0];
    *Up = *Left = *Right = -1;
    return;
  }
  tree_links(ranks, index, Root, Up, Left, Right);
}

// --- broadcasts --------------------------------------------------------------------------------------------

void armci_msg_bcast(void* buffer, int len, int root) {
  bcast_scope("armci_msg_bcast", SCOPE_ALL, buffer, len, root);
}

void armci_msg_brdcst(void* buffer, int len, int root) {
  bcast_scope("armci_msg_brdcst", SCOPE_ALL, buffer, len, root);
}

// root is a world rank that must be in the caller's scope (for SCOPE_NODE: a rank of the caller's domain,
// typically its master; for SCOPE_MASTERS: a domain master).
void armci_msg_bcast_scope(int scope, void* buffer, int len, int root) {
  bcast_scope("armci_msg_bcast_scope", scope, buffer, len, root);
}

// root is the ABSOLUTE (world) rank of a group member, as in ARMCI and ARMCI-MPI (which translates it with
// ARMCII_Translate_absolute_to_group): Global Arrays' pnga_msg_brdcst passes inv_map_proc_list[originator].
// It must be in the caller's scope within the group.
void armci_msg_group_bcast_scope(int scope, void* buf, int len, int root, ARMCI_Group* group) {
  const char* call = "armci_msg_group_bcast_scope";
  armcix::require_initialized(call);
  check_member_group(call, group);
  check_scope(call, scope);
  check_buffer(call, "buf", buf, "len", len);
  armcix::check_rank(call, "root", root);
  const int groot = group->abs_to_grp[root];
  ARMCIX_REQUIRE(groot >= 0, call, "argument 'root' = %d (an absolute process id) is not a member of the group", root);
  if (scope != SCOPE_ALL) {
    // Check the root against the members before building a communicator.
    const auto& domain_of = rt().domain_of;
    int root_domain = domain_of[root];
    if (scope == SCOPE_NODE) {
      ARMCIX_REQUIRE(root_domain == rt().domain_id, call, "argument 'root' = %d is not in the caller's %s", root,
                     scope_name(scope));
    } else {
      for (int g = 0; g < groot; ++g)
        ARMCIX_REQUIRE(domain_of[group->grp_to_abs[g]] != root_domain, call,
                       "argument 'root' = %d is not in the caller's %s", root, scope_name(scope));
    }
  }
  if (len == 0) return;
  Scope s;
  group_scope(scope, group, &s);
  int r = scope_root(call, scope, s, groot);
  bcast_on(s.comm, buf, len, r);
}

// Broadcast among the node masters from the master of node 0 (world rank 0); other ranks return at once.
void armci_msg_clus_brdcst(void* buf, int len) {
  const char* call = "armci_msg_clus_brdcst";
  armcix::require_initialized(call);
  check_buffer(call, "buf", buf, "len", len);
  Scope s;
  world_scope(SCOPE_MASTERS, &s);
  bcast_on(s.comm, buf, len, 0);
}

// ARMCI's definition: broadcast from group rank grp_master to the grp_clus_nproc consecutive group ranks
// grp_master .. grp_master + grp_clus_nproc - 1 (the group's processes on one node).  Only those ranks
// take part, so every cluster of the group may call it at once with its own grp_master.
void armci_grp_clus_brdcst(void* buf, int len, int grp_master, int grp_clus_nproc, ARMCI_Group* mastergroup) {
  const char* call = "armci_grp_clus_brdcst";
  armcix::require_initialized(call);
  ARMCI_Group* group = mastergroup;
  check_member_group(call, group);
  check_buffer(call, "buf", buf, "len", len);
  check_group_rank(call, "grp_master", grp_master, group);
  ARMCIX_REQUIRE(grp_clus_nproc >= 1 && grp_clus_nproc <= group->size - grp_master, call,
                 "argument 'grp_clus_nproc' = %d is outside 1..%d for 'grp_master' = %d", grp_clus_nproc,
                 group->size - grp_master, grp_master);
  ARMCIX_REQUIRE(group->rank >= grp_master && group->rank < grp_master + grp_clus_nproc, call,
                 "the caller (group rank %d) is not in the cluster 'grp_master' = %d .. %d", group->rank, grp_master,
                 grp_master + grp_clus_nproc - 1);
  if (len == 0 || grp_clus_nproc == 1) return;
  if (grp_clus_nproc == group->size) {
    bcast_on(group->comm, buf, len, grp_master);
    return;
  }
  MPI_Group gg, sub;
  int range[1][3] = {{grp_master, grp_master + grp_clus_nproc - 1, 1}};
  OwnedComm comm;
  ARMCIX_MPI(MPI_Comm_group(group->comm, &gg));
  ARMCIX_MPI(MPI_Group_range_incl(gg, 1, range, &sub));
  ARMCIX_MPI(MPI_Comm_create_group(group->comm, sub, kTagGroupClus, comm.out()));
  ARMCIX_MPI(MPI_Group_free(&sub));
  ARMCIX_MPI(MPI_Group_free(&gg));
  bcast_on(comm.get(), buf, len, 0);
}

// --- reductions --------------------------------------------------------------------------------------------

void armci_msg_gop_scope(int scope, void* x, int n, char* op, int type) {
  gop_scope("armci_msg_gop_scope", scope, x, n, op, type);
}

void armci_msg_igop(int* x, int n, char* op) {
  gop_scope("armci_msg_igop", SCOPE_ALL, x, n, op, ARMCI_INT);
}

void armci_msg_lgop(long* x, int n, char* op) {
  gop_scope("armci_msg_lgop", SCOPE_ALL, x, n, op, ARMCI_LONG);
}

void armci_msg_llgop(long long* x, int n, char* op) {
  gop_scope("armci_msg_llgop", SCOPE_ALL, x, n, op, ARMCI_LONG_LONG);
}

void armci_msg_fgop(float* x, int n, char* op) {
  gop_scope("armci_msg_fgop", SCOPE_ALL, x, n, op, ARMCI_FLOAT);
}

void armci_msg_dgop(double* x, int n, char* op) {
  gop_scope("armci_msg_dgop", SCOPE_ALL, x, n, op, ARMCI_DOUBLE);
}

// Reductions among the node masters; on other ranks they return at once with x unchanged.
void armci_msg_clus_igop(int* x, int n, char* op) {
  gop_scope("armci_msg_clus_igop", SCOPE_MASTERS, x, n, op, ARMCI_INT);
}

void armci_msg_clus_fgop(float* x, int n, char* op) {
  gop_scope("armci_msg_clus_fgop", SCOPE_MASTERS, x, n, op, ARMCI_FLOAT);
}

void armci_msg_clus_lgop(long* x, int n, char* op) {
  gop_scope("armci_msg_clus_lgop", SCOPE_MASTERS, x, n, op, ARMCI_LONG);
}

void armci_msg_clus_llgop(long long* x, int n, char* op) {
  gop_scope("armci_msg_clus_llgop", SCOPE_MASTERS, x, n, op, ARMCI_LONG_LONG);
}

void armci_msg_clus_dgop(double* x, int n, char* op) {
  gop_scope("armci_msg_clus_dgop", SCOPE_MASTERS, x, n, op, ARMCI_DOUBLE);
}

void armci_msg_group_gop_scope(int scope, void* x, int n, char* op, int type, ARMCI_Group* group) {
  group_gop_scope("armci_msg_group_gop_scope", scope, x, n, op, type, group);
}

void armci_msg_group_igop(int* x, int n, char* op, ARMCI_Group* group) {
  group_gop_scope("armci_msg_group_igop", SCOPE_ALL, x, n, op, ARMCI_INT, group);
}

void armci_msg_group_lgop(long* x, int n, char* op, ARMCI_Group* group) {
  group_gop_scope("armci_msg_group_lgop", SCOPE_ALL, x, n, op, ARMCI_LONG, group);
}

void armci_msg_group_llgop(long long* x, int n, char* op, ARMCI_Group* group) {
  group_gop_scope("armci_msg_group_llgop", SCOPE_ALL, x, n, op, ARMCI_LONG_LONG, group);
}

void armci_msg_group_fgop(float* x, int n, char* op, ARMCI_Group* group) {
  group_gop_scope("armci_msg_group_fgop", SCOPE_ALL, x, n, op, ARMCI_FLOAT, group);
}

void armci_msg_group_dgop(double* x, int n, char* op, ARMCI_Group* group) {
  group_gop_scope("armci_msg_group_dgop", SCOPE_ALL, x, n, op, ARMCI_DOUBLE, group);
}

// Reduction to world rank 0 only; x on the other ranks is left unchanged.
void armci_msg_reduce(void* x, int n, char* op, int type) {
  reduce_scope("armci_msg_reduce", SCOPE_ALL, x, n, op, type);
}

// Reduction to the scope's lowest rank (SCOPE_NODE: the node master; SCOPE_MASTERS: world rank 0).
void armci_msg_reduce_scope(int scope, void* x, int n, char* op, int type) {
  reduce_scope("armci_msg_reduce_scope", scope, x, n, op, type);
}

// --- selection ---------------------------------------------------------------------------------------------

// x is a record of n BYTES whose first element, of `type`, is the key (GA's pnga_select_elem passes
// sizeof its record).  Every rank of the scope gets the record of the contributor with the smallest
// ("min") or largest ("max") key, the lowest rank winning ties; if nobody contributes x is unchanged.
void armci_msg_sel(void* x, int n, char* op, int type, int contribute) {
  sel_scope("armci_msg_sel", SCOPE_ALL, x, n, op, type, contribute);
}

void armci_msg_sel_scope(int scope, void* x, int n, char* op, int type, int contribute) {
  sel_scope("armci_msg_sel_scope", scope, x, n, op, type, contribute);
}

// --- address exchange --------------------------------------------------------------------------------------

// All-gather of pointers: each rank supplies ptr_ar[me] and receives every other entry; n must be the
// number of processes.
void armci_exchange_address(void* ptr_ar[], int n) {
  const char* call = "armci_exchange_address";
  armcix::require_initialized(call);
  ARMCIX_REQUIRE(ptr_ar != nullptr, call, "argument 'ptr_ar' is NULL");
  ARMCIX_REQUIRE(n == rt().nproc, call, "argument 'n' = %d is not the number of processes (%d)", n, rt().nproc);
  ARMCIX_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ptr_ar, sizeof(void*), MPI_BYTE, rt().world));
}

void armci_exchange_address_grp(void* ptr_arr[], int n, ARMCI_Group* group) {
  const char* call = "armci_exchange_address_grp";
  armcix::require_initialized(call);
  check_member_group(call, group);
  ARMCIX_REQUIRE(ptr_arr != nullptr, call, "argument 'ptr_arr' is NULL");
  ARMCIX_REQUIRE(n == group->size, call, "argument 'n' = %d is not the size of the group (%d)", n, group->size);
  ARMCIX_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ptr_arr, sizeof(void*), MPI_BYTE, group->comm));
}

}  // extern "C"
