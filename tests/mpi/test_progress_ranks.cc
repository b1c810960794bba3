// Progress ranks (ARMCI_PROGRESS_RANKS=k): run with k >= 1 on 2 simulated hosts x 2 ranks
// (tests/multinode/lines.txt), on one node with ARMCI_NODE_SIZE=2 (2 simulated nodes of 1 program rank + 1
// progress rank) and on one node without simulated nodes (one node of 3 program ranks: no region spans
// nodes).  Without the variable the same tests check the default mode.  MPI_COMM_WORLD here means the program
// ranks (mpiwrap/mpi_world.cc): the progress ranks are invisible.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "base/state.h"               // the resolved ARMCI_PROGRESS_RANKS_USLEEP
#include "completion/ordering.h"             // accs_from_held_copies, held_put_copy_bytes
#include "progress/progress_ranks.h"  // kSharedCorePauseUs
#include "test_util.h"

using namespace armcix_test;

namespace {

// Keeps the CPU busy without entering MPI or ARMCI for `ms` milliseconds (the situation progress ranks are
// for: a target that computes).
void compute_for(int ms) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  volatile double x = 1.0;
  while (std::chrono::steady_clock::now() < end)
    for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
}

}  // namespace

TEST(ProgressRanks, WorldIsTheProgramRanks) {
  // ARMCI's world and MPI_COMM_WORLD (as the program sees it) agree: same size, same rank.
  EXPECT_EQ(armci_msg_nproc(), nproc());
  EXPECT_EQ(armci_msg_me(), me());
  ARMCI_Group world;
  ARMCI_Group_get_world(&world);
  int size = 0, rank = -1;
  ARMCI_Group_size(&world, &size);
  ARMCI_Group_rank(&world, &rank);
  EXPECT_EQ(size, nproc());
  EXPECT_EQ(rank, me());
  int cmp = MPI_UNEQUAL;
  MPI_Comm_compare(world.comm, MPI_COMM_WORLD, &cmp);
  EXPECT_TRUE(cmp == MPI_CONGRUENT || cmp == MPI_IDENT) << "comparison " << cmp;
  // Every rank counts once in a reduction over MPI_COMM_WORLD and in ARMCI's.
  long one = 1, sum_mpi = 0;
  MPI_Allreduce(&one, &sum_mpi, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  long sum_armci = 1;
  armci_msg_lgop(&sum_armci, 1, const_cast<char*>("+"));
  EXPECT_EQ(sum_mpi, nproc());
  EXPECT_EQ(sum_armci, nproc());
}

TEST(ProgressRanks, PutGetEveryTarget) {
  const int n = nproc(), r = me();
  constexpr int kInts = 1000;
  Alloc a(kInts * sizeof(int));
  std::vector<int> buf(kInts);
  for (int t = 0; t < n; ++t) {
    for (int i = 0; i < kInts; ++i) buf[i] = r * 100000 + t * 1000 + i;
    // Each origin writes its own block of 1000/n ints on every target.
    const int per = kInts / n;
    ARMCI_Put(buf.data() + r * per, a.at<int>(t) + r * per, per * static_cast<int>(sizeof(int)), t);
  }
  ARMCI_AllFence();
  ARMCI_Barrier();
  for (int t = 0; t < n; ++t) {
    std::vector<int> got(kInts);
    ARMCI_Get(a.at<int>(t), got.data(), kInts * static_cast<int>(sizeof(int)), t);
    const int per = kInts / n;
    for (int o = 0; o < n; ++o)
      for (int i = o * per; i < (o + 1) * per; ++i) ASSERT_EQ(got[i], o * 100000 + t * 1000 + i) << "target " << t;
  }
  ARMCI_Barrier();
}

// Accumulates and fetch-and-adds from every rank (same node: load/store or MPI; other nodes: MPI through the
// progress rank) on the same locations, concurrently: nothing may be lost, and the fetch-and-add values
// each origin sees are distinct.
TEST(ProgressRanks, ConcurrentMixedAtomicsAreExact) {
  const int n = nproc(), r = me();
  constexpr int kRounds = 60;
  Alloc a(4 * sizeof(long));
  for (int i = 0; i < 4; ++i) a.at<long>(r)[i] = 0;
  ARMCI_Barrier();
  std::vector<std::vector<long>> fetched(n);
  for (int round = 0; round < kRounds; ++round) {
    for (int k = 0; k < n; ++k) {
      const int t = (r + k) % n;
      long v = 1;
      long scale = 1;
      ARMCI_Acc(ARMCI_ACC_LNG, &scale, &v, a.at<long>(t), static_cast<int>(sizeof(long)), t);  // word 0
      long old = 0;
      ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, a.at<long>(t) + 1, 1, t);  // word 1
      fetched[t].push_back(old);
      long twos[2] = {2, 2};
      ARMCI_Acc(ARMCI_ACC_LNG, &scale, twos, a.at<long>(t) + 2, static_cast<int>(sizeof twos), t);  // words 2-3
    }
  }
  ARMCI_AllFence();
  ARMCI_Barrier();
  const long expect = static_cast<long>(kRounds) * n;
  for (int t = 0; t < n; ++t) {
    long got[4];
    ARMCI_Get(a.at<long>(t), got, static_cast<int>(sizeof got), t);
    EXPECT_EQ(got[0], expect) << "target " << t;
    EXPECT_EQ(got[1], expect) << "target " << t;
    EXPECT_EQ(got[2], 2 * expect) << "target " << t;
    EXPECT_EQ(got[3], 2 * expect) << "target " << t;
    std::vector<long> mine = fetched[t];
    std::sort(mine.begin(), mine.end());
    EXPECT_TRUE(std::adjacent_find(mine.begin(), mine.end()) == mine.end()) << "duplicate fetch on target " << t;
  }
  ARMCI_Barrier();
}

