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
// erroneous); splitting what MPI joins only costs speed.  So it is conservative, and where MPI has been told
// to see the hosts otherwise, either the census applies MPI's own rule from the values MPI read (MPICH's
// cliques, read through MPI_T: no collective, where MPI_Comm_split_type is one over the whole job;
// doc/performance.md, "ARMCI_Init under MPICH cliques") or MPI decides: mpi_node_keys below.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace armcix {

// How MPI splits a host into nodes, as this process can read it (read_host_split).  MPICH's debugging
// settings (MPIR_CVAR_NUM_CLIQUES, ODD_EVEN_CLIQUES, CLIQUES_BY_BLOCK, NOLOCAL) make its node map finer
// than the launcher's; its rule (src/util/mpir_nodemap.c, the same from 4.0 through 4.3) is a pure function
// of the MPI_COMM_WORLD rank, so the census can apply it where it read the settings' values from MPI itself.
enum class HostSplit : int16_t {
  None = 0,           // MPI's nodes are the launcher's hosts
  Unknown = 1,        // something splits hosts in a way only MPI can tell: MPI_Comm_split_type decides
  NoLocal = 2,        // every process is a node of its own
  Cliques = 3,        // the host's processes in `cliques` round-robin cliques by MPI_COMM_WORLD rank
  CliquesByBlock = 4  // the same in uniform blocks, the first (size % cliques) one larger
};

// What a rank tells the others about its node in the census.  Sent as bytes: no padding.
struct NodeRecord {
  uint64_t key = 0;                   // node_key of this process
  int32_t launcher_count = -1;        // processes the launcher started on this node (launcher_node_count); -1: unknown
  int32_t world_rank = -1;            // rank in MPI_COMM_WORLD, which MPICH numbers its cliques by
  int32_t world_size = 0;             // size of MPI_COMM_WORLD
  HostSplit split = HostSplit::None;  // read_host_split
  int16_t cliques = 1;                // with Cliques*: how many (MPICH's count, at least 2)
};
static_assert(sizeof(NodeRecord) == 24, "NodeRecord is sent as bytes");

// Same kernel (the boot id; the host name alone without one), same host name, same network namespace
// (`netns`: its inode, 0 if unknown): MPI calls the processes of a launcher's host one node, and simulated
// hosts (tools/simhosts.sh: one network namespace each, one host name and kernel for all) are hosts to the
// launcher.  The mount namespace is left out on purpose: container runtimes (Apptainer) give every rank its
// own while MPI sees one node, which would cost the node-local path.
uint64_t node_key(const std::string& boot_id, const std::string& hostname, uint64_t netns);

// The inode of this process's network namespace (/proc/self/ns/net), 0 if unreadable.
uint64_t read_netns_id();

// How many processes the launcher says it started on this node: MPICH's Hydra (MPI_LOCALNRANKS), Open MPI
// (OMPI_COMM_WORLD_LOCAL_SIZE), PMIx launchers (PMIX_LOCAL_SIZE), else Slurm's srun (slurm_step_node_count,
// for this process as rank `world_rank` of `world_size`); -1 when none says.  `getenv`-like lookup.
int launcher_node_count(const char* (*lookup)(const char* name), int world_rank, int world_size);

// The tasks srun started on this process's node: entry SLURM_NODEID of SLURM_STEP_TASKS_PER_NODE ("2(x3),1":
// 2 on nodes 0-2, 1 on node 3).  Slurm's variables are inherited by whatever a task starts, so they describe
// the MPI processes only when those are the step's tasks: SLURM_STEP_NUM_TASKS is `world_size` and
// SLURM_PROCID `world_rank` (under Hydra or Open MPI's mpirun inside an allocation, srun starts one proxy or
// daemon per node, and the step's count is theirs).  -1 otherwise or when a variable is missing or malformed.
int slurm_step_node_count(const char* (*lookup)(const char* name), int world_rank, int world_size);

// Whether an environment (`envp`, as `environ`) tells MPICH to see one host as several nodes: the clique
// and no-local settings (MPIR_CVAR_NUM_CLIQUES > 1, MPIR_CVAR_ODD_EVEN_CLIQUES, MPIR_CVAR_NOLOCAL, under
// every prefix and alias MPICH reads: MPIR_CVAR_, MPICH_, MPIR_PARAM_).  Conservative: a value it cannot
// read counts as set.  Other MPIs ignore these variables; with one set there MPI is asked anyway.
bool environment_splits_hosts(const char* const* envp);

// MPICH's node-map settings as MPICH itself parsed them (MPI_T control variables).
struct MpichNodeMapSettings {
  int no_local = 0, num_cliques = 1, odd_even_cliques = 0, cliques_by_block = 0;
};

// The split those settings make (MPICH's get_option_num_cliques: ODD_EVEN_CLIQUES means 2 cliques).
HostSplit host_split_of(const MpichNodeMapSettings& s, int16_t* cliques);

// This process's split: None when the environment sets nothing that splits hosts (no MPI call made); else,
// on MPICH 4.0 or later, host_split_of the settings read through MPI_T; else Unknown.
HostSplit read_host_split(const char* const* envp, int16_t* cliques);

// This process's record (`boot_id`, `hostname`: topo/machine.h, read_boot_id and read_hostname).
NodeRecord my_node_record(const std::string& boot_id, const std::string& hostname);

// MPICH's clique (0 .. cliques-1) of MPI_COMM_WORLD rank `rank` of `size` (cliques <= size): round-robin,
// or by uniform blocks with the first size % cliques blocks one larger.
int mpich_clique_of(int rank, int size, int cliques, bool by_block);

// MPI's nodes as keys, one per rank of `records` (one record per rank of a communicator, the same list on
// every rank, so every rank decides alike): the node keys, refined by MPICH's clique or no-local rule where
// every process read the same one.  MPICH applies cliques only where its launcher's map is one node for the
// whole of MPI_COMM_WORLD, which the launcher's count says (every process's count is the world's size).
// Empty when only MPI can tell: a split nobody could read, processes that read different splits or world
// sizes, a clique split where the launcher's counts leave open whether the world is on one node, or more
// processes on a key than the launcher started on that process's node (a host named twice).
std::vector<uint64_t> mpi_node_keys(const std::vector<NodeRecord>& records);

}  // namespace armcix
