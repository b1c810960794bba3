// Threads: ARMCI at MPI_THREAD_MULTIPLE with several threads per rank calling it at once (put, get,
// accumulate, non-blocking handles, Rmw, mutexes, local allocation, collective allocation on one thread
// while others transfer), and the waits that must not stop the process's other threads (a thread blocked
// in ARMCI_Lock or ARMCI_Barrier while another thread of its process must act for the wait to end).
// Collectives run on the main thread only, as MPI requires.  The program asks MPI for
// MPI_THREAD_MULTIPLE (mpi_test_main.cc, ARMCIX_TEST_THREAD_MULTIPLE).
#include <message.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

using namespace armcix_test;

namespace {

constexpr int kThreads = 3;

// Runs body(t) on kThreads threads and joins them.  A failed gtest assertion in a thread is recorded
// (gtest is thread-safe on pthreads) and the thread returns.
void run_threads(const std::function<void(int)>& body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
  for (auto& th : threads) th.join();
}

// One collective allocation, every rank's base known.
struct Region {
  explicit Region(std::size_t bytes) : bases(nproc()) {
    EXPECT_EQ(0, ARMCI_Malloc(bases.data(), static_cast<armci_size_t>(bytes)));
  }
  ~Region() { ARMCI_Free(bases[me()]); }
  template <class T>
  T* at(int rank) const {
    return static_cast<T*>(bases[rank]);
  }
  std::vector<void*> bases;
};

TEST(Threads, MpiProvidesMultiple) {
  int provided = 0;
  MPI_Query_thread(&provided);
  ASSERT_EQ(MPI_THREAD_MULTIPLE, provided) << "the thread tests need MPI_THREAD_MULTIPLE";
}

// Every thread puts its own block to the right neighbour with small and large puts, gets it back, and
// after the barrier the neighbour finds every thread's block in its memory.
TEST(Threads, ConcurrentPutGet) {
  constexpr int kInts = 512;  // per thread
  Region r(sizeof(int) * kInts * kThreads);
  const int right = (me() + 1) % nproc(), left = (me() + nproc() - 1) % nproc();
  ARMCI_Barrier();
  run_threads([&](int t) {
    int* dst = r.at<int>(right) + t * kInts;
    std::vector<int> src(kInts), back(kInts, -1);
    for (int i = 0; i < kInts; ++i) src[i] = me() * 1000000 + t * 10000 + i;
    for (int i = 0; i < kInts; i += 2) ARMCI_Put(&src[i], dst + i, 2 * sizeof(int), right);  // 8-byte puts
    ARMCI_Put(src.data(), dst, kInts / 2 * sizeof(int), right);                              // and one large one
    ARMCI_Fence(right);
    ARMCI_Get(dst, back.data(), kInts * sizeof(int), right);
    EXPECT_EQ(src, back) << "thread " << t;
  });
  ARMCI_Barrier();
  const int* mine = r.at<int>(me());
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kInts; ++i) ASSERT_EQ(left * 1000000 + t * 10000 + i, mine[t * kInts + i]);
  ARMCI_Barrier();
}

// All threads of all ranks accumulate into every rank's array (contiguous and strided): the sums must be
// exact, so no accumulate was lost or torn between threads.
TEST(Threads, ConcurrentAccumulate) {
  constexpr int kLen = 64, kRounds = 40;
  Region r(sizeof(long) * kLen);
  ARMCI_Barrier();
  run_threads([&](int t) {
    std::vector<long> ones(kLen, 1);
    long scale = 1;
    for (int k = 0; k < kRounds; ++k) {
      const int p = (me() + t + k) % nproc();
      if (k % 2 == 0) {
        ARMCI_Acc(ARMCI_ACC_LNG, &scale, ones.data(), r.at<long>(p), kLen * sizeof(long), p);
      } else {  // 8 rows of 8 longs, as a 2-d patch
        int stride[1] = {8 * sizeof(long)}, count[2] = {8 * sizeof(long), kLen / 8};
        ARMCI_AccS(ARMCI_ACC_LNG, &scale, ones.data(), stride, r.at<long>(p), stride, count, 1, p);
      }
    }
    (void)t;
  });
  ARMCI_AllFence();
  ARMCI_Barrier();
  const long* mine = r.at<long>(me());
  // Rank q's thread t hits p = (q + t + k) % n: count the (q, t, k) that land here.
  long expected = 0;
  for (int q = 0; q < nproc(); ++q)
    for (int t = 0; t < kThreads; ++t)
      for (int k = 0; k < kRounds; ++k) expected += (q + t + k) % nproc() == me();
  for (int i = 0; i < kLen; ++i) ASSERT_EQ(expected, mine[i]) << "element " << i;
  ARMCI_Barrier();
}

