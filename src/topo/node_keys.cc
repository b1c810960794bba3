#include "topo/node_keys.h"

#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>

#include "base/config.h"
#include "base/error.h"
#include "base/fnv1a.h"
#include "base/mpi_library.h"

extern char** environ;

namespace armcix {

uint64_t node_key(const std::string& boot_id, const std::string& hostname, uint64_t netns) {
  // Each part with its length, so that no two different triples hash the same text.
  Fnv1a h;
  h.add_byte('n');
  for (const std::string* part : {&boot_id, &hostname}) {
    const uint64_t n = part->size();
    h.add(&n, sizeof n).add(part->data(), part->size());
  }
  return h.add(&netns, sizeof netns).value();
}

uint64_t read_netns_id() {
  struct stat st;
  if (stat("/proc/self/ns/net", &st) != 0) return 0;
  return static_cast<uint64_t>(st.st_ino);
}

int slurm_step_node_count(const char* (*lookup)(const char* name), int world_rank, int world_size) {
  constexpr long kMax = (1L << 30) - 1;
  long tasks = 0, procid = 0, node = 0;
  if (!parse_int(lookup("SLURM_STEP_NUM_TASKS"), 1, kMax, &tasks) || tasks != world_size) return -1;
  if (!parse_int(lookup("SLURM_PROCID"), 0, kMax, &procid) || procid != world_rank) return -1;
  if (!parse_int(lookup("SLURM_NODEID"), 0, kMax, &node)) return -1;
  const char* list = lookup("SLURM_STEP_TASKS_PER_NODE");
  if (!list) return -1;
  // Entries "N" or "N(xR)", comma-separated.  The whole list is read and must add up to the step's tasks:
  // a list we misread counts for no node.
  const char* p = list;
  long first = 0, total = 0;
  int count = -1;
  for (;;) {
    char* end = nullptr;
    if (*p < '0' || *p > '9') return -1;
    const long n = std::strtol(p, &end, 10);
    long repeat = 1;
    p = end;
    if (*p == '(') {
      if (p[1] != 'x' || p[2] < '0' || p[2] > '9') return -1;
      repeat = std::strtol(p + 2, &end, 10);
      if (*end != ')') return -1;
      p = end + 1;
    }
    if (n < 1 || n > kMax || repeat < 1 || repeat > kMax) return -1;
    if (node >= first && node < first + repeat) count = static_cast<int>(n);
    first += repeat;
    total += n * repeat;
    if (first > kMax || total > kMax) return -1;
    if (*p == '\0') return total == tasks ? count : -1;  // count: -1 when the list ends before node `node`
    if (*p++ != ',') return -1;
  }
}

int launcher_node_count(const char* (*lookup)(const char* name), int world_rank, int world_size) {
  // The MPI launchers' own counts first: under Hydra or mpirun inside a Slurm allocation the ranks inherit
  // Slurm's variables for the proxies' step as well.
  for (const char* name : {"MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE", "PMIX_LOCAL_SIZE"}) {
    long n = 0;
    if (parse_int(lookup(name), 1, (1L << 30) - 1, &n)) return static_cast<int>(n);
  }
  return slurm_step_node_count(lookup, world_rank, world_size);
}

namespace {

// MPICH's names for the settings that make one host several nodes (its cvars and their alt-env names),
// and whether each is a count (split when above 1) or a flag (split when true).
struct HostSplitter {
  const char* name;
  bool count;
};
constexpr HostSplitter kHostSplitters[] = {
    {"NUM_CLIQUES", true}, {"ODD_EVEN_CLIQUES", false}, {"EVEN_ODD_CLIQUES", false},
    {"NOLOCAL", false},    {"NO_LOCAL", false},
};
constexpr const char* kMpichPrefixes[] = {"MPIR_CVAR_", "MPICH_", "MPIR_PARAM_"};

bool splits(const HostSplitter& s, const char* value) {
  if (s.count) {
    long n = 0;
    return !parse_int(value, LONG_MIN, LONG_MAX, &n) || n > 1;  // unreadable: count it as set
  }
  for (const char* off : {"", "0", "no", "NO", "No", "false", "FALSE", "False", "off", "OFF", "Off"})
    if (std::strcmp(value, off) == 0) return false;
  return true;
}

}  // namespace

bool environment_splits_hosts(const char* const* envp) {
  for (const char* const* e = envp; e && *e; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (!eq) continue;
    for (const char* prefix : kMpichPrefixes) {
      const std::size_t pl = std::strlen(prefix);
      if (std::strncmp(*e, prefix, pl) != 0) continue;
      const std::string rest(*e + pl, eq);
      for (const HostSplitter& s : kHostSplitters)
        if (rest == s.name && splits(s, eq + 1)) return true;
    }
  }
  return false;
}

HostSplit host_split_of(const MpichNodeMapSettings& s, int16_t* cliques) {
  *cliques = 1;
  if (s.no_local) return HostSplit::NoLocal;
  const int n = s.num_cliques > 1 ? s.num_cliques : s.odd_even_cliques ? 2 : 1;
  if (n <= 1) return HostSplit::None;
  if (n > INT16_MAX) return HostSplit::Unknown;  // more cliques than a record holds: MPI decides
  *cliques = static_cast<int16_t>(n);
  return s.cliques_by_block ? HostSplit::CliquesByBlock : HostSplit::Cliques;
}

namespace {

// One integer control variable of the MPI library by name (MPI_T, inside an MPI_T session); false if the
// library has none by that name or it is not a single int.
bool read_int_cvar(const char* name, int* value) {
  int index = 0, count = 0;
  MPI_T_cvar_handle handle;
  if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS) return false;
  if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) != MPI_SUCCESS) return false;
  const bool read = count == 1 && MPI_T_cvar_read(handle, value) == MPI_SUCCESS;
  const bool freed = MPI_T_cvar_handle_free(&handle) == MPI_SUCCESS;
  return read && freed;
}

