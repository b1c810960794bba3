// Machine grouping (topo/machine.h): ranks with the same boot id and host name share a machine, the
// leader is the lowest such rank, and any difference in either string separates machines; a machine's cores
// from the records ARMCI_Init gathers.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "topo/machine.h"

using armcix::lowest_rank_with_key;
using armcix::machine_key;

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

TEST(LowestRankWithKey, OneMachine) {
  const uint64_t k = machine_key(kBoot, "h");
  EXPECT_EQ(lowest_rank_with_key({k, k, k, k}), (std::vector<int>{0, 0, 0, 0}));
}

TEST(LowestRankWithKey, RoundRobinMachines) {
  // Ranks dealt cyclically over two machines (cliques, --map-by node): {0,2} and {1,3}.
  const uint64_t a = machine_key(kBoot, "a"), b = machine_key(kOtherBoot, "b");
  EXPECT_EQ(lowest_rank_with_key({a, b, a, b}), (std::vector<int>{0, 1, 0, 1}));
}

TEST(LowestRankWithKey, BlocksAndSingletons) {
  EXPECT_EQ(lowest_rank_with_key({7, 7, 9, 9, 9, 11}), (std::vector<int>{0, 0, 2, 2, 2, 5}));
  EXPECT_TRUE(lowest_rank_with_key({}).empty());
}

// Cores of a machine from the census records alone (machine_counts_from_records): one mask everywhere, masks
// of one run each (unioned), and masks that need the masks themselves (false).
namespace {
armcix::MachineRecord record(uint64_t key, int first, int last, int count, uint64_t hash) {
  return armcix::MachineRecord{key, hash, first, last, count, 0};
}
}  // namespace

TEST(MachineCounts, OneMaskEverywhere) {
  // Unbound ranks: every rank may use CPUs 0 and 2 (not one run, but the same mask).
  const auto m = record(1, 0, 2, 2, 42);
  std::vector<armcix::MachineCount> counts;
  ASSERT_TRUE(armcix::machine_counts_from_records({m, m, m, m}, &counts));
  ASSERT_EQ(counts.size(), 4u);
  for (const auto& c : counts) {
    EXPECT_EQ(c.ranks, 4);
    EXPECT_EQ(c.cores, 2);
    EXPECT_TRUE(c.oversubscribed());
  }
}

TEST(MachineCounts, RunsAreUnionedPerMachine) {
  // Machine 1: ranks bound to CPU 0, CPU 1, CPUs 0-3 (overlapping runs: 4 cores).  Machine 2: CPUs 8-9 and
  // 12 (3 cores for 2 ranks).
  const std::vector<armcix::MachineRecord> recs = {record(1, 0, 0, 1, 10), record(2, 8, 9, 2, 20),
                                                   record(1, 1, 1, 1, 11), record(1, 0, 3, 4, 12),
                                                   record(2, 12, 12, 1, 21)};
  std::vector<armcix::MachineCount> counts;
  ASSERT_TRUE(armcix::machine_counts_from_records(recs, &counts));
  for (int p : {0, 2, 3}) {
    EXPECT_EQ(counts[p].ranks, 3);
    EXPECT_EQ(counts[p].cores, 4);
  }
  for (int p : {1, 4}) {
    EXPECT_EQ(counts[p].ranks, 2);
    EXPECT_EQ(counts[p].cores, 3);
    EXPECT_TRUE(counts[p].core_per_rank());
  }
}

TEST(MachineCounts, DifferentMasksOfSeveralRunsNeedTheMasks) {
  // Each rank bound to a core and its hyperthread sibling ({0, 64}, {1, 65}): the records cannot say.
  std::vector<armcix::MachineCount> counts;
  EXPECT_FALSE(armcix::machine_counts_from_records({record(1, 0, 64, 2, 5), record(1, 1, 65, 2, 6)}, &counts));
  // The same masks on different machines are each one mask everywhere.
  ASSERT_TRUE(armcix::machine_counts_from_records({record(1, 0, 64, 2, 5), record(2, 1, 65, 2, 6)}, &counts));
  EXPECT_EQ(counts[0].cores, 2);
  EXPECT_EQ(counts[1].ranks, 1);
  EXPECT_TRUE(armcix::machine_counts_from_records({}, &counts));
  EXPECT_TRUE(counts.empty());
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
