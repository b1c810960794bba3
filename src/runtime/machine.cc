#include "runtime/machine.h"

#include <unistd.h>

#include <fstream>
#include <map>

namespace armcix {

uint64_t machine_key(const std::string& boot_id, const std::string& hostname) {
  // FNV-1a over the boot id, or over the host name when there is none, with a tag byte so that the two
  // kinds of key never meet.  The host name is not mixed into a known boot id: processes in their own UTS
  // namespaces (containers, simulated hosts with a host name each) run on the same kernel and cores.
  uint64_t h = 14695981039346656037ULL;
  auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ULL;
  };
  mix(boot_id.empty() ? 'h' : 'b');
  for (char c : boot_id.empty() ? hostname : boot_id) mix(static_cast<unsigned char>(c));
  return h;
}

std::vector<int> machine_leaders(const std::vector<uint64_t>& keys) {
  std::map<uint64_t, int> first;
  std::vector<int> leader(keys.size());
  for (std::size_t r = 0; r < keys.size(); ++r) leader[r] = first.emplace(keys[r], static_cast<int>(r)).first->second;
  return leader;
}

std::string read_boot_id() {
  std::ifstream f("/proc/sys/kernel/random/boot_id");
  std::string id;
  if (!(f >> id)) return "";
  return id;
}

std::string read_hostname() {
  char name[256] = "";
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

}  // namespace armcix