// With progress ranks every accumulate to a region spanning nodes goes through MPI to the slice's progress
// rank, this node's own included; a blocking one then returns from a held copy (completion/ordering.h,
// acc_from_held_copy) instead of waiting for a progress rank that may sleep.  The source is overwritten at
// once, a get without a fence sees every accumulate, the copies go with the barrier, the sums are exact.
TEST(ProgressRanks, BlockingAccumulatesToServedSlicesFromHeldCopies) {
  const int n = nproc(), r = me();
  constexpr int kRounds = 20;
  Alloc a(8 * sizeof(double));
  for (int i = 0; i < 8; ++i) a.at<double>(r)[i] = 0;
  ARMCI_Barrier();
  const bool served = armcix::rt().config.progress_ranks > 0 && armcix::rt().node_count > 1;
  for (int round = 0; round < kRounds; ++round) {
    for (int k = 0; k < n; ++k) {
      const int t = (r + k) % n;
      double v[8];
      for (int i = 0; i < 8; ++i) v[i] = 1.0 + i;
      double scale = 2.0;
      ARMCI_Acc(ARMCI_ACC_DBL, &scale, v, a.at<double>(t), static_cast<int>(sizeof v), t);
      if (served && armcix::accs_from_held_copies() && round == 0) {
        EXPECT_GT(armcix::held_put_copy_bytes(), 0u) << "no copy held after an accumulate to " << t;
      }
      for (int i = 0; i < 8; ++i) v[i] = -1000.0;  // the call returned: the source is the program's again
    }
  }
  // Without a fence: this rank's own accumulates are ordered before its get (location consistency).
  double own[8];
  ARMCI_Get(a.at<double>(r), own, static_cast<int>(sizeof own), r);
  ARMCI_Barrier();
  EXPECT_EQ(armcix::held_put_copy_bytes(), 0u) << "copies held after a barrier";
  for (int t = 0; t < n; ++t) {
    double got[8];
    ARMCI_Get(a.at<double>(t), got, static_cast<int>(sizeof got), t);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(got[i], 2.0 * (1.0 + i) * kRounds * n) << "target " << t << " word " << i;
  }
  for (int i = 0; i < 8; ++i) EXPECT_GE(own[i], 2.0 * (1.0 + i) * kRounds) << "own accumulates not seen, word " << i;
  ARMCI_Barrier();
}

// Rank 0 computes without calling MPI while every other rank reads from it, adds to it and fetch-and-adds
// on it.  With progress ranks these complete during the computation; without, when rank 0 is back in MPI.
// Either way the values must be right (the timing is the benchmark's business: benchmarks/progress.c).
TEST(ProgressRanks, OperationsOnAComputingTargetComplete) {
  const int n = nproc(), r = me();
  Alloc a(64 * sizeof(long));
  for (int i = 0; i < 64; ++i) a.at<long>(r)[i] = 1000 + i;
  ARMCI_Barrier();
  if (r == 0) {
    compute_for(300);
  } else {
    long got[10];  // words 0-9: the others add to words 10 and 20 meanwhile
    ARMCI_Get(a.at<long>(0), got, static_cast<int>(sizeof got), 0);
    for (int i = 0; i < 10; ++i) EXPECT_EQ(got[i], 1000 + i);
    long v = r, scale = 1;
    ARMCI_Acc(ARMCI_ACC_LNG, &scale, &v, a.at<long>(0) + 10, static_cast<int>(sizeof(long)), 0);
    long old = 0;
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, a.at<long>(0) + 20, 5, 0);
    EXPECT_GE(old, 1020);
    ARMCI_Fence(0);
  }
  ARMCI_Barrier();
  if (r == 0) {
    long sum = 0;
    for (int o = 1; o < n; ++o) sum += o;
    EXPECT_EQ(a.at<long>(0)[10], 1010 + sum);
    EXPECT_EQ(a.at<long>(0)[20], 1020 + 5L * (n - 1));
  }
  ARMCI_Barrier();
}

