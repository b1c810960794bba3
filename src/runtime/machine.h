// Which ranks share a machine, and whether it has fewer cores than ranks.
//
// MPI's node (MPI_COMM_TYPE_SHARED) is the wrong unit for oversubscription: simulated hosts (network
// namespaces, tools/simhosts.sh), containers on one VM, and MPICH's cliques split one machine into several
// MPI nodes, each of which may have no more ranks than cores while the machine as a whole has (2 hosts x
// 2 ranks on a 2-core machine: 4 ranks, 2 cores, yet each "node" has 2 ranks and nothing backed off:
// NWChem water CCSD at 2x2 took 279 s against 16 s on one node).  Ranks are on one machine when they run
// on the same kernel (/proc/sys/kernel/random/boot_id, a random UUID per boot) with the same host name;
// its usable cores are the union of their CPU affinity masks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace armcix {

// A 64-bit key for (boot id, host name); equal strings give equal keys on every rank.  An empty boot id
// (no /proc) makes the key depend on the host name alone.
uint64_t machine_key(const std::string& boot_id, const std::string& hostname);

// For every rank, the lowest rank with the same key: ranks with the same value share a machine.
std::vector<int> machine_leaders(const std::vector<uint64_t>& keys);

// Whether waits should back off: the cores are oversubscribed when our ranks on the machine plus the
// processes of other jobs that were runnable at start-up (others_running) exceed the usable cores.  The
// others count for shared nodes: on a 2-core machine already running 10 busy-polling processes of other
// jobs, even 2 ranks get a core only part of the time, and a rank spinning in a wait then takes the time
// slice its peer needs.
bool cores_oversubscribed(int machine_ranks, int cores, int others_running);

// Processes of other jobs runnable right now, estimated from /proc/stat's procs_running (which counts
// every runnable task on the machine, this process included): the smallest of a few samples a
// millisecond apart, less our own ranks on the machine, at least 0.  0 where /proc/stat is unreadable.
int count_others_running(int machine_ranks);

// The procs_running value of a /proc/stat text; -1 if it has none.
int parse_procs_running(const std::string& proc_stat);

// This process's boot id (empty if unreadable) and host name.
std::string read_boot_id();
std::string read_hostname();

}  // namespace armcix
