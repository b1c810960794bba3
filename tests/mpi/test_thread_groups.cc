// Threads and groups at MPI_THREAD_MULTIPLE: a thread waiting for other processes in a collective must not
// stop the process's other threads (ARMCI_NODE_SYNC's barrier, ARMCI_COLLECTIVE_TIMEOUT's agreement), and
// two threads of each process may allocate and free on two groups with different members at once
// (doc/design.md, "Threads").  The program asks MPI for MPI_THREAD_MULTIPLE (mpi_test_main.cc,
// ARMCIX_TEST_THREAD_MULTIPLE).  Runs with 2 ranks or more.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

using namespace armcix_test;

namespace {

// How long a thread waits for something another process's thread does before the test calls it a hang.
constexpr int kHangSeconds = 20;

// Polls my own flag (set by another process's put) until it reads `want` or kHangSeconds pass.
bool wait_for_flag(int* flag, int want) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kHangSeconds);
  while (ARMCI_GetValueInt(flag, me()) != want) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

TEST(ThreadWaits, MpiProvidesMultiple) {
  int provided = 0;
  MPI_Query_thread(&provided);
  ASSERT_EQ(MPI_THREAD_MULTIPLE, provided);
}

// On rank 0 thread A enters ARMCI_Barrier while thread B of rank 0 puts the flag that rank 1's thread B
// waits for; rank 1's thread A enters the barrier only once its thread B saw the flag.  The barrier's wait
// (ARMCI_NODE_SYNC=1: the shared page; ARMCI_COLLECTIVE_TIMEOUT > 0: the agreement's polls) must let
// rank 0's thread B run.  Every other rank only joins the barrier.
TEST(ThreadWaits, BarrierDoesNotStopAnotherThreadsPut) {
  std::vector<void*> bases(nproc());
  ASSERT_EQ(0, ARMCI_Malloc(bases.data(), sizeof(int)));
  *static_cast<int*>(bases[me()]) = 0;
  ARMCI_Barrier();
  std::atomic<bool> seen{true};
  std::thread b([&] {
    if (me() == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // thread A is in the barrier
      ARMCI_PutValueInt(1, bases[1], 1);
      ARMCI_Fence(1);
      // And back, so that rank 0 sees a put of rank 1 made while its own thread A waits in the barrier.
      seen = wait_for_flag(static_cast<int*>(bases[0]), 1);
    } else if (me() == 1) {
      seen = wait_for_flag(static_cast<int*>(bases[1]), 1);
      ARMCI_PutValueInt(1, bases[0], 0);
      ARMCI_Fence(0);
    }
  });
  if (me() == 1) b.join();  // rank 1: thread B saw the flag (or gave up) before thread A enters
  ARMCI_Barrier();
  if (b.joinable()) b.join();
  EXPECT_TRUE(seen) << "rank " << me() << ": the other rank's flag did not arrive within " << kHangSeconds
                    << " s while a thread waited in ARMCI_Barrier";
  ARMCI_Barrier();
  ARMCI_Free(bases[me()]);
}

