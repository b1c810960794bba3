#include "progress/thread.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "base/error.h"
#include "base/state.h"

namespace armcix {

namespace {

std::thread g_thread;
std::atomic<bool> g_stop{false};
MPI_Comm g_poke = MPI_COMM_NULL;    // private communicator: the probe can never match an application message
int g_program_thread_request = -1;  // set_program_thread_request

void progress_loop(int pause_us) {
  while (!g_stop.load(std::memory_order_relaxed)) {
    int flag = 0;
    // The return code is deliberately not routed through fail(): ARMCI_Error from a helper thread would
    // race the application's own error handling.  A probe on a private communicator cannot fail short of
    // MPI itself breaking, which the main thread then reports.
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, g_poke, &flag, MPI_STATUS_IGNORE);
    if (pause_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(pause_us));
  }
}

}  // namespace

void set_program_thread_request(int level) {
  g_program_thread_request = level;
}

int program_thread_request() {
  return g_program_thread_request;
}

void progress_start() {
  Runtime& r = rt();
  if (!r.resolved.progress_thread) return;
  if (r.thread_level < MPI_THREAD_MULTIPLE) {
    // Once (rank 0) and loudly: the user asked for asynchronous progress and does not get it.  armci-x's
    // MPI_Init and MPI_Init_thread ask for the level when ARMCI_PROGRESS_THREAD is set (mpiwrap/mpi_world.cc),
    // so either MPI cannot give it or MPI started another way: Open MPI's Fortran MPI_INIT calls PMPI_Init.
    const bool mpi_refused = r.we_initialized_mpi || program_thread_request() >= 0;
    if (r.me == 0)
      std::fprintf(stderr,
                   "armci-x: WARNING: ARMCI_PROGRESS_THREAD=1 is OFF: MPI runs at thread level %d, the progress "
                   "thread needs MPI_THREAD_MULTIPLE (%d).  %s  Operations aimed at a process that computes "
                   "complete only when it calls MPI again; ARMCI_PROGRESS_RANKS=1 needs no thread level "
                   "(doc/user-guide.md, \"Asynchronous progress\").\n",
                   r.thread_level, MPI_THREAD_MULTIPLE,
                   mpi_refused ? "This MPI does not provide it."
                               : "MPI was started before ARMCI_Init without armci-x's MPI_Init (as Open MPI's "
                                 "Fortran MPI_INIT does): the program must call MPI_Init_thread with "
                                 "MPI_THREAD_MULTIPLE.");
    r.resolved.progress_thread = false;
    return;
  }
  ARMCIX_MPI(MPI_Comm_dup(r.world, &g_poke));
  g_stop = false;
  g_thread = std::thread(progress_loop, r.config.progress_usleep);
}

void progress_stop() {
  if (!g_thread.joinable()) return;
  g_stop = true;
  g_thread.join();
  ARMCIX_MPI(MPI_Comm_free(&g_poke));
}

bool progress_running() {
  return g_thread.joinable();
}

}  // namespace armcix
