// A validated strided transfer: the shape shared by every strided engine, and the odometer that walks its
// contiguous segments without materialising O(N) pointer arrays.
#pragma once

#include <armci.h>

#include <cstddef>

namespace armcix {

struct StridedShape {
  int levels = 0;
  int count[ARMCI_MAX_STRIDE_LEVEL + 1] = {};  // count[0] = bytes per segment
  long lstride[ARMCI_MAX_STRIDE_LEVEL] = {};   // local side strides (bytes)
  long rstride[ARMCI_MAX_STRIDE_LEVEL] = {};   // remote side strides (bytes)
  std::size_t nseg = 0;                        // number of contiguous segments
  std::size_t lextent = 0, rextent = 0;        // bytes spanned on each side
  bool empty() const { return nseg == 0 || count[0] == 0; }
  std::size_t total_bytes() const { return nseg * static_cast<std::size_t>(count[0]); }
};

// Validates (naming `call`) and builds the shape.  `local_stride`/`remote_stride` are the caller's arrays
// for the two sides (which of src/dst is remote depends on the operation); names are for messages.
StridedShape make_shape(const char* call, const int* local_stride, const char* local_name, const int* remote_stride,
                        const char* remote_name, const int* count, int levels);

// Folds into the segment every level whose blocks lie end to end on both sides (stride = segment bytes on the
// local and the remote side), and drops levels of one block: the same bytes, fewer and longer segments.  A
// Global Arrays tile as wide as its block (a whole block, or whole rows of a row-distributed array) is then
// one segment, one memcpy or one contiguous MPI operation instead of a segment per row.  Call it after the
// shape's checks: count[0] grows up to total_bytes(), which the caller has bounded by INT32_MAX.
inline void fold_contiguous_levels(StridedShape& s) {
  int out = 1;
  for (int i = 1; i <= s.levels; ++i) {
    const int c = s.count[i];
    if (c == 1) continue;
    const long seg = s.count[0];
    if (out == 1 && s.lstride[i - 1] == seg && s.rstride[i - 1] == seg) {
      s.count[0] *= c;
      continue;
    }
    s.count[out] = c;
    s.lstride[out - 1] = s.lstride[i - 1];
    s.rstride[out - 1] = s.rstride[i - 1];
    ++out;
  }
  for (int i = out; i <= s.levels; ++i) s.count[i] = 0;
  for (int i = out - 1; i < s.levels; ++i) s.lstride[i] = s.rstride[i] = 0;
  s.levels = out - 1;
  s.nseg = 1;
  for (int i = 1; i <= s.levels; ++i) s.nseg *= static_cast<std::size_t>(s.count[i]);
}

// Calls f(local_offset, remote_offset) for every segment, in row-major order.
template <typename F>
void for_each_segment(const StridedShape& s, F&& f) {
  int idx[ARMCI_MAX_STRIDE_LEVEL + 1] = {};
  long loff = 0, roff = 0;
  for (std::size_t k = 0; k < s.nseg; ++k) {
    f(loff, roff);
    for (int i = 1; i <= s.levels; ++i) {
      if (++idx[i] < s.count[i]) {
        loff += s.lstride[i - 1];
        roff += s.rstride[i - 1];
        break;
      }
      loff -= static_cast<long>(s.count[i] - 1) * s.lstride[i - 1];
      roff -= static_cast<long>(s.count[i] - 1) * s.rstride[i - 1];
      idx[i] = 0;
    }
  }
}

}  // namespace armcix
