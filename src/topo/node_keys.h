// MPI's nodes without asking MPI: a key per process that names the node MPI will put it on, sent in
// ARMCI_Init's census (runtime/runtime.cc), so that ARMCI_Init needs no MPI_Comm_split_type.
//
// Why: MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) is two full MPI_Comm_splits in MPICH (4.0 and 4.2: a
// colour-0 split, then the split by node), each an allgather and a context-id allreduce over the whole job,
// and blocking (busy-polling) -- four collective rounds where ARMCI-MPI's whole start-up is one duplicate
// (doc/performance.md, "ARMCI_Init").  Every MPI we know takes its nodes from the host the launcher started
// a process on, and the census already reaches every process: with the key in it, the node table and the
// node communicator (MPI_Comm_create_group among the node's processes only) cost no collective over the job.
//
// The key must never join processes that MPI keeps apart (a shared-memory window over them would be
// erroneous); splitting what MPI joins only costs speed.  So it is conservative, and MPI decides where it
// has been told to see the hosts otherwise: keys_are_mpi_nodes below.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace armcix {

// What a rank tells the others about its node in the census.  Sent as bytes: no padding.
struct NodeRecord {
  uint64_t key = 0;             // node_key of this process
  int32_t launcher_count = -1;  // processes the launcher started on this node (launcher_node_count); -1: unknown
  int32_t hosts_split = 0;      // 1: this process's environment tells MPI to split hosts (environment_splits_hosts)
};
static_assert(sizeof(NodeRecord) == 16, "NodeRecord is sent as bytes");

// Same kernel (the boot id; the host name alone without one), same host name, same network namespace
// (`netns`: its inode, 0 if unknown): MPI calls the processes of a launcher's host one node, and simulated
// hosts (tools/simhosts.sh: one network namespace each, one host name and kernel for all) are hosts to the
// launcher.  The mount namespace is left out on purpose: container runtimes (Apptainer) give every rank its
// own while MPI sees one node, which would cost the node-local path.
uint64_t node_key(const std::string& boot_id, const std::string& hostname, uint64_t netns);

// The inode of this process's network namespace (/proc/self/ns/net), 0 if unreadable.
uint64_t read_netns_id();

// How many processes the launcher says it started on this node: MPICH's Hydra (MPI_LOCALNRANKS), Open MPI
// (OMPI_COMM_WORLD_LOCAL_SIZE), PMIx launchers (PMIX_LOCAL_SIZE); -1 when none says.  `getenv`-like lookup.
int launcher_node_count(const char* (*lookup)(const char* name));

// Whether an environment (`envp`, as `environ`) tells MPICH to see one host as several nodes: the clique
// and no-local settings (MPIR_CVAR_NUM_CLIQUES > 1, MPIR_CVAR_ODD_EVEN_CLIQUES, MPIR_CVAR_NOLOCAL, under
// every prefix and alias MPICH reads: MPIR_CVAR_, MPICH_, MPIR_PARAM_).  Conservative: a value it cannot
// read counts as set.  Other MPIs ignore these variables; with one set there MPI is asked anyway.
bool environment_splits_hosts(const char* const* envp);

// This process's record (`boot_id`, `hostname`: topo/machine.h, read_boot_id and read_hostname).
NodeRecord my_node_record(const std::string& boot_id, const std::string& hostname);

// True when the keys of `records` (one per rank of a communicator, the same on every rank) are MPI's nodes:
// no process's environment splits hosts, and no key is shared by more processes than the launcher started
// on that process's node.  Every rank decides alike.
bool keys_are_mpi_nodes(const std::vector<NodeRecord>& records);

}  // namespace armcix
