#include "base/state.h"

#include "base/alloc_stats.h"
#include "base/error.h"

namespace armcix {

AllocStats g_alloc_stats;

Runtime g_runtime;

Resolved Resolved::from_config(const Config& c) {
  Resolved r;
#define ARMCIX_FROM_CONFIG(field, who) r.field = c.field;
  ARMCIX_RESOLVED_SETTINGS(ARMCIX_FROM_CONFIG)
#undef ARMCIX_FROM_CONFIG
  return r;
}

Config Resolved::effective(Config c) const {
#define ARMCIX_EFFECTIVE(field, who) c.field = field;
  ARMCIX_RESOLVED_SETTINGS(ARMCIX_EFFECTIVE)
#undef ARMCIX_EFFECTIVE
  return c;
}

void fail_not_initialized(const char* call) {
  fail(call, "ARMCI is not initialized (call ARMCI_Init first)");
}

void fail_bad_rank(const char* call, const char* arg, int proc) {
  fail(call, "argument '%s' = %d is not a valid process id (0..%d)", arg, proc, g_runtime.nproc - 1);
}

}  // namespace armcix
