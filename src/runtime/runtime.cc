#include "runtime/runtime.h"

#include <armci.h>
#include <armcix.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/fnv1a.h"
#include "base/mpi_library.h"
#include "base/state.h"
#include "base/thread_lock.h"
#include "checks/collective_check.h"
#include "checks/watchdog.h"
#include "progress/progress_ranks.h"
#include "progress/progress_roles.h"
#include "progress/thread.h"
#include "runtime/modules.h"
#include "runtime/mpi_hooks.h"
#include "runtime/runtime_internal.h"
#include "topo/machine.h"
#include "topo/node_keys.h"
#include "topo/nodes.h"
#include "wait/mpi_yield.h"
#include "shm/node_sync.h"
#include "wait/wait.h"
#include "wait/yield_timer.h"

namespace armcix {

namespace {

// Where this process's ARMCI_Init spent its time, phase by phase, for the verbose banner: start-up is a cost
// users meet on every job (doc/performance.md measures it against ARMCI-MPI's), and a slow phase (a launcher
// that makes MPI ask for its nodes, a loaded machine in the census's wait) should be visible without a
// profiler.  A mark is one clock_gettime through the vDSO.
class StartupClock {
 public:
  void start() {
    count_ = 0;
    last_ = now_ns();
  }
  void mark(const char* phase) {
    const long long t = now_ns();
    if (count_ < kMax) phases_[count_++] = {phase, t - last_};
    last_ = t;
  }
  std::string describe() const {
    std::string text;
    long long total = 0;
    for (int i = 0; i < count_; ++i) {
      char part[96];
      std::snprintf(part, sizeof part, "%s%s %.0f", i ? ", " : "", phases_[i].name, phases_[i].ns / 1e3);
      text += part;
      total += phases_[i].ns;
    }
    char sum[48];
    std::snprintf(sum, sizeof sum, " (%.0f us in all)", total / 1e3);
    return text + sum;
  }

