#include "runtime/machine.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

namespace armcix {

uint64_t machine_key(const std::string& boot_id, const std::string& hostname) {
  // FNV-1a over both strings with a separator that cannot occur in either (a NUL byte).
  uint64_t h = 14695981039346656037ULL;
  auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ULL;
  };
  for (char c : boot_id) mix(static_cast<unsigned char>(c));
  mix(0);
  for (char c : hostname) mix(static_cast<unsigned char>(c));
  return h;
}

std::vector<int> machine_leaders(const std::vector<uint64_t>& keys) {
  std::map<uint64_t, int> first;
  std::vector<int> leader(keys.size());
  for (std::size_t r = 0; r < keys.size(); ++r) leader[r] = first.emplace(keys[r], static_cast<int>(r)).first->second;
  return leader;
}

bool cores_oversubscribed(int machine_ranks, int cores, int others_running) {
  if (cores <= 0) return false;  // unknown: keep the dedicated-core behaviour
  return machine_ranks + (others_running > 0 ? others_running : 0) > cores;
}

int parse_procs_running(const std::string& proc_stat) {
  static const char kKey[] = "\nprocs_running ";
  std::size_t at = ("\n" + proc_stat).find(kKey);
  if (at == std::string::npos) return -1;
  at += sizeof kKey - 2;  // position after the key in proc_stat (the prepended newline shifts by one)
  int n = 0;
  bool digits = false;
  for (; at < proc_stat.size() && proc_stat[at] >= '0' && proc_stat[at] <= '9'; ++at) {
    n = n * 10 + (proc_stat[at] - '0');
    digits = true;
  }
  return digits ? n : -1;
}

int count_others_running(int machine_ranks) {
  int fewest = -1;
  for (int sample = 0; sample < 4; ++sample) {
    if (sample > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::ifstream f("/proc/stat");
    std::stringstream text;
    text << f.rdbuf();
    const int n = parse_procs_running(text.str());
    if (n >= 0 && (fewest < 0 || n < fewest)) fewest = n;
  }
  if (fewest < 0) return 0;
  return fewest > machine_ranks ? fewest - machine_ranks : 0;
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
