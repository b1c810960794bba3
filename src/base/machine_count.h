// What a machine holds for us: how many of our ranks run there and how many cores their affinity masks
// allow together (topo/machine.h, count_machines, makes it).  A value type of the runtime state (base/state.h).
#pragma once

namespace armcix {

// cores == 0 means unknown (no affinity mask could be read): neither predicate holds then, so the
// back-off stays off (no evidence of oversubscription) and a progress rank still sleeps between polls (no
// evidence of a core of its own).
struct MachineCount {
  int ranks = 0;
  int cores = 0;
  bool oversubscribed() const { return cores > 0 && ranks > cores; }
  bool core_per_rank() const { return cores > 0 && ranks <= cores; }
};

}  // namespace armcix
