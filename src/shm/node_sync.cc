#include "shm/node_sync.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "base/error.h"
#include "base/state.h"
#include "base/thread_lock.h"
#include "shm/segment.h"
#include "topo/machine.h"
#include "wait/backoff.h"
#include "wait/call_stats.h"
#include "wait/handoff.h"
#include "wait/wait.h"

namespace armcix {

namespace {

// How long a waiter sleeps in the futex before it enters MPI's progress engine once and sleeps again.
constexpr long kPokeMicroseconds = 1000;
// Polls of the generation word before a waiter sleeps: short, since on an oversubscribed machine a
// spinning waiter holds a core its peers need.
constexpr int kSpinPolls = 64;
// Then, unless other programs load the machine, polls with sched_yield between them before it sleeps.  A
// yield hands the core to a peer of the same core that still has to arrive, and the waiter sees the
// barrier complete without a futex wake-up, which costs far more.  With other programs running a waiter
// that stays runnable takes their and its peers' share of the cores, so then it sleeps at once
// (foreign_load).  As many yields as a back-off wait makes (kBackoffYieldPolls, wait/backoff.h;
// doc/performance.md, "The values of the defaults").

// The shared page: the arrival counter and the generation on separate cache lines, then per parity and
// rank a slot: a header (the barrier sequence number it was written for) and the data.
struct Control {
  alignas(64) std::atomic<uint32_t> arrived;
  alignas(64) std::atomic<uint32_t> generation;
  alignas(64) std::atomic<uint32_t> sleepers;  // waiters in the futex (or about to be): not runnable
};
static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t), "futex word");
constexpr std::size_t kControlBytes = 4096;
constexpr std::size_t kSlotHeader = 64;
constexpr std::size_t kSlotStride = kSlotHeader + kNodeSyncSlotBytes;

struct State {
  char* page = nullptr;  // mapped; null until the first collective
  std::size_t bytes = 0;
  Control* control = nullptr;
  char* slots = nullptr;
  int nranks = 0;
  int me = 0;
  uint64_t barriers = 0;   // barriers passed so far (the same count on every rank)
  uint64_t slot_uses = 0;  // gops and gathers so far: the parity of the slots the next one uses
};
State g_state;

long futex(std::atomic<uint32_t>* word, int op, uint32_t value, const timespec* timeout) {
  // A shared (not FUTEX_PRIVATE) futex: the waiters are other processes mapping the same page.
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), op, value, timeout, nullptr, 0);
}

