// Configuration parsing (no MPI).
#include <armcix.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "base/config.h"

using armcix::parse_bool;
using armcix::parse_int;
using armcix::parse_size;

TEST(ConfigParse, Booleans) {
  bool v = false;
  for (const char* t : {"1", "y", "YES", "true", "On"}) {
    v = false;
    EXPECT_TRUE(parse_bool(t, &v)) << t;
    EXPECT_TRUE(v) << t;
  }
  for (const char* t : {"0", "n", "No", "FALSE", "off"}) {
    v = true;
    EXPECT_TRUE(parse_bool(t, &v)) << t;
    EXPECT_FALSE(v) << t;
  }
  for (const char* t : {"", "2", "yess", "maybe"}) EXPECT_FALSE(parse_bool(t, &v)) << t;
}

TEST(ConfigParse, IntegersWithinBounds) {
  long v = 0;
  EXPECT_TRUE(parse_int("42", 0, 100, &v));
  EXPECT_EQ(v, 42);
  EXPECT_TRUE(parse_int("-3", -5, 5, &v));
  EXPECT_EQ(v, -3);
  EXPECT_FALSE(parse_int("101", 0, 100, &v));
  EXPECT_FALSE(parse_int("-1", 0, 100, &v));
  EXPECT_FALSE(parse_int("12abc", 0, 100, &v));
  EXPECT_FALSE(parse_int("", 0, 100, &v));
  EXPECT_FALSE(parse_int("99999999999999999999999", 0, 100, &v));
}

TEST(ConfigParse, SizesWithSuffixes) {
  std::size_t v = 0;
  EXPECT_TRUE(parse_size("64", &v));
  EXPECT_EQ(v, 64u);
  EXPECT_TRUE(parse_size("16k", &v));
  EXPECT_EQ(v, 16u * 1024);
  EXPECT_TRUE(parse_size("2MiB", &v));
  EXPECT_EQ(v, 2u * 1024 * 1024);
  EXPECT_TRUE(parse_size("1G", &v));
  EXPECT_EQ(v, 1024u * 1024 * 1024);
  EXPECT_FALSE(parse_size("-1", &v));
  EXPECT_FALSE(parse_size("12Q", &v));
  EXPECT_FALSE(parse_size("k", &v));
  EXPECT_FALSE(parse_size("99999999999999999999G", &v));
  // strtoull skips blanks and negates after a '-': " -1" would be 2^64 - 1.  A size has no sign.
  for (const char* negative : {" -1", "\t-1", "  -0", " -16k", "-0"}) {
    v = 7;
    EXPECT_FALSE(parse_size(negative, &v)) << "'" << negative << "' gave " << v;
  }
  EXPECT_TRUE(parse_size(" 64", &v));
  EXPECT_EQ(v, 64u);
}

TEST(ConfigParse, DefaultsDescribeEverySetting) {
  armcix::Config c;
  auto lines = c.describe();
  ASSERT_GE(lines.size(), 10u);
  bool saw_window = false, saw_iov = false;
  for (auto& l : lines) {
    saw_window |= l == "ARMCI_USE_WIN_ALLOCATE=0  (MPI_Alloc_mem + MPI_Win_create)";
    saw_iov |= l.rfind("ARMCI_IOV_METHOD=AUTO", 0) == 0;
  }
  EXPECT_TRUE(saw_window);
  EXPECT_TRUE(saw_iov);
}