// Each thread keeps its own handles: a batch of non-blocking puts, then gets of the same data, completed
// with ARMCI_Wait and ARMCI_Test, plus an aggregate handle.  This is what GA's thread_perf programs do, and
// what failed with "handle ... was never initialised" when the request table was shared unguarded.
TEST(Threads, NonBlockingHandlesPerThread) {
  constexpr int kOps = 16, kInts = 32;
  Region r(sizeof(int) * kOps * kInts * kThreads);
  const int right = (me() + 1) % nproc();
  ARMCI_Barrier();
  run_threads([&](int t) {
    std::vector<int> src(kOps * kInts), back(kOps * kInts, -1);
    std::iota(src.begin(), src.end(), me() * 100000 + t * 1000);
    int* dst = r.at<int>(right) + t * kOps * kInts;
    for (int round = 0; round < 5; ++round) {
      armci_hdl_t h[kOps];
      for (int i = 0; i < kOps; ++i) {
        ARMCI_INIT_HANDLE(&h[i]);
        ARMCI_NbPut(&src[i * kInts], dst + i * kInts, kInts * sizeof(int), right, &h[i]);
      }
      for (int i = 0; i < kOps; ++i) EXPECT_EQ(0, i % 2 ? ARMCI_Wait(&h[i]) : ARMCI_Test(&h[i]));
      ARMCI_Fence(right);
      armci_hdl_t agg;
      ARMCI_INIT_HANDLE(&agg);
      ARMCI_SET_AGGREGATE_HANDLE(&agg);
      for (int i = 0; i < kOps; ++i) ARMCI_NbGet(dst + i * kInts, &back[i * kInts], kInts * sizeof(int), right, &agg);
      EXPECT_EQ(0, ARMCI_Wait(&agg));
      EXPECT_EQ(src, back) << "thread " << t << " round " << round;
      std::fill(back.begin(), back.end(), -1);
    }
  });
  ARMCI_Barrier();
}

// Global Arrays 5.8's pool of ARMCI handles is shared by its threads without a lock: two threads may
// initialise, use and wait on the same handle at once.  The interleaving GA's thread_perf programs hit is
// forced here step by step: A issues a get on the handle, B re-initialises it and issues its own get, A
// waits (on B's request), then B waits (on a handle already waited).  At MPI_THREAD_MULTIPLE no call may
// fail and each thread's data must be complete when its ARMCI_Wait returns (src/nb/request.cc).
TEST(Threads, HandleSharedBetweenThreadsAsGaDoes) {
  constexpr int kInts = 4096, kRounds = 20;
  Region r(sizeof(int) * kInts * 2);
  const int right = (me() + 1) % nproc();
  for (int t = 0; t < 2; ++t)
    for (int i = 0; i < kInts; ++i) r.at<int>(me())[t * kInts + i] = me() * 100000 + t * 10000 + i;
  ARMCI_Barrier();
  armci_hdl_t shared;  // one handle for both threads, as in GA's pool
  std::atomic<int> step{0}, bad{0}, errors{0};
  auto await = [&](int s) {
    while (step.load() < s) std::this_thread::yield();
  };
  auto thread_body = [&](int t) {
    std::vector<int> back(kInts);
    for (int k = 0; k < kRounds; ++k) {
      const int base = 4 * k;
      std::fill(back.begin(), back.end(), -1);
      try {
        await(base + t);  // A at step 4k, B at step 4k+1
        ARMCI_INIT_HANDLE(&shared);
        ARMCI_NbGet(r.at<int>(right) + t * kInts, back.data(), kInts * sizeof(int), right, &shared);
        ++step;
        await(base + 2 + t);  // A waits at step 4k+2 (on B's request), B at 4k+3 (already waited)
        ARMCI_Wait(&shared);
      } catch (const ArmciError& e) {
        ++errors;
        ADD_FAILURE() << "thread " << t << ": " << e.message;
      }
      ++step;
      for (int i = 0; i < kInts; ++i)
        if (back[i] != right * 100000 + t * 10000 + i) {
          ++bad;
          break;
        }
    }
  };
  {
    ErrorCapture capture;
    std::thread a(thread_body, 0), b(thread_body, 1);
    a.join();
    b.join();
  }
  EXPECT_EQ(0, errors.load());
  EXPECT_EQ(0, bad.load()) << "a get was not complete when ARMCI_Wait on the shared handle returned";
  ARMCI_Barrier();
}

