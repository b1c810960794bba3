// Machine grouping (topo/machine.h): ranks with the same boot id and host name share a machine, the
// leader is the lowest such rank, and any difference in either string separates machines.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "topo/machine.h"

using armcix::machine_key;
using armcix::machine_leaders;

namespace {
const char kBoot[] = "0f5c8a52-6c1e-4c3b-9a8e-2c0c5f3f1d11";
const char kOtherBoot[] = "0f5c8a52-6c1e-4c3b-9a8e-2c0c5f3f1d12";
}  // namespace

TEST(MachineKey, SameStringsSameKey) {
  EXPECT_EQ(machine_key(kBoot, "node1"), machine_key(kBoot, "node1"));
}

TEST(MachineKey, BootIdSeparatesMachines) {
  EXPECT_NE(machine_key(kBoot, "node1"), machine_key(kOtherBoot, "node1"));
}

TEST(MachineKey, HostNamesOnOneKernelAreOneMachine) {
  // Containers and simulated hosts with a UTS namespace each: own host name, same kernel, same cores.
  EXPECT_EQ(machine_key(kBoot, "ax1-h0"), machine_key(kBoot, "ax1-h1"));
}

TEST(MachineKey, HostNameKeyNeverMeetsBootIdKey) {
  EXPECT_NE(machine_key("", kBoot), machine_key(kBoot, ""));
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

// /proc/loadavg's runnable count, and the foreign-load guess at its extremes (the count always includes the
// reading thread itself, and never reaches a million).
TEST(Machine, LoadavgRunningAndForeignLoad) {
  EXPECT_EQ(armcix::loadavg_running("0.50 0.40 0.30 3/250 12345\n"), 3);
  EXPECT_EQ(armcix::loadavg_running("12.00 9.10 4.00 17/1024 99"), 17);
  EXPECT_EQ(armcix::loadavg_running("0.50 0.40 0.30 250 12345"), -1);
  EXPECT_EQ(armcix::loadavg_running("garbage"), -1);
  EXPECT_EQ(armcix::loadavg_running(""), -1);
  EXPECT_EQ(armcix::loadavg_running("0.50 0.40 3/250 12345"), -1);  // a load average missing
  EXPECT_EQ(armcix::loadavg_running("0.50 0.40 0.30 /250 12345"), -1);
  EXPECT_EQ(armcix::loadavg_running("0.50 0.40 0.30 3/ 12345"), -1);
  EXPECT_FALSE(armcix::foreign_load(1 << 20));
  EXPECT_TRUE(armcix::foreign_load(-2));
}
