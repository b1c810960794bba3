// Core runtime tests: allocation, contiguous RMA, fences, value ops, bad input.
#include <vector>

#include "test_util.h"

using namespace armcix_test;

TEST(Core, MallocPutGetRoundTrip) {
  const int n = nproc(), r = me();
  std::vector<void*> ptrs(n);
  ASSERT_EQ(ARMCI_Malloc(ptrs.data(), 1024), 0);
  for (int p = 0; p < n; ++p) ASSERT_NE(ptrs[p], nullptr);
  int target = (r + 1) % n;
  std::vector<int> out(256), in(256);
  for (int i = 0; i < 256; ++i) out[i] = r * 1000 + i;
  ARMCI_Put(out.data(), ptrs[target], 1024, target);
  ARMCI_Barrier();
  int source = (r + n - 1) % n;
  const int* mine = static_cast<const int*>(ptrs[r]);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(mine[i], source * 1000 + i);
  ARMCI_Get(ptrs[target], in.data(), 1024, target);
  EXPECT_EQ(in, out);
  ARMCI_Barrier();
  ARMCI_Free(ptrs[r]);
}

TEST(Core, BadInputIsRejected) {
  const int n = nproc(), r = me();
  std::vector<void*> ptrs(n);
  ARMCI_Malloc(ptrs.data(), 64);
  char buf[64];
  EXPECT_ARMCI_ERROR(ARMCI_Put(buf, ptrs[0], 8, n), "ARMCI_Put", "'proc'");
  EXPECT_ARMCI_ERROR(ARMCI_Put(buf, buf, 8, 0), "ARMCI_Put", "'dst'", "not inside memory allocated");
  EXPECT_ARMCI_ERROR(ARMCI_Put(buf, ptrs[0], 65, 0), "ARMCI_Put", "run past the end");
  EXPECT_ARMCI_ERROR(ARMCI_Get(ptrs[0], nullptr, 8, 0), "ARMCI_Get", "'dst' is NULL");
  EXPECT_ARMCI_ERROR(ARMCI_Put(buf, ptrs[0], -1, 0), "ARMCI_Put", "'bytes' = -1");
  double one = 1;
  EXPECT_ARMCI_ERROR(ARMCI_Acc(9, &one, buf, ptrs[0], 8, 0), "ARMCI_Acc", "'datatype' = 9");
  ARMCI_Barrier();
  ARMCI_Free(ptrs[r]);
}