// Fetch-and-add from every thread of every rank on one counter: the fetched values are exactly
// 0..total-1, each once.
TEST(Threads, RmwFetchAndAddIsAtomic) {
  constexpr int kRounds = 50;
  Region r(sizeof(int));
  *r.at<int>(me()) = 0;
  ARMCI_Barrier();
  std::vector<std::vector<int>> got(kThreads);
  run_threads([&](int t) {
    for (int k = 0; k < kRounds; ++k) {
      int old = -1;
      ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, r.at<int>(0), 1, 0);
      got[t].push_back(old);
    }
  });
  std::vector<int> mine;
  for (auto& v : got) mine.insert(mine.end(), v.begin(), v.end());
  std::vector<int> all(mine.size() * nproc());
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_INT, all.data(), static_cast<int>(mine.size()), MPI_INT,
                MPI_COMM_WORLD);
  std::sort(all.begin(), all.end());
  for (int i = 0; i < static_cast<int>(all.size()); ++i) ASSERT_EQ(i, all[i]);
  ARMCI_Barrier();
}

// A read-modify-write that is atomic only under the mutex: get, add, put from every thread of every
// rank, all on one mutex (threads of one process contend with each other and with other processes), then
// on one mutex per thread.
TEST(Threads, MutexesSerialiseThreadsAndProcesses) {
  constexpr int kRounds = 20;
  ASSERT_EQ(0, ARMCI_Create_mutexes(kThreads));
  Region r(sizeof(long) * (kThreads + 1));
  for (int i = 0; i <= kThreads; ++i) r.at<long>(me())[i] = 0;
  ARMCI_Barrier();
  run_threads([&](int t) {
    for (int k = 0; k < kRounds; ++k) {
      // Mutex 0 of rank 0 guards slot 0; mutex t of the last rank guards slot t + 1.
      const bool shared = k % 2 == 0;
      const int m = shared ? 0 : t, host = shared ? 0 : nproc() - 1;
      long* slot = r.at<long>(0) + (shared ? 0 : t + 1);
      ARMCI_Lock(m, host);
      long v = 0;
      ARMCI_Get(slot, &v, sizeof v, 0);
      std::this_thread::yield();  // widen the window in which an unserialised update would be lost
      ++v;
      ARMCI_Put(&v, slot, sizeof v, 0);
      ARMCI_Unlock(m, host);
    }
  });
  ARMCI_Barrier();
  if (me() == 0) {
    const long* c = r.at<long>(0);
    EXPECT_EQ(static_cast<long>(nproc()) * kThreads * (kRounds / 2), c[0]);
    for (int t = 0; t < kThreads; ++t)
      EXPECT_EQ(static_cast<long>(nproc()) * (kRounds / 2), c[t + 1]) << "thread " << t;
  }
  ARMCI_Barrier();
  ASSERT_EQ(0, ARMCI_Destroy_mutexes());
}

