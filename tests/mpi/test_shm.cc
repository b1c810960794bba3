// The node-local path and its interplay with MPI: run with real nodes (one node here), with simulated
// nodes (ARMCI_NODE_SIZE=1 or 2: mixed same-node / other-node traffic) and with ARMCI_SHM=0.
// Expectations never depend on which path was taken: the paths must be indistinguishable.
#include <algorithm>
#include <complex>
#include <cstring>
#include <functional>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <vector>

#include "base/state.h"
#include "gmr/gmr.h"          // gmr_windows_created: is a freed window reused
#include "gmr/region_plan.h"  // is a world allocation pooled here
#include "shm/access.h"           // the fence hook
#include "shm/segment_cache.h"    // the pool's segments
#include "progress/progress_ranks.h"
#include "test_util.h"
#include "topo/nodes.h"

using namespace armcix_test;

namespace {

int node_size_setting() {
  const char* v = std::getenv("ARMCI_NODE_SIZE");
  return v ? std::atoi(v) : 0;
}

}  // namespace

TEST(NodePath, UsesShmReflectsSetting) {
  const char* v = std::getenv("ARMCI_SHM");
  bool off = v && v[0] == '0';
  EXPECT_EQ(ARMCI_Uses_shm(), off ? 0 : 1);
  ARMCI_Group world;
  ARMCI_Group_get_world(&world);
  EXPECT_EQ(ARMCI_Uses_shm_grp(&world), off ? 0 : 1);
}

TEST(NodePath, SameNodeMatchesDomains) {
  const std::vector<int> firsts = armcix_test::domain_firsts();
  for (int p = 0; p < nproc(); ++p) EXPECT_EQ(ARMCI_Same_node(p), firsts[p] == firsts[me()] ? 1 : 0) << "proc " << p;
  EXPECT_EQ(ARMCI_Same_node(me()), 1);
}

// Every rank accumulates into every other rank's slice at once; the owner checks the exact sum.  With
// simulated nodes, each location receives accumulates from its own node and from the other node.
TEST(NodePath, ConcurrentAccumulatesFromBothPathsAreExact) {
  const int n = nproc(), r = me();
  const int elems = 4096, reps = n > 2 ? 4 : 8;
  Alloc a(elems * sizeof(double) + elems * sizeof(long));
  std::fill(a.at<double>(r), a.at<double>(r) + elems, 0.0);
  long* my_longs = reinterpret_cast<long*>(a.at<double>(r) + elems);
  std::fill(my_longs, my_longs + elems, 0L);
  ARMCI_Barrier();
  std::vector<double> src(elems);
  std::vector<long> lsrc(elems);
  for (int i = 0; i < elems; ++i) {
    src[i] = (r + 1) * 0.5 + i % 7;  // exactly representable, sums stay exact
    lsrc[i] = (r + 1) * 1000L + i;
  }
  double two = 2.0;
  long three = 3;
  for (int rep = 0; rep < reps; ++rep)
    for (int t = 0; t < n; ++t) {
      int target = (r + t) % n;
      ARMCI_Acc(ARMCI_ACC_DBL, &two, src.data(), a.at<double>(target), elems * sizeof(double), target);
      ARMCI_Acc(ARMCI_ACC_LNG, &three, lsrc.data(), a.at<double>(target) + elems, elems * sizeof(long), target);
    }
  ARMCI_Barrier();
  long bad = 0;
  for (int i = 0; i < elems; ++i) {
    double want = 0;
    long lwant = 0;
    for (int p = 0; p < n; ++p) {
      want += reps * 2.0 * ((p + 1) * 0.5 + i % 7);
      lwant += reps * 3L * ((p + 1) * 1000L + i);
    }
    bad += a.at<double>(r)[i] != want;
    bad += my_longs[i] != lwant;
  }
  EXPECT_EQ(bad, 0);
  ARMCI_Barrier();
}

// Fetch-and-add from every rank on one counter per host: the returned values are a permutation.
TEST(NodePath, RmwFromBothPathsNeverLosesAnUpdate) {
  const int n = nproc(), r = me();
  const int k = n > 2 ? 50 : 200;
  Alloc a(2 * sizeof(long));
  a.at<long>(r)[0] = 0;
  a.at<long>(r)[1] = 0;
  ARMCI_Barrier();
  std::vector<long> got;
  for (int host = 0; host < n; ++host) {
    for (int i = 0; i < k; ++i) {
      long v = 0;
      ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &v, a.at<long>(host), 1, host);
      if (host == n - 1) got.push_back(v);
      int iv = 0;
      ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &iv, reinterpret_cast<int*>(a.at<long>(host) + 1), 2, host);
    }
  }
  ARMCI_Barrier();
  EXPECT_EQ(a.at<long>(r)[0], static_cast<long>(n) * k);
  EXPECT_EQ(reinterpret_cast<int*>(a.at<long>(r) + 1)[0], 2 * n * k);
  std::vector<long> all(static_cast<std::size_t>(n) * k);
  MPI_Allgather(got.data(), k, MPI_LONG, all.data(), k, MPI_LONG, MPI_COMM_WORLD);
  std::sort(all.begin(), all.end());
  for (std::size_t i = 0; i < all.size(); ++i)
    ASSERT_EQ(all[i], static_cast<long>(i)) << "value returned twice or lost";
  ARMCI_Barrier();
}

// Location consistency across paths: put, accumulate, accumulate, get from one origin, no fence.
TEST(NodePath, PutAccAccGetSeesAllInOrder) {
  const int n = nproc(), r = me();
  Alloc a(n * 64 * sizeof(int));
  ARMCI_Barrier();
  std::vector<int> mine(64), back(64);
  int one = 1;
  for (int t = 0; t < n; ++t) {
    int* slot = a.at<int>(t) + r * 64;  // each origin owns a slot on every target: no races
    for (int i = 0; i < 64; ++i) mine[i] = r * 100 + i + t;
    ARMCI_Put(mine.data(), slot, 64 * sizeof(int), t);
    ARMCI_Acc(ARMCI_ACC_INT, &one, mine.data(), slot, 64 * sizeof(int), t);
    ARMCI_Acc(ARMCI_ACC_INT, &one, mine.data(), slot, 64 * sizeof(int), t);
    ARMCI_Get(slot, back.data(), 64 * sizeof(int), t);
    for (int i = 0; i < 64; ++i) EXPECT_EQ(back[i], 3 * mine[i]) << "target " << t << " element " << i;
    ARMCI_Put(mine.data(), slot, 64 * sizeof(int), t);  // put after accumulate: must replace, not race
    ARMCI_Get(slot, back.data(), 64 * sizeof(int), t);
    EXPECT_EQ(back, mine) << "target " << t;
  }
  ARMCI_Barrier();
}

