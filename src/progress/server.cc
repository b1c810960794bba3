// A progress rank's loop (progress_ranks.h): the idle policy deciding when to poll, yield or sleep (with
// the socket waker and the idle-core test it uses), the request handler acting on one request, and the
// meeting in MPI_Finalize.
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>

#include "base/error.h"
#include "progress/progress_ranks.h"
#include "progress/progress_ranks_internal.h"
#include "topo/machine.h"
#include "wait/wait.h"

namespace armcix {

using namespace proxy;  // NOLINT(google-build-using-namespace): the wire protocol, progress/protocol.h

using progress::finalize_meeting;
using progress::free_proxy_windows;
using progress::OwnWake;

namespace {

// How often a hand-off poll asks whether a core is idle (IdleCores reads /proc/loadavg: a few us).  Checking
// every 8 or every 1024 polls gave the same latencies in back-to-back streams.
constexpr unsigned kHandoffIdleCheckPolls = 16;

// How often an awake poll (ARMCI_PROGRESS_RANKS_AWAKE_US) asks whether a core is idle.
constexpr unsigned kAwakeIdleCheckPolls = 8;

// Wakes the sleeping progress rank when one of the process's sockets receives data.  MPI over TCP (UCX's
// tcp transport, MPICH's ch3:sock, Open MPI's btl/tcp) brings an RMA request from another node as bytes on a
// socket; sleeping in epoll on every socket of the process (edge-triggered: only new data wakes, so a socket
// nobody reads, such as the launcher's, cannot turn the sleep into a spin) instead of in usleep lets the
// progress rank react at once rather than at the end of its pause.  Networks that bypass the kernel and
// shared memory make no socket readable: the pause is then what it was.  MPI opens connections lazily, so
// the set is refreshed now and then.
class SocketWaker {
 public:
  SocketWaker() : epoll_(epoll_create1(EPOLL_CLOEXEC)) { refresh(); }
  ~SocketWaker() {
    if (epoll_ >= 0) close(epoll_);
  }
  SocketWaker(const SocketWaker&) = delete;
  SocketWaker& operator=(const SocketWaker&) = delete;

  // Sleeps up to `us` microseconds, less if a socket receives data or the wake FIFO a byte meanwhile.
  // Returns whether one of them woke it (false: the pause ran out).
  bool sleep(int us) {
    if (++sleeps_ % kRefreshEvery == 0) refresh();
    if (epoll_ < 0 || watched_ == 0) {
      usleep(static_cast<useconds_t>(us));
      return false;
    }
    epoll_event ev[8];
    const timespec pause{0, static_cast<long>(us) * 1000L};
    // epoll_pwait2 (microsecond timeouts) needs Linux 5.11; an older kernel answers ENOSYS at once, which
    // would turn the pause into a spin: sleep plainly from then on.
    const int n = epoll_pwait2(epoll_, ev, 8, &pause, nullptr);
    if (n < 0 && errno == ENOSYS) {
      close(epoll_);
      epoll_ = -1;
      usleep(static_cast<useconds_t>(us));
    }
    return woken(ev, n);
  }
  // Whether a socket or the FIFO has become readable since the last look, without waiting.  (A socket
  // that MPI has drained meanwhile is not reported: epoll checks readiness when asked.)
  bool poll() {
    if (epoll_ < 0 || watched_ == 0) return false;
    epoll_event ev[8];
    return woken(ev, epoll_wait(epoll_, ev, 8, 0));
  }
  // Also wakes on `fifo` (level-triggered: its bytes are read here).
  void watch_fifo(int fifo) {
    if (epoll_ < 0) return;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fifo;
    if (epoll_ctl(epoll_, EPOLL_CTL_ADD, fifo, &ev) == 0) {
      fifo_ = fifo;
      ++watched_;
    }
  }

  // Adds the process's sockets not watched yet (the kernel drops closed ones from the set by itself).
  void refresh() {
    if (epoll_ < 0) return;
    DIR* d = opendir("/proc/self/fd");
    if (!d) return;
    const int own = dirfd(d);
    while (dirent* e = readdir(d)) {
      const int fd = std::atoi(e->d_name);
      if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == own || fd == epoll_) continue;
      struct stat st;
      if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
      epoll_event ev{};
      ev.events = EPOLLIN | EPOLLET;
      ev.data.fd = fd;
      if (epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev) == 0) ++watched_;
    }
    closedir(d);
  }

