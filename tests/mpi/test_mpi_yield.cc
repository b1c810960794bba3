// ARMCI_MPI_YIELD (wait/mpi_yield.h): while the mode is on, the MPI functions armci-x defines
// (mpiwrap/mpi_world.cc) complete blocking calls through their non-blocking forms with back-off, and build
// communicators from cached templates.  Every test compares a wrapped call with the plain one (PMPI_*) or
// with values computed here, and checks through mpi_yield_count() that the yielding path was taken exactly
// when the mode is on.  tests/manifest.txt runs this with the mode forced on, forced off, on auto, on auto
// with every rank on one core (so auto must be on), and with progress ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "base/state.h"
#include "progress/progress_ranks.h"
#include "test_util.h"
#include "wait/mpi_yield.h"
#include "wait/yield_timer.h"

namespace {

using armcix_test::me;
using armcix_test::nproc;

// The program's world for the test's own PMPI_* calls, which bypass the wrappers: with progress ranks the
// real MPI_COMM_WORLD also holds the progress ranks, which never join a collective (mpiwrap/mpi_world.cc).
// A duplicate made through the wrapper, so of the program ranks' communicator; kept until MPI_Finalize.
MPI_Comm world() {
  static MPI_Comm w = [] {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    return c;
  }();
  return w;
}

bool on() {
  return armcix::mpi_yield_on();
}

// Counts the calls completed through the yielding path while it lives; `took_path()` is true when that
// count grew iff the mode is on (off: the wrappers must pass calls through unchanged).
class YieldPath {
 public:
  YieldPath() : before_(armcix::mpi_yield_count()) {}
  uint64_t calls() const { return armcix::mpi_yield_count() - before_; }
  bool took_path() const { return on() ? calls() > 0 : calls() == 0; }

 private:
  uint64_t before_;
};

// A communicator of the test's own with errors returned (error-code tests), freed at scope exit.
struct ReturningComm {
  MPI_Comm comm = MPI_COMM_NULL;
  ReturningComm() {
    PMPI_Comm_dup(world(), &comm);
    PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  }
  ~ReturningComm() { PMPI_Comm_free(&comm); }
};

int error_class(int rc) {
  int cls = rc;
  MPI_Error_class(rc, &cls);
  return cls;
}

// ==== The mode ===========================================================================================

TEST(MpiYield, ModeFollowsTheSetting) {
  const char* setting = std::getenv("ARMCI_MPI_YIELD");
  const armcix_test::MachineCount m = armcix_test::count_machine();
  bool expect = m.any_oversubscribed;  // auto
  if (setting && std::strcmp(setting, "1") == 0) expect = true;
  if (setting && std::strcmp(setting, "0") == 0) expect = false;
  EXPECT_EQ(on(), expect) << "ARMCI_MPI_YIELD=" << (setting ? setting : "(unset)") << "; " << m.ranks_here
                          << " ranks on this machine, " << m.cores << " cores";
  EXPECT_EQ(armcix::rt().resolved.mpi_yield, expect ? 1 : 0);  // resolved, as the verbose banner prints it
  // Every rank must agree: non-blocking collectives do not match blocking ones.
  int mine = on() ? 1 : 0, lo = 0, hi = 0;
  PMPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, world());
  PMPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, world());
  EXPECT_EQ(lo, hi);
  if (const char* one = std::getenv("ARMCIX_TEST_ONE_CORE"); one && one[0] == '1' && nproc() > 1) {
    // Every rank on one core: this machine is oversubscribed, so auto must have switched the mode on.
    EXPECT_TRUE(m.any_oversubscribed) << m.ranks_here << " ranks on " << m.cores << " cores";
    if (!setting) {
      EXPECT_TRUE(on()) << "auto left the mode off on an oversubscribed machine";
    }
  }
}

