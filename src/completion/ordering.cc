#include "completion/ordering.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "base/error.h"
#include "completion/path_tuning.h"
#include "base/state.h"
#include "base/window.h"
#include "topo/nodes.h"

namespace armcix {

namespace {

// Origin copies of ordered puts (hold_put_copy), per (window, MPI target) pair -- the pair a flush completes,
// whichever region of the window the copies were for -- carved from 64 KiB blocks so that an 8-byte put costs
// a copy and no allocation.  Freed when the pair is flushed.
constexpr std::size_t kCopyBlockBytes = 64 * 1024;
constexpr std::size_t kSpareBlocks = 4;  // blocks kept for reuse after a flush
static_assert(kContigAuto.small_max_bytes <= kCopyBlockBytes, "an ordered put's copy fits a block");

struct PairCopies {
  MPI_Win win = MPI_WIN_NULL;
  PendingTargets* pt = nullptr;  // the window's ordering state (the key, with target)
  int target = -1;
  bool proxied = false;                         // target is a progress rank (woken before the flush)
  std::vector<std::unique_ptr<char[]>> blocks;  // the last one is being filled
  std::size_t used = 0;                         // bytes used in the last block
  int count = 0;                                // copies held
  std::size_t bytes = 0;                        // bytes held (rounded up to 16 each)
};

std::vector<PairCopies> g_copies;
std::vector<std::unique_ptr<char[]>> g_spare_blocks;
std::size_t g_copy_bytes = 0;

void drop_copies(std::size_t i) {
  PairCopies& pc = g_copies[i];
  for (auto& b : pc.blocks)
    if (g_spare_blocks.size() < kSpareBlocks) g_spare_blocks.push_back(std::move(b));
  g_copy_bytes -= pc.bytes;
  g_copies.erase(g_copies.begin() + static_cast<std::ptrdiff_t>(i));
}

// The pair's operations are complete (flushed): its copies may go.
void release_copies(const PendingTargets* pt, int target) {
  for (std::size_t i = 0; i < g_copies.size(); ++i)
    if (g_copies[i].pt == pt && g_copies[i].target == target) return drop_copies(i);
}

void release_window_copies(const PendingTargets* pt) {
  for (std::size_t i = g_copies.size(); i-- > 0;)
    if (g_copies[i].pt == pt) drop_copies(i);
}

// MPI_Win_flush of one (window, MPI target) pair: everything issued there, by any region of the window, is
// complete.
void flush_target(MPI_Win win, PendingTargets* pt, int target, bool proxied) {
  if (proxied) proxy_wake(target);
  ARMCIX_MPI(MPI_Win_flush(target, win));
  if (!g_copies.empty()) release_copies(pt, target);
  pt->complete(target);
}

// Every window's ordering state, shared by the regions on it (attach_pending).  An entry goes with the last
// region on its window, so a later window with the same handle starts afresh.
std::map<MPI_Win, std::weak_ptr<PendingTargets>> g_window_pending;

// A region is about to be freed (gmr_on_release runs before the window is unlocked and freed, and after the
// requests naming the region completed): complete what is pending on its window -- its copies, and state
// that may name the region's bytes -- before the block or window is given to someone else.  Other regions
// of the window lose nothing: their operations are merely complete earlier.
void region_released(Gmr* g) {
  PendingTargets* pt = g->pending.get();
  if (!pt) return;
  if (pt->count() > 0 ||
      std::any_of(g_copies.begin(), g_copies.end(), [pt](const PairCopies& pc) { return pc.pt == pt; })) {
    wake_servers(g);
    ARMCIX_MPI(MPI_Win_flush_all(g->win));
    release_window_copies(pt);
    pt->complete_all();
  }
  if (g->win != MPI_WIN_NULL && g->pending.use_count() == 1) g_window_pending.erase(g->win);
  g->pending.reset();
}

std::unique_ptr<char[]> new_copy_block() {
  if (g_spare_blocks.empty()) return std::unique_ptr<char[]>(new char[kCopyBlockBytes]);
  std::unique_ptr<char[]> b = std::move(g_spare_blocks.back());
  g_spare_blocks.pop_back();
  return b;
}

PairCopies& copies_of(Gmr* g, int target) {
  for (PairCopies& pc : g_copies)
    if (pc.pt == g->pending.get() && pc.target == target) return pc;
  g_copies.emplace_back();
  g_copies.back().win = g->win;
  g_copies.back().pt = g->pending.get();
  g_copies.back().target = target;
  g_copies.back().proxied = !g->proxy_rank.empty();
  return g_copies.back();
}

}  // namespace

bool ordered_puts_by_accumulate() {
  static const bool by_accumulate = !mpi_is_open_mpi();
  return by_accumulate;
}

void* hold_put_copy(Gmr* g, int wr, const void* src, std::size_t bytes) {
  void* copy = hold_copy_space(g, wr, bytes);
  std::memcpy(copy, src, bytes);
  return copy;
}

void attach_pending(Gmr* g) {
  // After the requests' hook (requests_initialize, at ARMCI_Init): a region's requests complete before its
  // window's state is flushed and dropped.
  static const bool hooked = (gmr_on_release(&region_released), true);
  (void)hooked;
  if (g->win == MPI_WIN_NULL) {  // node-local: no MPI operation, a state of its own for the checks
    g->pending = std::make_shared<PendingTargets>();
    return;
  }
  std::weak_ptr<PendingTargets>& shared = g_window_pending[g->win];
  g->pending = shared.lock();
  if (!g->pending) {
    g->pending = std::make_shared<PendingTargets>();
    shared = g->pending;
  }
}

void* hold_copy_space(Gmr* g, int wr, std::size_t bytes) {
  const std::size_t need = (bytes + 15) & ~std::size_t{15};
  if (g_copy_bytes + need > kContigAuto.held_copy_bytes)
    while (!g_copies.empty()) {
      const PairCopies& pc = g_copies.back();
      flush_target(pc.win, pc.pt, pc.target, pc.proxied);
    }
  const int target = mpi_target(g, wr);
  if (copies_of(g, target).count >= kContigAuto.held_copies_per_target) flush_pair(g, wr);
  PairCopies& pc = copies_of(g, target);
  if (pc.blocks.empty() || pc.used + need > kCopyBlockBytes) {
    pc.blocks.push_back(new_copy_block());
    pc.used = 0;
  }
  char* copy = pc.blocks.back().get() + pc.used;
  pc.used += need;
  pc.bytes += need;
  ++pc.count;
  g_copy_bytes += need;
  return copy;
}

std::size_t held_put_copy_bytes() {
  return g_copy_bytes;
}

void flush_pair(Gmr* g, int wr) {
  flush_target(g->win, g->pending.get(), mpi_target(g, wr), !g->proxy_rank.empty());
}

void flush_local_pair(Gmr* g, int wr) {
  wake_server(g, wr);
  ARMCIX_MPI(MPI_Win_flush_local(mpi_target(g, wr), g->win));
}

// Regions sharing a window share its state: the first of them flushes it, the others find nothing pending.
void fence_proc(int proc) {
  for (Gmr* g : gmr_all()) {
    if (g->pending->count() == 0) continue;
    int wr = g->win_rank_of(proc);
    if (wr >= 0 && g->pending->find(mpi_target(g, wr))) flush_pair(g, wr);
  }
}

void fence_all() {
  for (Gmr* g : gmr_all()) {
    if (g->pending->count() == 0) continue;
    wake_servers(g);
    ARMCIX_MPI(MPI_Win_flush_all(g->win));
    if (!g_copies.empty()) release_window_copies(g->pending.get());
    g->pending->complete_all();
  }
}

}  // namespace armcix