// The page is a POSIX shared-memory object (zero-filled) that rank 0 creates and the others map by name:
// not an MPI shared-memory window, whose creation MPICH completes with internal busy-polled collectives
// (slow on oversubscribed cores: tools/nwchem/RESULTS.md).
void create_page(const char* call) {
  Runtime& r = rt();
  g_state.nranks = r.nproc;
  g_state.me = r.me;
  g_state.bytes = kControlBytes + 2 * static_cast<std::size_t>(r.nproc) * kSlotStride;
  char name[kShmNameBytes] = "";
  int fd = -1;
  if (r.me == 0) fd = shm_segment_create(call, "the shared page of ARMCI_NODE_SYNC", g_state.bytes, name);
  MPI_Request req;
  ARMCIX_MPI(MPI_Ibcast(name, sizeof name, MPI_CHAR, 0, r.node_comm, &req));
  wait_for(call, &req);
  if (r.me != 0) {
    fd = shm_open(name, O_RDWR, 0);
    ARMCIX_REQUIRE(fd >= 0, call, "could not open rank 0's shared-memory object %s for ARMCI_NODE_SYNC: %s", name,
                   std::strerror(errno));
  }
  void* page = mmap(nullptr, g_state.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int err = errno;
  close(fd);
  ARMCIX_REQUIRE(page != MAP_FAILED, call, "could not map the shared-memory object %s for ARMCI_NODE_SYNC: %s", name,
                 std::strerror(err));
  g_state.page = static_cast<char*>(page);
  g_state.control = reinterpret_cast<Control*>(g_state.page);  // zero-filled: no one has arrived, generation 0
  g_state.slots = g_state.page + kControlBytes;
  // Everyone has mapped it: the name can go (the object lives on while mapped).
  ARMCIX_MPI(MPI_Ibarrier(r.node_comm, &req));
  wait_for(call, &req);
  if (r.me == 0) shm_unlink(name);
}

void ensure_page(const char* call) {
  if (!g_state.page) create_page(call);
}

uint64_t* slot_sequence(uint64_t parity, int rank) {
  return reinterpret_cast<uint64_t*>(
      g_state.slots +
      (parity * static_cast<std::size_t>(g_state.nranks) + static_cast<std::size_t>(rank)) * kSlotStride);
}

char* slot_data(uint64_t parity, int rank) {
  return reinterpret_cast<char*>(slot_sequence(parity, rank)) + kSlotHeader;
}

void wait_generation_change(Control* c, uint32_t generation) {
  // The other processes may wait for another thread of this one (a put they poll for) before they arrive:
  // that thread must be able to take the API lock (base/thread_lock.h).  Nobody else touches the page's
  // state meanwhile: the program orders its collectives on the world.
  ApiUnlocked unlocked;
  for (int i = 0; i < kSpinPolls; ++i) {
    if (c->generation.load(std::memory_order_acquire) != generation) return;
    __builtin_ia32_pause();
  }
  // Our ranks not asleep in the futex may be among the machine's runnable tasks; more than that (and one
  // for noise) is somebody else's.
  if (!foreign_load(g_state.nranks - static_cast<long>(c->sleepers.load(std::memory_order_relaxed)))) {
    for (int i = 0; i < kBackoffYieldPolls; ++i) {
      if (c->generation.load(std::memory_order_acquire) != generation) return;
      sched_yield();
    }
  }
  c->sleepers.fetch_add(1, std::memory_order_relaxed);
  // Asleep, this rank's core is free for the node's progress ranks (progress/progress_ranks.h, "Core hand-off").
  const bool handing_off = handoff_possible();
  if (handing_off) waiting_begin();
  const timespec timeout = {0, kPokeMicroseconds * 1000};
  while (c->generation.load(std::memory_order_acquire) == generation) {
    call_stats_count_pause();
    futex(&c->generation, FUTEX_WAIT, generation, &timeout);  // returns at once if it changed meanwhile
    if (c->generation.load(std::memory_order_acquire) == generation) progress_poke();
  }
  if (handing_off) waiting_end();
  c->sleepers.fetch_sub(1, std::memory_order_relaxed);
}

void barrier_on_page() {
  Control* c = g_state.control;
  ++g_state.barriers;
  // The generation cannot move before I arrive: it moves when all have.
  const uint32_t generation = c->generation.load(std::memory_order_acquire);
  if (c->arrived.fetch_add(1, std::memory_order_acq_rel) == static_cast<uint32_t>(g_state.nranks - 1)) {
    // Last: reset the counter for the next barrier before releasing anyone into it.
    c->arrived.store(0, std::memory_order_relaxed);
    c->generation.store(generation + 1, std::memory_order_release);
    futex(&c->generation, FUTEX_WAKE, INT32_MAX, nullptr);
    return;
  }
  wait_generation_change(c, generation);
}

// Writes `bytes` of `data` to my slot of the next parity, meets the others, and checks that every slot was
// written for this barrier and by the same kind of collective (a gop, a gather and an ARMCI collective's
// agreement all exchange through the slots: a rank in another kind would be read as data).  Returns the
// parity whose slots now hold everyone's data.  Two sets of slots: a rank writes use k+2's slot only after
// use k+1's barrier, which every rank enters after reading use k's.
uint64_t exchange(const char* call, NodeExchange kind, const void* data, std::size_t bytes) {
  const uint64_t parity = g_state.slot_uses++ & 1;
  const uint64_t sequence = (g_state.barriers + 1) << 2 | static_cast<uint64_t>(kind);  // the barrier below
  std::memcpy(slot_data(parity, g_state.me), data, bytes);
  *slot_sequence(parity, g_state.me) = sequence;
  barrier_on_page();
  for (int rank = 0; rank < g_state.nranks; ++rank) {
    const uint64_t seen = *slot_sequence(parity, rank);
    ARMCIX_REQUIRE(seen == sequence, call,
                   "collective calls do not match (ARMCI_NODE_SYNC): process %d did not take part in this "
                   "collective (it is in another barrier, gop or collective ARMCI call); every process must make "
                   "the same collective calls in the same order",
                   rank);
  }
  return parity;
}

}  // namespace

bool node_sync_on() {
  const Runtime& r = rt();
  return r.resolved.node_sync == 1 && r.node_count == 1 && r.nproc > 1;
}

void node_barrier() {
  ensure_page("armci_msg_barrier");
  barrier_on_page();
}

bool node_allreduce(const char* call, NodeExchange kind, void* x, int count, MPI_Datatype type, MPI_Op op,
                    std::size_t bytes) {
  if (bytes > kNodeSyncSlotBytes) return false;
  ensure_page(call);
  const uint64_t parity = exchange(call, kind, x, bytes);
  // x = s_0 op (s_1 op (... op s_{n-1})): the same order, hence the same result, on every rank.
  const int n = g_state.nranks;
  std::memcpy(x, slot_data(parity, n - 1), bytes);
  for (int rank = n - 2; rank >= 0; --rank) ARMCIX_MPI(MPI_Reduce_local(slot_data(parity, rank), x, count, type, op));
  return true;
}

bool node_allgather(const char* call, const void* mine, void* all, std::size_t bytes) {
  if (bytes > kNodeSyncSlotBytes) return false;
  // Profiled as "<call> (node)", next to the MPI path's "<call>" waits.
  const int slot = g_call_stats_on.load(std::memory_order_relaxed)
                       ? call_stats_slot(CallKind::Wait, (std::string(call) + " (node)").c_str())
                       : -1;
  ScopeTimer timer(slot);
  ensure_page(call);
  const uint64_t parity = exchange(call, NodeExchange::Gather, mine, bytes);
  for (int rank = 0; rank < g_state.nranks; ++rank)
    std::memcpy(static_cast<char*>(all) + static_cast<std::size_t>(rank) * bytes, slot_data(parity, rank), bytes);
  return true;
}

void node_sync_finalize() {
  if (g_state.page) munmap(g_state.page, g_state.bytes);
  g_state = State();
}

}  // namespace armcix