// Environment variables: the values added or changed in session 2 are accepted, and malformed ones stop
// with a message naming the variable (through ARMCI_Error; a throwing handler keeps the test alive).
namespace {

struct EnvError {
  std::string message;
};
void throw_env_error(const char* msg, int) {
  throw EnvError{msg ? msg : ""};
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

// The message from_environment() raises, or "" if it accepted the environment.
std::string environment_error() {
  ARMCIX_Error_handler_t previous = ARMCIX_Set_error_handler(&throw_env_error);
  std::string message;
  try {
    armcix::Config::from_environment();
  } catch (const EnvError& e) {
    message = e.message;
  }
  ARMCIX_Set_error_handler(previous);
  return message;
}

}  // namespace

TEST(ConfigEnvironment, NewSettingsAreParsed) {
  {
    ScopedEnv a("ARMCI_STRIDED_METHOD", "AUTO"), b("ARMCI_FINALIZE_SETTLE_MS", "0"), c("ARMCI_WAIT_BACKOFF_US", "50");
    armcix::Config cfg = armcix::Config::from_environment();
    EXPECT_EQ(cfg.strided_method, armcix::StridedMethod::Auto);
    EXPECT_EQ(cfg.finalize_settle_ms, 0);
    EXPECT_EQ(cfg.wait_backoff_us, 50);
  }
  armcix::Config defaults = armcix::Config::from_environment();
  EXPECT_EQ(defaults.strided_method, armcix::StridedMethod::Auto);
  EXPECT_EQ(defaults.finalize_settle_ms, 20);
  EXPECT_EQ(defaults.wait_backoff_us, -1);  // automatic, resolved at ARMCI_Init
}

// ARMCI_PROGRESS_RANKS_AWAKE_US (default 200, 0 turns the awake window off) and
// ARMCI_PROGRESS_RANKS_HANDOFF_US (default 0: no core hand-off): values in [0, 1000000] taken, out of range names the
// variable.
TEST(ConfigEnvironment, ProgressRanksAwakeAndHandoff) {
  struct Setting {
    const char* name;
    int armcix::Config::*field;
    int by_default;
  };
  for (const Setting& v : {Setting{"ARMCI_PROGRESS_RANKS_AWAKE_US", &armcix::Config::progress_ranks_awake_us, 200},
                           Setting{"ARMCI_PROGRESS_RANKS_HANDOFF_US", &armcix::Config::progress_ranks_handoff_us, 0}}) {
    EXPECT_EQ(armcix::Config::from_environment().*v.field, v.by_default) << v.name;
    for (int value : {0, 5000}) {
      ScopedEnv a(v.name, std::to_string(value).c_str());
      EXPECT_EQ(armcix::Config::from_environment().*v.field, value) << v.name;
    }
    for (const char* bad : {"-1", "2000000", "long"}) {
      ScopedEnv a(v.name, bad);
      const std::string msg = environment_error();
      EXPECT_NE(msg.find(v.name), std::string::npos) << bad << ": " << msg;
      EXPECT_NE(msg.find("is not an integer in [0, 1000000]"), std::string::npos) << msg;
    }
  }
}

// ARMCI_PROGRESS_RANKS_MEETING_S: default 60 s, at least 1.
TEST(ConfigEnvironment, ProgressRanksMeeting) {
  EXPECT_EQ(armcix::Config::from_environment().progress_ranks_meeting_s, 60);
  {
    ScopedEnv a("ARMCI_PROGRESS_RANKS_MEETING_S", "1");
    EXPECT_EQ(armcix::Config::from_environment().progress_ranks_meeting_s, 1);
  }
  for (const char* bad : {"0", "100000", "soon"}) {
    ScopedEnv a("ARMCI_PROGRESS_RANKS_MEETING_S", bad);
    const std::string msg = environment_error();
    EXPECT_NE(msg.find("ARMCI_PROGRESS_RANKS_MEETING_S"), std::string::npos) << bad << ": " << msg;
    EXPECT_NE(msg.find("is not an integer in [1, 86400]"), std::string::npos) << msg;
  }
}

// A pooled block larger than the pool could never be served from it: both variables are named.
TEST(ConfigEnvironment, PoolBlockBeyondThePoolCapacityIsRejected) {
  ScopedEnv capacity("ARMCI_POOL_MB", "1");
  {
    ScopedEnv block("ARMCI_POOL_BLOCK_KB", "1024");
    EXPECT_EQ(environment_error(), "") << "a block as large as the whole pool is allowed";
  }
  {
    ScopedEnv block("ARMCI_POOL_BLOCK_KB", "0");
    EXPECT_EQ(environment_error(), "") << "0 (the default) means blocks up to the capacity";
  }
  ScopedEnv block("ARMCI_POOL_BLOCK_KB", "1025");
  const std::string msg = environment_error();
  EXPECT_NE(msg.find("ARMCI_POOL_BLOCK_KB=1025 is more than the pool holds (ARMCI_POOL_MB=1, 1024 KiB)"),
            std::string::npos)
      << msg;
}

TEST(ConfigEnvironment, MalformedNewSettingsNameTheVariable) {
  struct Case {
    const char* name;
    const char* value;
    const char* expect;
  } cases[] = {
      {"ARMCI_FINALIZE_SETTLE_MS", "soon", "is not an integer in [0, 10000]"},
      {"ARMCI_FINALIZE_SETTLE_MS", "20000", "is not an integer in [0, 10000]"},
      {"ARMCI_SEGMENT_CACHE_MB", "-1", "is not an integer in [0, 1048576]"},
      {"ARMCI_POOL_MB", "0", "is not an integer in [1, 16777216]"},
      {"ARMCI_POOL_BLOCK_KB", "1M", "is not an integer in [0, 1073741824]"},
      {"ARMCI_POOL_BLOCK_KB", "-1", "is not an integer in [0, 1073741824]"},
      {"ARMCI_SEGMENT_CACHE_MB", "64M", "is not an integer in [0, 1048576]"},
      {"ARMCI_WAIT_BACKOFF_US", "-5", "is not an integer in [0, 100000]"},
      {"ARMCI_WATCHDOG_S", "-1", "is not an integer in [0, 16777216]"},
      {"ARMCI_STRIDED_METHOD", "FAST", "is not one of"},
  };
  for (const Case& k : cases) {
    ScopedEnv env(k.name, k.value);
    std::string msg = environment_error();
    EXPECT_NE(msg.find(k.name), std::string::npos) << k.name << "=" << k.value << ": " << msg;
    EXPECT_NE(msg.find(k.value), std::string::npos) << msg;
    EXPECT_NE(msg.find(k.expect), std::string::npos) << msg;
  }
}

// ARMCI_PACK_CHUNK: auto (0, the default: 64K within a node, 32K to other nodes, transfer/engine_choice.h) or
// a size of at least 64 bytes.
TEST(ConfigEnvironment, PackChunkIsAutoOrASize) {
  EXPECT_EQ(armcix::Config::from_environment().pack_chunk_bytes, 0u);
  {
    ScopedEnv e("ARMCI_PACK_CHUNK", "auto");
    EXPECT_EQ(armcix::Config::from_environment().pack_chunk_bytes, 0u);
  }
  {
    ScopedEnv e("ARMCI_PACK_CHUNK", "4k");
    EXPECT_EQ(armcix::Config::from_environment().pack_chunk_bytes, 4096u);
  }
  for (const char* bad : {"32", "big", " -1", "-64k"}) {
    ScopedEnv e("ARMCI_PACK_CHUNK", bad);
    std::string msg = environment_error();
    EXPECT_NE(msg.find("ARMCI_PACK_CHUNK"), std::string::npos) << msg;
    EXPECT_NE(msg.find("is not 'auto' or a size >= 64 bytes"), std::string::npos) << msg;
  }
}

// ARMCI_MPI_YIELD: auto (-1, the default), a boolean, or an error naming the variable; it must agree.
TEST(ConfigEnvironment, MpiYield) {
  // The suite may run with ARMCI_MPI_YIELD exported (tests/check.sh under ARMCI_MPI_YIELD=1): put it back.
  const char* outer = std::getenv("ARMCI_MPI_YIELD");
  const bool was_set = outer != nullptr;
  const std::string saved = was_set ? outer : "";
  unsetenv("ARMCI_MPI_YIELD");
  EXPECT_EQ(armcix::Config::from_environment().mpi_yield, -1);
  const struct {
    const char* value;
    int expect;
  } ok[] = {{"auto", -1}, {"AUTO", -1}, {"1", 1}, {"yes", 1}, {"0", 0}, {"off", 0}};
  for (const auto& k : ok) {
    ScopedEnv env("ARMCI_MPI_YIELD", k.value);
    EXPECT_EQ(armcix::Config::from_environment().mpi_yield, k.expect) << k.value;
  }
  for (const char* bad : {"2", "sometimes", "-1"}) {
    ScopedEnv env("ARMCI_MPI_YIELD", bad);
    const std::string msg = environment_error();
    EXPECT_NE(msg.find("ARMCI_MPI_YIELD='" + std::string(bad) + "' is not auto, 1 or 0"), std::string::npos) << msg;
  }
  bool listed = false;
  for (const auto& [name, value] : armcix::Config().must_agree())
    listed |= std::string(name).rfind("ARMCI_MPI_YIELD", 0) == 0;
  EXPECT_TRUE(listed) << "ARMCI_MPI_YIELD must be among the settings every process must share";
  if (was_set) setenv("ARMCI_MPI_YIELD", saved.c_str(), 1);
}

// ARMCI_NODE_SYNC: auto (-1, the default), a boolean, or an error naming the variable; it must agree.
TEST(ConfigEnvironment, NodeSync) {
  const char* outer = std::getenv("ARMCI_NODE_SYNC");
  const bool was_set = outer != nullptr;
  const std::string saved = was_set ? outer : "";
  unsetenv("ARMCI_NODE_SYNC");
  EXPECT_EQ(armcix::Config::from_environment().node_sync, -1);
  const struct {
    const char* value;
    int expect;
  } ok[] = {{"auto", -1}, {"Auto", -1}, {"1", 1}, {"on", 1}, {"0", 0}, {"no", 0}};
  for (const auto& k : ok) {
    ScopedEnv env("ARMCI_NODE_SYNC", k.value);
    EXPECT_EQ(armcix::Config::from_environment().node_sync, k.expect) << k.value;
  }
  for (const char* bad : {"2", "futex", "-1"}) {
    ScopedEnv env("ARMCI_NODE_SYNC", bad);
    const std::string msg = environment_error();
    EXPECT_NE(msg.find("ARMCI_NODE_SYNC='" + std::string(bad) + "' is not auto, 1 or 0"), std::string::npos) << msg;
  }
  bool listed = false;
  for (const auto& [name, value] : armcix::Config().must_agree())
    listed |= std::string(name).rfind("ARMCI_NODE_SYNC", 0) == 0;
  EXPECT_TRUE(listed) << "ARMCI_NODE_SYNC must be among the settings every process must share";
  if (was_set) setenv("ARMCI_NODE_SYNC", saved.c_str(), 1);
}

TEST(ConfigEnvironment, CollectiveCheckSettings) {
  armcix::Config defaults = armcix::Config::from_environment();
  EXPECT_TRUE(defaults.check_collectives);
  EXPECT_EQ(defaults.collective_timeout_s, 0);
  {
    ScopedEnv a("ARMCI_CHECK_COLLECTIVES", "0"), b("ARMCI_COLLECTIVE_TIMEOUT", "5");
    armcix::Config cfg = armcix::Config::from_environment();
    EXPECT_FALSE(cfg.check_collectives);
    EXPECT_EQ(cfg.collective_timeout_s, 5);
  }
  {
    ScopedEnv a("ARMCI_COLLECTIVE_TIMEOUT", "-1");
    std::string msg = environment_error();
    EXPECT_NE(msg.find("ARMCI_COLLECTIVE_TIMEOUT"), std::string::npos) << msg;
  }
  {
    ScopedEnv a("ARMCI_CHECK_COLLECTIVES", "sometimes");
    std::string msg = environment_error();
    EXPECT_NE(msg.find("ARMCI_CHECK_COLLECTIVES"), std::string::npos) << msg;
  }
}

// The settings compared across processes at ARMCI_Init: every one that selects collective MPI calls.
TEST(ConfigEnvironment, SettingsThatMustAgree) {
  armcix::Config c;
  std::vector<std::string> names;
  for (const auto& s : c.must_agree()) names.emplace_back(s.first);
  for (const char* want : {"ARMCI_SHM", "ARMCI_NODE_SIZE", "ARMCI_USE_WIN_ALLOCATE", "ARMCI_NONCOLLECTIVE_GROUPS",
                           "ARMCI_MUTEX_METHOD", "ARMCI_CHECK_COLLECTIVES"}) {
    bool found = false;
    for (const std::string& n : names) found |= n.rfind(want, 0) == 0;
    EXPECT_TRUE(found) << want;
  }
  armcix::Config other = c;
  other.shm = !c.shm;
  auto shm_value = [](const armcix::Config& x) {
    for (const auto& [name, value] : x.must_agree())
      if (name == "ARMCI_SHM") return value;
    return -2L;
  };
  EXPECT_EQ(shm_value(c), 1);
  EXPECT_EQ(shm_value(other), 0);
}

// ARMCI_MPI_YIELD_TIMER_US and ARMCI_WAIT_TIMER_SLACK_NS: auto (-1, the default), 0 (off / leave it) or a
// value in range; anything else is an error naming the variable.  Neither is among the settings that
// must agree (both are local to a process).
TEST(ConfigEnvironment, YieldTimerAndTimerSlack) {
  EXPECT_EQ(armcix::Config::from_environment().mpi_yield_timer_us, -1);
  EXPECT_EQ(armcix::Config::from_environment().wait_timer_slack_ns, -1);
  const struct {
    const char* value;
    long expect;
  } ok[] = {{"auto", -1}, {"0", 0}, {"200", 200}, {"1000000", 1000000}};
  for (const auto& k : ok) {
    ScopedEnv a("ARMCI_MPI_YIELD_TIMER_US", k.value), b("ARMCI_WAIT_TIMER_SLACK_NS", k.value);
    const armcix::Config c = armcix::Config::from_environment();
    EXPECT_EQ(c.mpi_yield_timer_us, k.expect) << k.value;
    EXPECT_EQ(c.wait_timer_slack_ns, k.expect) << k.value;
  }
  for (const char* bad : {"-1", "often", "2000000"}) {
    ScopedEnv env("ARMCI_MPI_YIELD_TIMER_US", bad);
    const std::string msg = environment_error();
    EXPECT_NE(msg.find("ARMCI_MPI_YIELD_TIMER_US='" + std::string(bad) + "' is not auto or an integer in [0, 1000000]"),
              std::string::npos)
        << msg;
  }
  // ARMCI_MPI_YIELD_TIMER_SIGNAL: auto or a signal number (whether it is a real-time one is checked at
  // ARMCI_Init, where SIGRTMIN is known).
  EXPECT_EQ(armcix::Config::from_environment().mpi_yield_timer_signal, -1);
  {
    ScopedEnv env("ARMCI_MPI_YIELD_TIMER_SIGNAL", "40");
    EXPECT_EQ(armcix::Config::from_environment().mpi_yield_timer_signal, 40);
  }
  for (const char* bad : {"0", "65", "SIGRTMIN"}) {
    ScopedEnv env("ARMCI_MPI_YIELD_TIMER_SIGNAL", bad);
    const std::string msg = environment_error();
    EXPECT_NE(msg.find("ARMCI_MPI_YIELD_TIMER_SIGNAL='" + std::string(bad) + "' is not auto or an integer in [1, 64]"),
              std::string::npos)
        << msg;
  }
  {
    ScopedEnv env("ARMCI_WAIT_TIMER_SLACK_NS", "tight");
    const std::string msg = environment_error();
    EXPECT_NE(msg.find("ARMCI_WAIT_TIMER_SLACK_NS='tight' is not auto or an integer"), std::string::npos) << msg;
  }
  for (const auto& [name, value] : armcix::Config().must_agree()) {
    EXPECT_NE(std::string(name).rfind("ARMCI_MPI_YIELD_TIMER", 0), 0u) << name;
    EXPECT_NE(std::string(name).rfind("ARMCI_WAIT_TIMER_SLACK", 0), 0u) << name;
  }
}

// ARMCI_ACC_HELD_COPY: auto (-1, the default), a boolean, or an error naming the variable; local (not among
// the settings that must agree).
TEST(ConfigEnvironment, AccHeldCopy) {
  EXPECT_EQ(armcix::Config::from_environment().acc_held_copy, -1);
  const struct {
    const char* value;
    int expect;
  } ok[] = {{"auto", -1}, {"1", 1}, {"on", 1}, {"0", 0}, {"no", 0}};
  for (const auto& k : ok) {
    ScopedEnv env("ARMCI_ACC_HELD_COPY", k.value);
    EXPECT_EQ(armcix::Config::from_environment().acc_held_copy, k.expect) << k.value;
  }
  {
    ScopedEnv env("ARMCI_ACC_HELD_COPY", "sometimes");
    const std::string msg = environment_error();
    EXPECT_NE(msg.find("ARMCI_ACC_HELD_COPY='sometimes' is not auto, 1 or 0"), std::string::npos) << msg;
  }
  for (const auto& [name, value] : armcix::Config().must_agree())
    EXPECT_NE(std::string(name).rfind("ARMCI_ACC_HELD_COPY", 0), 0u) << name;
}

// ARMCI_RMA_BY_ACCUMULATE: auto (-1, the default), a boolean, or an error naming the variable; local.
TEST(ConfigEnvironment, RmaByAccumulate) {
  EXPECT_EQ(armcix::Config::from_environment().rma_by_accumulate, -1);
  const struct {
    const char* value;
    int expect;
  } ok[] = {{"auto", -1}, {"1", 1}, {"yes", 1}, {"0", 0}, {"off", 0}};
  for (const auto& k : ok) {
    ScopedEnv env("ARMCI_RMA_BY_ACCUMULATE", k.value);
    EXPECT_EQ(armcix::Config::from_environment().rma_by_accumulate, k.expect) << k.value;
  }
  {
    ScopedEnv env("ARMCI_RMA_BY_ACCUMULATE", "often");
    const std::string msg = environment_error();
    EXPECT_NE(msg.find("ARMCI_RMA_BY_ACCUMULATE='often' is not auto, 1 or 0"), std::string::npos) << msg;
  }
  for (const auto& [name, value] : armcix::Config().must_agree())
    EXPECT_NE(std::string(name).rfind("ARMCI_RMA_BY_ACCUMULATE", 0), 0u) << name;
}

// doc/user-guide.md's environment-variable table lists every setting of the table in src/base/config.h
// with the same default, and nothing the table lacks.
namespace {

// "| `ARMCI_NAME` | default | ..." rows of the guide's "## Environment variables" section: name -> default.
std::map<std::string, std::string> guide_settings() {
  std::ifstream guide(ARMCIX_TOP_SRCDIR "/doc/user-guide.md");
  std::map<std::string, std::string> rows;
  std::string line;
  bool in_section = false;
  while (std::getline(guide, line)) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## Environment variables";
    if (!in_section || line.rfind("| `ARMCI_", 0) != 0) continue;
    const std::size_t name_end = line.find('`', 3);
    const std::size_t cell_end = line.find('|', name_end);
    const std::size_t default_end = line.find('|', cell_end + 1);
    if (name_end == std::string::npos || cell_end == std::string::npos || default_end == std::string::npos) continue;
    std::string by_default = line.substr(cell_end + 1, default_end - cell_end - 1);
    by_default.erase(0, by_default.find_first_not_of(' '));
    by_default.erase(by_default.find_last_not_of(' ') + 1);
    rows[line.substr(3, name_end - 3)] = by_default;
  }
  return rows;
}

}  // namespace

