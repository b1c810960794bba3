// Size classes of node-only slices (shm/segment_cache.h): every class holds its request, stays within the
// promised overhead, and nearby sizes share a class (what makes a freed segment reusable).
#include <gtest/gtest.h>
#include <mpi.h>

#include <limits>

#include "shm/segment_cache.h"

using armcix::shm_slice_class;

TEST(ShmSliceClass, EmptyStaysEmpty) {
  EXPECT_EQ(shm_slice_class(0), 0);
  EXPECT_EQ(shm_slice_class(-5), 0);
}

TEST(ShmSliceClass, SmallSlicesTakeOnePage) {
  EXPECT_EQ(shm_slice_class(1), 4096);
  EXPECT_EQ(shm_slice_class(4096), 4096);
}

TEST(ShmSliceClass, PowersOfTwoUpToOneMiB) {
  EXPECT_EQ(shm_slice_class(4097), 8192);
  EXPECT_EQ(shm_slice_class(100000), 131072);
  EXPECT_EQ(shm_slice_class(1 << 20), 1 << 20);
}

TEST(ShmSliceClass, SixteenthsAboveOneMiB) {
  // (1 MiB, 2 MiB]: steps of 128 KiB.
  EXPECT_EQ(shm_slice_class((1 << 20) + 1), (1 << 20) + (1 << 17));
  EXPECT_EQ(shm_slice_class(2 << 20), 2 << 20);
  // (1 GiB, 2 GiB]: steps of 128 MiB.
  const MPI_Aint gib = MPI_Aint{1} << 30;
  EXPECT_EQ(shm_slice_class(gib + 1), gib + (gib / 8));
}

TEST(ShmSliceClass, HoldsTheRequestWithBoundedOverhead) {
  for (MPI_Aint b = 1; b < (MPI_Aint{1} << 34); b = b * 3 / 2 + 7) {
    const MPI_Aint c = shm_slice_class(b);
    ASSERT_GE(c, b) << b;
    if (b > (1 << 20))
      ASSERT_LT(c - b, b / 8) << b;  // less than 12.5% above 1 MiB
    else
      ASSERT_LT(c, 2 * b + 4096) << b;
    ASSERT_EQ(shm_slice_class(c), c) << "a class is its own class: " << c;
  }
}

TEST(ShmSliceClass, NearbySizesShareAClass) {
  EXPECT_EQ(shm_slice_class(5000), shm_slice_class(8000));
  EXPECT_EQ(shm_slice_class(300000), shm_slice_class(500000));
}

TEST(ShmSliceClass, HugeRequestsStayExact) {
  const MPI_Aint top = std::numeric_limits<MPI_Aint>::max() - 10;
  EXPECT_EQ(shm_slice_class(top), top);
}
