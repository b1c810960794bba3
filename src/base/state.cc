#include "base/state.h"

#include "base/alloc_stats.h"
#include "base/error.h"

namespace armcix {

AllocStats g_alloc_stats;

namespace {
Runtime g_runtime;
}  // namespace

Runtime& rt() {
  return g_runtime;
}
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

bool initialized() {
  return g_runtime.init_count > 0;
}

void require_initialized(const char* call) {
  if (__builtin_expect(g_runtime.init_count <= 0, 0)) fail(call, "ARMCI is not initialized (call ARMCI_Init first)");
}

void check_rank(const char* call, const char* arg, int proc) {
  if (__builtin_expect(proc < 0 || proc >= g_runtime.nproc, 0))
    fail(call, "argument '%s' = %d is not a valid process id (0..%d)", arg, proc, g_runtime.nproc - 1);
}

}  // namespace armcix