// Mutexes hosted by a computing rank: with progress ranks the host's progress rank serves the queue tails
// (sync/mutex_mcs.cc), so the others lock, update and unlock while rank 0 computes; every critical section
// must stay exclusive either way.  Then every rank hosts and every rank contends, to check the tails of all
// members (same node and other nodes) and the hand-offs.
TEST(ProgressRanks, MutexesOfAComputingHostStayExclusive) {
  const int n = nproc(), r = me();
  constexpr int kRounds = 20;
  Alloc a(2 * sizeof(long));
  a.at<long>(r)[0] = a.at<long>(r)[1] = 0;
  ASSERT_EQ(ARMCI_Create_mutexes(1), 0);
  ARMCI_Barrier();
  auto critical_section = [&](int host) {
    ARMCI_Lock(0, host);
    long v = -1;
    ARMCI_Get(a.at<long>(host), &v, static_cast<int>(sizeof v), host);
    ++v;
    ARMCI_Put(&v, a.at<long>(host), static_cast<int>(sizeof v), host);
    ARMCI_Fence(host);
    ARMCI_Unlock(0, host);
  };
  if (r == 0) {
    compute_for(300);
  } else {
    for (int i = 0; i < kRounds; ++i) critical_section(0);
  }
  ARMCI_Barrier();
  if (r == 0) {
    EXPECT_EQ(a.at<long>(0)[0], static_cast<long>(kRounds) * (n - 1));
  }
  ARMCI_Barrier();  // read before phase 2 adds to it
  for (int i = 0; i < kRounds; ++i) critical_section((r + i) % n);
  ARMCI_Barrier();
  // Phase 2 hits every host kRounds times (for each i exactly one rank r has (r + i) % n == host).
  EXPECT_EQ(a.at<long>(r)[0], kRounds + (r == 0 ? static_cast<long>(kRounds) * (n - 1) : 0)) << "host " << r;
  ARMCI_Barrier();
  ASSERT_EQ(ARMCI_Destroy_mutexes(), 0);
}

// A lock on a mutex whose host never enters MPI or ARMCI completes: with progress ranks every mutex method
// (MCS, ARMCI_MUTEX_METHOD=QUEUE) is served by the host's progress rank.  Rank 0 hosts the mutex and waits,
// reading only its own memory, until every other rank has locked and unlocked it and then counted itself in
// rank 0's memory; without service the others' locks wait for rank 0, which waits for them until the
// (liveness, not performance) bound expires and then fails the test and releases them by entering ARMCI.
TEST(ProgressRanks, LockOfAHostOutsideMpiCompletes) {
  if (armcix::rt().proxy_win == MPI_WIN_NULL) GTEST_SKIP() << "no progress ranks";
  const int n = nproc(), r = me();
  constexpr int kRounds = 5;
  constexpr int kBoundSeconds = 60;
  Alloc a(2 * sizeof(long));
  a.at<long>(r)[0] = a.at<long>(r)[1] = 0;
  ASSERT_EQ(ARMCI_Create_mutexes(r == 0 ? 1 : 0), 0);
  ARMCI_Barrier();
  if (r == 0) {
    volatile long* arrived = a.at<long>(0) + 1;
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(kBoundSeconds);
    while (*arrived < n - 1 && std::chrono::steady_clock::now() < end) sched_yield();
    EXPECT_EQ(*arrived, n - 1) << "locks on a host outside MPI were not served within " << kBoundSeconds << " s";
  } else {
    for (int i = 0; i < kRounds; ++i) {
      ARMCI_Lock(0, 0);
      long v = -1;
      ARMCI_Get(a.at<long>(0), &v, static_cast<int>(sizeof v), 0);
      ++v;
      ARMCI_Put(&v, a.at<long>(0), static_cast<int>(sizeof v), 0);
      ARMCI_Fence(0);
      ARMCI_Unlock(0, 0);
    }
    long old = -1;
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, a.at<long>(0) + 1, 1, 0);
  }
  ARMCI_Barrier();
  if (r == 0) {
    EXPECT_EQ(a.at<long>(0)[0], static_cast<long>(kRounds) * (n - 1));
  }
  ARMCI_Barrier();
  ASSERT_EQ(ARMCI_Destroy_mutexes(), 0);
}