// MPICH's node-map settings as it parsed them; false when any MPI_T call fails (the caller then leaves the
// nodes to MPI_Comm_split_type, so a failure costs start-up time, never a wrong node).  Only made where the
// environment names such a setting (its cost: doc/performance.md, "ARMCI_Init under MPICH cliques").
bool read_mpich_node_map_settings(MpichNodeMapSettings* s) {
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return false;
  const bool read = read_int_cvar("MPIR_CVAR_NOLOCAL", &s->no_local) &&
                    read_int_cvar("MPIR_CVAR_NUM_CLIQUES", &s->num_cliques) &&
                    read_int_cvar("MPIR_CVAR_ODD_EVEN_CLIQUES", &s->odd_even_cliques) &&
                    read_int_cvar("MPIR_CVAR_CLIQUES_BY_BLOCK", &s->cliques_by_block);
  const bool closed = MPI_T_finalize() == MPI_SUCCESS;
  return read && closed;
}

uint64_t refine(uint64_t key, char what, int32_t part) {
  Fnv1a h;
  h.add_byte(what);
  return h.add(&key, sizeof key).add(&part, sizeof part).value();
}

}  // namespace

HostSplit read_host_split(const char* const* envp, int16_t* cliques) {
  *cliques = 1;
  if (!environment_splits_hosts(envp)) return HostSplit::None;
  // The rule of src/util/mpir_nodemap.c, unchanged from MPICH 4.0 through 4.3; derived MPIs (Intel MPI,
  // MVAPICH, Cray MPICH) name themselves otherwise and keep their own rules.
  const MpiLibrary& lib = mpi_library();
  MpichNodeMapSettings s;
  if (!lib.is_mpich() || lib.before(4, 0) || !read_mpich_node_map_settings(&s)) return HostSplit::Unknown;
  return host_split_of(s, cliques);
}

NodeRecord my_node_record(const std::string& boot_id, const std::string& hostname) {
  NodeRecord r;
  r.key = node_key(boot_id, hostname, read_netns_id());
  // PMPI: the real MPI_COMM_WORLD, not the program ranks' one of the wrappers (MPICH numbers cliques by it).
  ARMCIX_MPI(PMPI_Comm_rank(MPI_COMM_WORLD, &r.world_rank));
  ARMCIX_MPI(PMPI_Comm_size(MPI_COMM_WORLD, &r.world_size));
  r.launcher_count = launcher_node_count([](const char* name) -> const char* { return std::getenv(name); },
                                         r.world_rank, r.world_size);
  r.split = read_host_split(environ, &r.cliques);
  return r;
}

int mpich_clique_of(int rank, int size, int cliques, bool by_block) {
  if (!by_block) return rank % cliques;
  const int block = size / cliques, remainder = size % cliques;
  const int middle = (block + 1) * remainder;  // the first `remainder` cliques hold block + 1
  return rank < middle ? rank / (block + 1) : (rank - remainder) / block;
}

std::vector<uint64_t> mpi_node_keys(const std::vector<NodeRecord>& records) {
  if (records.empty()) return {};
  const NodeRecord& first = records[0];
  for (const NodeRecord& r : records)
    if (r.split == HostSplit::Unknown || r.split != first.split || r.cliques != first.cliques ||
        r.world_size != first.world_size || r.world_rank < 0 || r.world_rank >= r.world_size)
      return {};
  std::vector<uint64_t> keys(records.size());
  for (std::size_t p = 0; p < records.size(); ++p) keys[p] = records[p].key;
  if (first.split == HostSplit::NoLocal || first.world_size == 1) {  // MPICH: one node per process
    for (std::size_t p = 0; p < records.size(); ++p) keys[p] = refine(keys[p], 'l', records[p].world_rank);
    return keys;
  }
  if (first.split == HostSplit::Cliques || first.split == HostSplit::CliquesByBlock) {
    const bool world_on_one_node = std::all_of(records.begin(), records.end(), [&](const NodeRecord& r) {
      return r.key == first.key && r.launcher_count == first.world_size;
    });
    const bool world_on_several = std::all_of(records.begin(), records.end(), [&](const NodeRecord& r) {
      return r.launcher_count >= 1 && r.launcher_count < first.world_size;
    });
    if (world_on_one_node) {
      const int cliques = std::min<int>(first.cliques, first.world_size);
      for (std::size_t p = 0; p < records.size(); ++p)
        keys[p] = refine(keys[p], 'c',
                         mpich_clique_of(records[p].world_rank, first.world_size, cliques,
                                         first.split == HostSplit::CliquesByBlock));
      return keys;
    }
    if (!world_on_several) return {};
    // Several launcher nodes: MPICH keeps them as they are, and so do the keys (checked below).
  }
  // More processes on a key than the launcher put on one of their nodes: the launcher sees several nodes
  // where the key sees one (a host named twice in a host list, say).  Fewer is fine: ARMCI may run on a
  // part of the job (ARMCI_Init_mpi_comm).
  std::map<uint64_t, int> per_key;
  for (const NodeRecord& r : records) ++per_key[r.key];
  for (const NodeRecord& r : records)
    if (r.launcher_count >= 0 && per_key[r.key] > r.launcher_count) return {};
  return keys;
}

}  // namespace armcix
