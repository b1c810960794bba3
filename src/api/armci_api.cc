// The ARMCI C API.  Each profiled entry point is defined as PARMCI_x, with ARMCI_x a weak alias of it, as
// in ARMCI-MPI: a tool (or the application) may define ARMCI_x itself and call PARMCI_x underneath.
// This layer only translates arguments (and times calls for the profiler); validation and work happen in
// the modules it calls.  Every armci.h and armcix.h entry point is here or, for the transfers (contiguous,
// strided, I/O vector, value operations), in armci_api_transfers.cc, except ARMCI_Error and
// ARMCIX_Set_error_handler (base/error.cc: every layer's errors end there); message.h's are in
// msg/message.cc (doc/design.md, "Layers").
#include <armci.h>
#include <armcix.h>

#include "api/api_internal.h"
#include "base/error.h"
#include "base/state.h"
#include "base/thread_lock.h"
#include "checks/collective_check.h"
#include "gmr/gmr.h"
#include "groups/group.h"
#include "nb/request.h"
#include "profile/profiler.h"
#include "runtime/runtime.h"
#include "shm/segment.h"
#include "sync/fence.h"
#include "sync/mutex.h"
#include "transfer/rma.h"
#include "wait/wait.h"

using namespace armcix;

extern "C" {

/* ---- Initialization ------------------------------------------------------------------------------ */

int PARMCI_Init(void) {
  ARMCIX_API_GUARD;
  initialize(nullptr, nullptr, MPI_THREAD_SINGLE, MPI_COMM_WORLD, false);
  return 0;
}
int PARMCI_Init_args(int* argc, char*** argv) {
  ARMCIX_API_GUARD;
  initialize(argc, argv, MPI_THREAD_SINGLE, MPI_COMM_WORLD, false);
  return 0;
}
int PARMCI_Init_thread(int level) {
  ARMCIX_API_GUARD;
  initialize(nullptr, nullptr, level, MPI_COMM_WORLD, false);
  return 0;
}
int PARMCI_Init_thread_comm(int level, MPI_Comm comm) {
  ARMCIX_API_GUARD;
  initialize(nullptr, nullptr, level, comm, true);
  return 0;
}
int PARMCI_Init_mpi_comm(MPI_Comm comm) {
  ARMCIX_API_GUARD;
  initialize(nullptr, nullptr, MPI_THREAD_SINGLE, comm, true);
  return 0;
}
int PARMCI_Initialized(void) {
  return initialized() ? 1 : 0;
}
int PARMCI_Finalize(void) {
  ARMCIX_API_GUARD;
  finalize();
  return 0;
}
int ARMCI_Init(void) ARMCIX_WEAK_ALIAS(ARMCI_Init);
int ARMCI_Init_args(int* argc, char*** argv) ARMCIX_WEAK_ALIAS(ARMCI_Init_args);
int ARMCI_Init_thread(int level) ARMCIX_WEAK_ALIAS(ARMCI_Init_thread);
int ARMCI_Init_thread_comm(int level, MPI_Comm comm) ARMCIX_WEAK_ALIAS(ARMCI_Init_thread_comm);
int ARMCI_Init_mpi_comm(MPI_Comm comm) ARMCIX_WEAK_ALIAS(ARMCI_Init_mpi_comm);
int ARMCI_Initialized(void) ARMCIX_WEAK_ALIAS(ARMCI_Initialized);
int ARMCI_Finalize(void) ARMCIX_WEAK_ALIAS(ARMCI_Finalize);

void ARMCI_Cleanup(void) {
  // ARMCI's "release resources on abnormal exit": MPI's abort releases MPI's, but not the named segments
  // a killed process leaves in /dev/shm; those of this process and of this user's dead ones go
  // (shm/segment.h says which can be told apart safely).
  armcix::shm_cleanup();
}

const char* ARMCIX_Version(void) {
  return ARMCIX_VERSION_STRING;
}

/* ---- Memory ---------------------------------------------------------------------------------------- */

int PARMCI_Malloc(void** ptr_arr, armci_size_t bytes) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::Malloc, static_cast<std::size_t>(bytes > 0 ? bytes : 0));
  require_initialized("ARMCI_Malloc");
  gmr_create("ARMCI_Malloc", ptr_arr, bytes, &world_group());
  return 0;
}
int PARMCI_Free(void* ptr) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::Free, 0);
  require_initialized("ARMCI_Free");
  gmr_destroy("ARMCI_Free", ptr, &world_group());
  return 0;
}
int PARMCI_Malloc_memdev(void** ptr_arr, armci_size_t bytes, const char* device) {
  ARMCIX_API_GUARD;
  require_initialized("ARMCI_Malloc_memdev");
  (void)device;  // device hints are accepted; armci-x allocates ordinary memory for every device
  gmr_create("ARMCI_Malloc_memdev", ptr_arr, bytes, &world_group());
  return 0;
}
int PARMCI_Malloc_group_memdev(void** ptr_arr, armci_size_t bytes, ARMCI_Group* group, const char* device) {
  ARMCIX_API_GUARD;
  require_initialized("ARMCI_Malloc_group_memdev");
  (void)device;
  gmr_create("ARMCI_Malloc_group_memdev", ptr_arr, bytes, group);
  return 0;
}
int PARMCI_Free_memdev(void* ptr) {
  ARMCIX_API_GUARD;
  require_initialized("ARMCI_Free_memdev");
  gmr_destroy("ARMCI_Free_memdev", ptr, &world_group());
  return 0;
}
int ARMCI_Malloc_group(void** ptr_arr, armci_size_t bytes, ARMCI_Group* group) {
  ARMCIX_API_GUARD;
  require_initialized("ARMCI_Malloc_group");
  gmr_create("ARMCI_Malloc_group", ptr_arr, bytes, group);
  return 0;
}
int ARMCI_Free_group(void* ptr, ARMCI_Group* group) {
  ARMCIX_API_GUARD;
  require_initialized("ARMCI_Free_group");
  gmr_destroy("ARMCI_Free_group", ptr, group);
  return 0;
}
void* PARMCI_Malloc_local(armci_size_t bytes) {
  ARMCIX_API_GUARD;
  return local_alloc("ARMCI_Malloc_local", bytes);
}
int PARMCI_Free_local(void* ptr) {
  ARMCIX_API_GUARD;
  local_free("ARMCI_Free_local", ptr);
  return 0;
}
int ARMCI_Malloc(void** ptr_arr, armci_size_t bytes) ARMCIX_WEAK_ALIAS(ARMCI_Malloc);
int ARMCI_Free(void* ptr) ARMCIX_WEAK_ALIAS(ARMCI_Free);
int ARMCI_Malloc_memdev(void** p, armci_size_t b, const char* d) ARMCIX_WEAK_ALIAS(ARMCI_Malloc_memdev);
int ARMCI_Malloc_group_memdev(void** p, armci_size_t b, ARMCI_Group* g, const char* d)
    ARMCIX_WEAK_ALIAS(ARMCI_Malloc_group_memdev);
