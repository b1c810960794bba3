#include "base/window.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <random>

#include "base/error.h"
#include "base/state.h"
#include "base/thread_lock.h"

namespace armcix {

namespace {

// What this rank does about the gate for windows on one communicator, cached on it as an attribute.
struct GateRole {
  bool gated = false;  // some node holds two or more of the communicator's ranks (osc/rdma makes a segment)
  bool leads = false;  // I am the lowest rank of the communicator on my node, and it has others here
};
int g_role_keyval = MPI_KEYVAL_INVALID;

int delete_role(MPI_Comm, int, void* attr, void*) {
  delete static_cast<GateRole*>(attr);
  return MPI_SUCCESS;
}

const GateRole& role_on(MPI_Comm comm) {
  if (g_role_keyval == MPI_KEYVAL_INVALID)
    ARMCIX_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_role, &g_role_keyval, nullptr));
  void* attr = nullptr;
  int found = 0;
  ARMCIX_MPI(MPI_Comm_get_attr(comm, g_role_keyval, &attr, &found));
  if (found) return *static_cast<GateRole*>(attr);
  auto* role = new GateRole;
  int size = 0, job_size = 0;
  ARMCIX_MPI(MPI_Comm_size(comm, &size));
  ARMCIX_MPI(PMPI_Comm_size(MPI_COMM_WORLD, &job_size));  // every process (PMPI: past the wrappers)
  // A communicator of every process in the job has a context id no other one shares, and one with a
  // single rank per node makes no node segment: neither needs the gate.
  if (size < job_size) {
    ApiUnlocked unlocked;  // collectives: see run_window_collective; `role` is not yet anybody else's
    int rank = 0, here_rank = 0, here_size = 0;
    ARMCIX_MPI(MPI_Comm_rank(comm, &rank));
    MPI_Comm here;  // real shared memory, not ARMCI_NODE_SIZE's simulated nodes: the segment is real
    ARMCIX_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &here));
    ARMCIX_MPI(MPI_Comm_rank(here, &here_rank));
    ARMCIX_MPI(MPI_Comm_size(here, &here_size));
    ARMCIX_MPI(MPI_Comm_free(&here));
    role->leads = here_size > 1 && here_rank == 0;
    int leads = role->leads ? 1 : 0, any = 0;
    ARMCIX_MPI(MPI_Allreduce(&leads, &any, 1, MPI_INT, MPI_MAX, comm));
    role->gated = any != 0;
  }
  ARMCIX_MPI(MPI_Comm_set_attr(comm, g_role_keyval, role));
  return *role;
}

// The node's gate: an advisory lock on a file in /dev/shm (node-local), one per user and host name.  Jobs of
// one user share it, which only delays a window creation that overlaps another job's.  The host name is in
// the name because it is in Open MPI's segment names, the files that collide: two MPI nodes that share one
// /dev/shm under different host names (simulated hosts, tools/simhosts.sh) cannot collide, and with one
// gate file their leaders, which must all hold the lock at once, would never both get it.
int gate_fd() {
  static int fd = -1;
  if (fd < 0) {
    char host[HOST_NAME_MAX + 1] = "";
    if (gethostname(host, sizeof host) != 0) host[0] = '\0';
    host[HOST_NAME_MAX] = '\0';
    char path[128 + HOST_NAME_MAX];
    const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    std::snprintf(path, sizeof path, "%s/armcix-window-gate.%s.%u", dir, host, static_cast<unsigned>(geteuid()));
    // The name is predictable (every job of this user on the node must find it): whatever holds it must be
    // this user's own regular file, not a link planted to redirect the open, nor a file another user made
    // and could lock for ever.
    fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno == ELOOP)
      fail("ARMCI_Malloc",
           "the window-creation lock file %s (ARMCI_WINDOW_GATE) is a symbolic link: refused; remove it, or set "
           "ARMCI_WINDOW_GATE=0",
           path);
    if (fd < 0) fail("ARMCI_Malloc", "cannot open the window-creation lock file %s: %s", path, std::strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
      close(fd);
      fail("ARMCI_Malloc",
           "the window-creation lock file %s (ARMCI_WINDOW_GATE) is not this user's private file (owner uid %u, "
           "mode %o, expected uid %u, a regular file, mode 0600): refused; remove it, or set ARMCI_WINDOW_GATE=0",
           path, static_cast<unsigned>(st.st_uid), static_cast<unsigned>(st.st_mode & 07777),
           static_cast<unsigned>(geteuid()));
    }
  }
  return fd;
}

}  // namespace

