// Machine grouping (runtime/machine.h): ranks with the same boot id and host name share a machine, the
// leader is the lowest such rank, and any difference in either string separates machines.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/machine.h"

using armcix::machine_key;
using armcix::machine_leaders;

namespace {
const char kBoot[] = "0f5c8a52-6c1e-4c3b-9a8e-2c0c5f3f1d11";
const char kOtherBoot[] = "0f5c8a52-6c1e-4c3b-9a8e-2c0c5f3f1d12";
}  // namespace

TEST(MachineKey, SameStringsSameKey) {
  EXPECT_EQ(machine_key(kBoot, "node1"), machine_key(kBoot, "node1"));
}

TEST(MachineKey, EitherStringSeparates) {
  EXPECT_NE(machine_key(kBoot, "node1"), machine_key(kOtherBoot, "node1"));
  EXPECT_NE(machine_key(kBoot, "node1"), machine_key(kBoot, "node2"));
  // The separator keeps the boundary: ("ab", "c") is not ("a", "bc").
  EXPECT_NE(machine_key("ab", "c"), machine_key("a", "bc"));
}

TEST(MachineKey, NoBootIdStillKeysOnHostName) {
  EXPECT_EQ(machine_key("", "node1"), machine_key("", "node1"));
  EXPECT_NE(machine_key("", "node1"), machine_key("", "node2"));
}

TEST(MachineLeaders, OneMachine) {
  const uint64_t k = machine_key(kBoot, "h");
  EXPECT_EQ(machine_leaders({k, k, k, k}), (std::vector<int>{0, 0, 0, 0}));
}

TEST(MachineLeaders, RoundRobinMachines) {
  // Ranks dealt cyclically over two machines (cliques, --map-by node): {0,2} and {1,3}.
  const uint64_t a = machine_key(kBoot, "a"), b = machine_key(kOtherBoot, "b");
  EXPECT_EQ(machine_leaders({a, b, a, b}), (std::vector<int>{0, 1, 0, 1}));
}

TEST(MachineLeaders, BlocksAndSingletons) {
  EXPECT_EQ(machine_leaders({7, 7, 9, 9, 9, 11}), (std::vector<int>{0, 0, 2, 2, 2, 5}));
  EXPECT_TRUE(machine_leaders({}).empty());
}

TEST(CoresOversubscribed, RanksAgainstCores) {
  using armcix::cores_oversubscribed;
  EXPECT_FALSE(cores_oversubscribed(2, 2, 0));
  EXPECT_TRUE(cores_oversubscribed(4, 2, 0));  // 4 ranks on 2 cores, however MPI splits them into nodes
  EXPECT_FALSE(cores_oversubscribed(1, 64, 0));
}

TEST(CoresOversubscribed, OtherJobsCount) {
  using armcix::cores_oversubscribed;
  EXPECT_TRUE(cores_oversubscribed(2, 2, 1));  // a shared node: one busy process of another job
  EXPECT_TRUE(cores_oversubscribed(2, 2, 10));
  EXPECT_FALSE(cores_oversubscribed(2, 4, 2));   // room for everyone
  EXPECT_FALSE(cores_oversubscribed(2, 2, -3));  // a bad estimate counts as none
}

TEST(CoresOversubscribed, UnknownCoresMeansDedicated) {
  EXPECT_FALSE(armcix::cores_oversubscribed(8, 0, 0));
}

TEST(ParseProcsRunning, FindsTheField) {
  using armcix::parse_procs_running;
  const std::string stat =
      "cpu  2255 34 2290 22625563 6290 127 456 0 0 0\n"
      "cpu0 1132 34 1441 11311718 3675 127 438 0 0 0\n"
      "intr 114930548 113199788 3 0 5 263 0 4\n"
      "ctxt 1990473\nbtime 1062191376\nprocesses 2915\nprocs_running 12\nprocs_blocked 0\n";
  EXPECT_EQ(parse_procs_running(stat), 12);
  EXPECT_EQ(parse_procs_running("procs_running 3\n"), 3);  // first line
}

TEST(ParseProcsRunning, MissingOrMalformed) {
  using armcix::parse_procs_running;
  EXPECT_EQ(parse_procs_running(""), -1);
  EXPECT_EQ(parse_procs_running("procs_blocked 2\n"), -1);
  EXPECT_EQ(parse_procs_running("xprocs_running 5\n"), -1);  // only a whole field name counts
  EXPECT_EQ(parse_procs_running("procs_running x\n"), -1);
}
