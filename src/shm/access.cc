#include "shm/access.h"

#include <sched.h>

namespace armcix {

LocalFenceHook g_local_fence_hook = nullptr;
void* g_local_fence_hook_arg = nullptr;

void set_local_fence_hook(LocalFenceHook hook, void* arg) {
  g_local_fence_hook_arg = arg;
  g_local_fence_hook = hook;
}

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
