// Nodes from the census (topo/node_keys.h): the key joins processes on one kernel, host name and network
// namespace and nothing else; the environment scan finds MPICH's clique and no-local settings under each
// prefix it reads; the launcher's count is read from each launcher's variable; MPICH's clique rule is
// applied as MPICH applies it (src/util/mpir_nodemap.c); and mpi_node_keys hands the decision to MPI
// wherever the records leave MPI's nodes open.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "topo/node_keys.h"

using armcix::environment_splits_hosts;
using armcix::host_split_of;
using armcix::HostSplit;
using armcix::launcher_node_count;
using armcix::mpi_node_keys;
using armcix::mpich_clique_of;
using armcix::MpichNodeMapSettings;
using armcix::node_key;
using armcix::NodeRecord;

namespace {
const char kBoot[] = "0f5c8a52-6c1e-4c3b-9a8e-2c0c5f3f1d11";
const char kOtherBoot[] = "0f5c8a52-6c1e-4c3b-9a8e-2c0c5f3f1d12";

bool splits(std::vector<const char*> env) {
  env.push_back(nullptr);
  return environment_splits_hosts(env.data());
}

NodeRecord record(uint64_t key, int launcher_count = -1, HostSplit split = HostSplit::None, int cliques = 1) {
  NodeRecord r;
  r.key = key;
  r.launcher_count = launcher_count;
  r.split = split;
  r.cliques = static_cast<int16_t>(cliques);
  return r;
}

// The records as ranks 0..n-1 of an MPI_COMM_WORLD of `world_size` (default: n).
std::vector<NodeRecord> world(std::vector<NodeRecord> records, int world_size = 0) {
  for (std::size_t i = 0; i < records.size(); ++i) {
    records[i].world_rank = static_cast<int32_t>(i);
    records[i].world_size = world_size > 0 ? world_size : static_cast<int32_t>(records.size());
  }
  return records;
}

bool keys_decide(const std::vector<NodeRecord>& records) {
  return !mpi_node_keys(world(records)).empty();
}

// Which ranks mpi_node_keys puts together, as each rank's lowest node-mate.
std::vector<int> nodes_of(const std::vector<NodeRecord>& records) {
  const std::vector<uint64_t> keys = mpi_node_keys(records);
  std::vector<int> first(keys.size());
  for (std::size_t p = 0; p < keys.size(); ++p)
    first[p] = static_cast<int>(std::find(keys.begin(), keys.end(), keys[p]) - keys.begin());
  return first;
}

std::vector<NodeRecord> n_alike(int n, const NodeRecord& r) {
  return world(std::vector<NodeRecord>(n, r));
}

// A lookup over a fixed table, standing in for getenv.
std::map<std::string, std::string>* g_env = nullptr;
const char* lookup(const char* name) {
  auto it = g_env->find(name);
  return it == g_env->end() ? nullptr : it->second.c_str();
}
int count_with(std::map<std::string, std::string> env, int world_rank = 0, int world_size = 4) {
  g_env = &env;
  const int n = launcher_node_count(lookup, world_rank, world_size);
  g_env = nullptr;
  return n;
}
}  // namespace

TEST(NodeKey, SameKernelHostAndNamespaceIsOneNode) {
  EXPECT_EQ(node_key(kBoot, "node1", 4026531840u), node_key(kBoot, "node1", 4026531840u));
}

TEST(NodeKey, EachPartSeparatesNodes) {
  const uint64_t k = node_key(kBoot, "node1", 4026531840u);
  EXPECT_NE(k, node_key(kOtherBoot, "node1", 4026531840u));  // another kernel
  EXPECT_NE(k, node_key(kBoot, "node2", 4026531840u));       // another host name (a container's UTS namespace)
  EXPECT_NE(k, node_key(kBoot, "node1", 4026532001u));       // another network namespace (a simulated host)
}