// A flag written after the data (ARMCI_Put_flag) is only seen after the data, on either path.
TEST(NodePath, PutFlagOrdersDataBeforeFlag) {
  const int n = nproc(), r = me();
  const int elems = 8192;
  Alloc a(elems * sizeof(int) + sizeof(int));
  int* flag = reinterpret_cast<int*>(a.at<int>(r) + elems);
  *flag = 0;
  ARMCI_Barrier();
  int to = (r + 1) % n, from = (r + n - 1) % n;
  std::vector<int> data(elems);
  std::iota(data.begin(), data.end(), r * elems);
  ARMCI_Put_flag(data.data(), a.at<int>(to), elems * sizeof(int), reinterpret_cast<int*>(a.at<int>(to) + elems), 1, to);
  while (ARMCI_GetValueInt(flag, r) != 1) ARMCIX_Progress();
  ARMCI_Access_begin(a.at<int>(r));
  long bad = 0;
  for (int i = 0; i < elems; ++i) bad += a.at<int>(r)[i] != from * elems + i;
  ARMCI_Access_end(a.at<int>(r));
  EXPECT_EQ(bad, 0);
  ARMCI_Barrier();
}

// Where the node-local fences stand (shm/access.h).  A get's loads must be followed by an acquire fence
// (a get that reads a flag orders the program's later loads after it), and a put's or accumulate's stores
// preceded by a release fence (a put or accumulate that writes a flag orders the program's earlier stores
// before it).  x86-64 does not reorder loads with loads or stores with stores, so no run there could show the
// missing fence; the hook instead records, at each fence, the word the transfer writes: for a get it must
// already hold the new value at some acquire fence, for a put or accumulate still the old one at some
// release fence.  Transfers to the calling process's own slice take the node-local path.
namespace {
struct FenceProbe {
  const volatile long* watch = nullptr;
  std::vector<std::pair<std::memory_order, long>> seen;
  bool saw(std::memory_order order, long value) const {
    for (const auto& f : seen)
      if (f.first == order && f.second == value) return true;
    return false;
  }
};
void record_fence(std::memory_order order, void* arg) {
  auto* p = static_cast<FenceProbe*>(arg);
  p->seen.emplace_back(order, *p->watch);
}
}  // namespace

TEST(NodePath, LocalFencesOrderTheTransfersLoadsAndStores) {
  if (!ARMCI_Uses_shm()) GTEST_SKIP() << "needs the node-local path (ARMCI_SHM=1)";
  const int r = me();
  Alloc a(16 * sizeof(long));
  long* mine = a.at<long>(r);
  for (int i = 0; i < 16; ++i) mine[i] = 0;
  mine[0] = 11;
  mine[1] = 12;
  ARMCI_Barrier();
  FenceProbe probe;
  armcix::set_local_fence_hook(&record_fence, &probe);
  const auto acq = std::memory_order_acquire, rel = std::memory_order_release;
  // Where the job spans nodes, every accumulate goes through MPI, its own node's included (doc/design.md,
  // "Atomicity between the two paths"): no node-local fences to look for then.
  const bool accs_local = armci_domain_count(ARMCI_DOMAIN_SMP) == 1;
  auto run = [&](const volatile long* watch, const char* what, std::memory_order order, long value,
                 const std::function<void()>& transfer) {
    probe.watch = watch;
    probe.seen.clear();
    transfer();
    if (!accs_local && std::strstr(what, "Acc")) return;
    EXPECT_TRUE(probe.saw(order, value))
        << what << ": no " << (order == acq ? "acquire fence after the loads" : "release fence before the stores")
        << " (" << probe.seen.size() << " fences seen)";
  };
  long dst[2] = {0, 0}, one = 1, five = 5;
  int stride_src[1] = {2 * sizeof(long)}, stride_dst[1] = {sizeof(long)}, count[2] = {sizeof(long), 2};
  run(&dst[0], "ARMCI_Get", acq, 11, [&] { ARMCI_Get(mine, dst, sizeof(long), r); });
  run(&mine[2], "ARMCI_Put", rel, 0, [&] { ARMCI_Put(&five, &mine[2], sizeof(long), r); });
  run(&mine[3], "ARMCI_Acc", rel, 0, [&] { ARMCI_Acc(ARMCI_ACC_LNG, &one, &five, &mine[3], sizeof(long), r); });
  mine[4] = 21;
  mine[6] = 22;
  dst[0] = dst[1] = 0;
  run(&dst[1], "ARMCI_GetS", acq, 22, [&] { ARMCI_GetS(&mine[4], stride_src, dst, stride_dst, count, 1, r); });
  long two[2] = {7, 8};
  run(&mine[8], "ARMCI_PutS", rel, 0, [&] { ARMCI_PutS(two, stride_dst, &mine[8], stride_src, count, 1, r); });
  run(&mine[9], "ARMCI_AccS", rel, 0,
      [&] { ARMCI_AccS(ARMCI_ACC_LNG, &one, two, stride_dst, &mine[9], stride_src, count, 1, r); });
  // Vector calls: two single-word segments each.
  void* src_v[2];
  void* dst_v[2];
  armci_giov_t v{src_v, dst_v, sizeof(long), 2};
  dst[0] = dst[1] = 0;
  src_v[0] = &mine[4];
  src_v[1] = &mine[6];
  dst_v[0] = &dst[0];
  dst_v[1] = &dst[1];
  run(&dst[1], "ARMCI_GetV", acq, 22, [&] { ARMCI_GetV(&v, 1, r); });
  src_v[0] = &two[0];
  src_v[1] = &two[1];
  dst_v[0] = &mine[12];
  dst_v[1] = &mine[13];
  run(&mine[12], "ARMCI_PutV", rel, 0, [&] { ARMCI_PutV(&v, 1, r); });
  dst_v[0] = &mine[14];
  dst_v[1] = &mine[15];
  run(&mine[14], "ARMCI_AccV", rel, 0, [&] { ARMCI_AccV(ARMCI_ACC_LNG, &one, &v, 1, r); });
  armcix::set_local_fence_hook(nullptr, nullptr);
  EXPECT_EQ(5, mine[2]);
  EXPECT_EQ(5, mine[3]);
  EXPECT_EQ(7, mine[8]);
  EXPECT_EQ(8, mine[10]);
  EXPECT_EQ(8, mine[13]);
  EXPECT_EQ(7, mine[14]);
  ARMCI_Barrier();
}

