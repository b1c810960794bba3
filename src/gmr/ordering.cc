#include "gmr/ordering.h"

#include "runtime/error.h"
#include "runtime/runtime.h"

namespace armcix {

void flush_pair(Gmr* g, int wr) {
  ARMCIX_MPI(MPI_Win_flush(mpi_target(g, wr), g->win));
  if (g->pending[wr].any()) {
    g->pending[wr] = Pending{};
    --g->pending_count;
  }
}

void fence_proc(int proc) {
  for (Gmr* g : gmr_all()) {
    if (g->pending_count == 0) continue;
    int wr = g->abs_to_win[proc];
    if (wr >= 0 && g->pending[wr].any()) flush_pair(g, wr);
  }
}

void fence_all() {
  for (Gmr* g : gmr_all()) {
    if (g->pending_count == 0) continue;
    ARMCIX_MPI(MPI_Win_flush_all(g->win));
    std::fill(g->pending.begin(), g->pending.end(), Pending{});
    g->pending_count = 0;
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