 private:
  bool woken(const epoll_event* ev, int n) {
    for (int i = 0; i < n; ++i) {
      if (ev[i].data.fd != fifo_ || fifo_ < 0) continue;
      char sink[64];
      while (read(fifo_, sink, sizeof sink) > 0) {
      }
    }
    return n > 0;
  }
  static constexpr unsigned kRefreshEvery = 4096;  // sleeps: ~0.1-0.3 s when idle
  int epoll_;
  int fifo_ = -1;
  unsigned sleeps_ = 0;
  int watched_ = 0;  // sockets ever added (only whether any is matters)
};

// Whether the machine has a core nobody else wants: the number of runnable tasks of the whole machine
// (/proc/loadavg's "R/T" field, which counts the caller) is at most its online cores.  A yield cannot tell:
// Linux's EEVDF scheduler hands the core back at once to a yielding task while the other task on it has
// used more than its share, so a progress rank that polled while its yields returned quickly still took
// half a core from a computing rank (doc/performance.md has the NWChem run).  The
// whole machine, not our job: another job's work counts as wanting the cores too.
class IdleCores {
 public:
  IdleCores() : cores_(static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN))) {}
  bool any() const {
    const long running = runnable_tasks();  // topo/machine.h
    return running >= 0 && cores_ > 0 && running <= cores_;
  }

 private:
  int cores_;
};

MPI_Win window_of(const Runtime& r, ProxyWindow which) {
  return which == ProxyWindow::Exclusive ? r.proxy_excl_win : r.proxy_win;
}

// What a progress rank does between two polls of MPI that found no request.  MPI_Iprobe drives MPI's
// progress engine, which is what serves the RMA aimed at this process.  Between polls it sleeps
// ARMCI_PROGRESS_RANKS_USLEEP: the scheduler runs a task that slept as soon as it wakes, while a spinner
// that only yields (the value 0) waits for its share of a core that a computing rank holds (an order of
// magnitude slower under load: doc/performance.md).  It polls on instead of sleeping while a program rank of its node
// has handed it its core, and for ARMCI_PROGRESS_RANKS_AWAKE_US after a wake-up.
class IdlePolicy {
 public:
  IdlePolicy(const Runtime& r, const OwnWake& wake)
      : wake_(wake), pause_us_(r.resolved.progress_ranks_usleep), awake_s_(r.config.progress_ranks_awake_us * 1e-6) {
    // Linux lets a sleep of a normal task overrun by its timer slack (50 us by default) to batch wake-ups,
    // and every operation through this rank would wait that long.  A progress rank wants its wake-up on time.
    if (pause_us_ > 0 && prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0) != 0 && r.config.verbose)
      armcix::print_to_stderr("armci-x: progress rank: prctl(PR_SET_TIMERSLACK) failed: %s\n", std::strerror(errno));
    if (wake_.fifo >= 0) waker_.watch_fifo(wake_.fifo);
  }

  // After a poll that found no request; the next poll follows at once.
  void after_empty_poll() {
    if (pause_us_ <= 0) {  // a core of its own: poll on
      sched_yield();
      return;
    }
    const double now = MPI_Wtime();
    if (polling_for_handoff(now)) {
      sched_yield();
    } else if (now < awake_until_) {
      stay_awake(now);
    } else if (wake_.sleeping && !announced_) {
      announce_sleep();
    } else {
      sleep_one_pause();
    }
  }

  // One pause of a plain polling loop (the meeting in MPI_Finalize): the sleep, or a yield without one.
  void pause() {
    if (pause_us_ > 0)
      waker_.sleep(pause_us_);
    else
      sched_yield();
  }

 private:
  // Whether to poll on because a program rank of this node waits and has given up its core (progress_ranks.h,
  // "Core hand-off"): as long as a core is idle (checked every kHandoffIdleCheckPolls polls).  Where ranks
  // compute, the waiting rank's core is theirs, and this rank sleeps a pause before it looks again.
  bool polling_for_handoff(double now) {
    if (!wake_.waiting || now < handoff_retry_at_ || wake_.waiting->load(std::memory_order_relaxed) <= 0) return false;
    if (++handoff_polls_ % kHandoffIdleCheckPolls != 0 || idle_cores_.any()) return true;
    handoff_retry_at_ = now + pause_us_ * 1e-6;
    return false;
  }

  // Awake after a wake-up: poll on while nobody else wants a core (progress_ranks.h, kContendedYieldUs, and
  // IdleCores every few polls); new data on a socket or the FIFO prolongs it.
  void stay_awake(double now) {
    sched_yield();
    const double after = MPI_Wtime();
    if (after - now > kContendedYieldUs * 1e-6 || (++awake_polls_ % kAwakeIdleCheckPolls == 0 && !idle_cores_.any()))
      awake_until_ = 0;
    else if (waker_.poll())
      awake_until_ = after + awake_s_;
  }

  // Announces the sleep; MPI is polled once more before it: a peer that issued its operation before it could
  // see the word is served by that poll, one that issues after sees the word and writes to the FIFO (both
  // sides order their two steps with a full fence).
  void announce_sleep() {
    wake_.sleeping->store(1, std::memory_order_seq_cst);
    announced_ = true;
  }

  void sleep_one_pause() {
    const bool woken = waker_.sleep(pause_us_);
    if (wake_.sleeping) {
      wake_.sleeping->store(0, std::memory_order_relaxed);
      announced_ = false;
    }
    if (woken && awake_s_ > 0) {
      // Serve first: the idle-core test (a read of /proc/loadavg, a few us) comes at the first awake poll.
      awake_until_ = MPI_Wtime() + awake_s_;
      awake_polls_ = kAwakeIdleCheckPolls - 1;
    }
  }

  const OwnWake wake_;
  const int pause_us_;    // ARMCI_PROGRESS_RANKS_USLEEP, resolved
  const double awake_s_;  // ARMCI_PROGRESS_RANKS_AWAKE_US, in s
  SocketWaker waker_;
  IdleCores idle_cores_;
  double awake_until_ = 0;  // MPI_Wtime until which to poll on without sleeping
  unsigned awake_polls_ = 0;
  unsigned handoff_polls_ = 0;
  double handoff_retry_at_ = 0;  // MPI_Wtime before which no hand-off polling (no idle core was seen)
  bool announced_ = false;       // the wake word is set and MPI was polled since
};