 private:
  static long long now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
  }
  static constexpr int kMax = 10;
  struct Phase {
    const char* name;
    long long ns;
  };
  Phase phases_[kMax] = {};
  int count_ = 0;
  long long last_ = 0;
};
StartupClock g_startup;

// The features that need armci-x's MPI wrappers (libarmcix-mpiwrap: mpiwrap/wrap.h), when asked for and
// impossible: a named error at ARMCI_Init, on every process (each finds the same), before any collective.
// `mpi_was_up`: MPI ran before ARMCI_Init.  Auto values (unset) fall back quietly in the resolve_* below.
constexpr const char* kWrapperFix =
    "link -larmcix-mpiwrap ahead of -larmci, or run with LD_PRELOAD=libarmcix-mpiwrap.so (doc/user-guide.md, "
    "\"Using armci-x with MPI tools\")";

void require_mpi_features(const Runtime& r, bool mpi_was_up) {
  const bool wrappers = mpi_wrappers_present();
  const int k = r.config.progress_ranks;
  if (k > 0 && !wrappers)
    fail("ARMCI_Init",
         "environment variable ARMCI_PROGRESS_RANKS=%d needs armci-x's MPI wrapper library (libarmcix-mpiwrap), "
         "which is not in this program: its MPI_Init sets the progress ranks apart and its wrappers hide them "
         "from the program's MPI_COMM_WORLD.  Fix: %s",
         k, kWrapperFix);
  if (k > 0 && mpi_was_up && !mpi_init_wrapped())
    fail("ARMCI_Init",
         "environment variable ARMCI_PROGRESS_RANKS=%d: MPI was started without armci-x's MPI_Init (a PMPI "
         "tool's MPI_Init came first and called PMPI_Init, or the program called PMPI_Init, as Open MPI's "
         "Fortran MPI_INIT does), so the progress ranks could not be set apart before the program used "
         "MPI_COMM_WORLD.  Fix: put libarmcix-mpiwrap ahead of the tool (-larmcix-mpiwrap before the tool's "
         "library on the link line, or LD_PRELOAD=libarmcix-mpiwrap.so:<tool>.so), or let ARMCI_Init start MPI",
         k);
  if (r.config.progress_thread && r.thread_level < MPI_THREAD_MULTIPLE) {
    if (r.we_initialized_mpi || program_thread_request() >= 0)  // asked for, and refused
      fail("ARMCI_Init",
           "environment variable ARMCI_PROGRESS_THREAD=1 needs MPI_THREAD_MULTIPLE (%d), and this MPI gave "
           "thread level %d when asked for it.  Fix: unset ARMCI_PROGRESS_THREAD, or use ARMCI_PROGRESS_RANKS=1, "
           "which needs no thread level (doc/user-guide.md, \"Asynchronous progress between nodes\")",
           MPI_THREAD_MULTIPLE, r.thread_level);
    fail("ARMCI_Init",
         "environment variable ARMCI_PROGRESS_THREAD=1 needs MPI_THREAD_MULTIPLE (%d), and MPI was started at "
         "thread level %d before ARMCI_Init %s.  Fix: start MPI with MPI_Init_thread(MPI_THREAD_MULTIPLE), or %s",
         MPI_THREAD_MULTIPLE, r.thread_level,
         wrappers ? "past armci-x's MPI_Init (a PMPI tool's MPI_Init, or PMPI_Init as in Open MPI's Fortran "
                    "MPI_INIT), which would have asked for it"
                  : "without armci-x's MPI wrapper library, whose MPI_Init asks for it",
         wrappers ? "put libarmcix-mpiwrap ahead of the tool" : kWrapperFix);
  }
  if (!wrappers && r.config.mpi_yield > 0)
    fail("ARMCI_Init",
         "environment variable ARMCI_MPI_YIELD=1 needs armci-x's MPI wrapper library (libarmcix-mpiwrap), which "
         "is not in this program: the program's blocking MPI calls yield only through its wrappers.  Fix: %s, "
         "or unset ARMCI_MPI_YIELD (auto: on with the wrappers where a machine is oversubscribed)",
         kWrapperFix);
  if (!wrappers && r.config.mpi_yield_timer_us > 0)
    fail("ARMCI_Init",
         "environment variable ARMCI_MPI_YIELD_TIMER_US=%d needs armci-x's MPI wrapper library "
         "(libarmcix-mpiwrap), which is not in this program: the timer runs around the program's blocking MPI "
         "calls inside its wrappers.  Fix: %s, or unset ARMCI_MPI_YIELD_TIMER_US",
         r.config.mpi_yield_timer_us, kWrapperFix);
}

// The values that must be the same everywhere: the settings (Config::must_agree_values, named by
// Config::must_agree in the same order) and, last, whether the wrappers are in (the yielding waits need them
// on every process or none).
std::vector<long> values_that_agree() {
  std::vector<long> values = rt().config.must_agree_values();
  values.push_back(mpi_wrappers_present() ? 1 : 0);
  return values;
}

// FNV-1a over them: what the census compares.
uint64_t settings_fingerprint() {
  Fnv1a h;
  for (const long value : values_that_agree()) {
    const auto v = static_cast<uint64_t>(value);
    h.add(&v, sizeof v);
  }
  return h.value();
}

// Every process holds every fingerprint, so all see a difference alike; then all gather the values and fail
// naming the first variable that differs and two processes.
void check_settings_agree(const Runtime& r, const std::vector<Census>& census) {
  if (std::all_of(census.begin(), census.end(), [&](const Census& c) { return c.settings == census[0].settings; }))
    return;
  const std::vector<long> mine = values_that_agree();
  const int n = static_cast<int>(mine.size());
  std::vector<long> all(static_cast<std::size_t>(n) * r.nproc);
  ARMCIX_MPI(MPI_Allgather(mine.data(), n, MPI_LONG, all.data(), n, MPI_LONG, r.world));
  for (int i = 0; i < n; ++i) {
    int other = 0;
    while (other < r.nproc && all[static_cast<std::size_t>(other) * n + i] == all[i]) ++other;
    if (other == r.nproc) continue;
    const long theirs = all[static_cast<std::size_t>(other) * n + i];
    if (i == n - 1)
      fail("ARMCI_Init",
           "armci-x's MPI wrapper library (libarmcix-mpiwrap) must be in every process or in none: process 0 %s "
           "it, process %d %s it (LD_PRELOAD or the link line differ)",
           all[i] ? "has" : "lacks", other, theirs ? "has" : "lacks");
    fail("ARMCI_Init",
         "environment variable %s must be the same on every process: it is %ld on process 0 but %ld on process %d",
         r.config.must_agree()[i].first.c_str(), all[i], theirs, other);
  }
  fail("ARMCI_Init", "internal error: the settings' fingerprints differ between processes but their values agree");
}

// Completes requests of ARMCI_Init's own collectives, yielding the core between polls: before the census
// nobody knows whether the machine is oversubscribed, and MPICH busy-polls MPI_Wait (on a free core a
// yield returns at once).  Every process makes these calls in this form, with or without the wrappers.
void wait_yielding(int n, MPI_Request* reqs) {
  std::vector<MPI_Status> statuses(n);
  poll_until(
      [&] {
        int done = 0;
        ARMCIX_MPI(MPI_Testall(n, reqs, &done, statuses.data()));
        return done != 0;
      },
      [] {}, [] { sched_yield(); });
}

// `record` with my machine counted with its progress ranks, once progress_ranks_start has counted them.
Census with_progress_ranks_counted(const Runtime& r, Census record) {
  if (r.machine_with_progress_ranks.ranks > 0)
    record.oversubscribed = r.machine_with_progress_ranks.oversubscribed() ? 1 : 0;
  return record;
}

// My census record (node_leader left unknown); `cpus` receives my affinity mask.
Census my_census(const Runtime& r, cpu_set_t* cpus) {
  const std::string boot_id = read_boot_id(), hostname = read_hostname();
  Census mine;
  mine.settings = settings_fingerprint();
  mine.machine = my_machine_record(cpus, boot_id, hostname);
  mine.node = my_node_record(boot_id, hostname);
  mine.wait_backoff_us = r.config.wait_backoff_us;
  return with_progress_ranks_counted(r, mine);
}

// The census: one allgather of every rank's record over `comm` (n ranks).  With `dup`, the runtime's
// communicator is made from `comm` at the same time (MPI_Comm_idup into *dup): both outstanding together,
// posted in the same order everywhere, and completed by one yielding wait.
std::vector<Census> take_census(const Census& mine, MPI_Comm comm, int n, MPI_Comm* dup = nullptr) {
  std::vector<Census> all(n);
  MPI_Request reqs[2];
  ARMCIX_MPI(MPI_Iallgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, comm, &reqs[0]));
  if (dup) ARMCIX_MPI(MPI_Comm_idup(comm, dup, &reqs[1]));
  wait_yielding(dup ? 2 : 1, reqs);
  return all;
}