TEST(NodeKey, PartsDoNotRunIntoEachOther) {
  // Lengths are hashed with the parts: "ab" + "c" is not "a" + "bc".
  EXPECT_NE(node_key("ab", "c", 0), node_key("a", "bc", 0));
  EXPECT_NE(node_key("", "x", 0), node_key("x", "", 0));
}

TEST(EnvironmentSplitsHosts, NothingSetNothingSplit) {
  EXPECT_FALSE(splits({}));
  EXPECT_FALSE(splits({"PATH=/usr/bin", "HOME=/root", "ARMCI_SHM=1"}));
}

TEST(EnvironmentSplitsHosts, CliquesUnderEveryPrefix) {
  EXPECT_TRUE(splits({"MPIR_CVAR_NUM_CLIQUES=2"}));
  EXPECT_TRUE(splits({"MPICH_NUM_CLIQUES=8"}));
  EXPECT_TRUE(splits({"MPIR_PARAM_NUM_CLIQUES=3"}));
  EXPECT_TRUE(splits({"MPIR_CVAR_ODD_EVEN_CLIQUES=1"}));
  EXPECT_TRUE(splits({"MPIR_CVAR_EVEN_ODD_CLIQUES=yes"}));
  EXPECT_TRUE(splits({"MPICH_ODD_EVEN_CLIQUES=true"}));
}

TEST(EnvironmentSplitsHosts, NoLocalUnderBothSpellings) {
  EXPECT_TRUE(splits({"MPIR_CVAR_NOLOCAL=1"}));
  EXPECT_TRUE(splits({"MPIR_CVAR_NO_LOCAL=1"}));
  EXPECT_TRUE(splits({"MPICH_NOLOCAL=on"}));
}

TEST(EnvironmentSplitsHosts, ValuesThatLeaveOneNode) {
  EXPECT_FALSE(splits({"MPIR_CVAR_NUM_CLIQUES=1"}));
  EXPECT_FALSE(splits({"MPIR_CVAR_NUM_CLIQUES=0"}));
  EXPECT_FALSE(splits({"MPIR_CVAR_ODD_EVEN_CLIQUES=0"}));
  EXPECT_FALSE(splits({"MPIR_CVAR_ODD_EVEN_CLIQUES=false"}));
  EXPECT_FALSE(splits({"MPIR_CVAR_NOLOCAL=no"}));
  EXPECT_FALSE(splits({"MPIR_CVAR_NOLOCAL="}));
}

TEST(EnvironmentSplitsHosts, UnreadableCountIsTakenAsSet) {
  EXPECT_TRUE(splits({"MPIR_CVAR_NUM_CLIQUES=two"}));
  EXPECT_TRUE(splits({"MPIR_CVAR_NUM_CLIQUES=4x"}));
}

TEST(EnvironmentSplitsHosts, OnlyTheWholeNameCounts) {
  EXPECT_FALSE(splits({"MPIR_CVAR_NUM_CLIQUES_EXTRA=4", "XMPIR_CVAR_NUM_CLIQUES=4", "NUM_CLIQUES=4"}));
  EXPECT_FALSE(splits({"MPIR_CVAR_CLIQUES_BY_BLOCK=1"}));  // the shape of the cliques, not their number
  EXPECT_FALSE(splits({"MPIR_CVAR_NUM_CLIQUES"}));         // no '=': not a variable
}

TEST(LauncherNodeCount, EachLaunchersVariable) {
  EXPECT_EQ(count_with({}), -1);
  EXPECT_EQ(count_with({{"MPI_LOCALNRANKS", "2"}}), 2);               // MPICH's Hydra
  EXPECT_EQ(count_with({{"OMPI_COMM_WORLD_LOCAL_SIZE", "16"}}), 16);  // Open MPI
  EXPECT_EQ(count_with({{"PMIX_LOCAL_SIZE", "4"}}), 4);               // PMIx launchers
}