void run_window_collective(MPI_Comm comm, const std::function<void()>& create) {
  // Window creation waits for every member; another thread of this process may be the one another member
  // waits for first, in a collective on another group (base/thread_lock.h).  create() touches only the
  // caller's own objects.
  if (!rt().config.window_gate) {
    ApiUnlocked unlocked;
    return create();
  }
  const GateRole& role = role_on(comm);
  ApiUnlocked unlocked;
  if (!role.gated) return create();
  // All or nothing: each node leader tries the lock without blocking, and the creation goes ahead only if
  // every one of them got it.  Otherwise all let go and try again after a random pause, so that two groups
  // that each hold one node cannot wait for each other for ever.
  // Bounded: a lock that some other process holds for ever (a hung job of this user) must not hang this
  // one.  Only leaders measure, and a leader's failure ends the job.
  static std::minstd_rand jitter(static_cast<unsigned>(getpid()));
  const double start = MPI_Wtime();
  const int timeout_s = rt().config.window_gate_timeout_s;
  for (int attempt = 0;; ++attempt) {
    int held = role.leads ? (flock(gate_fd(), LOCK_EX | LOCK_NB) == 0 ? 1 : 0) : 1;
    if (role.leads && !held && errno != EWOULDBLOCK)
      fail("ARMCI_Malloc", "flock on the window-creation lock file failed: %s", std::strerror(errno));
    int all = 0;
    ARMCIX_MPI(MPI_Allreduce(&held, &all, 1, MPI_INT, MPI_MIN, comm));
    if (all) break;
    if (role.leads && !held && timeout_s > 0 && MPI_Wtime() - start > timeout_s)
      fail("ARMCI_Malloc",
           "the window-creation lock (ARMCI_WINDOW_GATE) was held by another process for more than "
           "ARMCI_WINDOW_GATE_TIMEOUT_S = %d s; a hung job of this user on this node may hold it (lsof on "
           "/dev/shm/armcix-window-gate.*)",
           timeout_s);
    if (held && role.leads) flock(gate_fd(), LOCK_UN);
    const unsigned cap_us = 100u << (attempt < 6 ? attempt : 6);
    usleep(50 + jitter() % cap_us);
  }
  create();
  // Open MPI's leader unlinks the segment file inside the creation call, before it returns.
  if (role.leads) flock(gate_fd(), LOCK_UN);
}

RmaWindow create_rma_window(MPI_Aint bytes, int disp_unit, MPI_Info info, MPI_Comm comm, unsigned char fill) {
  RmaWindow w;
  int size = 0;
  ARMCIX_MPI(MPI_Comm_size(comm, &size));
  // MPICH: MPI_Win_create, whatever ARMCI_USE_WIN_ALLOCATE says (its atomics on MPI_Win_allocate windows
  // are wrong between ranks of one node, MPICH issue 6110, and these windows serve atomics).  Open MPI:
  // the kind ARMCI_USE_WIN_ALLOCATE chooses (MPI_Win_allocate by default, config.cc).
  const bool allocate = size == 1 || (mpi_is_open_mpi() && rt().config.window_kind == WindowKind::Allocate);
  if (allocate) {
    // With one process nobody else can reach the memory before it is filled; with several, the fill
    // happens before a barrier that every user of the window passes before its first access.
    run_window_collective(comm,
                          [&] { ARMCIX_MPI_WINDOW(MPI_Win_allocate(bytes, disp_unit, info, comm, &w.base, &w.win)); });
    if (bytes > 0) std::memset(w.base, fill, static_cast<std::size_t>(bytes));
    if (size > 1) {
      ApiUnlocked unlocked;
      ARMCIX_MPI(MPI_Barrier(comm));
    }
  } else {
    if (bytes > 0) {
      w.base = alloc_mem_or_fail("MPI_Alloc_mem (RMA window)", bytes);
      std::memset(w.base, fill, static_cast<std::size_t>(bytes));
    }
    w.alloc_mem = w.base;
    run_window_collective(comm,
                          [&] { ARMCIX_MPI_WINDOW(MPI_Win_create(w.base, bytes, disp_unit, info, comm, &w.win)); });
  }
  if (bytes == 0) w.base = nullptr;
  return w;
}