// Answers the program ranks' requests (the wire protocol: progress/protocol.h) and keeps the segments they
// had attached.
class RequestHandler {
 public:
  RequestHandler(Runtime& r, int program_ranks_served) : r_(r), remaining_(program_ranks_served) {}

  // Until every program rank served has sent kDone.
  bool serving() const { return remaining_ > 0; }

  // Receives the request that a probe found from `source` and acts on it.
  void handle(int source) {
    Request q;
    ARMCIX_MPI(MPI_Recv(&q, sizeof q, MPI_BYTE, source, kRequestTag, r_.all, MPI_STATUS_IGNORE));
    switch (q.kind) {
      case kAttach: {
        const int64_t disp = attach(q);
        ARMCIX_MPI(MPI_Send(&disp, 1, MPI_INT64_T, source, kReplyTag, r_.all));
        break;
      }
      case kDetach:
        detach(q);
        break;
      case kDone:
        --remaining_;
        break;
      default:
        fail("ARMCI_Init", "progress rank: unknown request %d from process %d", q.kind, source);
    }
  }

  // Every program rank has finalized: the proxy windows' last collective, and the segments go.
  void release_segments() {
    for (auto& [where, m] : attached_) ARMCIX_MPI(MPI_Win_detach(window_of(r_, where.first), m.addr));
    free_proxy_windows(r_);
    for (auto& [where, m] : attached_) munmap(m.addr, m.bytes);
  }

 private:
  // Maps the segment and attaches it to the window asked for.  Returns the reply: its displacement there, 0
  // if it could not be mapped (the program rank reports it), or MPI's error class negated if MPI refused to
  // attach it (Open MPI 4.1's osc ucx attaches at most 32 regions to a dynamic window).
  int64_t attach(Request& q) {
    q.shm_name[sizeof q.shm_name - 1] = '\0';
    const MPI_Win win = window_of(r_, q.window);
    const int fd = shm_open(q.shm_name, O_RDWR | O_NOFOLLOW, 0);
    if (fd < 0) return 0;
    if (win == MPI_WIN_NULL) {
      close(fd);
      return 0;
    }
    const auto bytes = static_cast<std::size_t>(q.bytes);
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return 0;
    const int rc = MPI_Win_attach(win, p, static_cast<MPI_Aint>(q.bytes));
    if (rc != MPI_SUCCESS) {
      munmap(p, bytes);
      int error_class = MPI_ERR_OTHER;
      MPI_Error_class(rc, &error_class);
      return -std::max(error_class, 1);
    }
    MPI_Aint disp;
    ARMCIX_MPI(MPI_Get_address(p, &disp));
    attached_[{q.window, disp}] = {p, bytes};
    return disp;
  }