TEST(ConfigTable, UserGuideListsEverySettingWithItsDefault) {
  const auto guide = guide_settings();
  ASSERT_GE(guide.size(), 10u) << "no environment-variable table in " ARMCIX_TOP_SRCDIR "/doc/user-guide.md";
  const auto table = armcix::settings_table();
  for (const armcix::SettingInfo& s : table) {
    const auto row = guide.find(s.name);
    if (row == guide.end()) {
      ADD_FAILURE() << s.name << " is missing from doc/user-guide.md's environment-variable table";
      continue;
    }
    EXPECT_EQ(row->second, s.default_shown)
        << s.name << ": default in doc/user-guide.md differs from src/base/config.h";
  }
  for (const auto& [name, by_default] : guide) {
    bool known = false;
    for (const armcix::SettingInfo& s : table) known |= name == s.name;
    EXPECT_TRUE(known) << name << " is in doc/user-guide.md's table but not in src/base/config.h's";
  }
}

// The table's rows are what parsing, the banner and the agreement check cover.
TEST(ConfigTable, EveryRowIsParsedShownAndAgreedOnAsDeclared) {
  const auto table = armcix::settings_table();
  const auto lines = armcix::Config().describe();
  ASSERT_EQ(lines.size(), table.size());
  std::size_t agreed = 0;
  for (std::size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(lines[i].rfind(std::string(table[i].name) + "=", 0), 0u) << lines[i];
    EXPECT_NE(std::string(table[i].doc), "") << table[i].name;
    agreed += table[i].must_agree;
    ScopedEnv bad(table[i].name, "not-a-value-of-any-kind");
    const std::string msg = environment_error();
    if (std::string(table[i].name) == "ARMCI_PROFILE_FILE") continue;  // any string is a file name
    if (std::string(table[i].name) == "ARMCI_DEFAULT_SHMMAX") {  // accepted and ignored, whatever its value
      EXPECT_EQ(msg, "") << msg;
      continue;
    }
    EXPECT_NE(msg.find(std::string("environment variable ") + table[i].name + "='not-a-value-of-any-kind'"),
              std::string::npos)
        << msg;
  }
  EXPECT_EQ(armcix::Config().must_agree().size(), agreed);
}

// The census hashes must_agree_values (no names built on every ARMCI_Init); the error message names the
// settings from must_agree: both must list the same numbers in the same order, for defaults and for values
// a user set.
TEST(ConfigTable, AgreementValuesMatchTheNamedList) {
  auto same = [](const armcix::Config& c) {
    const auto named = c.must_agree();
    const auto values = c.must_agree_values();
    ASSERT_EQ(named.size(), values.size());
    for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(named[i].second, values[i]) << named[i].first;
  };
  same(armcix::Config());
  ScopedEnv yield("ARMCI_MPI_YIELD", "0");
  ScopedEnv mutexes("ARMCI_MUTEX_METHOD", "QUEUE");
  ScopedEnv nodes("ARMCI_NODES_FROM_MPI", "1");
  const armcix::Config set = armcix::Config::from_environment();
  EXPECT_EQ(set.mpi_yield, 0);
  EXPECT_TRUE(set.nodes_from_mpi);
  same(set);
  EXPECT_NE(set.must_agree_values(), armcix::Config().must_agree_values());
}
