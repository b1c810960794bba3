#include "base/state.h"

#include "base/alloc_stats.h"
#include "base/error.h"

namespace armcix {

AllocStats g_alloc_stats;

namespace {
Runtime g_runtime;
}  // namespace

Runtime& rt() {
  return g_runtime;
}
Resolved Resolved::from_config(const Config& c) {
  Resolved r;
  r.wait_backoff_us = c.wait_backoff_us;
  r.wait_timer_slack_ns = c.wait_timer_slack_ns;
  r.mpi_yield = c.mpi_yield;
  r.mpi_yield_timer_us = c.mpi_yield_timer_us;
  r.mpi_yield_timer_signal = c.mpi_yield_timer_signal;
  r.node_sync = c.node_sync;
  r.progress_ranks_usleep = c.progress_ranks_usleep;
  r.progress_ranks_handoff_us = c.progress_ranks_handoff_us;
  r.progress_thread = c.progress_thread;
  return r;
}

Config Resolved::effective(Config c) const {
  c.wait_backoff_us = wait_backoff_us;
  c.wait_timer_slack_ns = wait_timer_slack_ns;
  c.mpi_yield = mpi_yield;
  c.mpi_yield_timer_us = mpi_yield_timer_us;
  c.mpi_yield_timer_signal = mpi_yield_timer_signal;
  c.node_sync = node_sync;
  c.progress_ranks_usleep = progress_ranks_usleep;
  c.progress_ranks_handoff_us = progress_ranks_handoff_us;
  c.progress_thread = progress_thread;
  return c;
}

bool initialized() {
  return g_runtime.init_count > 0;
}

void require_initialized(const char* call) {
  if (__builtin_expect(g_runtime.init_count <= 0, 0)) fail(call, "ARMCI is not initialized (call ARMCI_Init first)");
}

void check_rank(const char* call, const char* arg, int proc) {
  if (__builtin_expect(proc < 0 || proc >= g_runtime.nproc, 0))
    fail(call, "argument '%s' = %d is not a valid process id (0..%d)", arg, proc, g_runtime.nproc - 1);
}

}  // namespace armcix