// MPI's nodes: my node's communicator (*real_node, ranked by world rank) and every rank's node leader.  From
// the census's node keys where they tell MPI's nodes, with MPICH's clique rule applied where MPI was told to
// split the hosts (topo/node_keys.h): no collective over the job, the communicator made among the node's
// processes only.  Else, or with ARMCI_NODES_FROM_MPI=1, asked of MPI: MPI_Comm_split_type, and one
// allgather of the leaders.
std::vector<int> find_nodes(Runtime& r, const std::vector<Census>& census, MPI_Comm* real_node) {
  std::vector<NodeRecord> records(r.nproc);
  for (int p = 0; p < r.nproc; ++p) records[p] = census[p].node;
  const std::vector<uint64_t> keys = mpi_node_keys(records);
  if (!keys.empty() && !r.config.nodes_from_mpi) {
    std::vector<int> leaders = lowest_rank_with_key(keys);  // my node's leader
    *real_node = node_comm_from_leaders(r, leaders);
    switch (records[0].split) {
      case HostSplit::NoLocal:
        r.nodes_found_by = "the census (MPICH's MPIR_CVAR_NOLOCAL, read through MPI_T)";
        break;
      case HostSplit::Cliques:
      case HostSplit::CliquesByBlock:
        r.nodes_found_by = "the census's node keys and MPICH's cliques (MPIR_CVAR_*_CLIQUES, read through MPI_T)";
        break;
      default:
        r.nodes_found_by = "the census's node keys";
    }
    return leaders;
  }
  r.nodes_found_by = r.config.nodes_from_mpi ? "MPI_Comm_split_type (ARMCI_NODES_FROM_MPI=1)"
                                             : "MPI_Comm_split_type (MPI or the launcher splits a host)";
  ARMCIX_MPI(MPI_Comm_split_type(r.world, MPI_COMM_TYPE_SHARED, r.me, MPI_INFO_NULL, real_node));
  ARMCIX_MPI(MPI_Comm_set_errhandler(*real_node, MPI_ERRORS_RETURN));
  const int mine = lowest_world_rank(*real_node);
  std::vector<int> leaders(r.nproc);
  MPI_Request req;
  ARMCIX_MPI(MPI_Iallgather(&mine, 1, MPI_INT, leaders.data(), 1, MPI_INT, r.world, &req));
  wait_yielding(1, &req);
  return leaders;
}