// Mutex ids past the least MPI_TAG_UB (32767): a set with more mutexes than that, two of the last rank's
// highest mutexes X and Y, each wanted by its own thread of every rank.  First, deterministically: rank 1
// holds X and Y, rank 0's thread 0 queues for X, then its thread 1 for Y, and rank 1 hands Y over first.
// Each waiting thread must receive its own hand-off (once they shared one tag and thread 0 took Y's:
// "internal error: waiting for mutex id ..."). Then both threads of every rank contend, get-increment-put
// under the lock, and no update may be lost.
TEST(Threads, MutexHandoffsOfHighIdsReachTheirOwnThread) {
  const int n = nproc(), host = n - 1;
  if (n < 2) GTEST_SKIP() << "needs 2 ranks";
  const int count = 40000 / n + 1;  // ids up to n * count - 1 >= 40000
  ASSERT_EQ(0, ARMCI_Create_mutexes(count));
  const int mutex[2] = {count - 1, count - 2};
  Region r(sizeof(long) * 2);
  r.at<long>(me())[0] = r.at<long>(me())[1] = 0;
  ARMCI_Barrier();
  if (me() == 1) {
    ARMCI_Lock(mutex[0], host);
    ARMCI_Lock(mutex[1], host);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me() == 0) {
    std::vector<std::thread> waiters;
    for (int t = 0; t < 2; ++t)
      waiters.emplace_back([&, t] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300 * t));
        ARMCI_Lock(mutex[t], host);
        ARMCI_Unlock(mutex[t], host);
      });
    for (auto& w : waiters) w.join();
  } else if (me() == 1) {
    std::this_thread::sleep_for(std::chrono::milliseconds(900));
    ARMCI_Unlock(mutex[1], host);
    ARMCI_Unlock(mutex[0], host);
  }
  ARMCI_Barrier();
  constexpr int kRounds = 40;
  std::vector<std::thread> workers;
  for (int t = 0; t < 2; ++t)
    workers.emplace_back([&, t] {
      long* slot = r.at<long>(0) + t;
      for (int k = 0; k < kRounds; ++k) {
        ARMCI_Lock(mutex[t], host);
        long v = 0;
        ARMCI_Get(slot, &v, sizeof v, 0);
        std::this_thread::yield();
        ++v;
        ARMCI_Put(&v, slot, sizeof v, 0);
        ARMCI_Fence(0);
        ARMCI_Unlock(mutex[t], host);
      }
    });
  for (auto& w : workers) w.join();
  ARMCI_Barrier();
  if (me() == 0) {
    for (int t = 0; t < 2; ++t) EXPECT_EQ(static_cast<long>(n) * kRounds, r.at<long>(0)[t]) << "mutex " << mutex[t];
  }
  ARMCI_Barrier();
  ASSERT_EQ(0, ARMCI_Destroy_mutexes());
}

// Trylock from several threads of one process on one mutex: at most one thread holds it at any time.
TEST(Threads, TrylockAdmitsOneThread) {
  ARMCI_Group world;
  ARMCI_Group_get_world(&world);
  armcix_mutex_hdl_t h = ARMCIX_Create_mutexes_hdl(1, &world);
  ASSERT_NE(nullptr, h);
  std::atomic<int> inside{0}, max_inside{0}, taken{0};
  run_threads([&](int) {
    for (int k = 0; k < 30; ++k) {
      if (ARMCIX_Trylock_hdl(h, 0, me()) != 0) {
        std::this_thread::yield();
        continue;
      }
      const int now = ++inside;
      int seen = max_inside.load();
      while (now > seen && !max_inside.compare_exchange_weak(seen, now)) {
      }
      ++taken;
      std::this_thread::yield();
      --inside;
      ARMCIX_Unlock_hdl(h, 0, me());
    }
  });
  EXPECT_EQ(1, max_inside.load());
  EXPECT_GT(taken.load(), 0);
  ARMCI_Barrier();
  ASSERT_EQ(0, ARMCIX_Destroy_mutexes_hdl(h));
}

// Locking a mutex the calling thread already holds is an error naming the thread, not a hang.
TEST(Threads, RelockFromHoldingThreadIsAnError) {
  ASSERT_EQ(0, ARMCI_Create_mutexes(1));
  ARMCI_Lock(0, me());
  {
    ErrorCapture capture;
    try {
      ARMCI_Lock(0, me());
      ADD_FAILURE() << "relocking did not fail";
    } catch (const ArmciError& e) {
      EXPECT_NE(std::string::npos, e.message.find("ARMCI_Lock")) << e.message;
      EXPECT_NE(std::string::npos, e.message.find("already held by the calling thread")) << e.message;
    }
  }
  ARMCI_Unlock(0, me());
  ARMCI_Barrier();
  ASSERT_EQ(0, ARMCI_Destroy_mutexes());
}

