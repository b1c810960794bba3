#include "gmr/ordering.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "base/error.h"
#include "base/state.h"
#include "base/window.h"
#include "topo/nodes.h"

namespace armcix {

namespace {

// Origin copies of ordered puts (hold_put_copy), per (region, window rank) pair, carved from 64 KiB blocks so
// that an 8-byte put costs a copy and no allocation.  Freed when the pair is flushed.
constexpr std::size_t kCopyBlockBytes = 64 * 1024;
constexpr std::size_t kSpareBlocks = 4;  // blocks kept for reuse after a flush
static_assert(kOrderedPutMaxBytes <= static_cast<MPI_Aint>(kCopyBlockBytes), "an ordered put's copy fits a block");

struct PairCopies {
  Gmr* g = nullptr;
  int wr = -1;
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
void release_copies(Gmr* g, int wr) {
  for (std::size_t i = 0; i < g_copies.size(); ++i)
    if (g_copies[i].g == g && g_copies[i].wr == wr) return drop_copies(i);
}

void release_region_copies(Gmr* g) {
  for (std::size_t i = g_copies.size(); i-- > 0;)
    if (g_copies[i].g == g) drop_copies(i);
}

// A region is about to be freed: complete what its copies feed before they go (gmr_on_release runs before
// the window is unlocked and freed).
void region_released(Gmr* g) {
  if (std::none_of(g_copies.begin(), g_copies.end(), [g](const PairCopies& pc) { return pc.g == g; })) return;
  wake_servers(g);
  ARMCIX_MPI(MPI_Win_flush_all(g->win));
  release_region_copies(g);
}

std::unique_ptr<char[]> new_copy_block() {
  if (g_spare_blocks.empty()) return std::unique_ptr<char[]>(new char[kCopyBlockBytes]);
  std::unique_ptr<char[]> b = std::move(g_spare_blocks.back());
  g_spare_blocks.pop_back();
  return b;
}

PairCopies& copies_of(Gmr* g, int wr) {
  for (PairCopies& pc : g_copies)
    if (pc.g == g && pc.wr == wr) return pc;
  g_copies.emplace_back();
  g_copies.back().g = g;
  g_copies.back().wr = wr;
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

void* hold_copy_space(Gmr* g, int wr, std::size_t bytes) {
  static const bool hooked = (gmr_on_release(&region_released), true);
  (void)hooked;
  const std::size_t need = (bytes + 15) & ~std::size_t{15};
  if (g_copy_bytes + need > kOrderedPutCopyBytes)
    while (!g_copies.empty()) flush_pair(g_copies.back().g, g_copies.back().wr);
  if (copies_of(g, wr).count >= kOrderedPutCopiesPerTarget) flush_pair(g, wr);
  PairCopies& pc = copies_of(g, wr);
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
  wake_server(g, wr);
  ARMCIX_MPI(MPI_Win_flush(mpi_target(g, wr), g->win));
  if (!g_copies.empty()) release_copies(g, wr);
  g->pending.complete(wr);
}

void flush_local_pair(Gmr* g, int wr) {
  wake_server(g, wr);
  ARMCIX_MPI(MPI_Win_flush_local(mpi_target(g, wr), g->win));
}

void fence_proc(int proc) {
  for (Gmr* g : gmr_all()) {
    if (g->pending.count() == 0) continue;
    int wr = g->win_rank_of(proc);
    if (wr >= 0 && g->pending.find(wr)) flush_pair(g, wr);
  }
}

void fence_all() {
  for (Gmr* g : gmr_all()) {
    if (g->pending.count() == 0) continue;
    wake_servers(g);
    ARMCIX_MPI(MPI_Win_flush_all(g->win));
    if (!g_copies.empty()) release_region_copies(g);
    g->pending.complete_all();
  }
}

void sync_region(Gmr* g) {
  if (g->win != MPI_WIN_NULL) ARMCIX_MPI(MPI_Win_sync(g->win));
  if (g->shm_win != MPI_WIN_NULL) ARMCIX_MPI(MPI_Win_sync(g->shm_win));
}

void sync_all_windows() {
  for (Gmr* g : gmr_all()) sync_region(g);
}

}  // namespace armcix
