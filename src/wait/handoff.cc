#include "wait/handoff.h"

#include <sys/mman.h>
#include <unistd.h>

#include <utility>

#include "wait/wait.h"

namespace armcix {

namespace {
std::atomic<uint64_t> g_wakes_sent{0};
}  // namespace

namespace detail {
std::vector<WakeChannel> g_wake;
int g_handoff_sleep_us = 0;

void wake_slow(WakeChannel& c) {
  if (c.sleeping->load(std::memory_order_relaxed) == 0) return;  // awake: it polls
  // MPI may hold an operation back until its progress engine runs (MPICH over UCX issues an MPI_Rget
  // there): one poll sends it, so that the progress rank finds it when it wakes.
  progress_poke();
  // The operation is in shared memory before the word is read again (the progress rank's side: word set,
  // then MPI polled).
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (c.sleeping->exchange(0, std::memory_order_acq_rel) == 0) return;  // someone else woke it
  const char byte = 1;
  // EAGAIN: the FIFO is full, so the progress rank has bytes to wake on anyway.
  if (write(c.fifo, &byte, 1) == 1) g_wakes_sent.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace detail

void waiting_begin() {
  for (WakeChannel& c : detail::g_wake)
    if (c.waiting) c.waiting->fetch_add(1, std::memory_order_relaxed);
}

void waiting_end() {
  for (WakeChannel& c : detail::g_wake)
    if (c.waiting) c.waiting->fetch_sub(1, std::memory_order_relaxed);
}

long handoff_waiting_total() {
  long total = 0;
  for (const WakeChannel& c : detail::g_wake)
    if (c.waiting) total += c.waiting->load(std::memory_order_relaxed);
  return total;
}

void proxy_wake_all() {
  for (WakeChannel& c : detail::g_wake)
    if (c.sleeping) detail::wake_slow(c);
}

uint64_t proxy_wakes_sent() {
  return g_wakes_sent.load(std::memory_order_relaxed);
}

void set_wake_channels(std::vector<WakeChannel> channels) {
  detail::g_wake = std::move(channels);
}

void close_wake_channels() {
  for (WakeChannel& c : detail::g_wake) {
    if (!c.sleeping) continue;
    munmap(static_cast<void*>(c.sleeping), kWakePageBytes);
    close(c.fifo);
  }
  detail::g_wake.clear();
}

void set_handoff_sleep_us(int us) {
  detail::g_handoff_sleep_us = us;
}

}  // namespace armcix