// Two threads of every process allocate and free at once, thread t on group t: group 0 lists the processes
// in world order, group 1 in reverse (different members lists: what may run at once, doc/design.md
// "Threads").  Sizes alternate between a pool block and a region of its own (a window of its own: MPI's
// window creation and MPI_Win_free, the window gate's collectives).  Each thread puts to its group's next
// member and checks what its previous member put.  A hang (a thread holding the API lock in one group's
// collective while the other group's collective waits for it) ends the job after kHangSeconds * 3.
TEST(ThreadGroups, TwoThreadsAllocateOnTwoGroupsAtOnce) {
  const int n = nproc();
  std::vector<int> fwd(n), rev(n);
  for (int i = 0; i < n; ++i) fwd[i] = i, rev[i] = n - 1 - i;
  ARMCI_Group groups[2];
  ARMCI_Group_create(n, fwd.data(), &groups[0]);
  ARMCI_Group_create(n, rev.data(), &groups[1]);
  std::atomic<bool> done{false};
  std::thread watchdog([&] {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3 * kHangSeconds);
    while (!done && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (done) return;
    std::fprintf(stderr, "[rank %d] HANG: two threads allocating on two groups did not finish within %d s\n", me(),
                 3 * kHangSeconds);
    std::fflush(stderr);
    std::_Exit(3);
  });
  constexpr int kRounds = 12;
  auto body = [&](int t) {
    ARMCI_Group* g = &groups[t];
    int gme = -1, gsize = 0;
    ARMCI_Group_rank(g, &gme);
    ARMCI_Group_size(g, &gsize);
    const int next = (gme + 1) % gsize, prev = (gme + gsize - 1) % gsize;
    const int next_abs = ARMCI_Absolute_id(g, next);
    for (int round = 0; round < kRounds; ++round) {
      const std::size_t words = round % 2 ? 64 * 1024 : 16;
      std::vector<void*> ptrs(gsize);
      ASSERT_EQ(0, ARMCI_Malloc_group(ptrs.data(), static_cast<armci_size_t>(words * sizeof(long)), g));
      std::vector<long> src(words);
      for (std::size_t i = 0; i < words; ++i)
        src[i] = (t * 1000 + round) * 100000L + gme * 1000L + static_cast<long>(i % 1000);
      ASSERT_EQ(0, ARMCI_Put(src.data(), ptrs[next], static_cast<int>(words * sizeof(long)), next_abs));
      ARMCI_Fence(next_abs);
      // Every member's put has landed once every member has fenced: a second allocation on the group is
      // the barrier (ARMCI_Barrier is the world's, which the other thread may be using).
      std::vector<void*> sync(gsize);
      ASSERT_EQ(0, ARMCI_Malloc_group(sync.data(), 0, g));
      const long* mine = static_cast<const long*>(ptrs[gme]);
      ARMCI_Access_begin(ptrs[gme]);
      for (std::size_t i = 0; i < words; ++i)
        ASSERT_EQ((t * 1000 + round) * 100000L + prev * 1000L + static_cast<long>(i % 1000), mine[i])
            << "thread " << t << " round " << round << " word " << i;
      ARMCI_Access_end(ptrs[gme]);
      ASSERT_EQ(0, ARMCI_Malloc_group(sync.data(), 0, g));  // nobody frees before everybody has read
      ASSERT_EQ(0, ARMCI_Free_group(ptrs[gme], g));
    }
  };
  std::thread other(body, 1);
  body(0);
  other.join();
  done = true;
  watchdog.join();
  ARMCI_Barrier();
  ARMCI_Group_free(&groups[1]);
  ARMCI_Group_free(&groups[0]);
}

// Two groups with the same members at once (not supported: the program must order them, doc/design.md
// "Threads"): rank 0's threads call ARMCI_Malloc_group on groups X and Y, created from one list, the second
// 200 ms after the first.  The first waits in its collective for rank 1; the second gets a named error at
// once (no collective started) and tells rank 1 which group to join.  (If the machine delays the first
// thread past the second, their roles swap.)
TEST(ThreadGroups, SameMembersAtOnceIsANamedError) {
  const int n = nproc();
  std::vector<int> list(n);
  for (int i = 0; i < n; ++i) list[i] = i;
  ARMCI_Group groups[2];
  ARMCI_Group_create(n, list.data(), &groups[0]);
  ARMCI_Group_create(n, list.data(), &groups[1]);
  std::vector<void*> ptrs[2] = {std::vector<void*>(n), std::vector<void*>(n)};
  int joined = -1;  // the group whose allocation went ahead
  if (me() == 0) {
    ErrorCapture capture;
    std::string messages[2];
    auto body = [&](int t) {
      if (t == 1) std::this_thread::sleep_for(std::chrono::milliseconds(200));
      try {
        ARMCI_Malloc_group(ptrs[t].data(), 8, &groups[t]);
      } catch (const ArmciError& e) {
        messages[t] = e.message;
        int other = 1 - t;
        for (int p = 1; p < n; ++p) MPI_Send(&other, 1, MPI_INT, p, 77, MPI_COMM_WORLD);
      }
    };
    std::thread second(body, 1);
    body(0);
    second.join();
    ASSERT_TRUE(messages[0].empty() != messages[1].empty()) << "exactly one of the two calls must fail";
    const std::string& m = messages[0].empty() ? messages[1] : messages[0];
    EXPECT_NE(m.find("ARMCI_Malloc_group"), std::string::npos) << m;
    EXPECT_NE(m.find("another thread of this process"), std::string::npos) << m;
    EXPECT_NE(m.find("same members"), std::string::npos) << m;
    joined = messages[0].empty() ? 0 : 1;
  } else {
    MPI_Recv(&joined, 1, MPI_INT, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT_EQ(0, ARMCI_Malloc_group(ptrs[joined].data(), 8, &groups[joined]));
  }
  EXPECT_EQ(0, ARMCI_Free_group(ptrs[joined][me()], &groups[joined]));
  ARMCI_Group_free(&groups[1]);
  ARMCI_Group_free(&groups[0]);
  ARMCI_Barrier();
}

}  // namespace
