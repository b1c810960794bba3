// The collectives behind message.cc's C entry points: broadcasts, reductions and selection over a scope's
// communicator, and the binary tree of armci_msg_bintree.  msg_internal.h declares them.
#include <message.h>
#include <mpi.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

#include "base/error.h"
#include "base/state.h"
#include "msg/msg_internal.h"
#include "msg/reduce_ops.h"
#include "wait/call_stats.h"
#include "shm/node_sync.h"
#include "wait/wait.h"

namespace armcix {
namespace msg {

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace msg
}  // namespace armcix