// Allocations on groups that span nodes and free in any group order: the progress ranks join no collective,
// so interleaved allocations on two groups cannot deadlock them.
TEST(ProgressRanks, GroupAllocationsInterleave) {
  const int n = nproc(), r = me();
  if (n < 2) GTEST_SKIP() << "needs 2 ranks";
  ARMCI_Group world, evens, all;
  ARMCI_Group_get_world(&world);
  std::vector<int> even_ranks, every(n);
  for (int i = 0; i < n; i += 2) even_ranks.push_back(i);
  std::iota(every.begin(), every.end(), 0);
  ARMCI_Group_create(static_cast<int>(every.size()), every.data(), &all);
  ARMCI_Group_create(static_cast<int>(even_ranks.size()), even_ranks.data(), &evens);
  for (int round = 0; round < 5; ++round) {
    std::vector<void*> p_all(n), p_even(even_ranks.size());
    ARMCI_Malloc_group(p_all.data(), 256, &all);
    if (r % 2 == 0) ARMCI_Malloc_group(p_even.data(), 128, &evens);
    *static_cast<long*>(p_all[r]) = 0;
    ARMCI_Barrier();
    long v = r + 1, scale = 1;
    ARMCI_Acc(ARMCI_ACC_LNG, &scale, &v, p_all[(r + 1) % n], static_cast<int>(sizeof(long)), (r + 1) % n);
    ARMCI_AllFence();
    ARMCI_Barrier();
    long mine = *static_cast<long*>(p_all[r]);
    EXPECT_EQ(mine, (r - 1 + n) % n + 1);
    if (r % 2 == 0) ARMCI_Free_group(p_even[r / 2], &evens);
    ARMCI_Free_group(p_all[r], &all);
  }
  if (r % 2 == 0) ARMCI_Group_free(&evens);
  ARMCI_Group_free(&all);
}

// ARMCI_PROGRESS_RANKS_USLEEP unset: 0 (poll) when every process of the machine has a core, else
// kSharedCorePauseUs.  Our test machines run program and progress ranks on fewer cores than processes, so there
// it must be the latter.
TEST(ProgressRanks, PollingPauseFollowsTheCores) {
  const char* k = std::getenv("ARMCI_PROGRESS_RANKS");
  if (!k || std::atoi(k) <= 0) GTEST_SKIP() << "no progress ranks";
  if (std::getenv("ARMCI_PROGRESS_RANKS_USLEEP")) GTEST_SKIP() << "set explicitly";
  const int pause = armcix::rt().resolved.progress_ranks_usleep;
  EXPECT_TRUE(pause == 0 || pause == armcix::kSharedCorePauseUs) << pause;
  cpu_set_t cpus;
  ASSERT_EQ(sched_getaffinity(0, sizeof cpus, &cpus), 0);
  // At least one progress rank besides the program ranks, all on this one machine (simulated hosts too).
  if (nproc() + 1 > CPU_COUNT(&cpus)) {
    EXPECT_EQ(pause, armcix::kSharedCorePauseUs) << "more processes than cores, yet the progress ranks would not sleep";
  }
}