// Direct local access under concurrent accumulates from the others: inside Access_begin/end the owner's
// loads see whole accumulate results (values only grow by whole increments).
TEST(NodePath, AccessBeginEndUnderConcurrentAccumulates) {
  const int n = nproc(), r = me();
  const int elems = 256, reps = n > 2 ? 10 : 40;
  Alloc a(elems * sizeof(long));
  std::fill(a.at<long>(r), a.at<long>(r) + elems, 0L);
  ARMCI_Barrier();
  std::vector<long> ones(elems, 1);
  long unit = 1;
  for (int rep = 0; rep < reps; ++rep) {
    for (int t = 0; t < n; ++t)
      if (t != r) ARMCI_Acc(ARMCI_ACC_LNG, &unit, ones.data(), a.at<long>(t), elems * sizeof(long), t);
    ARMCI_Access_begin(a.at<long>(r));
    long v0 = a.at<long>(r)[0];
    EXPECT_GE(v0, 0);
    EXPECT_LE(v0, static_cast<long>(reps) * (n - 1));
    ARMCI_Access_end(a.at<long>(r));
  }
  ARMCI_Barrier();
  for (int i = 0; i < elems; ++i) EXPECT_EQ(a.at<long>(r)[i], static_cast<long>(reps) * (n - 1));
  ARMCI_Barrier();
}

// Strided and vector operations to every target, all paths, against a local reference.
TEST(NodePath, StridedAndVectorToEveryTarget) {
  const int n = nproc(), r = me();
  const int rows = 16, cols = 24, ld = 32;  // doubles
  Alloc a(static_cast<long>(n) * rows * ld * sizeof(double));
  std::fill(a.at<double>(r), a.at<double>(r) + n * rows * ld, -1.0);
  ARMCI_Barrier();
  std::vector<double> src(rows * cols);
  for (int i = 0; i < rows * cols; ++i) src[i] = r * 10000 + i;
  int src_stride[1] = {static_cast<int>(cols * sizeof(double))};
  int dst_stride[1] = {static_cast<int>(ld * sizeof(double))};
  int count[2] = {static_cast<int>(cols * sizeof(double)), rows};
  for (int t = 0; t < n; ++t)
    ARMCI_PutS(src.data(), src_stride, a.at<double>(t) + r * rows * ld, dst_stride, count, 1, t);
  ARMCI_Barrier();
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < ld; ++j) {
        double want = j < cols ? p * 10000 + i * cols + j : -1.0;
        ASSERT_EQ(a.at<double>(r)[(p * rows + i) * ld + j], want) << "from " << p << " row " << i << " col " << j;
      }
  // GetV back the diagonal of every target's block from us.
  for (int t = 0; t < n; ++t) {
    std::vector<void*> srcs(rows), dsts(rows);
    std::vector<double> diag(rows, 0);
    for (int i = 0; i < rows; ++i) {
      srcs[i] = a.at<double>(t) + (r * rows + i) * ld + i;
      dsts[i] = &diag[i];
    }
    armci_giov_t v{srcs.data(), dsts.data(), sizeof(double), rows};
    ARMCI_GetV(&v, 1, t);
    for (int i = 0; i < rows; ++i) EXPECT_EQ(diag[i], r * 10000 + i * cols + i) << "target " << t;
  }
  ARMCI_Barrier();
}

// Everything the MPI path rejects, the node path rejects the same way (no wild stores).
TEST(NodePath, BadAddressesRejectedOnEveryPath) {
  const int n = nproc(), r = me();
  Alloc a(64);
  char buf[128] = {};
  for (int t = 0; t < n; ++t) {
    EXPECT_ARMCI_ERROR(ARMCI_Put(buf, a.at<char>(t) + 32, 64, t), "ARMCI_Put", "run past the end");
    EXPECT_ARMCI_ERROR(ARMCI_Get(a.at<char>(t) + 64, buf, 8, t), "ARMCI_Get", "'src'");
    long one = 1;
    EXPECT_ARMCI_ERROR(ARMCI_Acc(ARMCI_ACC_LNG, &one, buf, buf, 8, t), "ARMCI_Acc", "'dst'", "not inside");
    long v = 0;
    EXPECT_ARMCI_ERROR(ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &v, a.at<char>(t) + 60, 1, t), "ARMCI_Rmw", "'prem'");
    int count[2] = {16, 8}, stride[1] = {16};
    EXPECT_ARMCI_ERROR(ARMCI_PutS(buf, stride, a.at<char>(t), stride, count, 1, t), "ARMCI_PutS", "run past");
  }
  (void)r;
  ARMCI_Barrier();
}