  void detach(const Request& q) {
    auto it = attached_.find({q.window, q.disp});
    if (it == attached_.end()) return;
    ARMCIX_MPI(MPI_Win_detach(window_of(r_, q.window), it->second.addr));
    munmap(it->second.addr, it->second.bytes);
    attached_.erase(it);
  }

  struct Mapping {
    void* addr;
    std::size_t bytes;
  };
  Runtime& r_;
  int remaining_;                                                // program ranks that have not sent kDone
  std::map<std::pair<ProxyWindow, int64_t>, Mapping> attached_;  // (window, displacement) -> mapping
};

// After the progress rank stopped serving: waits, still polling MPI, until the program ranks reach
// MPI_Finalize (progress_ranks_meet_at_mpi_finalize), so that every process enters it together, as without
// progress ranks.  Entering at once and then sitting in MPI_Finalize's PMI barrier while the program ranks
// still ran their code after ARMCI_Finalize left MPICH 4.0.2 + UCX's tcp transport hung: a program rank
// waited in UCX's endpoint disconnect for a progress rank already in that barrier (doc/user-guide.md,
// "Progress ranks and the finalize hang").  Only where finalize_meeting() says so.  A program rank that
// calls PMPI_Finalize itself never comes: after ARMCI_PROGRESS_RANKS_MEETING_S (60 s) the progress rank
// finalizes alone, as it did before the meeting existed (the barrier stays pending, which MPICH's
// MPI_Finalize tolerates).
void meet_program_ranks(const Runtime& r, IdlePolicy& idle) {
  MPI_Request meeting;
  ARMCIX_MPI(MPI_Ibarrier(r.all, &meeting));
  const double deadline = MPI_Wtime() + r.config.progress_ranks_meeting_s;
  poll_until(
      [&] {
        int met = 0;
        ARMCIX_MPI(MPI_Test(&meeting, &met, MPI_STATUS_IGNORE));
        if (met) return true;
        if (MPI_Wtime() <= deadline) return false;
        armcix::print_to_stderr(
            "armci-x: progress rank %d: the program ranks did not reach MPI_Finalize within %d s of "
            "ARMCI_Finalize (or called PMPI_Finalize directly): finalizing without meeting them\n",
            r.me, r.config.progress_ranks_meeting_s);
        return true;
      },
      [] {}, [&] { idle.pause(); });
}

}  // namespace

// The progress rank's life after ARMCI_Init: serves requests until every program rank it serves has
// finalized, then leaves without returning to the program (which this process never ran beyond ARMCI_Init).
// While idle it also checks, once a second, that the process that started it (MPI's launcher, e.g. Hydra's
// proxy) is still its parent: a launcher that ended the job on an abort and exited without killing every
// process leaves a progress rank serving nobody forever (seen once in a suite run on Debian 12's Hydra
// 4.0.2: two progress ranks of an aborted job still running 20 minutes later, reparented to init).  A
// program rank blocked in MPI cannot tell; a progress rank, which never returns to the program, can.
[[noreturn]] void progress::serve(Runtime& r, int program_ranks_served, const OwnWake& wake) {
  IdlePolicy idle(r, wake);
  RequestHandler requests(r, program_ranks_served);
  const pid_t launcher = getppid();
  double next_check = MPI_Wtime() + 1.0;
  while (requests.serving()) {
    int found = 0;
    MPI_Status st;
    ARMCIX_MPI(MPI_Iprobe(MPI_ANY_SOURCE, kRequestTag, r.all, &found, &st));
    if (found) {
      requests.handle(st.MPI_SOURCE);
      continue;
    }
    idle.after_empty_poll();
    if (const double now = MPI_Wtime(); now >= next_check) {
      next_check = now + 1.0;
      if (getppid() != launcher) {
        armcix::print_to_stderr(
            "armci-x: progress rank %d: the process that started it (pid %d) is gone, so the job has ended: "
            "exiting\n",
            r.me, static_cast<int>(launcher));
        _exit(1);
      }
    }
  }
  requests.release_segments();
  if (finalize_meeting()) meet_program_ranks(r, idle);
  ARMCIX_MPI(MPI_Comm_free(&r.all));
  std::fflush(stdout);
  // The same pause as the program ranks make before MPI_Finalize (runtime/runtime.cc, and
  // progress_ranks_meet_at_mpi_finalize).
  if (r.config.finalize_settle_ms > 0) usleep(static_cast<useconds_t>(r.config.finalize_settle_ms) * 1000);
  MPI_Finalize();
  std::exit(0);
}

}  // namespace armcix