int ARMCI_Free_memdev(void* ptr) ARMCIX_WEAK_ALIAS(ARMCI_Free_memdev);
void* ARMCI_Malloc_local(armci_size_t bytes) ARMCIX_WEAK_ALIAS(ARMCI_Malloc_local);
int ARMCI_Free_local(void* ptr) ARMCIX_WEAK_ALIAS(ARMCI_Free_local);

/* ---- Synchronization and completion ---------------------------------------------------------------- */

void PARMCI_Barrier(void) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::Barrier, 0);
  barrier("ARMCI_Barrier");
}
void PARMCI_Fence(int proc) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::Fence, 0);
  fence("ARMCI_Fence", proc);
}
void PARMCI_AllFence(void) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::AllFence, 0);
  all_fence("ARMCI_AllFence");
}
void PARMCI_Access_begin(void* ptr) {
  ARMCIX_API_GUARD;
  access_begin("ARMCI_Access_begin", ptr);
}
void PARMCI_Access_end(void* ptr) {
  ARMCIX_API_GUARD;
  access_end("ARMCI_Access_end", ptr);
}
int PARMCI_Wait(armci_hdl_t* hdl) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::Wait, 0);
  return handle_wait("ARMCI_Wait", hdl);
}
int PARMCI_Test(armci_hdl_t* hdl) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::Test, 0);
  return handle_test("ARMCI_Test", hdl);
}
int PARMCI_WaitProc(int proc) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::WaitProc, 0);
  require_initialized("ARMCI_WaitProc");
  check_rank("ARMCI_WaitProc", "proc", proc);
  wait_proc(proc);
  return 0;
}
int PARMCI_WaitAll(void) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::WaitAll, 0);
  require_initialized("ARMCI_WaitAll");
  wait_all();
  return 0;
}
void ARMCI_Barrier(void) ARMCIX_WEAK_ALIAS(ARMCI_Barrier);
void ARMCI_Fence(int proc) ARMCIX_WEAK_ALIAS(ARMCI_Fence);
void ARMCI_AllFence(void) ARMCIX_WEAK_ALIAS(ARMCI_AllFence);
void ARMCI_Access_begin(void* ptr) ARMCIX_WEAK_ALIAS(ARMCI_Access_begin);
void ARMCI_Access_end(void* ptr) ARMCIX_WEAK_ALIAS(ARMCI_Access_end);
int ARMCI_Wait(armci_hdl_t* hdl) ARMCIX_WEAK_ALIAS(ARMCI_Wait);
int ARMCI_Test(armci_hdl_t* hdl) ARMCIX_WEAK_ALIAS(ARMCI_Test);
int ARMCI_WaitProc(int proc) ARMCIX_WEAK_ALIAS(ARMCI_WaitProc);
int ARMCI_WaitAll(void) ARMCIX_WEAK_ALIAS(ARMCI_WaitAll);