std::vector<MachineRecord> machine_records(const std::vector<Census>& census) {
  std::vector<MachineRecord> machines(census.size());
  for (std::size_t p = 0; p < census.size(); ++p) machines[p] = census[p].machine;
  return machines;
}

void print_banner(const Runtime& r) {
  std::string lib = mpi_library().text;
  for (char& c : lib)
    if (c == '\n') c = ' ';
  std::printf("armci-x %s: %d ranks on %d node(s), %d domain(s) (armci_domain_*), MPI thread level %d\n",
              ARMCIX_Version(), r.nproc, r.node_count, r.domain_count, r.thread_level);
  std::printf("  nodes from %s\n", r.nodes_found_by);
  std::printf("  ARMCI_Init on rank 0, us: %s\n", g_startup.describe().c_str());
  std::printf("  MPI: %.200s\n", lib.c_str());
  std::printf(
      "  MPI work-arounds for this version: window-name collision gate %s, PROC_NULL status fix-up %s, request-based "
      "RMA in flight %s\n",
      mpi_has_window_name_collision() ? "needed" : "not needed",
      mpi_has_proc_null_status_bug() ? "needed" : "not needed",
      mpi_request_rma_bound() > 0 ? ("at most " + std::to_string(mpi_request_rma_bound())).c_str() : "not bounded");
  std::printf("  machine of rank 0: %d of our ranks on %d usable cores%s; blocking MPI calls: %s\n", r.machine.ranks,
              r.machine.cores, r.machine.oversubscribed() ? " (oversubscribed)" : "",
              mpi_yield_on() ? "non-blocking form + back-off (ARMCI_MPI_YIELD)" : "MPI's own");
  std::printf(
      "  yield timer in blocking MPI calls: %s\n",
      yield_timer_us() > 0 ? (std::to_string(yield_timer_us()) + " us (ARMCI_MPI_YIELD_TIMER_US)").c_str() : "off");
  std::printf("  MPI wrappers (libarmcix-mpiwrap): %s\n", !mpi_wrappers_present() ? "none"
                                                          : mpi_init_wrapped()    ? "in use, took MPI_Init"
                                                                               : "in use, MPI_Init not through them");
  std::printf("  node-local path: %s; progress thread: %s; progress ranks per node: %d\n",
              r.config.shm ? "on (load/store to node peers, MPI_Win_allocate_shared)" : "off (MPI RMA for all)",
              progress_running() ? "running" : "off", r.config.progress_ranks);
  for (const std::string& line : r.resolved.effective(r.config).describe()) std::printf("  %s\n", line.c_str());
  // Accepted for job scripts written for old ARMCI or GA's MPI-PR/ComEx ports, which sized their shared memory
  // by it; nothing here has such a cap (doc/user-guide.md, "Coming from MPI-PR or MPI-TS").
  if (!r.config.default_shmmax.empty())
    std::printf(
        "  notice: ARMCI_DEFAULT_SHMMAX=%.40s is ignored: it capped the shared-memory segments of old ARMCI and of "
        "GA's ComEx ports (MPI-PR); armci-x takes each allocation's memory from MPI as ARMCI_Malloc asks for it, "
        "bounded only by /dev/shm and the machine's memory\n",
        r.config.default_shmmax.c_str());
  std::fflush(stdout);
}

}  // namespace