TEST(LauncherNodeCount, MalformedValuesAreUnknown) {
  EXPECT_EQ(count_with({{"MPI_LOCALNRANKS", ""}}), -1);
  EXPECT_EQ(count_with({{"MPI_LOCALNRANKS", "0"}}), -1);
  EXPECT_EQ(count_with({{"MPI_LOCALNRANKS", "-3"}}), -1);
  EXPECT_EQ(count_with({{"MPI_LOCALNRANKS", "3 ranks"}}), -1);
  // A malformed one does not hide a good one of another launcher.
  EXPECT_EQ(count_with({{"MPI_LOCALNRANKS", "x"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "5"}}), 5);
}

// srun's variables for task `procid` of a step of `tasks` tasks on node `nodeid`.
std::map<std::string, std::string> slurm(const char* per_node, int nodeid, int procid = 0, int tasks = 4) {
  return {{"SLURM_STEP_TASKS_PER_NODE", per_node}, {"SLURM_NODEID", std::to_string(nodeid)},
          {"SLURM_PROCID", std::to_string(procid)}, {"SLURM_STEP_NUM_TASKS", std::to_string(tasks)}};
}

TEST(LauncherNodeCount, SlurmStepTasksPerNode) {
  EXPECT_EQ(count_with(slurm("2(x2)", 0)), 2);  // srun -N 2 -n 4
  EXPECT_EQ(count_with(slurm("2(x2)", 1)), 2);
  EXPECT_EQ(count_with(slurm("3,1", 0)), 3);     // srun -n 4 -m block on nodes of 3 CPUs
  EXPECT_EQ(count_with(slurm("3,1", 1)), 1);
  EXPECT_EQ(count_with(slurm("2(x3),1", 2, 0, 7), 0, 7), 2);  // repeats, then single entries
  EXPECT_EQ(count_with(slurm("2(x3),1", 3, 0, 7), 0, 7), 1);
  EXPECT_EQ(count_with(slurm("1,2(x2),5", 3, 0, 10), 0, 10), 5);
  EXPECT_EQ(count_with(slurm("4", 0)), 4);
}

TEST(LauncherNodeCount, SlurmOnlyWhereTheRanksAreTheStepsTasks) {
  // Hydra or mpirun inside an allocation: srun started one proxy per node, and the ranks inherit that
  // step's variables.  The MPI launcher's own count wins, and without one the step's count is not the ranks'.
  auto env = slurm("1(x2)", 1, 1, 2);
  env["MPI_LOCALNRANKS"] = "2";
  EXPECT_EQ(count_with(env, 3, 4), 2);
  EXPECT_EQ(count_with(slurm("1(x2)", 1, 1, 2), 3, 4), -1);  // 2 tasks, 4 ranks
  EXPECT_EQ(count_with(slurm("2(x2)", 1, 1, 4), 3, 4), -1);  // task 1 is not rank 3
  EXPECT_EQ(count_with(slurm("2(x2)", 1, 3, 4), 3, 4), 2);
}

TEST(LauncherNodeCount, MalformedSlurmValuesAreUnknown) {
  for (const char* bad : {"", "x", "2(x2", "2(2)", "2(x)", "2(x0)", "0(x2)", "2,,2", "2,", "2(x2)1", "-2", "2 (x2)"})
    EXPECT_EQ(count_with(slurm(bad, 1)), -1) << bad;
  EXPECT_EQ(count_with(slurm("2(x2)", 2)), -1);  // no entry for node 2
  EXPECT_EQ(count_with(slurm("2,2", 5)), -1);
  EXPECT_EQ(count_with(slurm("2(x3)", 0)), -1);  // 6 tasks in the list, 4 in the step
  auto missing = slurm("2(x2)", 0);
  missing.erase("SLURM_NODEID");
  EXPECT_EQ(count_with(missing), -1);
  missing = slurm("2(x2)", 0);
  missing.erase("SLURM_STEP_NUM_TASKS");
  EXPECT_EQ(count_with(missing), -1);
}

