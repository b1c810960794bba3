// A process touching its own slices with loads and stores: ARMCI_Access_begin / ARMCI_Access_end, the
// progress pokes of its polling paths, and the MPI_Win_sync that makes remote updates and local stores
// visible to each other (unified model).
#include <mpi.h>

#include "base/error.h"
#include "base/state.h"
#include "gmr/gmr.h"
#include "wait/wait.h"

namespace armcix {

namespace {

Gmr* own_region(const char* call, void* ptr) {
  require_initialized(call);
  ARMCIX_REQUIRE(ptr != nullptr, call, "argument 'ptr' is NULL");
  GmrRef r = gmr_find(rt().me, ptr);
  ARMCIX_REQUIRE(r.gmr != nullptr, call, "argument 'ptr' = %p is not in this process's ARMCI_Malloc memory", ptr);
  return r.gmr;
}

}  // namespace

void poke_progress(const Gmr* g) {
  if (g->win != MPI_WIN_NULL) progress_poke();
}

void access_begin(const char* call, void* ptr) {
  Gmr* g = own_region(call, ptr);
  ++g->access_depth;
  poke_progress(g);
  sync_region(g);  // see remote updates that completed before this point
}

void access_end(const char* call, void* ptr) {
  Gmr* g = own_region(call, ptr);
  ARMCIX_REQUIRE(g->access_depth > 0, call, "argument 'ptr' = %p: no ARMCI_Access_begin is open on this allocation",
                 ptr);
  --g->access_depth;
  sync_region(g);  // publish local stores to later RMA
  poke_progress(g);
}

void sync_region(Gmr* g) {
  if (g->win != MPI_WIN_NULL) ARMCIX_MPI(MPI_Win_sync(g->win));
  if (g->shm_win != MPI_WIN_NULL) ARMCIX_MPI(MPI_Win_sync(g->shm_win));
}

void sync_all_windows() {
  for (Gmr* g : gmr_all()) sync_region(g);
}

}  // namespace armcix
