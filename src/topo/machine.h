// Which ranks share a machine, and whether it has fewer cores than ranks.
//
// MPI's node (MPI_COMM_TYPE_SHARED) is the wrong unit for oversubscription: simulated hosts (network
// namespaces, tools/simhosts.sh), containers on one VM, and MPICH's cliques split one machine into several
// MPI nodes, each of which may have no more ranks than cores while the machine as a whole has (2 hosts x
// 2 ranks on a 2-core machine: 4 ranks, 2 cores, yet each "node" has 2 ranks and nothing would back off).  Ranks are on one machine when they run
// on the same kernel (/proc/sys/kernel/random/boot_id, a random UUID per boot), whatever host name their
// UTS namespace gives them; only without a boot id does the host name decide.  Its usable cores are the
// union of their CPU affinity masks.
#pragma once

#include <mpi.h>
#include <sched.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/machine_count.h"

namespace armcix {

// A 64-bit key for the machine: from the boot id, or from the host name when the boot id is empty (no
// /proc); equal strings give equal keys on every rank.
uint64_t machine_key(const std::string& boot_id, const std::string& hostname);

// For every rank, the lowest rank with the same key: its machine's leader for machine keys, its node's for
// node keys (topo/node_keys.h).
std::vector<int> lowest_rank_with_key(const std::vector<uint64_t>& keys);

// This process's boot id (empty if unreadable) and host name.
std::string read_boot_id();
std::string read_hostname();

// What a rank tells the others about its machine in ARMCI_Init's one allgather (runtime/runtime.cc): the
// machine's key and a summary of its CPU affinity mask, enough to count the machine's cores without a
// communicator per machine in the usual layouts (every rank of a machine with one mask, or each rank bound
// to one run of consecutive CPUs).
struct MachineRecord {
  uint64_t key = 0;         // machine_key
  uint64_t cpus_hash = 0;   // FNV-1a over the mask's bytes
  int32_t cpus_first = -1;  // lowest CPU of the mask (-1: empty)
  int32_t cpus_last = -1;   // highest
  int32_t cpus_count = 0;   // CPUs in the mask
  int32_t unused = 0;       // keeps the record a multiple of 8 bytes (it is sent as bytes)
};

// This process's record (`boot_id`, `hostname`: read_boot_id, read_hostname); `mask` receives its affinity
// mask (all online CPUs if it cannot be read).
MachineRecord my_machine_record(cpu_set_t* mask, const std::string& boot_id, const std::string& hostname);

// For every rank of `records` (one per rank of a communicator), its machine's count: how many of the ranks
// share its key, and how many CPUs the union of their masks holds.  False when the records cannot say
// exactly: ranks of one machine whose masks differ and are not each one run of consecutive CPUs.
bool machine_counts_from_records(const std::vector<MachineRecord>& records, std::vector<MachineCount>* counts);

// The same, always exact: where the records cannot say, one MPI_Allgather of every rank's mask over `comm`
// (`mine`: this rank's).  Every rank holds the same records, so either all of them take that step or none.
std::vector<MachineCount> count_machines(MPI_Comm comm, const std::vector<MachineRecord>& records,
                                         const cpu_set_t& mine);

// Whether programs other than ours keep this machine's cores busy: the machine's runnable tasks now
// (/proc/loadavg's fourth field, "running/total") exceed `ours_runnable` (how many of our processes may be
// among them) by more than one (sampled_runnable_tasks: cheap enough to ask before every wait); true when
// /proc/loadavg cannot be read.  A guess, as any such count is: it is for choosing
// between yielding and sleeping while a wait lasts, never for correctness.
bool foreign_load(long ours_runnable);

// The machine's runnable tasks now, the caller included (/proc/loadavg's "R/T" field, read each call), or -1
// if /proc/loadavg cannot be read.
long runnable_tasks();

// runnable_tasks() read at most every 10 ms per process (the last reading otherwise; -1 before the first
// or if unreadable).  Async-signal-safe: the yield timer's handler asks it (wait/yield_timer.cc).
long sampled_runnable_tasks();

// Parses /proc/loadavg's text: the number of runnable tasks, or -1 if `text` is not in that format.
long loadavg_running(const char* text);

}  // namespace armcix
