// main() for the MPI GoogleTest programs: every rank runs every test in the same order (tests may use
// collectives), rank 0 prints GoogleTest's normal report, other ranks print only their failures, and the
// exit status is non-zero on every rank if any rank failed.
#include <armci.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

namespace {

class FailureOnlyPrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailureOnlyPrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?",
                 r.line_number(), r.summary());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  // The progress thread (ARMCI_PROGRESS_THREAD=1) needs MPI_THREAD_MULTIPLE from whoever starts MPI.
  const char* progress = std::getenv("ARMCI_PROGRESS_THREAD");
  int provided = 0;
  MPI_Init_thread(&argc, &argv, progress && progress[0] == '1' ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  ARMCI_Init();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailureOnlyPrinter(rank));
  }
  int local_failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&local_failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  ARMCI_Finalize();
  if (rank == 0 && any_failed && !local_failed) std::fprintf(stderr, "a rank other than 0 failed\n");
  MPI_Finalize();
  return any_failed;
}