TEST(MpiNodeKeys, AgreeingLaunchersAndPlainEnvironments) {
  EXPECT_TRUE(keys_decide({record(7, 2), record(7, 2), record(9, 2), record(9, 2)}));
  EXPECT_EQ(nodes_of(world({record(7, 2), record(7, 2), record(9, 2), record(9, 2)})), (std::vector<int>{0, 0, 2, 2}));
  EXPECT_TRUE(keys_decide({record(7), record(7), record(7)}));  // no launcher count: the keys alone
  EXPECT_FALSE(keys_decide({}));                                // nothing to decide by: MPI
}

TEST(MpiNodeKeys, FewerThanTheLauncherIsAPartOfTheJob) {
  // ARMCI_Init_mpi_comm on half of a node's processes.
  EXPECT_TRUE(!mpi_node_keys(world({record(7, 4), record(7, 4)}, 4)).empty());
}

TEST(MpiNodeKeys, MoreThanTheLauncherPutOnANodeAsksMpi) {
  // One host given to the launcher twice (two nodes to MPI, one key).
  EXPECT_FALSE(keys_decide({record(7, 2), record(7, 2), record(7, 2), record(7, 2)}));
  // One process's count is enough: every rank holds every record, so all decide alike.
  EXPECT_FALSE(keys_decide({record(7), record(7), record(7, 1)}));
}

TEST(MpiNodeKeys, ASplitOnlyMpiCanTellAnywhereAsksMpi) {
  EXPECT_FALSE(keys_decide({record(7, 4), record(7, 4), record(7, 4, HostSplit::Unknown), record(7, 4)}));
}

TEST(MpiNodeKeys, ProcessesThatReadDifferentSplitsAskMpi) {
  EXPECT_FALSE(keys_decide({record(7, 4, HostSplit::Cliques, 2), record(7, 4, HostSplit::Cliques, 2),
                            record(7, 4, HostSplit::Cliques, 3), record(7, 4, HostSplit::Cliques, 2)}));
  EXPECT_FALSE(keys_decide({record(7, 2, HostSplit::Cliques, 2), record(7, 2)}));
  std::vector<NodeRecord> sizes = world({record(7, 2), record(7, 2)});
  sizes[1].world_size = 3;  // not one MPI_COMM_WORLD
  EXPECT_TRUE(mpi_node_keys(sizes).empty());
}