void require_unified_model(const char* call, MPI_Win win, const char* kind) {
  int* model = nullptr;
  int found = 0;
  ARMCIX_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &found));
  ARMCIX_REQUIRE(found && model && *model == MPI_WIN_UNIFIED, call,
                 "%s has the memory model %s, not MPI_WIN_UNIFIED: armci-x mixes loads and stores with RMA on "
                 "it and needs the unified model (doc/design.md, \"MPI's accumulate and memory-model rules\")",
                 kind,
                 !found || !model             ? "(none reported)"
                 : *model == MPI_WIN_SEPARATE ? "MPI_WIN_SEPARATE"
                                              : "(unknown)");
}

const char* window_failure_hint(int rc) {
  int cls = MPI_ERR_OTHER;
  if (MPI_Error_class(rc, &cls) != MPI_SUCCESS || cls != MPI_ERR_WIN || !mpi_is_open_mpi()) return "";
  return ". Open MPI found no one-sided (osc) component that reaches every process of this window: between "
         "nodes without an RDMA network osc/rdma cannot, and Debian's /etc/openmpi/openmpi-mca-params.conf "
         "disables the ones that can (osc = ^ucx,pt2pt). UCX over TCP works: OMPI_MCA_pml=ucx "
         "OMPI_MCA_osc=^pt2pt OMPI_MCA_pml_ucx_tls=any OMPI_MCA_pml_ucx_devices=any (doc/user-guide.md, "
         "\"Known MPI problems\")";
}

void window_failed(const char* mpi_call, int rc, const char* file, int line) {
  char err[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, err, &len);
  fail("MPI", "%s failed at %s:%d: %s%s", mpi_call, file, line, err, window_failure_hint(rc));
}

void* alloc_mem_or_fail(const char* call, MPI_Aint bytes) {
  // Failure goes to MPI_COMM_WORLD's handler: make it return to us for the time of the call.  PMPI: the
  // real MPI_COMM_WORLD, which armci-x's wrappers would replace by the program ranks' with progress ranks.
  MPI_Errhandler app_handler;
  ARMCIX_MPI(PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &app_handler));
  ARMCIX_MPI(PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  void* p = nullptr;
  int rc = MPI_Alloc_mem(bytes, MPI_INFO_NULL, &p);
  ARMCIX_MPI(PMPI_Comm_set_errhandler(MPI_COMM_WORLD, app_handler));
  ARMCIX_MPI(MPI_Errhandler_free(&app_handler));
  if (rc != MPI_SUCCESS || p == nullptr)
    fail(call, "argument 'bytes' = %ld: MPI_Alloc_mem could not allocate that much on this process",
         static_cast<long>(bytes));
  return p;
}

void free_rma_window(RmaWindow& w) {
  if (w.win != MPI_WIN_NULL) {
    ApiUnlocked unlocked;  // collective: see run_window_collective
    ARMCIX_MPI(MPI_Win_free(&w.win));
  }
  if (w.alloc_mem) ARMCIX_MPI(MPI_Free_mem(w.alloc_mem));
  w = RmaWindow{};
}

}  // namespace armcix