// Allocations on a group inside one node and on a group that spans nodes (with simulated nodes).
TEST(NodePath, GroupAllocationsInsideAndAcrossNodes) {
  const int n = nproc(), r = me();
  if (n < 2) GTEST_SKIP() << "needs 2 ranks";
  std::vector<int> pair = {0, 1}, all(n);
  std::iota(all.begin(), all.end(), 0);
  ARMCI_Group g_pair, g_all;
  ARMCI_Group_create(2, pair.data(), &g_pair);
  ARMCI_Group_create(n, all.data(), &g_all);
  for (ARMCI_Group* g : {&g_pair, &g_all}) {
    const bool member = g->comm != MPI_COMM_NULL;  // non-members still join the world barriers below
    std::vector<void*> ptrs(member ? g->size : 0);
    if (member) {
      ARMCI_Malloc_group(ptrs.data(), sizeof(long), g);
      *static_cast<long*>(ptrs[g->rank]) = 0;
    }
    ARMCI_Barrier();
    if (member) {
      for (int t = 0; t < g->size; ++t) {
        long v;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &v, ptrs[t], g->rank + 1, ARMCI_Absolute_id(g, t));
      }
    }
    ARMCI_Barrier();
    if (member) {
      EXPECT_EQ(*static_cast<long*>(ptrs[g->rank]), static_cast<long>(g->size) * (g->size + 1) / 2);
      armci_msg_group_barrier(g);
      ARMCI_Free_group(ptrs[g->rank], g);
    }
  }
  ARMCI_Barrier();
  ARMCI_Group_free(&g_pair);
  ARMCI_Group_free(&g_all);
  (void)r;
}

// Freed node-only segments are kept and reused (src/shm/segment_cache.h).  A reused allocation must behave as
// a fresh one: the caller's slice reads zero, empty slices are NULL, bounds are the new size (not the
// segment's capacity), and data moves between ranks.  Sizes differ per rank and shrink, so reuse happens.
TEST(NodePath, ReusedSegmentsBehaveLikeFreshOnes) {
  const int n = nproc(), r = me();
  const char* shm = std::getenv("ARMCI_SHM");
  // Only a real node's shared segments are known to start zeroed (fresh pages); a reused segment is zeroed
  // by armci-x to match.  MPI_Alloc_mem (ARMCI_SHM=0) and one-rank simulated nodes give no such promise.
  const bool shm_on = !(shm && shm[0] == '0') && node_size_setting() == 0;
  for (int round = 0; round < 6; ++round) {
    // Round 0 allocates the largest; later rounds fit into it.  Rank n-1 has an empty slice every
    // other round.
    const long count = 512 - 64 * round + 8 * r;
    const long bytes = (r == n - 1 && round % 2 == 1) ? 0 : count * static_cast<long>(sizeof(long));
    std::vector<void*> ptrs(n);
    ASSERT_EQ(ARMCI_Malloc(ptrs.data(), bytes), 0);
    if (bytes == 0) {
      EXPECT_EQ(ptrs[r], nullptr) << "round " << round;
    } else if (shm_on) {  // fresh shared memory is zero, and so is a reused segment; MPI_Alloc_mem's is not
      const long* mine = static_cast<const long*>(ptrs[r]);
      for (long i = 0; i < count; ++i) ASSERT_EQ(mine[i], 0) << "round " << round << ", element " << i;
    }
    ARMCI_Barrier();
    // Everyone writes its rank into element 1 of its right neighbour's slice, then the owner checks.
    const int right = (r + 1) % n;
    if (ptrs[right]) {
      long v = 100 * round + r;
      ARMCI_Put(&v, static_cast<long*>(ptrs[right]) + 1, sizeof v, right);
      // One element past the end of the neighbour's slice is rejected even though the segment has room.
      const long right_count = 512 - 64 * round + 8 * right;
      ErrorCapture capture;
      EXPECT_ARMCI_ERROR(ARMCI_Put(&v, static_cast<long*>(ptrs[right]) + right_count, sizeof v, right), "ARMCI_Put",
                         "dst");
    }
    ARMCI_Barrier();
    const int left = (r + n - 1) % n;
    if (bytes > 0) {
      EXPECT_EQ(static_cast<long*>(ptrs[r])[1], 100 * round + left) << "round " << round;
    }
    // Dirty the slice so that a reuse that skipped the zeroing would be caught next round.
    if (bytes > 0) std::fill_n(static_cast<long*>(ptrs[r]), count, -1L);
    ARMCI_Barrier();
    ASSERT_EQ(ARMCI_Free(ptrs[r]), 0);
  }
}

namespace {

// Whether allocations on the world group come from its pool with this run's settings.
bool world_allocations_pooled() {
  const armcix::Runtime& rtm = armcix::rt();
  std::vector<int> world(nproc());
  std::iota(world.begin(), world.end(), 0);
  return armcix::plan_region({rtm.config.shm, armcix::group_is_node_local(world.data(), nproc()),
                              armcix::progress_ranks_on(), rtm.config.spanning_pool, rtm.config.window_kind})
      .pooled;
}

// Tests that fill the pool, or that need a region too large for it (a segment and window of its own), run
// where the limits are small enough to reach at test sizes: ARMCI_POOL_MB / ARMCI_POOL_BLOCK_KB lowered (the
// manifest's shm-small-pool lines: 8 MiB and 256 KiB).  By default a pool holds 1 GiB per rank and every
// region up to that size.
constexpr MPI_Aint kReachableAtTestSizes = MPI_Aint{64} << 20;

// One of each kind of update from this rank into a peer's block: Rmw adds 1 to word 0, an accumulate adds 1.0
// to word 1 (as a double), and a put writes `value` into word `last`.
void update_peer_block(long* target, long last, long value, int peer) {
  ARMCI_Put(&value, target + last, sizeof value, peer);
  double one = 1.0, scale = 1.0;
  ARMCI_Acc(ARMCI_ACC_DBL, &scale, &one, reinterpret_cast<double*>(target + 1), sizeof(double), peer);
  long old;
  ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, target, 1, peer);
}

}  // namespace

