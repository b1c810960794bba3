#include "shm/access.h"

#include <sched.h>

namespace armcix {

SliceLock::SliceLock(uint32_t* word) : word_(word) {
  int spins = 0;
  while (__atomic_exchange_n(word_, 1u, __ATOMIC_ACQUIRE) != 0u) {
    while (__atomic_load_n(word_, __ATOMIC_RELAXED) != 0u) {
      if (++spins < 128)
        cpu_relax();
      else
        sched_yield();
    }
  }
}

SliceLock::~SliceLock() {
  __atomic_store_n(word_, 0u, __ATOMIC_RELEASE);
}

}  // namespace armcix
