// Placeholder until the queueing mutex lands: every call stops with a clear "not implemented" error.
#include "sync/mutex.h"

#include <armcix.h>

#include "runtime/error.h"

namespace armcix {

int mutexes_create_default(const char* call, int) { not_implemented(call); }
int mutexes_destroy_default(const char* call) { not_implemented(call); }
void mutex_lock_default(const char* call, int, int) { not_implemented(call); }
void mutex_unlock_default(const char* call, int, int) { not_implemented(call); }
void mutexes_finalize() {}

}  // namespace armcix

extern "C" {
armcix_mutex_hdl_t ARMCIX_Create_mutexes_hdl(int, ARMCI_Group*) { armcix::not_implemented("ARMCIX_Create_mutexes_hdl"); }
int ARMCIX_Destroy_mutexes_hdl(armcix_mutex_hdl_t) { armcix::not_implemented("ARMCIX_Destroy_mutexes_hdl"); }
void ARMCIX_Lock_hdl(armcix_mutex_hdl_t, int, int) { armcix::not_implemented("ARMCIX_Lock_hdl"); }
int ARMCIX_Trylock_hdl(armcix_mutex_hdl_t, int, int) { armcix::not_implemented("ARMCIX_Trylock_hdl"); }
void ARMCIX_Unlock_hdl(armcix_mutex_hdl_t, int, int) { armcix::not_implemented("ARMCIX_Unlock_hdl"); }
}
