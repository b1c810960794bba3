// Barrier, allreduce and allgather of the world through shared memory, for a job on one oversubscribed
// machine (ARMCI_NODE_SYNC, doc/user-guide.md "Oversubscribed and shared machines").
//
// With more ranks than cores every armci_msg_barrier (GA_Sync: thousands per NWChem run), world gop and the
// agreement of every ARMCI_Malloc / ARMCI_Free costs several back-off periods of its ranks: MPI's barrier,
// allreduce and allgather are rounds of messages, and a waiting rank that sleeps between polls sees each
// round only when it next wakes (and then waits for a core); how much of an NWChem run that was:
// tools/nwchem/RESULTS.md.  Here the ranks of the one node meet at a
// counter in a shared page instead: the last to arrive bumps a generation word and wakes the others with
// one futex call, so a barrier costs one wake-up.  A gop or gather writes each rank's data into its slot
// before that barrier, and every rank then reads all slots (a gop reduces them in rank order, so all
// ranks get the same bits).  Waiters enter MPI's progress engine every millisecond while they sleep, so RMA
// aimed at them still moves.
//
// Every slot carries the sequence number of the barrier it was written for and the kind of exchange (gop,
// gather, an ARMCI collective's agreement); a reader that finds another number or kind in some rank's slot (that rank
// is in a plain barrier, or in another collective) fails with "collective calls do not match" instead of reading stale
// data.
#pragma once

#include <mpi.h>

#include <cstddef>

namespace armcix {

// Largest gop or per-rank gather contribution, in bytes, that goes through the shared slots.
constexpr std::size_t kNodeSyncSlotBytes = 64 * 1024;

// True if this job uses the shared-memory path: ARMCI_NODE_SYNC resolved to 1 (default: when our waits
// back off, i.e. some machine runs more ranks than cores) and every world rank on one node.  The same on
// every rank.
bool node_sync_on();

// Barrier of the world (collective over rt().world).  Creates the shared page on first use.
void node_barrier();

// What a rank exchanges through its slot; ranks in different kinds fail with "collective calls do not match".
enum class NodeExchange { Gop = 1, Gather = 2, Agreement = 3 };
// In-place allreduce of `count` elements of `type` with `op` over the world, if bytes <= kNodeSyncSlotBytes;
// returns false (and does nothing) otherwise, on every rank alike.  `call` names the caller in errors;
// `kind`: a gop (armci_msg_*gop) or an ARMCI collective's agreement (checks/collective_check.h).
bool node_allreduce(const char* call, NodeExchange kind, void* x, int count, MPI_Datatype type, MPI_Op op,
                    std::size_t bytes);

// Allgather over the world in rank order: `all` gets nproc blocks of `bytes` (<= kNodeSyncSlotBytes,
// else false and nothing done, on every rank alike).  `call` names the caller in errors.
bool node_allgather(const char* call, const void* mine, void* all, std::size_t bytes);

// Unmaps the shared page (runtime finalize, after the last collective).
void node_sync_finalize();

}  // namespace armcix