void initialize(int* argc, char*** argv, int requested, MPI_Comm comm, bool comm_given) {
  Runtime& r = rt();
  if (r.init_count > 0) {
    ++r.init_count;
    return;
  }
  g_startup.start();
  int mpi_up = 0, mpi_down = 0;
  MPI_Initialized(&mpi_up);
  MPI_Finalized(&mpi_down);
  if (mpi_down) fail("ARMCI_Init", "MPI has already been finalized");
  // The progress thread needs MPI_THREAD_MULTIPLE, which must be asked for when MPI starts.  When ARMCI_Init
  // starts MPI it asks itself (with a program that starts MPI, armci-x's MPI_Init wrapper does: mpiwrap/).
  if (!mpi_up) {
    int ask = requested;
    if (requested < MPI_THREAD_MULTIPLE && Config::progress_thread_requested()) {
      set_program_thread_request(requested);
      ask = MPI_THREAD_MULTIPLE;
    }
    set_mpi_started_by_armci(true);  // progress ranks: armci-x's MPI_Init_thread decides the roles for us
    ARMCIX_MPI(MPI_Init_thread(argc, argv, ask, &r.thread_level));
    set_mpi_started_by_armci(false);
    r.we_initialized_mpi = true;
  } else {
    ARMCIX_MPI(MPI_Query_thread(&r.thread_level));
    r.we_initialized_mpi = false;
  }
  if (comm_given && comm == MPI_COMM_NULL) fail("ARMCI_Init_mpi_comm", "argument 'comm' is MPI_COMM_NULL");
  g_startup.mark(r.we_initialized_mpi ? "MPI_Init_thread" : "MPI_Query_thread");
  r.config = Config::from_environment();
  r.resolved = Resolved::from_config(r.config);
  resolve_acc_held_copy(r);
  resolve_rma_by_accumulate(r);
  require_mpi_features(r, mpi_up);
  int world_size = 0;  // the real MPI_COMM_WORLD (PMPI: not the program ranks' one of the wrappers)
  ARMCIX_MPI(PMPI_Comm_size(MPI_COMM_WORLD, &world_size));
  start_init_yield_timer(r, world_size);
  // With progress ranks decided in MPI_Init, MPI_COMM_WORLD means the program ranks by now (runtime/
  // progress_roles.h); ARMCI starts from every process, and releases the progress ranks waiting in MPI_Init.
  MPI_Comm start_from = comm_given ? comm : MPI_COMM_WORLD;
  if (const MPI_Comm every_process = early_roles_all(); every_process != MPI_COMM_NULL) {
    if (comm_given && !is_program_world(comm))
      fail("ARMCI_Init_mpi_comm",
           "argument 'comm': with ARMCI_PROGRESS_RANKS, ARMCI runs on MPI_COMM_WORLD (the program ranks) only");
    early_roles_arrive();
    start_from = every_process;
  }
  // MPI_COMM_WORLD as the program ranks' once progress ranks have left it (a second ARMCI_Init, which
  // fails in progress_ranks_start): the wrappers translate it for the blocking calls (mpiwrap/wrap.h), and
  // MPI_Comm_idup is not among them.
  if (start_from == MPI_COMM_WORLD && program_world_set()) start_from = program_world();
  // The census, and the runtime's communicator over the same processes (ranked alike) made beside it: one
  // round of communication, where asking MPI for its nodes first (MPI_Comm_split_type) took four blocking
  // ones (topo/node_keys.h).  Both are non-blocking collectives on one communicator, posted in the same
  // order everywhere; no blocking collective runs while the duplicate is outstanding (Open MPI 5 can hang in
  // MPI_Comm_split_type beside an outstanding idup).  Start-up makes at most two communicators, the
  // duplicate and, where the job spans nodes, the node's (find_nodes): MPICH keeps a few communicator
  // objects in a static pool and allocates the next ones 1,024 at a time, a costly calloc
  // (doc/performance.md, "Where the time went").  The private duplicate for collective agreements is made at
  // the first checked collective (checks/collective_check.cc), for the same reason.
  int start_size = 0;
  ARMCIX_MPI(MPI_Comm_size(start_from, &start_size));
  g_startup.mark("settings");
  cpu_set_t cpus;
  const Census my_record = my_census(r, &cpus);
  g_startup.mark("census record");
  std::vector<Census> census = take_census(my_record, start_from, start_size, &r.world);
  g_startup.mark("census and duplicate");
  ARMCIX_MPI(MPI_Comm_set_errhandler(r.world, MPI_ERRORS_RETURN));
  int* tag_ub = nullptr;
  int has_tag_ub = 0;
  ARMCIX_MPI(MPI_Comm_get_attr(r.world, MPI_TAG_UB, &tag_ub, &has_tag_ub));
  r.notify_tag = has_tag_ub && tag_ub ? *tag_ub : kLeastTagUb;
  ARMCIX_MPI(MPI_Comm_rank(r.world, &r.me));
  ARMCIX_MPI(MPI_Comm_size(r.world, &r.nproc));
  const bool spans_world = r.nproc == world_size;
  r.init_count = 1;  // from here on errors name the ARMCI call rather than "not initialized"
  // Threads may call ARMCI concurrently only if the application asked for MPI_THREAD_MULTIPLE (from us, or
  // from MPI before us) and got it; the progress thread alone makes no ARMCI calls and needs no lock.
  // What the program asked for: its request before armci-x's MPI_Init* raised it for the progress thread
  // (wait/wait.h), else ARMCI_Init's `requested` if we started MPI, else the level MPI runs at.
  const int raised_from = program_thread_request();
  const int program_asked = raised_from >= 0 ? raised_from : r.we_initialized_mpi ? requested : r.thread_level;
  set_calls_serialized(r.thread_level == MPI_THREAD_MULTIPLE && program_asked >= MPI_THREAD_MULTIPLE);
  check_settings_agree(r, census);
  std::vector<MachineCount> machines = count_machines(r.world, machine_records(census), cpus);
  MPI_Comm real_node = MPI_COMM_NULL;
  std::vector<int> leaders;
  if (r.config.progress_ranks > 0) {
    // Everything above was over every process; the program ranks start over on theirs, on the nodes
    // armci-x's MPI_Init found (progress/progress_roles.h: MPI's own).
    progress_ranks_start(r, machines[r.me]);  // a progress rank stays in there until the program ranks finalize
    ARMCIX_MPI(MPI_Comm_split(r.world, r.node_color, r.me, &real_node));
    ARMCIX_MPI(MPI_Comm_set_errhandler(real_node, MPI_ERRORS_RETURN));
    // The system's answers (boot id, names, affinity) are the first census's; what changed is the count.
    Census mine = with_progress_ranks_counted(r, my_record);
    mine.node_leader = lowest_world_rank(real_node);
    census = take_census(mine, r.world, r.nproc);
    machines = count_machines(r.world, machine_records(census), cpus);
    for (const Census& c : census) leaders.push_back(c.node_leader);
    r.nodes_found_by = "armci-x's MPI_Init (progress ranks: MPI_Comm_split_type)";
  } else {
    leaders = find_nodes(r, census, &real_node);
  }
  g_startup.mark("nodes");
  yield_during_init(r);
  discover_nodes(r, real_node, leaders);
  resolve_wait_backoff(r, census, machines);
  resolve_yield_timer(r);
  resolve_timer_slack(r);
  resolve_mpi_yield(r, spans_world);
  resolve_node_sync(r);
  g_startup.mark("resolve");
  initialize_modules();  // the progress thread last
  watchdog_start();
  g_startup.mark("modules");
  if (r.config.verbose && r.me == 0) print_banner(r);
}

