// The hand-off words between program ranks and the progress ranks of their MPI node (progress/progress_ranks.h).
// The progress ranks own them; program ranks use them from inside their waits (wait/wait.h, wait/backoff.h),
// which is why they live here, below progress/: the waits wake a sleeping progress rank and hand it their
// core without knowing anything else about progress ranks.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace armcix {

// Waking a progress rank over shared memory (doc/design.md, "Waking progress ranks"): a request through
// MPI's shared-memory transport makes no socket readable, so each progress rank sets a wake word before it
// sleeps on its sockets and a FIFO, and a program rank of its MPI node that has issued an operation it must
// serve (proxy_wake) clears a set word and writes one byte to the FIFO.  Without progress ranks proxy_wake
// tests an empty vector.
struct WakeChannel {
  std::atomic<uint32_t>* sleeping = nullptr;  // nullptr: no channel to this process (another machine)
  std::atomic<int32_t>* waiting = nullptr;    // program ranks of the node polling in a wait (hand-off)
  int fifo = -1;
};
namespace detail {
extern std::vector<WakeChannel> g_wake;  // by rank in Runtime::all; empty without progress ranks
void wake_slow(WakeChannel& c);
}  // namespace detail

// The wake page of a progress rank: the sleeping word at its start, the waiting word a cache line away (the
// progress rank writes the sleeping word often).  The progress rank makes it (progress/wake_channels.cc,
// make_wake_channels); the program ranks of its MPI node map it.
constexpr std::size_t kWakePageBytes = 4096;
constexpr std::size_t kWaitingOffset = 64;
inline std::atomic<int32_t>* waiting_word(void* page) {
  return reinterpret_cast<std::atomic<int32_t>*>(static_cast<char*>(page) + kWaitingOffset);
}
// A program rank's channels to the progress ranks it can reach, by rank in Runtime::all (set while
// ARMCI_Init makes them; an empty vector: none), and their release (ARMCI_Finalize).
void set_wake_channels(std::vector<WakeChannel> channels);
void close_wake_channels();

// After issuing an operation served by process `server` (rank in Runtime::all) and before waiting for it.
inline void proxy_wake(int server) {
  if (detail::g_wake.empty()) return;
  WakeChannel& c = detail::g_wake[static_cast<std::size_t>(server)];
  if (c.sleeping) detail::wake_slow(c);
}
// Core hand-off (ARMCI_PROGRESS_RANKS_HANDOFF_US > 0, off by default; doc/design.md, "Core hand-off"): a
// program rank's wait for other processes (HandOff::Allowed, wait/backoff.h) that has lasted
// kHandoffAfterUs counts itself into the `waiting` word of its MPI node's progress ranks and sleeps between
// polls (kHandoffFirstSleepUs, doubling up to the setting); those progress ranks then poll MPI on the idle
// core instead of sleeping, so a stream of requests pays no wake-up each.  Waits that complete this
// process's own operations never hand off: they need its polls.
constexpr int kHandoffAfterUs = 50;
// armci_msg_gop / _brdcst of more than this many bytes do not hand off (wait/backoff.h, HandOff).
constexpr std::size_t kHandoffMaxCollectiveBytes = 64 * 1024;
constexpr int kHandoffFirstSleepUs = 20;
namespace detail {
extern int g_handoff_sleep_us;  // > 0: this program rank hands off (set_handoff_sleep_us)
}  // namespace detail
// ARMCI_PROGRESS_RANKS_HANDOFF_US as resolved for this program rank (progress_ranks_start; 0: off).
void set_handoff_sleep_us(int us);
inline bool handoff_possible() {
  return detail::g_handoff_sleep_us > 0 && !detail::g_wake.empty();
}
inline int handoff_sleep_us() {
  return detail::g_handoff_sleep_us;
}
void waiting_begin();
void waiting_end();
// The sum of the waiting words of the progress ranks this process can reach (tests).
long handoff_waiting_total();

// Whether proxy_wake(server) can wake anything (server is a progress rank of this machine).
inline bool proxy_wake_possible(int server) {
  return !detail::g_wake.empty() && server >= 0 && detail::g_wake[static_cast<std::size_t>(server)].sleeping;
}
// The same for every progress rank this process can wake (before a flush of a whole window).
void proxy_wake_all();
// How many wake-ups this process has sent through the FIFOs (tests).
uint64_t proxy_wakes_sent();

}  // namespace armcix
