// The library's modules, in start-up order.  ARMCI_Init (the first one) runs their initialize hooks
// first to last once the runtime itself is up (communicator, configuration, topology); the final
// ARMCI_Finalize runs their finalize hooks last to first.  The order is written down in one place,
// the table in modules.cc.
//
// Each module defines its hooks, declared here, in its own folder and includes this header to do so;
// runtime/ calls them through these declarations and includes no header of a folder above it
// (doc/design.md, "Layers").  A new module adds its hooks here and a row to the table.
#pragma once

namespace armcix {

// profile/: up first, down last, so that its report covers everything in between (collective).
void profiler_initialize();
void profiler_finalize();
// groups/: the world and default groups (the world group's communicator is the runtime's, Runtime::world).
void groups_initialize();
void groups_finalize();
// gmr/: regions the program did not free, the segment cache; releases a member set's pool and cache at the
// last ARMCI_Group_free on it (groups/group.h, on_members_released).
void gmr_initialize();
void gmr_finalize();
// sync/: mutex sets the program did not destroy.
void mutexes_finalize();
// sync/notify.cc: the counters of armci_notify / armci_notify_wait (their messages: Runtime::notify_tag).
void notify_initialize();
void notify_finalize();
// nb/: request tables (sized by the world); completes what is still in flight.
void requests_initialize();
void requests_finalize();
// msg/: cached communicators, reduction operators and datatypes of message.h.
void msg_finalize();
// progress/thread.h: the progress thread starts after everything else and stops before anything else (its
// hooks are declared there: progress/ sits below runtime/).

// Called by initialize() / the final finalize() in runtime.cc.
void initialize_modules();
void finalize_modules();

}  // namespace armcix
