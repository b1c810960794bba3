// The node-local path: targets whose slice is mapped into this process (same node, ARMCI_SHM=1) are
// reached by load/store instead of MPI.  Every transfer function resolves the target first and asks
// `mapped()`; the MPI engines see only what is left.  The fences and the slice lock: shm/access.h.
#pragma once

#include <cstddef>

#include "acc/acc_types.h"
#include "gmr/gmr.h"
#include "shm/access.h"

namespace armcix {

// Address of the resolved remote location in this process, or nullptr if it is not mapped here.
inline char* mapped(const GmrRef& r) {
  char* p = r.gmr->local_ptr(r.win_rank);
  return p ? p + r.disp : nullptr;
}

// True if accumulates to this target may use load/store (the allocation lives on one node, so no MPI
// accumulate can touch the same location concurrently).
inline bool local_atomics(const GmrRef& r) {
  return !r.gmr->atomics_via_mpi;
}

// dst[i] += scale * src[i] under the target slice's lock.
void local_accumulate(const GmrRef& r, const AccType& t, const void* scale, const void* src, std::size_t bytes);

}  // namespace armcix