void finalize() {
  Runtime& r = rt();
  require_initialized("ARMCI_Finalize");
  if (--r.init_count > 0) return;
  r.init_count = 1;  // keep entry points usable while modules tear down
  // The first step of the collective tear-down; with ARMCI_CHECK_COLLECTIVES also the check that no process
  // is still in another ARMCI collective (e.g. an ARMCI_Free the others skipped).
  collective_barrier("ARMCI_Finalize", Collective::Finalize, r.world);
  watchdog_stop();
  finalize_modules();  // the progress thread first
  ARMCIX_MPI(MPI_Barrier(r.world));
  node_sync_finalize();  // after the last barrier or gather that may use it
  collective_check_finalize();
  if (r.node_comm_is_world)
    r.node_comm = MPI_COMM_NULL;  // r.world itself, freed below
  else
    ARMCIX_MPI(MPI_Comm_free(&r.node_comm));
  r.node_comm_is_world = false;
  progress_ranks_stop(r);
  ARMCIX_MPI(MPI_Comm_free(&r.world));
  // MPICH 4.0 over UCX's tcp transport can hang in MPI_Finalize; a pause after the last barrier lets UCX's
  // asynchronous thread settle the connections first, where busy progress does not help
  // (doc/user-guide.md, "Known MPI problems on Debian 12").
  if (r.config.finalize_settle_ms > 0) usleep(static_cast<useconds_t>(r.config.finalize_settle_ms) * 1000);
  if (r.saved_timer_slack_ns > 0) prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(r.saved_timer_slack_ns), 0, 0, 0);
  r.saved_timer_slack_ns = 0;
  set_mpi_yield(false, 0);  // every process here, after its last collective of ARMCI (wait/mpi_yield.h)
  r.init_count = 0;
  set_calls_serialized(false);
  if (r.we_initialized_mpi) MPI_Finalize();
  r.we_initialized_mpi = false;
}

}  // namespace armcix