// The pool of small regions starts small and grows, each new segment as large as all before it together,
// up to shm_pool_capacity() per rank (a first small ARMCI_Malloc used to map the whole 8 MiB at once: 16-20 ms
// in MPICH).  Blocks in every segment are reached by put, accumulate and Rmw from a peer, and once the pool
// is full a small allocation gets a segment of its own.
TEST(NodePath, PoolGrowsSegmentBySegmentUpToItsCapacity) {
  std::vector<int> world(nproc());
  std::iota(world.begin(), world.end(), 0);
  if (!world_allocations_pooled()) GTEST_SKIP() << "world allocations are not pooled with these settings";
  if (armcix::shm_pool_capacity() > kReachableAtTestSizes)
    GTEST_SKIP() << "the pool's capacity (ARMCI_POOL_MB) is too large to fill at test sizes";
  const int n = nproc(), r = me(), right = (r + 1) % n;
  const long count = (200 << 10) / sizeof(long);  // two blocks fill most of a 512 KiB segment
  auto expected_next = [](const std::vector<MPI_Aint>& slices) {
    MPI_Aint have = std::accumulate(slices.begin(), slices.end(), MPI_Aint{0});
    if (have == 0) return armcix::kShmPoolFirstSlice;
    return std::min(have, armcix::shm_pool_capacity() - have);
  };
  // Leave dirty free chunks in the heap: MPICH serves a one-process node communicator's shared window from
  // it (ARMCI_NODE_SIZE=1, cliques), and the pool must still hand out zeroed blocks with clear lock words.
  for (const std::size_t mib : {4, 2, 1, 1}) {
    std::vector<char> dirt(mib << 20, 0x5a);
    asm volatile("" : : "r"(dirt.data()) : "memory");
  }
  std::vector<std::vector<void*>> live;
  std::vector<MPI_Aint> before = armcix::shm_pool_slices(world);
  bool beyond_pool = false;  // an allocation the full pool could not hold got memory of its own
  const long enough = armcix::shm_pool_capacity() / static_cast<long>(count * sizeof(long)) + 10;
  for (int i = 0; i < enough && !beyond_pool; ++i) {
    std::vector<void*> ptrs(n);
    ASSERT_EQ(ARMCI_Malloc(ptrs.data(), count * sizeof(long)), 0);
    live.push_back(ptrs);
    const std::vector<MPI_Aint> after = armcix::shm_pool_slices(world);
    if (after.size() != before.size()) {
      ASSERT_EQ(after.size(), before.size() + 1) << "allocation " << i;
      EXPECT_EQ(after.back(), expected_next(before)) << "allocation " << i << ": segment " << after.size();
    }
    before = after;
    const armcix::GmrRef ref = armcix::gmr_find(r, ptrs[r]);
    ASSERT_NE(ref.gmr, nullptr) << "allocation " << i;
    if (ref.gmr->pool_offset < 0) {
      EXPECT_EQ(std::accumulate(after.begin(), after.end(), MPI_Aint{0}), armcix::shm_pool_capacity())
          << "allocation " << i << " left the pool before it was full";
      beyond_pool = true;
    }
  }
  ASSERT_TRUE(beyond_pool) << enough << " allocations of 200 KiB all fit the pool";
  ASSERT_EQ(std::accumulate(before.begin(), before.end(), MPI_Aint{0}), armcix::shm_pool_capacity());
  ASSERT_GE(before.size(), 2u);
  EXPECT_EQ(before.front(), armcix::kShmPoolFirstSlice);
  for (std::size_t i = 0; i + 1 < live.size(); ++i) {  // pool blocks are zero (the last one is not a block)
    const long* own = static_cast<long*>(live[i][r]);
    ASSERT_EQ(*std::max_element(own, own + count), 0) << "allocation " << i;
    ASSERT_EQ(*std::min_element(own, own + count), 0) << "allocation " << i;
  }
  // A fresh segment of its own is not zeroed (MPI_Win_allocate_shared on a one-process node communicator
  // returns heap memory in MPICH): the last allocation starts from zero here.
  std::fill_n(static_cast<long*>(live.back()[r]), count, 0L);
  ARMCI_Barrier();
  for (std::size_t i = 0; i < live.size(); ++i)
    update_peer_block(static_cast<long*>(live[i][right]), count - 1, 1000L * static_cast<long>(i) + r, right);
  ARMCI_AllFence();
  ARMCI_Barrier();
  const int left = (r + n - 1) % n;
  for (std::size_t i = 0; i < live.size(); ++i) {
    const long* own = static_cast<long*>(live[i][r]);
    EXPECT_EQ(own[0], 1) << "allocation " << i;
    EXPECT_EQ(reinterpret_cast<const double*>(own)[1], 1.0) << "allocation " << i;
    EXPECT_EQ(own[count - 1], 1000L * static_cast<long>(i) + left) << "allocation " << i;
    EXPECT_EQ(own[2], 0) << "allocation " << i;  // nothing spilled from a neighbouring block
  }
  ARMCI_Barrier();
  for (auto it = live.rbegin(); it != live.rend(); ++it) ASSERT_EQ(ARMCI_Free((*it)[r]), 0);
  EXPECT_EQ(armcix::shm_pool_slices(world), before) << "freeing keeps the segments for later allocations";
}