void ARMCI_INIT_HANDLE(armci_hdl_t* hdl) {
  handle_init(hdl);
}
void ARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t* hdl) {
  handle_set_aggregate("ARMCI_SET_AGGREGATE_HANDLE", hdl, true);
}
void ARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t* hdl) {
  handle_set_aggregate("ARMCI_UNSET_AGGREGATE_HANDLE", hdl, false);
}

void ARMCIX_Progress(void) {
  ARMCIX_API_GUARD;
  require_initialized("ARMCIX_Progress");
  progress_poke();
}

/* ---- Atomics and mutexes --------------------------------------------------------------------------- */

int PARMCI_Rmw(int op, void* ploc, void* prem, int value, int proc) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::Rmw, op == ARMCI_FETCH_AND_ADD_LONG || op == ARMCI_SWAP_LONG ? sizeof(long) : sizeof(int));
  return rmw("ARMCI_Rmw", op, ploc, prem, value, proc);
}
int PARMCI_Create_mutexes(int count) {
  ARMCIX_API_GUARD;
  return mutexes_create_default("ARMCI_Create_mutexes", count);
}
int PARMCI_Destroy_mutexes(void) {
  ARMCIX_API_GUARD;
  return mutexes_destroy_default("ARMCI_Destroy_mutexes");
}
void PARMCI_Lock(int mutex, int proc) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::Lock, 0);
  mutex_lock_default("ARMCI_Lock", mutex, proc);
}
void PARMCI_Unlock(int mutex, int proc) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::Unlock, 0);
  mutex_unlock_default("ARMCI_Unlock", mutex, proc);
}
int ARMCI_Rmw(int op, void* ploc, void* prem, int value, int proc) ARMCIX_WEAK_ALIAS(ARMCI_Rmw);
int ARMCI_Create_mutexes(int count) ARMCIX_WEAK_ALIAS(ARMCI_Create_mutexes);
int ARMCI_Destroy_mutexes(void) ARMCIX_WEAK_ALIAS(ARMCI_Destroy_mutexes);
void ARMCI_Lock(int mutex, int proc) ARMCIX_WEAK_ALIAS(ARMCI_Lock);
void ARMCI_Unlock(int mutex, int proc) ARMCIX_WEAK_ALIAS(ARMCI_Unlock);

