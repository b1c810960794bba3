// MPI's rules for RMA that armci-x must keep (doc/design.md, "MPI's accumulate and memory-model rules"):
// windows whose memory is also read and written with loads and stores must have the unified memory model,
// and the mutexes' queue tails see one kind of atomic only (accumulate_ops = same_op_no_op, MPI's default,
// leaves concurrent accumulates with different operations on one location undefined).  The program
// interposes MPI_Win_get_attr, MPI_Fetch_and_op and MPI_Compare_and_swap (through PMPI) to see what the
// library asks and does.  Mixing Rmw swap, fetch-and-add and ARMCI_Acc on one word is allowed with a
// completion point between the kinds (doc/user-guide.md).
#include <algorithm>
#include <atomic>
#include <map>
#include <vector>

#include "test_util.h"

using namespace armcix_test;

namespace {
std::atomic<int> g_model_queries{0};
bool g_fake_separate = false;
// Per window: MPI_Fetch_and_op calls with an operation other than MPI_NO_OP, and MPI_Compare_and_swap calls.
std::map<MPI_Win, int> g_fetch_ops, g_cas_ops;
}  // namespace

extern "C" int MPI_Win_get_attr(MPI_Win win, int key, void* value, int* flag) {
  const int rc = PMPI_Win_get_attr(win, key, value, flag);
  if (key == MPI_WIN_MODEL) {
    ++g_model_queries;
    if (g_fake_separate && *flag) **static_cast<int**>(value) = MPI_WIN_SEPARATE;
  }
  return rc;
}

extern "C" int MPI_Fetch_and_op(const void* origin, void* result, MPI_Datatype type, int target, MPI_Aint disp,
                                MPI_Op op, MPI_Win win) {
  if (op != MPI_NO_OP) ++g_fetch_ops[win];
  return PMPI_Fetch_and_op(origin, result, type, target, disp, op, win);
}

extern "C" int MPI_Compare_and_swap(const void* origin, const void* compare, void* result, MPI_Datatype type,
                                    int target, MPI_Aint disp, MPI_Win win) {
  ++g_cas_ops[win];
  return PMPI_Compare_and_swap(origin, compare, result, type, target, disp, win);
}

// An MPI whose window has the separate model: ARMCI_Malloc refuses it with a clear error.  Every rank
// fakes it alike, so every rank fails alike.  First in the
// program: a later allocation could reuse a window made (and checked) before.
TEST(RmaRules, SeparateModelIsRefused) {
  ErrorCapture capture;
  g_fake_separate = true;
  std::vector<void*> ptrs(nproc());
  std::string msg;
  try {
    ARMCI_Malloc(ptrs.data(), 64);
  } catch (const ArmciError& e) {
    msg = e.message;
  }
  g_fake_separate = false;
  EXPECT_NE(std::string::npos, msg.find("ARMCI_Malloc")) << "message: '" << msg << "'";
  EXPECT_NE(std::string::npos, msg.find("MPI_WIN_SEPARATE")) << "message: '" << msg << "'";
  MPI_Barrier(MPI_COMM_WORLD);
}

// ARMCI_Malloc's windows are read and written with loads and stores by their owners (and node peers) while
// others reach them by RMA: the library must ask MPI for the window's memory model.
TEST(RmaRules, MallocChecksTheWindowModel) {
  const int before = g_model_queries.load();
  Alloc a(64);
  EXPECT_GT(g_model_queries.load(), before) << "ARMCI_Malloc never queried MPI_WIN_MODEL";
}

// Contended MCS mutexes (ARMCI_NODE_SIZE=1 or several cliques: not the node-local set): every operation on
// a tail is a compare-and-swap, none a fetch-and-op (swap = MPI_REPLACE would meet compare-and-swap there).
TEST(RmaRules, MutexTailsSeeOneKindOfAtomic) {
  const int n = nproc();
  ASSERT_EQ(0, ARMCI_Create_mutexes(1));
  Alloc a(sizeof(long));
  *a.at<long>(me()) = 0;
  ARMCI_Barrier();
  constexpr int kRounds = 30;
  for (int k = 0; k < kRounds; ++k) {
    ARMCI_Lock(0, n - 1);
    long v = 0;
    ARMCI_Get(a.at<long>(0), &v, sizeof v, 0);
    ++v;
    ARMCI_Put(&v, a.at<long>(0), sizeof v, 0);
    ARMCI_Unlock(0, n - 1);
  }
  ARMCI_Barrier();
  if (me() == 0) {
    EXPECT_EQ(static_cast<long>(n) * kRounds, *a.at<long>(0));
  }
  int cas = 0, fetch = 0;
  for (const auto& kv : g_cas_ops) cas += kv.second;
  for (const auto& kv : g_fetch_ops) fetch += kv.second;
  const char* method = std::getenv("ARMCI_MUTEX_METHOD");
  if (!method || std::string(method) == "MCS") {
    EXPECT_EQ(0, fetch) << "fetch-and-ops beside " << cas << " CAS";
  }
  ARMCI_Barrier();
  ASSERT_EQ(0, ARMCI_Destroy_mutexes());
}

// One word, three kinds of atomic update, each kind separated from the next by a completion point
// (ARMCI_Barrier: every process's operations complete, and nobody starts the next kind before): fetch-and-add
// from everyone, then swaps from everyone, then accumulates from everyone.
TEST(RmaRules, MixedAtomicKindsSeparatedByCompletionPoints) {
  const int n = nproc(), r = me();
  Alloc a(sizeof(long));
  *a.at<long>(r) = 0;
  ARMCI_Barrier();
  constexpr int kAdds = 20;
  std::vector<long> olds;
  for (int k = 0; k < kAdds; ++k) {
    long old = -1;
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, a.at<long>(0), 1, 0);
    olds.push_back(old);
  }
  ARMCI_Barrier();
  std::vector<long> all(static_cast<std::size_t>(n) * kAdds);
  MPI_Allgather(olds.data(), kAdds, MPI_LONG, all.data(), kAdds, MPI_LONG, MPI_COMM_WORLD);
  std::sort(all.begin(), all.end());
  for (long i = 0; i < static_cast<long>(all.size()); ++i) ASSERT_EQ(i, all[static_cast<std::size_t>(i)]);
  // Swaps: every value swapped in is swapped out exactly once, except the last, which stays.
  long old = 1000 + r;  // swapped with the word
  ARMCI_Rmw(ARMCI_SWAP_LONG, &old, a.at<long>(0), 0, 0);
  ARMCI_Barrier();
  std::vector<long> outs(n);
  MPI_Allgather(&old, 1, MPI_LONG, outs.data(), 1, MPI_LONG, MPI_COMM_WORLD);
  long last = 0;
  ARMCI_Get(a.at<long>(0), &last, sizeof last, 0);
  outs.push_back(last);
  std::sort(outs.begin(), outs.end());
  std::vector<long> want{static_cast<long>(n) * kAdds};
  for (int p = 0; p < n; ++p) want.push_back(1000 + p);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(want, outs);
  ARMCI_Barrier();
  long one = 1, three = 3;
  ARMCI_Acc(ARMCI_ACC_LNG, &one, &three, a.at<long>(0), sizeof(long), 0);
  ARMCI_Barrier();
  long fin = 0;
  ARMCI_Get(a.at<long>(0), &fin, sizeof fin, 0);
  EXPECT_EQ(last + 3L * n, fin);
  ARMCI_Barrier();
}