// Rank 0 holds mutex 0 until a flag written by rank 1 arrives.  On rank 1 one thread waits in ARMCI_Lock
// for that mutex while another thread of the same process writes the flag: if the waiting thread kept
// the library to itself, the flag would never be written (deadlock, caught by the timeout).
TEST(Threads, ThreadBlockedInLockDoesNotStopOtherThreads) {
  ASSERT_EQ(0, ARMCI_Create_mutexes(1));
  Region r(sizeof(int));
  *r.at<int>(me()) = 0;
  ARMCI_Barrier();
  if (me() == 0) {
    ARMCI_Lock(0, 0);
    MPI_Barrier(MPI_COMM_WORLD);  // rank 1 may start now
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (ARMCI_GetValueInt(r.at<int>(0), 0) != 1 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    EXPECT_EQ(1, ARMCI_GetValueInt(r.at<int>(0), 0));
    ARMCI_Unlock(0, 0);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    std::atomic<bool> locked{false};
    std::thread waiter([&] {
      ARMCI_Lock(0, 0);
      locked = true;
      ARMCI_Unlock(0, 0);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let the waiter queue first
    if (me() == 1) {
      ARMCI_PutValueInt(1, r.at<int>(0), 0);
      ARMCI_Fence(0);
    }
    waiter.join();
    EXPECT_TRUE(locked.load());
  }
  ARMCI_Barrier();
  ASSERT_EQ(0, ARMCI_Destroy_mutexes());
}

// Rank 0's main thread enters ARMCI_Barrier while a second thread of rank 0 must first write the flag
// that every other rank waits for before it enters the barrier.
TEST(Threads, ThreadInBarrierDoesNotStopOtherThreads) {
  Region r(sizeof(int));
  *r.at<int>(me()) = 0;
  ARMCI_Barrier();
  if (me() == 0) {
    std::thread writer([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the main thread is in the barrier
      for (int p = 1; p < nproc(); ++p) {
        ARMCI_PutValueInt(1, r.at<int>(p), p);
        ARMCI_Fence(p);
      }
    });
    ARMCI_Barrier();
    writer.join();
  } else {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (ARMCI_GetValueInt(r.at<int>(me()), me()) != 1 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    EXPECT_EQ(1, ARMCI_GetValueInt(r.at<int>(me()), me()));
    ARMCI_Barrier();
  }
  ARMCI_Barrier();
}

// Collective allocation and free on the main thread while the other threads transfer into a region
// allocated before: the region table changes under the transfers' lookups.  Meanwhile the workers also
// allocate and free local memory.
TEST(Threads, MallocFreeWhileOtherThreadsTransfer) {
  constexpr int kInts = 256;
  Region r(sizeof(int) * kInts * kThreads);
  const int right = (me() + 1) % nproc();
  ARMCI_Barrier();
  std::atomic<bool> stop{false};
  std::vector<std::thread> workers;
  std::atomic<int> errors{0};
  for (int t = 0; t < kThreads - 1; ++t)
    workers.emplace_back([&, t] {
      std::vector<int> src(kInts), back(kInts);
      int* dst = r.at<int>(right) + t * kInts;
      for (int iter = 0; !stop.load() || iter < 20; ++iter) {
        std::fill(src.begin(), src.end(), iter * 10 + t);
        ARMCI_Put(src.data(), dst, kInts * sizeof(int), right);
        ARMCI_Get(dst, back.data(), kInts * sizeof(int), right);
        if (back != src) ++errors;
        void* local = ARMCI_Malloc_local(1024 + iter % 7 * 100);
        if (!local) ++errors;
        ARMCI_Free_local(local);
      }
    });
  for (int k = 0; k < 15; ++k) {
    std::vector<void*> bases(nproc());
    ASSERT_EQ(0, ARMCI_Malloc(bases.data(), 4096 + 512 * (k % 3)));
    static_cast<int*>(bases[me()])[0] = k;
    ARMCI_Barrier();
    EXPECT_EQ(k, ARMCI_GetValueInt(bases[right], right));
    ARMCI_Barrier();
    ARMCI_Free(bases[me()]);
  }
  stop = true;
  for (auto& w : workers) w.join();
  EXPECT_EQ(0, errors.load());
  ARMCI_Barrier();
}

// ---- Stress: every kind of call from several threads at once, every result checked exactly -------------

// Worker threads issue explicit-handle gets (landing in ARMCI memory: staged under ARMCI_SHR_BUF_METHOD=COPY)
// and accumulates, wait for them, take an ARMCI mutex around a get-increment-put, fence, and run message
// collectives on a group of their own, while the main thread creates and frees groups, enters barriers and
// fences all targets -- each of which completes the process's outstanding requests, other threads' included.
// Completing a request another thread is waiting for must not run its copy-outs early or free its buffers
// while MPI still writes them: every get is checked value by value, every accumulate and increment counted.
TEST(ThreadStress, MixedCallsKeepEveryResultExact) {
  const int n = nproc(), r = me();
  constexpr int kWorkers = 3, kIters = 200, kInts = 512, kMainRounds = 12;
  Region src(sizeof(int) * kInts * kWorkers);   // read by gets: worker w of every rank reads part w
  Region dst(sizeof(int) * kInts * kWorkers);   // where this rank's gets land
  Region acc(sizeof(long) * kInts * kWorkers);  // accumulated into: part w by worker w of the other ranks
  Region counter(sizeof(long));                 // rank 0's: incremented under mutex 0 of rank 0
  auto value = [](int rank, int w, int i) { return rank * 1000003 + w * 10007 + i; };
  ARMCI_Access_begin(src.bases[r]);
  for (int w = 0; w < kWorkers; ++w)
    for (int i = 0; i < kInts; ++i) src.at<int>(r)[w * kInts + i] = value(r, w, i);
  ARMCI_Access_end(src.bases[r]);
  ARMCI_Access_begin(acc.bases[r]);
  std::fill(acc.at<long>(r), acc.at<long>(r) + kInts * kWorkers, 0L);
  ARMCI_Access_end(acc.bases[r]);
  *counter.at<long>(r) = 0;
  ASSERT_EQ(0, ARMCI_Create_mutexes(1));
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  std::vector<ARMCI_Group> groups(kWorkers);
  for (auto& g : groups) ARMCI_Group_create(n, all.data(), &g);
  ARMCI_Barrier();

  std::atomic<int> bad_gets{0}, bad_msgs{0}, workers_left{kWorkers};
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w)
    workers.emplace_back([&, w] {
      std::vector<long> ones(kInts, 1);
      long scale = 1;
      int* mine = dst.at<int>(r) + w * kInts;
      for (int it = 0; it < kIters; ++it) {
        const int to = (r + 1 + it) % n;
        std::fill(mine, mine + kInts, -1);
        armci_hdl_t get_h, acc_h;
        ARMCI_INIT_HANDLE(&get_h);
        ARMCI_INIT_HANDLE(&acc_h);
        EXPECT_EQ(0, ARMCI_NbGet(src.at<int>(to) + w * kInts, mine, kInts * sizeof(int), to, &get_h));
        EXPECT_EQ(0, ARMCI_NbAcc(ARMCI_ACC_LNG, &scale, ones.data(), acc.at<long>(to) + w * kInts, kInts * sizeof(long),
                                 to, &acc_h));
        EXPECT_EQ(0, ARMCI_Wait(&get_h));
        int wrong = 0;
        for (int i = 0; i < kInts; ++i) wrong += mine[i] != value(to, w, i);
        if (wrong) ++bad_gets;
        EXPECT_EQ(0, ARMCI_Wait(&acc_h));
        if (it % 8 == 0) {
          ARMCI_Lock(0, 0);
          long v = 0;
          ARMCI_Get(counter.at<long>(0), &v, sizeof v, 0);
          ++v;
          ARMCI_Put(&v, counter.at<long>(0), sizeof v, 0);
          ARMCI_Unlock(0, 0);
        }
        if (it % 16 == 0) ARMCI_AllFence();
        if (it % 10 == 0) {
          int x = 1;
          armci_msg_group_igop(&x, 1, const_cast<char*>("+"), &groups[w]);
          if (x != n) ++bad_msgs;
        }
      }
      --workers_left;
    });
  for (int k = 0; k < kMainRounds; ++k) {
    ARMCI_Group g;
    ARMCI_Group_create(n, all.data(), &g);
    ARMCI_Barrier();
    ARMCI_Group_free(&g);
    ARMCI_AllFence();
  }
  while (workers_left.load() > 0) ARMCI_AllFence();  // not collective: as many as it takes
  for (auto& t : workers) t.join();
  // Calls made by the workers (get, acc, two waits; a lock, get, put, unlock every 8th; a fence-all every 16th;
  // a message every 10th): information for comparisons, never asserted.
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const long calls = kWorkers * (4L * kIters + 4L * ((kIters + 7) / 8) + (kIters + 15) / 16 + (kIters + 9) / 10);
  if (r == 0)
    std::printf("[   info   ] ThreadStress: %ld worker calls in %.3f s: %.0f calls/s per rank\n", calls, seconds,
                calls / seconds);
  ARMCI_Barrier();
  EXPECT_EQ(0, bad_gets.load()) << "gets (of " << kWorkers * kIters << ") whose data was wrong after ARMCI_Wait";
  EXPECT_EQ(0, bad_msgs.load()) << "armci_msg_group_igop results that were wrong";
  // Accumulates into my part w: one per iteration of worker w of every rank whose target sequence names me.
  long want = 0;
  for (int from = 0; from < n; ++from)
    for (int it = 0; it < kIters; ++it) want += (from + 1 + it) % n == r;
  ARMCI_Access_begin(acc.bases[r]);
  int wrong_acc = 0;
  for (int w = 0; w < kWorkers; ++w)
    for (int i = 0; i < kInts; ++i) wrong_acc += acc.at<long>(r)[w * kInts + i] != want;
  ARMCI_Access_end(acc.bases[r]);
  EXPECT_EQ(0, wrong_acc) << "accumulated values != " << want;
  if (r == 0) {
    long c = 0;
    ARMCI_Get(counter.at<long>(0), &c, sizeof c, 0);
    EXPECT_EQ(static_cast<long>(n) * kWorkers * ((kIters + 7) / 8), c);
  }
  ARMCI_Barrier();
  for (auto& g : groups) ARMCI_Group_free(&g);
  ASSERT_EQ(0, ARMCI_Destroy_mutexes());
}

// ARMCI_WATCHDOG_S (checks/watchdog.h) times each call from its own start.  Rank 1 holds K mutexes of rank 0
// and releases mutex k at 0.5 k + 1 s; on rank 0 two threads take turns to wait for them, thread k % 2 calling
// ARMCI_Lock(k, 0) at 0.5 k s.  Every wait lasts about 1 s and the next begins half a second before it ends,
// so rank 0 always has a call in progress for 5.5 s, none of them long.  The manifest runs this with
// ARMCI_WATCHDOG_S=2: a watchdog that timed rank 0's calls from the first of that unbroken run ends it.
TEST(ThreadStress, OverlappingCallsKeepTheWatchdogQuiet) {
  if (!std::getenv("ARMCI_WATCHDOG_S")) GTEST_SKIP() << "needs ARMCI_WATCHDOG_S (the manifest's threads-watchdog)";
  constexpr int kMutexes = 10;
  ASSERT_EQ(0, ARMCI_Create_mutexes(kMutexes));
  ARMCI_Barrier();
  if (me() == 1)
    for (int k = 0; k < kMutexes; ++k) ARMCI_Lock(k, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  const auto start = std::chrono::steady_clock::now();
  auto at = [&](double s) { return start + std::chrono::microseconds(static_cast<long>(s * 1e6)); };
  if (me() == 0) {
    std::vector<std::thread> waiters;
    for (int t = 0; t < 2; ++t)
      waiters.emplace_back([&, t] {
        for (int k = t; k < kMutexes; k += 2) {
          std::this_thread::sleep_until(at(0.5 * k));
          ARMCI_Lock(k, 0);
          ARMCI_Unlock(k, 0);
        }
      });
    for (auto& w : waiters) w.join();
  } else if (me() == 1) {
    for (int k = 0; k < kMutexes; ++k) {
      std::this_thread::sleep_until(at(0.5 * k + 1.0));
      ARMCI_Unlock(k, 0);
    }
  }
  ARMCI_Barrier();
  ASSERT_EQ(0, ARMCI_Destroy_mutexes());
}

}  // namespace