// By default (ARMCI_POOL_BLOCK_KB=0: blocks up to ARMCI_POOL_MB, 1 GiB per rank), large
// regions come from the pool too: no window of their own, a segment sized to the block when doubling is not
// enough, and every path -- put, get, accumulate, Rmw from a neighbour, load/store on the node -- reaches
// them at both ends.  Sizes differ per rank (GA's uneven blocks), and a freed large block is reused.
TEST(NodePath, LargeRegionsArePooled) {
  std::vector<int> world(nproc());
  std::iota(world.begin(), world.end(), 0);
  if (!world_allocations_pooled()) GTEST_SKIP() << "world allocations are not pooled with these settings";
  if (armcix::shm_pool_max_block() < (3L << 20) || armcix::shm_pool_capacity() < (16L << 20))
    GTEST_SKIP() << "needs ARMCI_POOL_BLOCK_KB >= 3072 and ARMCI_POOL_MB >= 16";
  const int n = nproc(), r = me(), right = (r + 1) % n, left = (r + n - 1) % n;
  // Across nodes each new pool segment has one MPI window (the spanning pool's); no region has its own.
  const bool spanning = !armcix::group_is_node_local(world.data(), n);
  const std::size_t segments_before = armcix::shm_pool_slices(world).size();
  const uint64_t windows_before = armcix::gmr_windows_created();
  std::vector<std::vector<void*>> live;
  std::vector<long> counts;
  for (const long mib_eighths : {8L, 24L, 12L}) {  // 1 MiB, 3 MiB (a segment of its own size), 1.5 MiB
    const long count = (mib_eighths << 17) / static_cast<long>(sizeof(long)) - 16 * r;
    std::vector<void*> ptrs(n);
    ASSERT_EQ(ARMCI_Malloc(ptrs.data(), count * static_cast<long>(sizeof(long))), 0);
    const armcix::GmrRef ref = armcix::gmr_find(r, ptrs[r]);
    ASSERT_NE(ref.gmr, nullptr);
    EXPECT_GE(ref.gmr->pool_offset, 0) << count * sizeof(long) << " bytes did not come from the pool";
    const long* own = static_cast<const long*>(ptrs[r]);
    EXPECT_EQ(*std::max_element(own, own + count), 0) << "a pool block is not zero";
    EXPECT_EQ(*std::min_element(own, own + count), 0) << "a pool block is not zero";
    live.push_back(ptrs);
    counts.push_back(count);
  }
  const std::vector<MPI_Aint> slices = armcix::shm_pool_slices(world);
  const uint64_t segment_windows = spanning ? slices.size() - segments_before : 0;
  EXPECT_EQ(armcix::gmr_windows_created(), windows_before + segment_windows)
      << "a pooled region made a window of its own";
  EXPECT_LE(std::accumulate(slices.begin(), slices.end(), MPI_Aint{0}), armcix::shm_pool_capacity());
  EXPECT_TRUE(std::any_of(slices.begin(), slices.end(), [](MPI_Aint s) { return s >= (3L << 20); }))
      << "no segment holds the 3 MiB block";
  std::vector<long> right_counts(live.size());  // my right neighbour's slice lengths: its counts
  for (std::size_t i = 0; i < live.size(); ++i) right_counts[i] = counts[i] + 16L * r - 16L * right;
  ARMCI_Barrier();
  for (std::size_t i = 0; i < live.size(); ++i)
    update_peer_block(static_cast<long*>(live[i][right]), right_counts[i] - 1, 1000L * static_cast<long>(i) + r, right);
  ARMCI_AllFence();
  ARMCI_Barrier();
  for (std::size_t i = 0; i < live.size(); ++i) {
    const long* own = static_cast<const long*>(live[i][r]);
    EXPECT_EQ(own[0], 1) << "region " << i;
    EXPECT_EQ(reinterpret_cast<const double*>(own)[1], 1.0) << "region " << i;
    EXPECT_EQ(own[counts[i] - 1], 1000L * static_cast<long>(i) + left) << "region " << i;
    long got = -1;  // and back: a get of the neighbour's last word
    ARMCI_Get(static_cast<long*>(live[i][right]) + right_counts[i] - 1, &got, sizeof got, right);
    EXPECT_EQ(got, 1000L * static_cast<long>(i) + r) << "region " << i;
  }
  ARMCI_Barrier();
  // A freed large block goes back to the pool, zeroed, and serves the next allocation of its size.
  ASSERT_EQ(ARMCI_Free(live[1][r]), 0);
  std::vector<void*> again(n);
  ASSERT_EQ(ARMCI_Malloc(again.data(), counts[1] * static_cast<long>(sizeof(long))), 0);
  EXPECT_EQ(armcix::gmr_windows_created(), windows_before + segment_windows);
  EXPECT_EQ(armcix::shm_pool_slices(world), slices) << "the freed block was not reused";
  const long* own = static_cast<const long*>(again[r]);
  EXPECT_EQ(*std::max_element(own, own + counts[1]), 0) << "a reused pool block is not zero";
  ARMCI_Barrier();
  ASSERT_EQ(ARMCI_Free(again[r]), 0);
  ASSERT_EQ(ARMCI_Free(live[2][r]), 0);
  ASSERT_EQ(ARMCI_Free(live[0][r]), 0);
}

// The pool stops growing where the members' nodes run out of room (pool_node_room in gmr.cc: half of RAM +
// swap and /dev/shm, shared among the set's ranks on the node): a segment mapped beyond /dev/shm would fail
// with SIGBUS at first touch, not when made.  Then the region gets a segment of its own (its size class).
TEST(NodePath, PoolGrowthStopsAtTheNodesRoom) {
  std::vector<int> world(nproc());
  std::iota(world.begin(), world.end(), 0);
  const std::vector<MPI_Aint> slices = armcix::shm_pool_slices(world);
  const MPI_Aint have = std::accumulate(slices.begin(), slices.end(), MPI_Aint{0});
  const MPI_Aint block = MPI_Aint{1} << 20, capacity = armcix::shm_pool_capacity();
  if (capacity - have < 2 * block) GTEST_SKIP() << "the pool is (nearly) full already";
  const MPI_Aint want = std::max(have == 0 ? armcix::kShmPoolFirstSlice : have, block);  // doubling, or the block
  EXPECT_EQ(armcix::shm_pool_next_slice(world, block, std::numeric_limits<MPI_Aint>::max()),
            std::min(want, capacity - have))
      << "with room to spare the capacity decides";
  EXPECT_EQ(armcix::shm_pool_next_slice(world, block, have + 2 * block), std::min(want, 2 * block))
      << "the node's room bounds the next segment";
  EXPECT_EQ(armcix::shm_pool_next_slice(world, block, have + block - 4096), 0)
      << "a node without room for the block: no segment";
  EXPECT_EQ(armcix::shm_pool_next_slice(world, block, have / 2), 0) << "less room than the pool holds already";
}