armcix_mutex_hdl_t ARMCIX_Create_mutexes_hdl(int count, ARMCI_Group* pgroup) {
  ARMCIX_API_GUARD;
  return mutexes_create("ARMCIX_Create_mutexes_hdl", count, pgroup);
}
int ARMCIX_Destroy_mutexes_hdl(armcix_mutex_hdl_t hdl) {
  ARMCIX_API_GUARD;
  mutexes_destroy("ARMCIX_Destroy_mutexes_hdl", hdl);
  return 0;
}
void ARMCIX_Lock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc) {
  ARMCIX_API_GUARD;
  mutex_lock("ARMCIX_Lock_hdl", hdl, mutex, proc);
}
int ARMCIX_Trylock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc) {
  ARMCIX_API_GUARD;
  return mutex_trylock("ARMCIX_Trylock_hdl", hdl, mutex, proc) ? 0 : 1;
}
void ARMCIX_Unlock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc) {
  ARMCIX_API_GUARD;
  mutex_unlock("ARMCIX_Unlock_hdl", hdl, mutex, proc);
}

/* ---- Groups ---------------------------------------------------------------------------------------- */

void ARMCI_Group_create(int n, int* pid_list, ARMCI_Group* out) {
  ARMCIX_API_GUARD;
  require_initialized("ARMCI_Group_create");
  create_group("ARMCI_Group_create", n, pid_list, &default_group(), out);
}
void ARMCI_Group_create_child(int n, int* pid_list, ARMCI_Group* out, ARMCI_Group* parent) {
  ARMCIX_API_GUARD;
  require_initialized("ARMCI_Group_create_child");
  create_group("ARMCI_Group_create_child", n, pid_list, parent, out);
}
void ARMCI_Group_free(ARMCI_Group* group) {
  ARMCIX_API_GUARD;
  require_initialized("ARMCI_Group_free");
  free_group("ARMCI_Group_free", group);
}
int ARMCI_Group_rank(ARMCI_Group* group, int* rank) {
  ARMCIX_API_GUARD;
  require_initialized("ARMCI_Group_rank");
  check_group("ARMCI_Group_rank", group, false);
  ARMCIX_REQUIRE(rank != nullptr, "ARMCI_Group_rank", "argument 'rank' is NULL");
  *rank = group->rank;
  return 0;
}
void ARMCI_Group_size(ARMCI_Group* group, int* size) {
  ARMCIX_API_GUARD;
  require_initialized("ARMCI_Group_size");
  check_group("ARMCI_Group_size", group, false);
  ARMCIX_REQUIRE(size != nullptr, "ARMCI_Group_size", "argument 'size' is NULL");
  *size = group->size;
}
void ARMCI_Group_set_default(ARMCI_Group* group) {
  ARMCIX_API_GUARD;
  require_initialized("ARMCI_Group_set_default");
  check_group("ARMCI_Group_set_default", group, true);
  default_group() = *group;
}
void ARMCI_Group_get_default(ARMCI_Group* out) {
  ARMCIX_API_GUARD;
  require_initialized("ARMCI_Group_get_default");
  ARMCIX_REQUIRE(out != nullptr, "ARMCI_Group_get_default", "argument 'group_out' is NULL");
  *out = default_group();
}
void ARMCI_Group_get_world(ARMCI_Group* out) {
  ARMCIX_API_GUARD;
  require_initialized("ARMCI_Group_get_world");
  ARMCIX_REQUIRE(out != nullptr, "ARMCI_Group_get_world", "argument 'group_out' is NULL");
  *out = world_group();
}
int ARMCI_Absolute_id(ARMCI_Group* group, int group_rank) {
  ARMCIX_API_GUARD;
  require_initialized("ARMCI_Absolute_id");
  return group_to_absolute("ARMCI_Absolute_id", group, group_rank);
}
MPI_Comm armci_group_comm(ARMCI_Group* group) {
  ARMCIX_API_GUARD;
  require_initialized("armci_group_comm");
  check_group("armci_group_comm", group, false);
  return group->comm;  // MPI_COMM_NULL on a process outside the group
}
int ARMCIX_Group_split(ARMCI_Group* parent, int color, int key, ARMCI_Group* out) {
  ARMCIX_API_GUARD;
  require_initialized("ARMCIX_Group_split");
  split_group("ARMCIX_Group_split", parent, color, key, out);
  return 0;
}
int ARMCIX_Group_dup(ARMCI_Group* parent, ARMCI_Group* out) {
  ARMCIX_API_GUARD;
  require_initialized("ARMCIX_Group_dup");
  dup_group("ARMCIX_Group_dup", parent, out);
  return 0;
}

