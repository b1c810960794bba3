// Ordering across regions that share one MPI window: blocks of a pool spanning nodes (ARMCI_SPANNING_POOL=1,
// the default) share their segment's window, regions served by progress ranks share the proxy window.  The
// state that decides when an operation must flush the ones before it (completion/ordering.h) is kept per (MPI
// window, MPI target), so a put to one region sees a get still in flight from another region at the same
// target.  MPICH 4.0.2 (ch4:ucx) no longer completes an MPI_Get at MPI_Win_flush_local once a put to the
// same target follows it in the same flush interval: a get completed that way was stale.
//
// Every test: rank 1 (on another node in the manifest's layouts) fills region A with a new pattern each round;
// rank 0 gets A from rank 1 non-blocking, puts to region B at rank 1 blocking, completes the get in one of
// ARMCI's ways and checks every value.  Both regions are small, so both are blocks of one pool segment.
#include <cstdint>
#include <string>
#include <vector>

#include "test_util.h"

using namespace armcix_test;

namespace {

constexpr int kCount = 4096;  // doubles in region A (32 KiB: a pool block)
constexpr int kRounds = 20;

double value(int round, int i) {
  return round * 1.0e6 + i + 0.5;
}

// Collective over the world: two regions of kCount doubles each.
struct TwoRegions {
  std::vector<void*> a, b;
  TwoRegions() : a(nproc()), b(nproc()) {
    EXPECT_EQ(ARMCI_Malloc(a.data(), kCount * sizeof(double)), 0);
    EXPECT_EQ(ARMCI_Malloc(b.data(), kCount * sizeof(double)), 0);
  }
  ~TwoRegions() {
    ARMCI_Free(b[me()]);
    ARMCI_Free(a[me()]);
  }
};

// How the get of a round is issued and completed (rank 0, target 1).
enum class Completion { WaitProc, WaitHandle, WaitAll, ImplicitWaitProc, StridedWaitHandle };

std::string run(Completion how) {
  if (nproc() < 2) return "";
  TwoRegions r;
  const int target = 1;
  std::string first_mismatch;
  int stale_rounds = 0;
  for (int round = 0; round < kRounds; ++round) {
    if (me() == target) {
      auto* mine = static_cast<double*>(r.a[target]);
      for (int i = 0; i < kCount; ++i) mine[i] = value(round, i);
    }
    ARMCI_Barrier();
    if (me() == 0) {
      std::vector<double> got(kCount, -1.0);
      std::vector<double> put_data(kCount, round);
      armci_hdl_t h;
      ARMCI_INIT_HANDLE(&h);
      switch (how) {
        case Completion::WaitProc:
        case Completion::WaitHandle:
          ARMCI_NbGet(r.a[target], got.data(), kCount * sizeof(double), target, &h);
          break;
        case Completion::WaitAll:
        case Completion::ImplicitWaitProc:
          ARMCI_NbGet(r.a[target], got.data(), kCount * sizeof(double), target, nullptr);
          break;
        case Completion::StridedWaitHandle: {
          // 64 rows of 64 doubles, contiguous at both ends but issued through the strided engine.
          int src_stride = 64 * sizeof(double), dst_stride = 64 * sizeof(double);
          int count[2] = {64 * sizeof(double), 64};
          ARMCI_NbGetS(r.a[target], &src_stride, got.data(), &dst_stride, count, 1, target, &h);
          break;
        }
      }
      ARMCI_Put(put_data.data(), r.b[target], kCount * sizeof(double), target);
      switch (how) {
        case Completion::WaitProc:
        case Completion::ImplicitWaitProc:
          ARMCI_WaitProc(target);
          break;
        case Completion::WaitHandle:
        case Completion::StridedWaitHandle:
          ARMCI_Wait(&h);
          break;
        case Completion::WaitAll:
          ARMCI_WaitAll();
          break;
      }
      int stale = 0;
      for (int i = 0; i < kCount; ++i)
        if (got[i] != value(round, i)) {
          if (stale++ == 0 && first_mismatch.empty())
            first_mismatch = "round " + std::to_string(round) + ": got[" + std::to_string(i) +
                             "] = " + std::to_string(got[i]) + ", expected " + std::to_string(value(round, i));
        }
      // The buffer is the program's again: a get that MPI had not really completed would land in it at the
      // next flush (into freed memory, had the program freed it: heap corruption).
      for (double& v : got) v = -2.0;
      ARMCI_Fence(target);
      bool late = false;
      for (int i = 0; i < kCount; ++i)
        if (got[i] != -2.0) {
          late = true;
          if (first_mismatch.empty())
            first_mismatch = "round " + std::to_string(round) + ": got[" + std::to_string(i) +
                             "] = " + std::to_string(got[i]) + " written after the completion call";
          break;
        }
      if (stale || late) {
        ++stale_rounds;
        if (stale_rounds == 1)
          first_mismatch += " (" + std::to_string(stale) + " of " + std::to_string(kCount) + " stale)";
      }
      if (how != Completion::WaitProc && how != Completion::ImplicitWaitProc) ARMCI_WaitProc(target);
    }
    ARMCI_Barrier();  // completes everything before rank 1 writes the next round
  }
  if (stale_rounds)
    first_mismatch += "; " + std::to_string(stale_rounds) + " of " + std::to_string(kRounds) + " rounds stale";
  return first_mismatch;
}

TEST(SharedWindow, NbGetThenPutToAnotherRegionThenWaitProc) {
  EXPECT_EQ(run(Completion::WaitProc), "");
}

TEST(SharedWindow, NbGetThenPutToAnotherRegionThenWaitHandle) {
  EXPECT_EQ(run(Completion::WaitHandle), "");
}

TEST(SharedWindow, ImplicitNbGetThenPutToAnotherRegionThenWaitProc) {
  EXPECT_EQ(run(Completion::ImplicitWaitProc), "");
}

TEST(SharedWindow, ImplicitNbGetThenPutToAnotherRegionThenWaitAll) {
  EXPECT_EQ(run(Completion::WaitAll), "");
}

TEST(SharedWindow, StridedNbGetThenPutToAnotherRegionThenWaitHandle) {
  EXPECT_EQ(run(Completion::StridedWaitHandle), "");
}

}  // namespace