// Regions a program never frees are released by ARMCI_Finalize (which this binary's main calls after the
// last test): small ones (pool blocks, whose windows are their pool segment's) and large ones (segments and
// windows of their own).  With ARMCI_SPANNING_POOL=1 across nodes the pool's window used to be unlocked
// twice there, and every rank failed with "Wrong synchronization of RMA calls".
TEST(NodePath, RegionsLeftLiveAreReleasedAtFinalize) {
  const int n = nproc(), r = me();
  // The third: a region of its own where the pool's block limit is low, else a large pooled block.
  const long large = static_cast<long>(std::min(armcix::shm_pool_max_block(), MPI_Aint{1} << 20)) + (44L << 10);
  for (const long bytes : {64L, 4096L, large}) {
    std::vector<void*> ptrs(n);
    ASSERT_EQ(ARMCI_Malloc(ptrs.data(), bytes), 0);
    long v = r + 1;
    ARMCI_Put(&v, ptrs[(r + 1) % n], sizeof v, (r + 1) % n);
    ARMCI_AllFence();
  }
  ARMCI_Barrier();
}

// A freed segment is reused by a later allocation on the same members whose slices fit, and for a group
// spanning nodes (simulated nodes, cliques, simulated hosts) so is its MPI window: no new window is made.
// The reused region then serves every path: Rmw and accumulate from all ranks, put and get to a neighbour.
TEST(NodePath, FreedSegmentsAndWindowsAreReused) {
  const char* shm = std::getenv("ARMCI_SHM");
  const char* progress = std::getenv("ARMCI_PROGRESS_RANKS");
  if (shm && shm[0] == '0') GTEST_SKIP() << "ARMCI_SHM=0 keeps no segments";
  if (progress && std::atoi(progress) > 0) GTEST_SKIP() << "regions served by progress ranks have no window";
  if (armcix::shm_pool_max_block() > kReachableAtTestSizes)
    GTEST_SKIP() << "every region of test size comes from the pool (ARMCI_POOL_BLOCK_KB)";
  const int n = nproc(), r = me();
  // Above the pool's block limit (shm_pool_max_block(), ARMCI_POOL_BLOCK_KB): a segment of its own.
  const long count = (armcix::shm_pool_max_block() + (44 << 10)) / static_cast<long>(sizeof(long));
  // The cache keeps a freed segment only within ARMCI_SEGMENT_CACHE_MB summed over the members' slices (a
  // raised ARMCI_POOL_BLOCK_KB can make this region too large for it).
  const MPI_Aint segment = armcix::shm_slice_class(count * static_cast<MPI_Aint>(sizeof(long))) * n;
  if (segment > (static_cast<MPI_Aint>(armcix::rt().config.segment_cache_mb) << 20) &&
      armcix::rt().config.segment_cache_mb > 0)
    GTEST_SKIP() << "a region above ARMCI_POOL_BLOCK_KB does not fit ARMCI_SEGMENT_CACHE_MB";
  std::vector<void*> ptrs(n);
  ASSERT_EQ(ARMCI_Malloc(ptrs.data(), count * sizeof(long)), 0);
  ARMCI_Barrier();
  ASSERT_EQ(ARMCI_Free(ptrs[r]), 0);
  const uint64_t made = armcix::gmr_windows_created();
  for (int round = 0; round < 3; ++round) {
    const long mine = count - 512 * round - 8 * r;  // smaller, and different per rank: still fits
    ASSERT_EQ(ARMCI_Malloc(ptrs.data(), mine * sizeof(long)), 0);
    // ARMCI_SEGMENT_CACHE_MB=0 keeps no freed segment: every round makes a window.
    if (armcix::rt().config.segment_cache_mb == 0) {
      EXPECT_EQ(armcix::gmr_windows_created(), made + static_cast<uint64_t>(round) + 1) << "round " << round;
    } else {
      EXPECT_EQ(armcix::gmr_windows_created(), made) << "round " << round << ": the freed segment was not reused";
    }
    long* own = static_cast<long*>(ptrs[r]);
    // A reused segment is zeroed; a new one only where the node's pages are fresh (not MPICH's heap for a
    // process alone on its node), as any first allocation.
    if (armcix::rt().config.segment_cache_mb > 0) {
      for (long i = 0; i < mine; ++i) ASSERT_EQ(own[i], 0) << "round " << round << ", element " << i;
    } else {
      std::fill_n(own, mine, 0L);  // what a program does with fresh memory (GA zeroes its arrays)
    }
    ARMCI_Barrier();
    for (int t = 0; t < n; ++t) {
      long old;
      ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, ptrs[t], r + 1, t);
      double one = 1.0;
      double scale = 1.0;
      ARMCI_Acc(ARMCI_ACC_DBL, &scale, &one, static_cast<double*>(ptrs[t]) + 1, sizeof(double), t);
    }
    const int right = (r + 1) % n;
    const long last = count - 512 * round - 8 * right - 1;
    long v = 1000 * round + r;
    ARMCI_Put(&v, static_cast<long*>(ptrs[right]) + last, sizeof v, right);
    ARMCI_Barrier();
    EXPECT_EQ(own[0], static_cast<long>(n) * (n + 1) / 2) << "round " << round;
    EXPECT_EQ(reinterpret_cast<double*>(own)[1], static_cast<double>(n)) << "round " << round;
    long got = -1;
    ARMCI_Get(static_cast<long*>(ptrs[right]) + last, &got, sizeof got, right);
    EXPECT_EQ(got, 1000 * round + r) << "round " << round;
    ARMCI_Barrier();              // every get is done
    std::fill_n(own, mine, -1L);  // dirty: a reuse that skipped the zeroing is caught next round
    ASSERT_EQ(ARMCI_Free(ptrs[r]), 0);
  }
}

