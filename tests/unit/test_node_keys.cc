// Nodes from the census (topo/node_keys.h): the key joins processes on one kernel, host name and network
// namespace and nothing else; the environment scan finds MPICH's clique and no-local settings under each
// prefix it reads; the launcher's count is read from each launcher's variable; and keys_are_mpi_nodes
// hands the decision to MPI wherever either says the host is several nodes.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "topo/node_keys.h"

using armcix::environment_splits_hosts;
using armcix::keys_are_mpi_nodes;
using armcix::launcher_node_count;
using armcix::node_key;
using armcix::NodeRecord;

namespace {
const char kBoot[] = "0f5c8a52-6c1e-4c3b-9a8e-2c0c5f3f1d11";
const char kOtherBoot[] = "0f5c8a52-6c1e-4c3b-9a8e-2c0c5f3f1d12";

bool splits(std::vector<const char*> env) {
  env.push_back(nullptr);
  return environment_splits_hosts(env.data());
}

NodeRecord record(uint64_t key, int launcher_count = -1, int hosts_split = 0) {
  NodeRecord r;
  r.key = key;
  r.launcher_count = launcher_count;
  r.hosts_split = hosts_split;
  return r;
}

// A lookup over a fixed table, standing in for getenv.
std::map<std::string, std::string>* g_env = nullptr;
const char* lookup(const char* name) {
  auto it = g_env->find(name);
  return it == g_env->end() ? nullptr : it->second.c_str();
}
int count_with(std::map<std::string, std::string> env) {
  g_env = &env;
  const int n = launcher_node_count(lookup);
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

TEST(KeysAreMpiNodes, AgreeingLaunchersAndPlainEnvironments) {
  EXPECT_TRUE(keys_are_mpi_nodes({record(7, 2), record(7, 2), record(9, 2), record(9, 2)}));
  EXPECT_TRUE(keys_are_mpi_nodes({record(7), record(7), record(7)}));  // no launcher count: the keys alone
  EXPECT_TRUE(keys_are_mpi_nodes({}));
}

TEST(KeysAreMpiNodes, FewerThanTheLauncherIsAPartOfTheJob) {
  // ARMCI_Init_mpi_comm on half of a node's processes.
  EXPECT_TRUE(keys_are_mpi_nodes({record(7, 4), record(7, 4)}));
}

TEST(KeysAreMpiNodes, MoreThanTheLauncherPutOnANodeAsksMpi) {
  // One host given to the launcher twice (two nodes to MPI, one key).
  EXPECT_FALSE(keys_are_mpi_nodes({record(7, 2), record(7, 2), record(7, 2), record(7, 2)}));
  // One process's count is enough: every rank holds every record, so all decide alike.
  EXPECT_FALSE(keys_are_mpi_nodes({record(7), record(7), record(7, 1)}));
}

TEST(KeysAreMpiNodes, ASplittingEnvironmentAnywhereAsksMpi) {
  EXPECT_FALSE(keys_are_mpi_nodes({record(7, 4), record(7, 4), record(7, 4, 1), record(7, 4)}));
}