/* ---- Topology -------------------------------------------------------------------------------------- */

// Domains, not nodes: see discover_domains (topo/nodes.cc) and doc/design.md, "Topology".  A negative domain id
// means the caller's own domain, as in classic ARMCI and ARMCI-MPI (GA's test.x calls ga_cluster_nprocs(-1)).
namespace {
int resolve_domain(const char* call, int id) {
  if (id < 0) return rt().domain_id;
  ARMCIX_REQUIRE(id < rt().domain_count, call, "argument 'id' = %d is not a domain (0..%d, or -1 for mine)", id,
                 rt().domain_count - 1);
  return id;
}
}  // namespace

int ARMCI_Same_node(int proc) {
  require_initialized("ARMCI_Same_node");
  check_rank("ARMCI_Same_node", "proc", proc);
  return rt().domain_of[proc] == rt().domain_id;
}
int armci_domain_nprocs(armci_domain_t, int id) {
  require_initialized("armci_domain_nprocs");
  return static_cast<int>(rt().domain_members[resolve_domain("armci_domain_nprocs", id)].size());
}
int armci_domain_id(armci_domain_t, int glob_proc_id) {
  require_initialized("armci_domain_id");
  check_rank("armci_domain_id", "glob_proc_id", glob_proc_id);
  return rt().domain_of[glob_proc_id];
}
int armci_domain_glob_proc_id(armci_domain_t, int id, int loc_proc_id) {
  require_initialized("armci_domain_glob_proc_id");
  const auto& members = rt().domain_members[resolve_domain("armci_domain_glob_proc_id", id)];
  ARMCIX_REQUIRE(loc_proc_id >= 0 && loc_proc_id < static_cast<int>(members.size()), "armci_domain_glob_proc_id",
                 "argument 'loc_proc_id' = %d is out of range for a domain of %zu processes", loc_proc_id,
                 members.size());
  return members[loc_proc_id];
}
int armci_domain_my_id(armci_domain_t) {
  require_initialized("armci_domain_my_id");
  return rt().domain_id;
}
int armci_domain_count(armci_domain_t) {
  require_initialized("armci_domain_count");
  return rt().domain_count;
}
int armci_domain_same_id(armci_domain_t, int proc) {
  require_initialized("armci_domain_same_id");
  check_rank("armci_domain_same_id", "proc", proc);
  return rt().domain_of[proc] == rt().domain_id;
}

int ARMCI_Uses_shm(void) {
  require_initialized("ARMCI_Uses_shm");
  return rt().config.shm ? 1 : 0;  // node peers reached by load/store (src/shm)
}
void ARMCI_Set_shm_limit(unsigned long) {
  // Shared memory is taken from MPI allocations as needed; there is no separate segment to size.
}
int ARMCI_Uses_shm_grp(ARMCI_Group* group) {
  require_initialized("ARMCI_Uses_shm_grp");
  check_group("ARMCI_Uses_shm_grp", group, false);
  return rt().config.shm ? 1 : 0;
}

}  // extern "C"