// Groups are created, used and freed in turn while their freed windows stay cached.  A new group's
// communicator can get the context id of a freed one; a window created on it must still be told apart
// from the cached windows (MPICH names windows after their communicator: src/shm/segment_cache.h), or
// accumulates, which MPICH delivers by window name, land in a cached window and are lost (GA's pgtest).
TEST(NodePath, GroupsFreedWhileTheirWindowsAreCachedKeepAccumulates) {
  const int n = nproc(), r = me();
  if (n < 2) GTEST_SKIP() << "needs 2 ranks";
  std::vector<std::vector<int>> lists = {{0, 1}, {1, 0}};
  if (n >= 3) lists.push_back({2, 0, 1});
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  lists.push_back(all);
  for (int k = 0; k < 3 * static_cast<int>(lists.size()); ++k) {
    const std::vector<int>& list = lists[k % lists.size()];
    ARMCI_Group g;
    ARMCI_Group_create(static_cast<int>(list.size()), const_cast<int*>(list.data()), &g);
    if (g.comm != MPI_COMM_NULL) {
      const int gn = g.size, gr = g.rank;
      const int count = 32 + 8 * k;  // grows slowly: some rounds reuse, some need a new window
      std::vector<void*> ptrs(gn);
      ASSERT_EQ(ARMCI_Malloc_group(ptrs.data(), count * sizeof(double), &g), 0);
      std::fill_n(static_cast<double*>(ptrs[gr]), count, 0.0);  // one-rank nodes' memory is not zeroed
      armci_msg_group_barrier(&g);
      for (int t = 0; t < gn; ++t) {
        const int abs = ARMCI_Absolute_id(&g, t);
        double v = 1000.0 * k + gr, one = 1.0;
        ARMCI_Put(&v, static_cast<double*>(ptrs[t]) + gr, sizeof v, abs);
        ARMCI_Acc(ARMCI_ACC_DBL, &one, &one, static_cast<double*>(ptrs[t]) + gn, sizeof one, abs);
      }
      ARMCI_AllFence();
      armci_msg_group_barrier(&g);
      const double* mine = static_cast<const double*>(ptrs[gr]);
      for (int s = 0; s < gn; ++s) EXPECT_EQ(mine[s], 1000.0 * k + s) << "round " << k << ", element " << s;
      EXPECT_EQ(mine[gn], static_cast<double>(gn)) << "round " << k << ": accumulates lost";
      armci_msg_group_barrier(&g);
      ASSERT_EQ(ARMCI_Free_group(ptrs[gr], &g), 0);
    }
    ARMCI_Group_free(&g);
    ARMCI_Barrier();
  }
  (void)r;
}

// What a member set keeps for later allocations -- its pool segments, its freed segments, and for members
// spanning nodes their windows and the window communicator -- goes when the last group on those members is
// freed, instead of living to ARMCI_Finalize: a program making many short-lived groups of different members
// kept them all.  While another group on the same members (a duplicate) lives, they stay; and a group made
// again on those members starts a new pool that works like the first.
TEST(NodePath, LastGroupFreeOnAMemberSetReleasesItsPoolAndCache) {
  const armcix::Runtime& rtm = armcix::rt();
  const int r = me();
  if (nproc() < 2) GTEST_SKIP() << "needs 2 ranks: one rank's groups have the world group's members";
  ARMCI_Group world;
  ARMCI_Group_get_world(&world);
  for (int round = 0; round < 4; ++round) {
    ARMCI_Group g, twin;
    ASSERT_EQ(ARMCIX_Group_split(&world, r % 2, r, &g), 0);  // 2 ranks: one each; 4: {0,2} and {1,3}
    ASSERT_EQ(ARMCIX_Group_dup(&g, &twin), 0);
    const std::vector<int> members(g.grp_to_abs, g.grp_to_abs + g.size);
    const armcix::RegionPlan plan =
        armcix::plan_region({rtm.config.shm, armcix::group_is_node_local(members.data(), g.size),
                             armcix::progress_ranks_on(), rtm.config.spanning_pool, rtm.config.window_kind});
    const int gn = g.size, gr = g.rank, right = (gr + 1) % gn, left = (gr + gn - 1) % gn;
    EXPECT_TRUE(armcix::shm_pool_slices(members).empty()) << "round " << round << ": a pool outlived its groups";
    // A block, and a segment of its own where the block limit is low enough to pass at test sizes.
    const bool own_segment = armcix::shm_pool_max_block() <= kReachableAtTestSizes;
    const long large = own_segment ? 2 * static_cast<long>(armcix::shm_pool_max_block()) : 1L << 20;
    for (ARMCI_Group* on : {&g, &twin})
      for (const long bytes : {4096L, large}) {
        std::vector<void*> ptrs(gn);
        ASSERT_EQ(ARMCI_Malloc_group(ptrs.data(), bytes, on), 0);
        long* mine = static_cast<long*>(ptrs[gr]);
        if (armcix::gmr_find(r, mine).gmr->pool_offset >= 0) {
          EXPECT_EQ(mine[1], 0) << "round " << round << ": a pool block is not zero";
        }
        armci_msg_group_barrier(on);
        long v = 100L * round + gr;
        ARMCI_Put(&v, static_cast<long*>(ptrs[right]) + 1, sizeof v, ARMCI_Absolute_id(on, right));
        ARMCI_AllFence();
        armci_msg_group_barrier(on);
        EXPECT_EQ(mine[1], 100L * round + left) << "round " << round << ", " << bytes << " bytes";
        mine[1] = 0;  // a pool block goes back zeroed by the library; this keeps the segment's check simple
        armci_msg_group_barrier(on);
        ASSERT_EQ(ARMCI_Free_group(ptrs[gr], on), 0);
      }
    EXPECT_EQ(!armcix::shm_pool_slices(members).empty(), plan.pooled) << "round " << round;
    ARMCI_Group_free(&g);
    EXPECT_EQ(!armcix::shm_pool_slices(members).empty(), plan.pooled)
        << "round " << round << ": the pool went while a duplicate group on its members lives";
    if (plan.pooled && own_segment) {  // ARMCI_SEGMENT_CACHE_MB=0: nothing is kept
      if (rtm.config.segment_cache_mb == 0) {
        EXPECT_EQ(armcix::shm_cache_entries(members), 0u) << "round " << round;
      } else {
        EXPECT_GT(armcix::shm_cache_entries(members), 0u) << "round " << round;
      }
    }
    ARMCI_Group_free(&twin);
    EXPECT_TRUE(armcix::shm_pool_slices(members).empty()) << "round " << round;
    EXPECT_EQ(armcix::shm_cache_entries(members), 0u) << "round " << round;
    ARMCI_Barrier();
  }
}
