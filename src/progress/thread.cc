#include "progress/thread.h"

#include <atomic>
#include <chrono>
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
  // ARMCI_Init failed already when MPI does not run at MPI_THREAD_MULTIPLE (runtime.cc, require_mpi_features).
  if (r.thread_level < MPI_THREAD_MULTIPLE) return;
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
