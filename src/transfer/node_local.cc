#include "transfer/node_local.h"

namespace armcix {

void local_accumulate(const GmrRef& r, const AccType& t, const void* scale, const void* src, std::size_t bytes) {
  SliceLock lock(r.gmr->slice_lock(r.win_rank));
  scale_add(t, scale, src, mapped(r), bytes);
}

}  // namespace armcix
