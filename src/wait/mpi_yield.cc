#include "wait/mpi_yield.h"

#include <mpi.h>

namespace armcix {

namespace detail {
std::atomic<bool> g_yield{false};           // ARMCI_MPI_YIELD in force (same on every process)
std::atomic<int> g_pause_us{0};             // between polls: sleep this long, or sched_yield if 0
std::atomic<uint64_t> g_yield_count{0};     // blocking calls completed through the yielding path
std::atomic<bool> g_comm_templates{false};  // communicator templates usable (not at MPI_THREAD_MULTIPLE)
}  // namespace detail

namespace {
void (*g_off_hook)() = nullptr;
}  // namespace

void set_mpi_yield_off_hook(void (*hook)()) {
  g_off_hook = hook;
}

void set_mpi_yield(bool on, int pause_us) {
  detail::g_pause_us.store(pause_us > 0 ? pause_us : 0, std::memory_order_relaxed);
  int level = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&level);
  detail::g_comm_templates.store(on && level < MPI_THREAD_MULTIPLE, std::memory_order_relaxed);
  detail::g_yield.store(on, std::memory_order_release);
  if (!on && g_off_hook) g_off_hook();
}

bool mpi_yield_on() {
  return detail::g_yield.load(std::memory_order_acquire);
}

uint64_t mpi_yield_count() {
  return detail::g_yield_count.load(std::memory_order_relaxed);
}

}  // namespace armcix
