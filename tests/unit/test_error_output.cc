// print_to_stderr (base/error.h) hands the whole message to one write(2), so that the lines of ranks that
// print at once stay whole in the launcher's output.  glibc 2.37 and newer (Debian 13) write printf output
// to an unbuffered stream in 128-byte pieces: two ranks' ARMCI_Error lines came out spliced mid-line.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "base/error.h"

namespace {

// Runs print on standard error redirected into a SOCK_SEQPACKET socket, which keeps every write(2) a
// record of its own, and returns the sizes of the records that arrived.
template <typename Print>
std::vector<ssize_t> record_sizes(Print print) {
  int sv[2];
  EXPECT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
  fflush(stderr);
  int saved = dup(STDERR_FILENO);
  dup2(sv[0], STDERR_FILENO);
  print();
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  close(sv[0]);
  std::vector<ssize_t> sizes;
  char buf[8192];
  for (ssize_t n; (n = recv(sv[1], buf, sizeof buf, 0)) > 0;) sizes.push_back(n);
  close(sv[1]);
  return sizes;
}

TEST(ErrorOutput, LongMessageIsOneWrite) {
  const std::string word(300, 'x');
  auto sizes = record_sizes([&] { armcix::print_to_stderr("[%d] ARMCI Error: %s (code %d)\n", 3, word.c_str(), 1); });
  const std::size_t expected =
      std::string("[3] ARMCI Error: ").size() + word.size() + std::string(" (code 1)\n").size();
  ASSERT_EQ(sizes.size(), 1u);
  EXPECT_EQ(static_cast<std::size_t>(sizes[0]), expected);
}

TEST(ErrorOutput, TruncatesAtPipeBufWithoutSplitting) {
  const std::string word(10000, 'y');
  auto sizes = record_sizes([&] { armcix::print_to_stderr("%s\n", word.c_str()); });
  ASSERT_EQ(sizes.size(), 1u);
  EXPECT_EQ(sizes[0], 4095);
}

}  // namespace
