#include "topo/node_keys.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>

#include "base/config.h"
#include "base/fnv1a.h"

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

int launcher_node_count(const char* (*lookup)(const char* name)) {
  for (const char* name : {"MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE", "PMIX_LOCAL_SIZE"}) {
    long n = 0;
    if (parse_int(lookup(name), 1, (1L << 30) - 1, &n)) return static_cast<int>(n);
  }
  return -1;
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

NodeRecord my_node_record(const std::string& boot_id, const std::string& hostname) {
  NodeRecord r;
  r.key = node_key(boot_id, hostname, read_netns_id());
  r.launcher_count = launcher_node_count([](const char* name) -> const char* { return std::getenv(name); });
  r.hosts_split = environment_splits_hosts(environ) ? 1 : 0;
  return r;
}

bool keys_are_mpi_nodes(const std::vector<NodeRecord>& records) {
  std::map<uint64_t, int> per_key;
  for (const NodeRecord& r : records) {
    if (r.hosts_split) return false;
    ++per_key[r.key];
  }
  // More processes on a key than the launcher put on one of their nodes: the launcher sees several nodes
  // where the key sees one (a host named twice in a host list, say).  Fewer is fine: ARMCI may run on a
  // part of the job (ARMCI_Init_mpi_comm).
  for (const NodeRecord& r : records)
    if (r.launcher_count >= 0 && per_key[r.key] > r.launcher_count) return false;
  return true;
}

}  // namespace armcix
