// What runtime.cc and resolve.cc share: the census record, and the steps of ARMCI_Init that turn the "auto"
// settings into Runtime::resolved (resolve.cc), called by initialize() in this order.
#pragma once

#include <cstdint>
#include <vector>

#include "base/machine_count.h"
#include "base/state.h"
#include "topo/machine.h"
#include "topo/node_keys.h"

namespace armcix {

// What every rank tells the others in ARMCI_Init's one allgather (the census): everything the start-up
// decisions need from other processes, so that none of them makes a collective of its own.
struct Census {
  uint64_t settings = 0;         // settings_fingerprint: the settings that must agree
  MachineRecord machine;         // topo/machine.h: the machine and the affinity mask
  NodeRecord node;               // topo/node_keys.h: the node MPI puts me on, as far as I can tell alone
  int32_t node_leader = -1;      // progress ranks' second census: lowest world rank of my node (lowest_world_rank)
  int32_t wait_backoff_us = -1;  // ARMCI_WAIT_BACKOFF_US as set (-1: auto)
  int32_t oversubscribed = -1;   // my machine counted with the progress ranks (0 or 1); -1: from the census
  int32_t unused = 0;
};
static_assert(sizeof(Census) % 8 == 0, "Census is sent as bytes; keep it free of tail padding surprises");

void resolve_acc_held_copy(Runtime& r);
void resolve_rma_by_accumulate(Runtime& r);
void start_init_yield_timer(const Runtime& r, int world_size);
void yield_during_init(const Runtime& r);
void resolve_wait_backoff(Runtime& r, const std::vector<Census>& census, const std::vector<MachineCount>& machines);
void resolve_yield_timer(Runtime& r);
void resolve_timer_slack(Runtime& r);
void resolve_mpi_yield(Runtime& r, bool spans_world);
void resolve_node_sync(Runtime& r);

}  // namespace armcix