// The last ARMCI_Finalize switches the mode off on every rank (calls pass through again), a new ARMCI_Init
// decides it again.  Not with progress ranks: they leave at the first finalize, ARMCI cannot start again.
TEST(MpiYield, OffAfterFinalizeAndBackAfterInit) {
  if (armcix::progress_ranks_on()) GTEST_SKIP() << "progress ranks: no ARMCI_Init after ARMCI_Finalize";
  const bool was_on = on();
  ASSERT_EQ(ARMCI_Finalize(), 0);
  EXPECT_FALSE(on());
  {
    YieldPath path;
    EXPECT_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    int x = me(), sum = 0;
    EXPECT_EQ(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    EXPECT_EQ(sum, nproc() * (nproc() - 1) / 2);
    EXPECT_EQ(path.calls(), 0u) << "a wrapper took the yielding path after ARMCI_Finalize";
  }
  ASSERT_EQ(ARMCI_Init(), 0);
  EXPECT_EQ(on(), was_on);
}

// ARMCI_Init's own collectives yield whatever the job's mode turns out to be, but without the wrappers'
// path: the duplicate and the census are non-blocking and wait yielding themselves (runtime.cc,
// wait_yielding), and the node communicator (MPI_Comm_create_group, or MPI_Comm_split_type where MPI is asked
// for the nodes) comes before the mode is set, so no blocking call of ARMCI_Init is completed through the
// yielding path; the mode afterwards is the setting's.  Not with progress ranks (no
// second ARMCI_Init), nor with ARMCI_NODE_SIZE, whose split takes the yielding path below
// MPI_THREAD_MULTIPLE (runtime/resolve.cc, yield_during_init).
TEST(MpiYield, InitCollectivesWaitYieldingThemselves) {
  if (armcix::progress_ranks_on()) GTEST_SKIP() << "progress ranks: no ARMCI_Init after ARMCI_Finalize";
  if (armcix::rt().config.node_size > 0) GTEST_SKIP() << "ARMCI_NODE_SIZE: one more (blocking) split";
  const bool was_on = on();
  ASSERT_EQ(ARMCI_Finalize(), 0);
  const uint64_t before = armcix::mpi_yield_count();
  ASSERT_EQ(ARMCI_Init(), 0);
  EXPECT_EQ(armcix::mpi_yield_count() - before, 0u) << "ARMCI_Init completed a blocking call through the wrappers";
  EXPECT_EQ(on(), was_on);
}

// ==== Collectives ========================================================================================

TEST(MpiYieldCollectives, Barrier) {
  YieldPath path;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_TRUE(path.took_path()) << path.calls();
}

TEST(MpiYieldCollectives, BcastFromEveryRoot) {
  const int n = nproc();
  for (int root = 0; root < n; ++root) {
    std::vector<long> got(37, -1), plain(37, -1);
    if (me() == root) std::iota(got.begin(), got.end(), 1000L * root), plain = got;
    YieldPath path;
    EXPECT_EQ(MPI_Bcast(got.data(), 37, MPI_LONG, root, MPI_COMM_WORLD), MPI_SUCCESS);
    EXPECT_TRUE(path.took_path());
    PMPI_Bcast(plain.data(), 37, MPI_LONG, root, world());
    EXPECT_EQ(got, plain) << "root " << root;
    EXPECT_EQ(got[36], 1000L * root + 36);
  }
  int nothing = 0;
  EXPECT_EQ(MPI_Bcast(&nothing, 0, MPI_INT, 0, MPI_COMM_WORLD), MPI_SUCCESS);  // count 0
}

TEST(MpiYieldCollectives, AllreduceAndInPlace) {
  const int n = nproc(), r = me();
  std::vector<double> mine(5), got(5), plain(5);
  for (int i = 0; i < 5; ++i) mine[i] = r * 10.0 + i;
  YieldPath path;
  EXPECT_EQ(MPI_Allreduce(mine.data(), got.data(), 5, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_TRUE(path.took_path());
  PMPI_Allreduce(mine.data(), plain.data(), 5, MPI_DOUBLE, MPI_MAX, world());
  EXPECT_EQ(got, plain);
  EXPECT_EQ(got[4], (n - 1) * 10.0 + 4);
  long x = r + 1;
  EXPECT_EQ(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(x, static_cast<long>(n) * (n + 1) / 2);
}

TEST(MpiYieldCollectives, ReduceToEveryRootAndInPlace) {
  const int n = nproc(), r = me();
  for (int root = 0; root < n; ++root) {
    int mine[2] = {r, 2 * r}, got[2] = {-1, -1}, plain[2] = {-1, -1};
    EXPECT_EQ(MPI_Reduce(mine, got, 2, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD), MPI_SUCCESS);
    PMPI_Reduce(mine, plain, 2, MPI_INT, MPI_SUM, root, world());
    if (r == root) {
      EXPECT_EQ(got[0], plain[0]);
      EXPECT_EQ(got[1], n * (n - 1));
    } else {
      EXPECT_EQ(got[0], -1) << "a non-root's receive buffer was written";
    }
    int in_place = r + 1;
    EXPECT_EQ(MPI_Reduce(r == root ? MPI_IN_PLACE : &in_place, r == root ? &in_place : nullptr, 1, MPI_INT, MPI_PROD,
                         root, MPI_COMM_WORLD),
              MPI_SUCCESS);
    if (r == root) {
      int factorial = 1;
      for (int k = 2; k <= n; ++k) factorial *= k;
      EXPECT_EQ(in_place, factorial);
    }
  }
}

TEST(MpiYieldCollectives, AllgatherAllgathervAndInPlace) {
  const int n = nproc(), r = me();
  std::vector<int> got(2 * n, -1), plain(2 * n, -1);
  const int mine[2] = {r, -r};
  EXPECT_EQ(MPI_Allgather(mine, 2, MPI_INT, got.data(), 2, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
  PMPI_Allgather(mine, 2, MPI_INT, plain.data(), 2, MPI_INT, world());
  EXPECT_EQ(got, plain);
  std::vector<int> in_place(n, -1);
  in_place[r] = 7 * r;
  EXPECT_EQ(MPI_Allgather(MPI_IN_PLACE, 0, MPI_INT, in_place.data(), 1, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int p = 0; p < n; ++p) EXPECT_EQ(in_place[p], 7 * p);
  // Rank p contributes p + 1 values p.
  std::vector<int> counts(n), displs(n);
  for (int p = 0; p < n; ++p) counts[p] = p + 1, displs[p] = p * (p + 1) / 2;
  const int total = n * (n + 1) / 2;
  std::vector<int> values(r + 1, r), gotv(total, -1), plainv(total, -1);
  EXPECT_EQ(
      MPI_Allgatherv(values.data(), r + 1, MPI_INT, gotv.data(), counts.data(), displs.data(), MPI_INT, MPI_COMM_WORLD),
      MPI_SUCCESS);
  PMPI_Allgatherv(values.data(), r + 1, MPI_INT, plainv.data(), counts.data(), displs.data(), MPI_INT, world());
  EXPECT_EQ(gotv, plainv);
  EXPECT_EQ(gotv[total - 1], n - 1);
}

TEST(MpiYieldCollectives, GatherScatterAndTheirV) {
  const int n = nproc(), r = me(), root = n - 1;
  std::vector<int> counts(n), displs(n);
  for (int p = 0; p < n; ++p) counts[p] = p + 1, displs[p] = p * (p + 1) / 2;
  const int total = n * (n + 1) / 2;
  std::vector<int> got(n, -1), plain(n, -1);
  int mine = 3 * r + 1;
  EXPECT_EQ(MPI_Gather(&mine, 1, MPI_INT, got.data(), 1, MPI_INT, root, MPI_COMM_WORLD), MPI_SUCCESS);
  PMPI_Gather(&mine, 1, MPI_INT, plain.data(), 1, MPI_INT, root, world());
  if (r == root) {
    EXPECT_EQ(got, plain);
  }
  // MPI_IN_PLACE at the root.
  std::vector<int> in_place(n, -1);
  if (r == root) in_place[r] = 3 * r + 1;
  EXPECT_EQ(MPI_Gather(r == root ? MPI_IN_PLACE : &mine, 1, MPI_INT, in_place.data(), 1, MPI_INT, root, MPI_COMM_WORLD),
            MPI_SUCCESS);
  if (r == root) {
    for (int p = 0; p < n; ++p) EXPECT_EQ(in_place[p], 3 * p + 1);
  }
  std::vector<int> values(r + 1, r + 100), gotv(total, -1), plainv(total, -1);
  EXPECT_EQ(MPI_Gatherv(values.data(), r + 1, MPI_INT, gotv.data(), counts.data(), displs.data(), MPI_INT, root,
                        MPI_COMM_WORLD),
            MPI_SUCCESS);
  PMPI_Gatherv(values.data(), r + 1, MPI_INT, plainv.data(), counts.data(), displs.data(), MPI_INT, root, world());
  if (r == root) {
    EXPECT_EQ(gotv, plainv);
  }
  // Scatter the root's 0..n-1 and the v-layout back.
  std::vector<int> source(n), sourcev(total);
  std::iota(source.begin(), source.end(), 50);
  std::iota(sourcev.begin(), sourcev.end(), 500);
  int one = -1;
  EXPECT_EQ(MPI_Scatter(source.data(), 1, MPI_INT, &one, 1, MPI_INT, root, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(one, 50 + r);
  std::vector<int> part(r + 1, -1);
  EXPECT_EQ(MPI_Scatterv(sourcev.data(), counts.data(), displs.data(), MPI_INT, part.data(), r + 1, MPI_INT, root,
                         MPI_COMM_WORLD),
            MPI_SUCCESS);
  for (int i = 0; i <= r; ++i) EXPECT_EQ(part[i], 500 + displs[r] + i);
}

TEST(MpiYieldCollectives, AlltoallAndAlltoallv) {
  const int n = nproc(), r = me();
  std::vector<int> send(n), got(n, -1), plain(n, -1);
  for (int p = 0; p < n; ++p) send[p] = 100 * r + p;
  EXPECT_EQ(MPI_Alltoall(send.data(), 1, MPI_INT, got.data(), 1, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
  PMPI_Alltoall(send.data(), 1, MPI_INT, plain.data(), 1, MPI_INT, world());
  EXPECT_EQ(got, plain);
  for (int p = 0; p < n; ++p) EXPECT_EQ(got[p], 100 * p + r);
  // Rank r sends p + 1 values to rank p and receives r + 1 from each.
  std::vector<int> scounts(n), sdispls(n), rcounts(n, r + 1), rdispls(n);
  for (int p = 0; p < n; ++p) scounts[p] = p + 1, sdispls[p] = p * (p + 1) / 2, rdispls[p] = p * (r + 1);
  std::vector<int> sendv(n * (n + 1) / 2);
  for (int p = 0; p < n; ++p)
    for (int i = 0; i <= p; ++i) sendv[sdispls[p] + i] = 1000 * r + 10 * p + i;
  std::vector<int> gotv(n * (r + 1), -1), plainv(n * (r + 1), -1);
  EXPECT_EQ(MPI_Alltoallv(sendv.data(), scounts.data(), sdispls.data(), MPI_INT, gotv.data(), rcounts.data(),
                          rdispls.data(), MPI_INT, MPI_COMM_WORLD),
            MPI_SUCCESS);
  PMPI_Alltoallv(sendv.data(), scounts.data(), sdispls.data(), MPI_INT, plainv.data(), rcounts.data(), rdispls.data(),
                 MPI_INT, world());
  EXPECT_EQ(gotv, plainv);
  EXPECT_EQ(gotv[rdispls[n - 1] + r], 1000 * (n - 1) + 10 * r + r);
}

TEST(MpiYieldCollectives, ScansAndReduceScatter) {
  const int n = nproc(), r = me();
  int x = r + 1, scan = -1, exscan = -1;
  EXPECT_EQ(MPI_Scan(&x, &scan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(scan, (r + 1) * (r + 2) / 2);
  EXPECT_EQ(MPI_Exscan(&x, &exscan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  if (r > 0) {
    EXPECT_EQ(exscan, r * (r + 1) / 2);  // undefined on rank 0
  }
  // Every rank contributes 1..n per block of 2; rank p receives block p summed over ranks.
  std::vector<int> send(2 * n);
  for (int i = 0; i < 2 * n; ++i) send[i] = i + r;
  int block[2] = {-1, -1};
  EXPECT_EQ(MPI_Reduce_scatter_block(send.data(), block, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(block[0], n * (2 * r) + n * (n - 1) / 2);
  EXPECT_EQ(block[1], n * (2 * r + 1) + n * (n - 1) / 2);
  std::vector<int> counts(n, 2);
  int block2[2] = {-1, -1};
  EXPECT_EQ(MPI_Reduce_scatter(send.data(), block2, counts.data(), MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(block2[0], block[0]);
  EXPECT_EQ(block2[1], block[1]);
}

// Errors come back as MPI's error codes under MPI_ERRORS_RETURN, of the class the plain call gives.
TEST(MpiYieldCollectives, ErrorsAreReturnedLikeThePlainCall) {
  ReturningComm c;
  int x = 0;
  const int bad_root = nproc() + 3;
  const int plain = PMPI_Bcast(&x, 1, MPI_INT, bad_root, c.comm);
  const int wrapped = MPI_Bcast(&x, 1, MPI_INT, bad_root, c.comm);
  ASSERT_NE(plain, MPI_SUCCESS) << "this MPI does not check the root";
  EXPECT_NE(wrapped, MPI_SUCCESS);
  EXPECT_EQ(error_class(wrapped), error_class(plain));
  const int plain_send = PMPI_Send(&x, 1, MPI_INT, bad_root, 0, c.comm);
  const int wrapped_send = MPI_Send(&x, 1, MPI_INT, bad_root, 0, c.comm);
  ASSERT_NE(plain_send, MPI_SUCCESS);
  EXPECT_EQ(error_class(wrapped_send), error_class(plain_send));
}

// Intercommunicators go to MPI unchanged (no yielding path for their collectives) and still work.
TEST(MpiYieldCollectives, IntercommunicatorsPassThrough) {
  const int n = nproc(), r = me();
  if (n < 2) GTEST_SKIP() << "needs 2 ranks";
  MPI_Comm half, inter;
  PMPI_Comm_split(world(), r % 2, r, &half);
  PMPI_Intercomm_create(half, 0, world(), r % 2 == 0 ? 1 : 0, 77, &inter);
  YieldPath path;
  EXPECT_EQ(MPI_Barrier(inter), MPI_SUCCESS);
  int x = r, sum = -1;
  EXPECT_EQ(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, inter), MPI_SUCCESS);
  int other = 0;  // the other group's ranks: odd ones for the even group and the other way round
  for (int p = 0; p < n; ++p)
    if (p % 2 != r % 2) other += p;
  EXPECT_EQ(sum, other);
  EXPECT_EQ(path.calls(), 0u);
  PMPI_Comm_free(&inter);
  PMPI_Comm_free(&half);
}

// ==== Point to point =====================================================================================

// Every rank but 0 sends rank + 1 ints with tag 100 + rank; rank 0 receives them from any source with any
// tag and checks each status against the data.
TEST(MpiYieldPointToPoint, RecvAnySourceStatuses) {
  const int n = nproc(), r = me();
  YieldPath path;
  if (r == 0) {
    std::vector<bool> seen(n, false);
    for (int k = 1; k < n; ++k) {
      std::vector<int> buf(n + 4, -1);
      MPI_Status st;
      ASSERT_EQ(MPI_Recv(buf.data(), n + 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st), MPI_SUCCESS);
      const int src = st.MPI_SOURCE;
      ASSERT_GT(src, 0);
      ASSERT_LT(src, n);
      EXPECT_FALSE(seen[src]);
      seen[src] = true;
      EXPECT_EQ(st.MPI_TAG, 100 + src);
      int count = -1;
      MPI_Get_count(&st, MPI_INT, &count);
      EXPECT_EQ(count, src + 1);
      for (int i = 0; i <= src; ++i) EXPECT_EQ(buf[i], src * 1000 + i);
      EXPECT_EQ(buf[src + 1], -1);
    }
  } else {
    std::vector<int> buf(r + 1);
    for (int i = 0; i <= r; ++i) buf[i] = r * 1000 + i;
    EXPECT_EQ(MPI_Send(buf.data(), r + 1, MPI_INT, 0, 100 + r, MPI_COMM_WORLD), MPI_SUCCESS);
  }
  if (n > 1) {
    EXPECT_TRUE(path.took_path());
  }
  // MPI_PROC_NULL: completes at once with the null status.
  MPI_Status st;
  int dummy = 5;
  EXPECT_EQ(MPI_Recv(&dummy, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st), MPI_SUCCESS);
  EXPECT_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
  EXPECT_EQ(st.MPI_TAG, MPI_ANY_TAG);
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  EXPECT_EQ(count, 0);
  EXPECT_EQ(dummy, 5);
  PMPI_Barrier(world());  // the wildcard receives above must not meet the next test's messages
}

// Synchronous, ready and standard sends around a ring; MPI_STATUS_IGNORE on the receives.
TEST(MpiYieldPointToPoint, SsendRsendSendAroundARing) {
  const int n = nproc(), r = me();
  if (n < 2) GTEST_SKIP() << "needs 2 ranks";
  const int next = (r + 1) % n, prev = (r + n - 1) % n;
  double out = r + 0.5, in = -1;
  // Even ranks send first, odd ranks receive first: no cycle of synchronous sends.
  if (r % 2 == 0) {
    EXPECT_EQ(MPI_Ssend(&out, 1, MPI_DOUBLE, next, 1, MPI_COMM_WORLD), MPI_SUCCESS);
    EXPECT_EQ(MPI_Recv(&in, 1, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
  } else {
    EXPECT_EQ(MPI_Recv(&in, 1, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
    EXPECT_EQ(MPI_Ssend(&out, 1, MPI_DOUBLE, next, 1, MPI_COMM_WORLD), MPI_SUCCESS);
  }
  EXPECT_EQ(in, prev + 0.5);
  // A ready send needs its receive posted first: post, barrier, send.
  MPI_Request req;
  in = -1;
  MPI_Irecv(&in, 1, MPI_DOUBLE, prev, 2, MPI_COMM_WORLD, &req);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(MPI_Rsend(&out, 1, MPI_DOUBLE, next, 2, MPI_COMM_WORLD), MPI_SUCCESS);
  MPI_Status st;
  EXPECT_EQ(MPI_Wait(&req, &st), MPI_SUCCESS);
  EXPECT_EQ(req, MPI_REQUEST_NULL);
  EXPECT_EQ(st.MPI_SOURCE, prev);
  EXPECT_EQ(st.MPI_TAG, 2);
  EXPECT_EQ(in, prev + 0.5);
}

TEST(MpiYieldPointToPoint, SendrecvStatus) {
  const int n = nproc(), r = me();
  const int next = (r + 1) % n, prev = (r + n - 1) % n;
  int out[3] = {r, r + 1, r + 2}, in[4] = {-1, -1, -1, -1};
  MPI_Status st;
  EXPECT_EQ(
      MPI_Sendrecv(out, 3, MPI_INT, next, 40 + r, in, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st),
      MPI_SUCCESS);
  EXPECT_EQ(st.MPI_SOURCE, prev);
  EXPECT_EQ(st.MPI_TAG, 40 + prev);
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  EXPECT_EQ(count, 3);
  EXPECT_EQ(in[0], prev);
  EXPECT_EQ(in[2], prev + 2);
  EXPECT_EQ(in[3], -1);
  // MPI_PROC_NULL on both sides: the null status.
  EXPECT_EQ(MPI_Sendrecv(out, 3, MPI_INT, MPI_PROC_NULL, 1, in, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st),
            MPI_SUCCESS);
  EXPECT_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
  EXPECT_EQ(st.MPI_TAG, MPI_ANY_TAG);
  MPI_Get_count(&st, MPI_INT, &count);
  EXPECT_EQ(count, 0);
  PMPI_Barrier(world());  // the wildcard receive above must not meet the next test's messages
}

TEST(MpiYieldPointToPoint, ProbeThenReceive) {
  const int n = nproc(), r = me();
  if (n < 2) GTEST_SKIP() << "needs 2 ranks";
  if (r == 1) {
    const char msg[] = "probed message";
    EXPECT_EQ(MPI_Send(msg, sizeof msg, MPI_CHAR, 0, 9, MPI_COMM_WORLD), MPI_SUCCESS);
  } else if (r == 0) {
    MPI_Status st;
    ASSERT_EQ(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    EXPECT_EQ(st.MPI_SOURCE, 1);
    EXPECT_EQ(st.MPI_TAG, 9);
    int count = -1;
    MPI_Get_count(&st, MPI_CHAR, &count);
    ASSERT_EQ(count, static_cast<int>(sizeof "probed message"));
    std::string buf(count, '\0');
    EXPECT_EQ(MPI_Recv(&buf[0], count, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
              MPI_SUCCESS);
    EXPECT_STREQ(buf.c_str(), "probed message");
  }
  PMPI_Barrier(world());
}

// MPI_Waitall / Waitany / Waitsome on receives from every other rank, statuses included; the null-request
// cases (MPI_UNDEFINED) as MPI defines them.
TEST(MpiYieldPointToPoint, WaitallWaitanyWaitsome) {
  const int n = nproc(), r = me();
  for (int variant = 0; variant < 3; ++variant) {
    std::vector<int> in(n, -1);
    std::vector<MPI_Request> recvs(n, MPI_REQUEST_NULL), sends(n, MPI_REQUEST_NULL);
    const int out = 10 * r + variant;
    for (int p = 0; p < n; ++p) {
      if (p == r) continue;
      PMPI_Irecv(&in[p], 1, MPI_INT, p, 60 + variant, world(), &recvs[p]);
      PMPI_Isend(&out, 1, MPI_INT, p, 60 + variant, world(), &sends[p]);
    }
    std::vector<MPI_Status> st(n);
    if (variant == 0) {
      EXPECT_EQ(MPI_Waitall(n, recvs.data(), st.data()), MPI_SUCCESS);
      for (int p = 0; p < n; ++p)
        if (p != r) {
          EXPECT_EQ(st[p].MPI_SOURCE, p);
        }
    } else if (variant == 1) {
      for (int k = 0; k < n - 1; ++k) {
        int index = -1;
        MPI_Status s;
        ASSERT_EQ(MPI_Waitany(n, recvs.data(), &index, &s), MPI_SUCCESS);
        ASSERT_GE(index, 0);
        EXPECT_EQ(s.MPI_SOURCE, index);
        EXPECT_EQ(recvs[index], MPI_REQUEST_NULL);
      }
      int index = -1;
      EXPECT_EQ(MPI_Waitany(n, recvs.data(), &index, MPI_STATUS_IGNORE), MPI_SUCCESS);
      EXPECT_EQ(index, MPI_UNDEFINED);
    } else {
      int done = 0;
      while (done < n - 1) {
        int outcount = -1;
        std::vector<int> indices(n);
        ASSERT_EQ(MPI_Waitsome(n, recvs.data(), &outcount, indices.data(), st.data()), MPI_SUCCESS);
        ASSERT_GT(outcount, 0);
        for (int k = 0; k < outcount; ++k) EXPECT_EQ(st[k].MPI_SOURCE, indices[k]);
        done += outcount;
      }
      int outcount = -1;
      std::vector<int> indices(n);
      EXPECT_EQ(MPI_Waitsome(n, recvs.data(), &outcount, indices.data(), MPI_STATUSES_IGNORE), MPI_SUCCESS);
      EXPECT_EQ(outcount, MPI_UNDEFINED);
    }
    EXPECT_EQ(MPI_Waitall(n, sends.data(), MPI_STATUSES_IGNORE), MPI_SUCCESS);
    for (int p = 0; p < n; ++p)
      if (p != r) {
        EXPECT_EQ(in[p], 10 * p + variant) << "variant " << variant;
      }
  }
  MPI_Request null_request = MPI_REQUEST_NULL;
  MPI_Status st;
  EXPECT_EQ(MPI_Wait(&null_request, &st), MPI_SUCCESS);
  EXPECT_EQ(st.MPI_SOURCE, MPI_ANY_SOURCE);  // the empty status
}

// ==== Communicators and windows ==========================================================================

// The members of `c` as world ranks, in its order.
std::vector<int> world_ranks(MPI_Comm c) {
  if (c == MPI_COMM_NULL) return {};
  MPI_Group g, world_group;
  PMPI_Comm_group(c, &g);
  PMPI_Comm_group(world(), &world_group);
  int n = 0;
  PMPI_Group_size(g, &n);
  std::vector<int> in(n), out(n);
  std::iota(in.begin(), in.end(), 0);
  PMPI_Group_translate_ranks(g, n, in.data(), world_group, out.data());
  PMPI_Group_free(&g);
  PMPI_Group_free(&world_group);
  return out;
}

// A communicator from the wrapper must have the members, order and error handler of the plain call's, be
// a communicator of its own (MPI_CONGRUENT, not MPI_IDENT), and carry traffic.
void expect_same_comm(MPI_Comm got, MPI_Comm plain, MPI_Errhandler parent_handler) {
  ASSERT_EQ(got == MPI_COMM_NULL, plain == MPI_COMM_NULL);
  if (got == MPI_COMM_NULL) return;
  EXPECT_EQ(world_ranks(got), world_ranks(plain));
  int cmp = -1;
  PMPI_Comm_compare(got, plain, &cmp);
  EXPECT_EQ(cmp, MPI_CONGRUENT);
  MPI_Errhandler h;
  PMPI_Comm_get_errhandler(got, &h);
  EXPECT_EQ(h, parent_handler);
  if (h != MPI_ERRORS_ARE_FATAL && h != MPI_ERRORS_RETURN) PMPI_Errhandler_free(&h);
  int rank = -1, size = 0, sum = -1;
  PMPI_Comm_rank(got, &rank);
  PMPI_Comm_size(got, &size);
  EXPECT_EQ(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, got), MPI_SUCCESS);
  EXPECT_EQ(sum, size * (size - 1) / 2);
}

// Three rounds: the first makes the templates, the later ones duplicate them (mpi_world.cc).
TEST(MpiYieldComms, SplitMatchesThePlainSplit) {
  const int n = nproc(), r = me();
  ReturningComm parent;  // its handler must be inherited
  for (int round = 0; round < 3; ++round) {
    // Colors by parity, keys reversing the order; with 3+ ranks rank 1 stays out (MPI_UNDEFINED).
    const int color = (n > 2 && r == 1) ? MPI_UNDEFINED : r % 2;
    const int key = n - r;
    MPI_Comm got, plain;
    YieldPath path;
    ASSERT_EQ(MPI_Comm_split(parent.comm, color, key, &got), MPI_SUCCESS);
    EXPECT_TRUE(path.took_path());
    PMPI_Comm_split(parent.comm, color, key, &plain);
    expect_same_comm(got, plain, MPI_ERRORS_RETURN);
    if (color != MPI_UNDEFINED) {
      std::vector<int> expect;
      for (int p = n - 1; p >= 0; --p)
        if (p % 2 == r % 2 && !(n > 2 && p == 1)) expect.push_back(p);
      EXPECT_EQ(world_ranks(got), expect) << "round " << round;
      MPI_Comm_free(&got);
      MPI_Comm_free(&plain);
    }
  }
  // Equal keys keep the parent's order; one color for all gives the parent's members.
  MPI_Comm got, plain;
  ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &got), MPI_SUCCESS);
  PMPI_Comm_split(world(), 0, 0, &plain);
  MPI_Errhandler world_handler;
  PMPI_Comm_get_errhandler(world(), &world_handler);
  expect_same_comm(got, plain, world_handler);
  MPI_Comm_free(&got);
  MPI_Comm_free(&plain);
}

TEST(MpiYieldComms, CreateMatchesThePlainCreate) {
  const int n = nproc(), r = me();
  MPI_Group world_group, evens;
  PMPI_Comm_group(world(), &world_group);
  std::vector<int> members;  // the even ranks, highest first
  for (int p = n - 1; p >= 0; --p)
    if (p % 2 == 0) members.push_back(p);
  PMPI_Group_incl(world_group, static_cast<int>(members.size()), members.data(), &evens);
  MPI_Errhandler world_handler;
  PMPI_Comm_get_errhandler(world(), &world_handler);
  for (int round = 0; round < 2; ++round) {
    MPI_Comm got, plain;
    ASSERT_EQ(MPI_Comm_create(MPI_COMM_WORLD, evens, &got), MPI_SUCCESS);
    PMPI_Comm_create(world(), evens, &plain);
    EXPECT_EQ(got == MPI_COMM_NULL, r % 2 == 1);
    expect_same_comm(got, plain, world_handler);
    if (got != MPI_COMM_NULL) {
      EXPECT_EQ(world_ranks(got), members);
      MPI_Comm_free(&got);
      MPI_Comm_free(&plain);
    }
  }
  // Disjoint groups per process (MPI-2.2): evens and odds, each in one call.
  MPI_Group mine;
  std::vector<int> same_parity;
  for (int p = 0; p < n; ++p)
    if (p % 2 == r % 2) same_parity.push_back(p);
  PMPI_Group_incl(world_group, static_cast<int>(same_parity.size()), same_parity.data(), &mine);
  MPI_Comm got, plain;
  ASSERT_EQ(MPI_Comm_create(MPI_COMM_WORLD, mine, &got), MPI_SUCCESS);
  PMPI_Comm_create(world(), mine, &plain);
  expect_same_comm(got, plain, world_handler);
  EXPECT_EQ(world_ranks(got), same_parity);
  MPI_Comm_free(&got);
  MPI_Comm_free(&plain);
  PMPI_Group_free(&mine);
  PMPI_Group_free(&evens);
  PMPI_Group_free(&world_group);
}

// More member sets than a process keeps templates for (32), created unevenly: every set holds rank 0, so at
// 4 ranks rank 0 makes 49 templates and evicts the oldest while rank 3 (in fewer sets) still has them.
// Creating the first sets again then meets members with and without a template, which must make a new one
// together; every communicator must still be the plain call's.
TEST(MpiYieldComms, ManyMemberSetsEvictTemplates) {
  const int n = nproc(), r = me(), k = std::min(n, 4);
  std::vector<std::vector<int>> sets;  // every ordered subset of 0..k-1 that contains 0
  for (int mask = 1; mask < (1 << k); mask += 2) {
    std::vector<int> members;
    for (int p = 0; p < k; ++p)
      if (mask & (1 << p)) members.push_back(p);
    do sets.push_back(members);
    while (std::next_permutation(members.begin(), members.end()));
  }
  MPI_Group world_group;
  PMPI_Comm_group(world(), &world_group);
  MPI_Errhandler world_handler;
  PMPI_Comm_get_errhandler(world(), &world_handler);
  auto create = [&](const std::vector<int>& members) {
    MPI_Group g;
    PMPI_Group_incl(world_group, static_cast<int>(members.size()), members.data(), &g);
    MPI_Comm got, plain;
    ASSERT_EQ(MPI_Comm_create(MPI_COMM_WORLD, g, &got), MPI_SUCCESS);
    PMPI_Comm_create(world(), g, &plain);
    const bool member = std::find(members.begin(), members.end(), r) != members.end();
    EXPECT_EQ(got != MPI_COMM_NULL, member);
    expect_same_comm(got, plain, world_handler);
    if (member) {
      EXPECT_EQ(world_ranks(got), members);
      MPI_Comm_free(&got);
      MPI_Comm_free(&plain);
    }
    PMPI_Group_free(&g);
  };
  for (const auto& members : sets) create(members);
  // The first 20 again: at 4 ranks rank 0 has evicted sets 0-16, ranks 1-3 only the first 6 of their 38
  // each, so that e.g. sets 9 and 10 (orders of {0, 1, 2}) are held by ranks 1 and 2 but not by rank 0.
  for (std::size_t i = 0; i < std::min<std::size_t>(sets.size(), 20); ++i) create(sets[i]);
  PMPI_Group_free(&world_group);
}

// MPI_Comm_dup keeps attributes (copy callbacks) and the error handler.
TEST(MpiYieldComms, DupKeepsAttributesAndHandler) {
  ReturningComm parent;
  int keyval = MPI_KEYVAL_INVALID;
  PMPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keyval, nullptr);
  static int value = 4242;
  PMPI_Comm_set_attr(parent.comm, keyval, &value);
  MPI_Comm got;
  YieldPath path;
  ASSERT_EQ(MPI_Comm_dup(parent.comm, &got), MPI_SUCCESS);
  EXPECT_TRUE(path.took_path());
  int* attr = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(got, keyval, &attr, &found);
  EXPECT_TRUE(found);
  if (found) {
    EXPECT_EQ(*attr, 4242);
  }
  MPI_Comm plain;
  PMPI_Comm_dup(parent.comm, &plain);
  expect_same_comm(got, plain, MPI_ERRORS_RETURN);
  MPI_Comm_free(&got);
  MPI_Comm_free(&plain);
  PMPI_Comm_free_keyval(&keyval);
}

// Window creation (a barrier with back-off first) gives working windows: node peers read each other's
// slice of a shared window; a created window over the world is usable for RMA.
TEST(MpiYieldComms, WindowsAndSplitType) {
  const int r = me();
  MPI_Comm node;
  ASSERT_EQ(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, &node), MPI_SUCCESS);
  int node_me = -1, node_n = 0;
  PMPI_Comm_rank(node, &node_me);
  PMPI_Comm_size(node, &node_n);
  int* base = nullptr;
  MPI_Win win;
  ASSERT_EQ(MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &base, &win), MPI_SUCCESS);
  MPI_Win_lock_all(0, win);
  *base = 1000 + r;
  MPI_Win_sync(win);
  PMPI_Barrier(node);
  MPI_Win_sync(win);
  const int peer = (node_me + 1) % node_n;
  MPI_Aint size = 0;
  int unit = 0;
  int* peer_base = nullptr;
  MPI_Win_shared_query(win, peer, &size, &unit, &peer_base);
  int peer_world = -1;  // the peer's rank in the world, for the value it wrote
  MPI_Group node_group, world_group;
  PMPI_Comm_group(node, &node_group);
  PMPI_Comm_group(world(), &world_group);
  PMPI_Group_translate_ranks(node_group, 1, &peer, world_group, &peer_world);
  EXPECT_EQ(*peer_base, 1000 + peer_world);
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  PMPI_Group_free(&node_group);
  PMPI_Group_free(&world_group);
  int* mem = nullptr;
  PMPI_Alloc_mem(sizeof(int), MPI_INFO_NULL, &mem);
  *mem = 2000 + r;
  ASSERT_EQ(MPI_Win_create(mem, sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_SUCCESS);
  MPI_Win_fence(0, win);
  int got = -1;
  const int target = (r + 1) % nproc();
  MPI_Get(&got, 1, MPI_INT, target, 0, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  EXPECT_EQ(got, 2000 + target);
  MPI_Win_free(&win);
  PMPI_Free_mem(mem);
  MPI_Comm_free(&node);
}

// ARMCI_MPI_YIELD_TIMER_US (wait/yield_timer.h): the period follows the setting (auto: 200 us where this
// machine is oversubscribed), and calls without a non-blocking form (MPI_Comm_split_type, shared window
// creation and freeing) run under the timer -- signals arrive while they run -- exactly when it is on, with
// correct results.  tests/manifest.txt runs this at 20 us (4 ranks) and at 0.
TEST(MpiYieldTimer, FollowsTheSettingAndTimesCallsWithoutANonBlockingForm) {
  const char* setting = std::getenv("ARMCI_MPI_YIELD_TIMER_US");
  int expect = armcix::rt().machine.oversubscribed() ? armcix::kYieldTimerUs : 0;
  if (setting && std::strcmp(setting, "auto") != 0) expect = std::atoi(setting);
  EXPECT_EQ(armcix::yield_timer_us(), expect);
  const uint64_t before = armcix::yield_timer_signals();
  for (int i = 0; i < 20; ++i) {
    MPI_Comm node;
    ASSERT_EQ(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me(), MPI_INFO_NULL, &node), MPI_SUCCESS);
    int* base = nullptr;
    MPI_Win win;
    ASSERT_EQ(MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &base, &win), MPI_SUCCESS);
    int node_n = 0;
    PMPI_Comm_size(node, &node_n);
    MPI_Aint size = 0;
    int unit = 0;
    int* first = nullptr;
    MPI_Win_shared_query(win, 0, &size, &unit, &first);
    EXPECT_EQ(size, static_cast<MPI_Aint>(sizeof(int)));
    EXPECT_EQ(unit, static_cast<int>(sizeof(int)));
    ASSERT_EQ(MPI_Win_free(&win), MPI_SUCCESS);
    MPI_Comm_free(&node);
  }
  const uint64_t signals = armcix::yield_timer_signals() - before;
  // A call shorter than the period sees no signal (the timer is armed per call): only a short period
  // (the manifest's 20 us) is sure to fire during 20 rounds of calls that take 0.1 ms or more each, even on
  // free cores.  At the automatic 200 us an MPI that yields by itself (Open MPI with
  // mpi_yield_when_idle) finishes each call sooner.
  if (expect > 0 && expect <= 50) {
    EXPECT_GT(signals, 0u) << "no timer signal during 20 rounds of communicator and window creation";
  } else if (expect == 0) {
    EXPECT_EQ(signals, 0u) << "timer signals with the timer off";
  }
}

}  // namespace
