#include "runtime/modules.h"

#include <cstddef>

#include "progress/thread.h"

namespace armcix {

namespace {

struct Module {
  const char* name;
  void (*initialize)();  // nullptr: nothing to set up
  void (*finalize)();    // nullptr: nothing to tear down
};

// Start-up order; tear-down runs it backwards.
const Module kModules[] = {
    {"profile", &profiler_initialize, &profiler_finalize},
    {"groups", &groups_initialize, &groups_finalize},
    {"gmr", &gmr_initialize, &gmr_finalize},
    {"mutexes", nullptr, &mutexes_finalize},
    {"notify", &notify_initialize, &notify_finalize},
    {"requests", &requests_initialize, &requests_finalize},
    {"msg", nullptr, &msg_finalize},
    {"progress", &progress_start, &progress_stop},
};

}  // namespace

void initialize_modules() {
  for (const Module& m : kModules)
    if (m.initialize) m.initialize();
}

void finalize_modules() {
  for (std::size_t i = sizeof kModules / sizeof kModules[0]; i-- > 0;)
    if (kModules[i].finalize) kModules[i].finalize();
}

}  // namespace armcix