// Core hand-off (progress/progress_ranks.h): where progress ranks share the cores, a program rank that waits
// longer than kHandoffAfterUs counts itself into the waiting word of its MPI node's progress ranks (which
// then poll on its core) and out again when the wait ends.  Rank 0 waits in ARMCI_Barrier while rank 1
// sleeps 30 ms, looks at the words, then joins; afterwards, while the others sleep (no wait), the words
// are back to 0.  Needs every program rank on one MPI node (manifest line progress-ranks-handoff), where each
// process reaches every progress rank's word; without ARMCI_PROGRESS_RANKS_HANDOFF_US it checks that the
// hand-off is off.
TEST(ProgressRanks, LongWaitsHandTheirCoreToTheProgressRanks) {
  const armcix::Runtime& rt = armcix::rt();
  if (rt.proxy_win == MPI_WIN_NULL) {
    EXPECT_FALSE(armcix::handoff_possible());
    GTEST_SKIP() << "no progress ranks";
  }
  const char* asked = std::getenv("ARMCI_PROGRESS_RANKS_HANDOFF_US");
  if (!asked || std::atoi(asked) <= 0) {
    EXPECT_FALSE(armcix::handoff_possible()) << "the hand-off is off by default";
    EXPECT_EQ(rt.machine_with_progress_ranks.ranks, 0) << "without the hand-off the waits count program ranks only";
    GTEST_SKIP() << "no hand-off asked for (manifest line progress-ranks-handoff)";
  }
  // On where progress ranks share the cores (every machine here: fewer cores than processes), and then the
  // program ranks' waits count the progress ranks (runtime/resolve.cc, resolve_wait_backoff): they must poll.
  if (rt.resolved.progress_ranks_handoff_us == 0) GTEST_SKIP() << "no hand-off here (a core per process)";
  EXPECT_TRUE(armcix::handoff_possible());
  EXPECT_EQ(rt.machine.ranks, rt.machine_with_progress_ranks.ranks);
  EXPECT_GT(rt.resolved.wait_backoff_us, 0);
  MPI_Comm shared;
  ASSERT_EQ(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared), MPI_SUCCESS);
  int shared_n = 0;
  MPI_Comm_size(shared, &shared_n);
  MPI_Comm_free(&shared);
  int every_on_my_mpi_node = 0, mine = shared_n == nproc() ? 1 : 0;
  MPI_Allreduce(&mine, &every_on_my_mpi_node, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!every_on_my_mpi_node || nproc() < 2) GTEST_SKIP() << "needs 2+ program ranks on one MPI node";
  ARMCI_Barrier();
  long seen = -1;
  if (me() == 1) {
    usleep(30000);
    seen = armcix::handoff_waiting_total();
  }
  ARMCI_Barrier();
  if (me() == 1) {
    EXPECT_GE(seen, 1) << "rank 0 waited 30 ms in ARMCI_Barrier without handing off its core";
  }
  if (me() != 1) usleep(50000);  // not a wait: nobody else is counted meanwhile
  if (me() == 1) {
    long now = -1;
    for (int i = 0; i < 40 && now != 0; ++i) {
      now = armcix::handoff_waiting_total();
      if (now != 0) usleep(1000);
    }
    EXPECT_EQ(now, 0) << "a wait that ended is still counted as waiting";
  }
  ARMCI_Barrier();
}

// A sleeping progress rank is woken through its wake channel (progress/progress_ranks.h, "Waking a progress
// rank over shared memory") by the program ranks of its MPI node, rather than at the end of its pause.  My
// own progress rank is always on my MPI node, and on a region spanning nodes my fetch-and-adds on my own
// slice go through it (doc/design.md, "Atomicity").  Each operation comes after a pause longer than the
// progress rank's awake window, so that it finds the progress rank asleep (its word set) at least some of
// the time; the test checks that wake-ups were sent and that every fetch-and-add counted once.  Without
// progress ranks there are no channels at all (proxy_wake tests an empty vector).  Run with a long pause
// as well (manifest line progress-ranks-wake, 0.1 s): without the wake-up every such operation would wait
// for it.
TEST(ProgressRanks, SleepingProgressRankIsWokenOverSharedMemory) {
  const armcix::Runtime& rt = armcix::rt();
  if (rt.proxy_win == MPI_WIN_NULL) {
    EXPECT_FALSE(armcix::proxy_wake_possible(0));
    GTEST_SKIP() << "no progress ranks";
  }
  const int r = me();
  EXPECT_TRUE(armcix::proxy_wake_possible(rt.proxy_of[r])) << "no channel to my own progress rank";
  if (rt.resolved.progress_ranks_usleep <= 0) GTEST_SKIP() << "progress ranks poll without sleeping";
  // One node: no region spans nodes, so nothing goes through the progress ranks.
  if (armci_domain_count(ARMCI_DOMAIN_SMP) < 2) GTEST_SKIP() << "one node";
  Alloc a(sizeof(long));
  a.at<long>(r)[0] = 0;
  ARMCI_Barrier();
  constexpr int kOps = 20;
  const uint64_t before = armcix::proxy_wakes_sent();
  for (int i = 0; i < kOps; ++i) {
    usleep(static_cast<useconds_t>(rt.config.progress_ranks_awake_us) + 20000);
    long old = -1;
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, a.at<long>(r), 1, r);
    EXPECT_EQ(old, i);
  }
  EXPECT_GT(armcix::proxy_wakes_sent(), before) << "no operation woke a progress rank";
  ARMCI_Barrier();
  long mine = 0;
  ARMCI_Get(a.at<long>(r), &mine, static_cast<int>(sizeof mine), r);
  EXPECT_EQ(mine, kOps);
  ARMCI_Barrier();
}
