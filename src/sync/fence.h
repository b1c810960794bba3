// Completion entry points that combine the layers below: non-blocking requests (nb/) complete locally
// first, then what they and the blocking operations issued completes remotely (completion/ordering.h).
#pragma once

namespace armcix {

void fence(const char* call, int proc);  // ARMCI_Fence: everything issued to proc is remotely complete
void all_fence(const char* call);        // ARMCI_AllFence: everything issued is remotely complete
// ARMCI_Barrier: all_fence on every rank, a barrier, then MPI_Win_sync on every window so that local loads
// after it see every rank's completed updates.
void barrier(const char* call);

}  // namespace armcix
