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
#include <vector>

#include "base/error.h"
#include "base/state.h"
#include "groups/group.h"
#include "msg/msg_internal.h"
#include "wait/call_stats.h"
#include "shm/node_sync.h"
#include "sync/fence.h"
#include "wait/wait.h"

namespace {

using armcix::fail;
using armcix::rt;
using armcix::msg::bcast_on;
using armcix::msg::bcast_scope;
using armcix::msg::check_buffer;
using armcix::msg::check_group_rank;
using armcix::msg::check_member_group;
using armcix::msg::check_scope;
using armcix::msg::check_tag;
using armcix::msg::gop_scope;
using armcix::msg::group_gop_scope;
using armcix::msg::group_scope;
using armcix::msg::kTagGroupClus;
using armcix::msg::OwnedComm;
using armcix::msg::reduce_scope;
using armcix::msg::Scope;
using armcix::msg::scope_name;
using armcix::msg::scope_root;
using armcix::msg::sel_scope;
using armcix::msg::tree_links;
using armcix::msg::world_scope;

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
// It also completes, first, what this process has issued (as ARMCI_AllFence): programs written for ARMCI-MPI,
// whose puts complete at the target before they return, expect a blocking put to be visible after an
// armci_msg_barrier alone (doc/user-guide.md, "What programs written for ARMCI-MPI see"); with nothing
// pending this costs a scan of the regions.
void parmci_msg_barrier(void) {
  armcix::require_initialized("armci_msg_barrier");
  armcix::all_fence("armci_msg_barrier");
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