// MPICH's round-robin cliques by MPI_COMM_WORLD rank (MPIR_CVAR_NUM_CLIQUES=k, ODD_EVEN_CLIQUES: k = 2).
TEST(MpiNodeKeys, RoundRobinCliquesOnOneLauncherNode) {
  EXPECT_EQ(nodes_of(n_alike(4, record(7, 4, HostSplit::Cliques, 2))), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(nodes_of(n_alike(7, record(7, 7, HostSplit::Cliques, 3))), (std::vector<int>{0, 1, 2, 0, 1, 2, 0}));
  // More cliques than processes: MPICH caps them at the world's size, one process each.
  EXPECT_EQ(nodes_of(n_alike(3, record(7, 3, HostSplit::Cliques, 8))), (std::vector<int>{0, 1, 2}));
}

TEST(MpiNodeKeys, BlockCliquesPutTheRemainderFirst) {
  // 10 ranks in 4 blocks: sizes 3, 3, 2, 2 (MPICH's build_nodemap_byblock).
  EXPECT_EQ(nodes_of(n_alike(10, record(7, 10, HostSplit::CliquesByBlock, 4))),
            (std::vector<int>{0, 0, 0, 3, 3, 3, 6, 6, 8, 8}));
  EXPECT_EQ(nodes_of(n_alike(4, record(7, 4, HostSplit::CliquesByBlock, 3))), (std::vector<int>{0, 0, 2, 3}));
}

TEST(MpiNodeKeys, CliquesNumberByWorldRankOnAPartOfTheJob) {
  // ARMCI on world ranks 1, 2 and 3 of 4 on one node with 2 cliques: 1 and 3 together, 2 alone.
  std::vector<NodeRecord> part = n_alike(4, record(7, 4, HostSplit::Cliques, 2));
  part.erase(part.begin());
  EXPECT_EQ(nodes_of(part), (std::vector<int>{0, 1, 0}));
}

TEST(MpiNodeKeys, CliquesOnlyWhereTheLauncherSeesOneNode) {
  // Two launcher nodes (two hosts, 2 processes each): MPICH keeps its launcher's nodes.
  std::vector<NodeRecord> two_hosts = world({record(7, 2, HostSplit::Cliques, 2), record(7, 2, HostSplit::Cliques, 2),
                                             record(9, 2, HostSplit::Cliques, 2), record(9, 2, HostSplit::Cliques, 2)});
  EXPECT_EQ(nodes_of(two_hosts), (std::vector<int>{0, 0, 2, 2}));
  // One host named twice to the launcher with cliques set: the keys cannot tell MPI's nodes.
  EXPECT_FALSE(keys_decide({record(7, 2, HostSplit::Cliques, 2), record(7, 2, HostSplit::Cliques, 2),
                            record(7, 2, HostSplit::Cliques, 2), record(7, 2, HostSplit::Cliques, 2)}));
  // No launcher count: whether MPICH sees one node is open.
  EXPECT_FALSE(keys_decide({record(7, -1, HostSplit::Cliques, 2), record(7, -1, HostSplit::Cliques, 2)}));
  // Mixed counts (one process says all, another fewer): open too.
  EXPECT_FALSE(keys_decide({record(7, 2, HostSplit::Cliques, 2), record(7, 1, HostSplit::Cliques, 2)}));
}

TEST(MpiNodeKeys, NoLocalMakesEveryProcessANode) {
  EXPECT_EQ(nodes_of(n_alike(3, record(7, 3, HostSplit::NoLocal))), (std::vector<int>{0, 1, 2}));
  // A world of one process is a node of its own however it was launched.
  EXPECT_EQ(nodes_of(n_alike(1, record(7, -1))), (std::vector<int>{0}));
}

TEST(MpichCliqueOf, MatchesMpichsRules) {
  for (int r = 0; r < 9; ++r) EXPECT_EQ(mpich_clique_of(r, 9, 4, false), r % 4);
  // 9 in 4 blocks: 3, 2, 2, 2.
  const int expected[] = {0, 0, 0, 1, 1, 2, 2, 3, 3};
  for (int r = 0; r < 9; ++r) EXPECT_EQ(mpich_clique_of(r, 9, 4, true), expected[r]) << "rank " << r;
  for (int r = 0; r < 8; ++r) EXPECT_EQ(mpich_clique_of(r, 8, 2, true), r / 4);
}

TEST(HostSplitOf, MpichsSettings) {
  int16_t k = 0;
  EXPECT_EQ(host_split_of(MpichNodeMapSettings{}, &k), HostSplit::None);
  EXPECT_EQ(k, 1);
  EXPECT_EQ(host_split_of(MpichNodeMapSettings{0, 3, 0, 0}, &k), HostSplit::Cliques);
  EXPECT_EQ(k, 3);
  EXPECT_EQ(host_split_of(MpichNodeMapSettings{0, 1, 1, 0}, &k), HostSplit::Cliques);  // odd-even: 2
  EXPECT_EQ(k, 2);
  EXPECT_EQ(host_split_of(MpichNodeMapSettings{0, 5, 1, 1}, &k), HostSplit::CliquesByBlock);  // the count wins
  EXPECT_EQ(k, 5);
  EXPECT_EQ(host_split_of(MpichNodeMapSettings{1, 4, 0, 0}, &k), HostSplit::NoLocal);  // no-local wins
  EXPECT_EQ(host_split_of(MpichNodeMapSettings{0, 0, 0, 1}, &k), HostSplit::None);     // blocks of nothing
  EXPECT_EQ(host_split_of(MpichNodeMapSettings{0, 100000, 0, 0}, &k), HostSplit::Unknown);
}
