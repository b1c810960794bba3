// Barrier and allreduce of the world through shared memory, for a job on one oversubscribed machine
// (ARMCI_NODE_SYNC, doc/user-guide.md "Oversubscribed and shared machines").
//
// With more ranks than cores every armci_msg_barrier (GA_Sync: thousands per NWChem run) and world gop
// costs several back-off periods of its ranks: MPI's barrier and allreduce are rounds of messages, and a
// waiting rank that sleeps between polls sees each round only when it next wakes (and then waits for a
// core).  NWChem water at 4 ranks on 2 cores spent ~60% of its wall time in such waits
// (tools/nwchem/RESULTS.md).  Here the ranks of the one node meet at a counter in a shared page instead:
// the last to arrive bumps a generation word and wakes the others with one futex call, so a barrier
// costs one wake-up.  A gop writes each rank's vector into a shared slot before that barrier and every
// rank then reduces the slots in the same (rank) order, so all ranks get the same bits.  Waiters poke MPI's
// progress engine every kPokeMicroseconds while they sleep, so RMA aimed at them still moves.
#pragma once

#include <mpi.h>

#include <cstddef>

namespace armcix::msg {

// Largest gop, in bytes, that goes through the shared slots (larger ones use MPI).
constexpr std::size_t kNodeSyncSlotBytes = 64 * 1024;

// True if this job uses the shared-memory barrier and gop: ARMCI_NODE_SYNC on (default: when our waits back
// off, i.e. some machine runs more ranks than cores) and every world rank on one node.  The same on every
// rank.
bool node_sync_on();

// Barrier of the world (collective over rt().world).  Creates the shared page on first use.
void node_barrier();

// In-place allreduce of `count` elements of `type` with `op` over the world, if bytes <= kNodeSyncSlotBytes;
// returns false (and does nothing) otherwise, on every rank alike.
bool node_allreduce(void* x, int count, MPI_Datatype type, MPI_Op op, std::size_t bytes);

// Unmaps the shared page (msg_finalize).
void node_sync_finalize();

}  // namespace armcix::msg
