// What the files of the progress ranks share (progress_ranks.h is their interface to the other layers):
// progress_ranks.cc starts and stops them, server.cc is a progress rank's loop (its idle policy and request
// handler), wake_channels.cc makes the wake channels, proxy_segments.cc is the program ranks' side of the
// protocol.  Internal to the library.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>

#include "base/state.h"

namespace armcix {
namespace progress {

// A progress rank's own end of its wake channel (progress_ranks.h, "Waking a progress rank").
struct OwnWake {
  std::atomic<uint32_t>* sleeping = nullptr;  // set while the progress rank sleeps
  std::atomic<int32_t>* waiting = nullptr;    // program ranks of the node in a yielding wait
  int fifo = -1;
};

// Whether the progress ranks and the program ranks meet in MPI_Finalize (progress_ranks.cc).
bool finalize_meeting();

// Ends the proxy windows' epoch and frees them (progress_ranks.cc).
void free_proxy_windows(Runtime& r);

// Makes the wake channels, collective over r.all (wake_channels.cc).
OwnWake make_wake_channels(Runtime& r, bool progress_rank);

// The progress rank's life after ARMCI_Init (server.cc).
[[noreturn]] void serve(Runtime& r, int program_ranks_served, const OwnWake& wake);

}  // namespace progress
}  // namespace armcix
