// Mutexes: ARMCI_Create_mutexes/Lock/Unlock (one default set) and the ARMCIX_*_hdl API (sets on groups).
#pragma once

namespace armcix {

int mutexes_create_default(const char* call, int count);
int mutexes_destroy_default(const char* call);
void mutex_lock_default(const char* call, int mutex, int proc);
void mutex_unlock_default(const char* call, int mutex, int proc);
void mutexes_finalize();

}  // namespace armcix
