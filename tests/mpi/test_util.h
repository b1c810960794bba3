// Helpers shared by the MPI tests.
#pragma once

#include <armci.h>
#include <armcix.h>
#include <gtest/gtest.h>
#include <mpi.h>
#include <sched.h>

#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace armcix_test {

// Thrown by the test error handler instead of aborting the job, so a test can check that bad input is
// rejected with a message naming the call and the argument.
struct ArmciError {
  std::string message;
  int code;
};

inline void throwing_handler(const char* msg, int code) {
  throw ArmciError{msg ? msg : "", code};
}

// Installs the throwing handler for the lifetime of the object.
class ErrorCapture {
 public:
  ErrorCapture() { previous_ = ARMCIX_Set_error_handler(&throwing_handler); }
  ~ErrorCapture() { ARMCIX_Set_error_handler(previous_); }

 private:
  ARMCIX_Error_handler_t previous_;
};

inline int me() {
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int nproc() {
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// True on every rank iff `ok` is true on every rank (use before a collective step so that one rank's
// failed assertion does not leave the others waiting).
inline bool all_ok(bool ok) {
  int local = ok ? 1 : 0, global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return global == 1;
}

// The node layout the library should use for shared memory: MPI_COMM_TYPE_SHARED nodes, and with
// ARMCI_NODE_SIZE=k each of them intersected with the blocks of k consecutive world ranks.  Returns, per world
// rank, its node's leader (the lowest world rank on it).  Collective.
inline std::vector<int> node_leaders() {
  const int r = me();
  const char* env = std::getenv("ARMCI_NODE_SIZE");
  // With ARMCI_PROGRESS_RANKS=p the blocks count progress ranks too, and MPI_COMM_WORLD here holds only the
  // program ranks (mpiwrap/mpi_world.cc): each block keeps its first k - p ranks.
  const char* progress = std::getenv("ARMCI_PROGRESS_RANKS");
  const int k = (env ? std::atoi(env) : 0) - (env && progress ? std::atoi(progress) : 0);
  int leader = r;
  MPI_Comm node, piece;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, &node);
  MPI_Comm_split(node, k > 0 ? r / k : 0, r, &piece);
  MPI_Allreduce(&r, &leader, 1, MPI_INT, MPI_MIN, piece);
  MPI_Comm_free(&piece);
  MPI_Comm_free(&node);
  std::vector<int> leaders(nproc());
  MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, MPI_COMM_WORLD);
  return leaders;
}

// This rank's machine as the library should count it, computed here on its own: ranks share a machine
// when they run on one kernel (boot id), whatever MPI calls a node (simulated hosts and cliques split one
// machine); the machine's cores are the union of those ranks' affinity masks.  Collective.
struct MachineCount {
  int ranks_here = 0;               // the job's ranks on my machine
  int cores = 0;                    // their usable cores together
  bool any_oversubscribed = false;  // some machine of the job has more ranks than cores (all ranks agree)
};

inline MachineCount count_machine() {
  char boot[64] = {0};
  if (FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
    if (!std::fgets(boot, sizeof boot, f)) boot[0] = 0;
    std::fclose(f);
  }
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (sched_getaffinity(0, sizeof cpus, &cpus) != 0) ADD_FAILURE() << "sched_getaffinity failed";
  const int n = nproc();
  std::vector<char> boots(64 * static_cast<std::size_t>(n));
  std::vector<cpu_set_t> masks(n);
  MPI_Allgather(boot, 64, MPI_CHAR, boots.data(), 64, MPI_CHAR, MPI_COMM_WORLD);
  MPI_Allgather(&cpus, static_cast<int>(sizeof cpus), MPI_BYTE, masks.data(), static_cast<int>(sizeof cpus), MPI_BYTE,
                MPI_COMM_WORLD);
  MachineCount m;
  cpu_set_t machine_cpus;
  CPU_ZERO(&machine_cpus);
  for (int r = 0; r < n; ++r) {
    if (std::memcmp(&boots[64 * static_cast<std::size_t>(r)], boot, 64) != 0) continue;
    ++m.ranks_here;
    CPU_OR(&machine_cpus, &machine_cpus, &masks[r]);
  }
  m.cores = CPU_COUNT(&machine_cpus);
  int mine = m.ranks_here > m.cores ? 1 : 0, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  m.any_oversubscribed = any != 0;
  return m;
}

// The domains armci_domain_* should report: each node of node_leaders() cut into maximal runs of consecutive
// world ranks.  Returns, per world rank, its domain's first rank.  Collective.
inline std::vector<int> domain_firsts() {
  const std::vector<int> leaders = node_leaders();
  std::vector<int> first(leaders.size());
  for (std::size_t p = 0; p < leaders.size(); ++p)
    first[p] = (p > 0 && leaders[p] == leaders[p - 1]) ? first[p - 1] : static_cast<int>(p);
  return first;
}

template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};

// A value of an accumulate element type from small integers (the imaginary part only for complex types),
// so that the tests' sums and scaled products stay exact in every type.
template <class T>
T make_value(long re, long im) {
  if constexpr (is_complex<T>::value)
    return T(static_cast<typename T::value_type>(re), static_cast<typename T::value_type>(im));
  else
    return static_cast<T>(re);
}

struct Alloc {  // ARMCI_Malloc'd slices on every rank, freed collectively at scope exit
  std::vector<void*> ptrs;
  explicit Alloc(long bytes) : ptrs(nproc()) { ARMCI_Malloc(ptrs.data(), bytes); }
  ~Alloc() { ARMCI_Free(ptrs[me()]); }
  template <typename T>
  T* at(int rank) const {
    return static_cast<T*>(ptrs[rank]);
  }
};

}  // namespace armcix_test

// Expects `stmt` to raise an ARMCI error whose message contains every one of the given substrings
// (typically the ARMCI call's name and the argument's name).  Only for calls that are not collective, or
// that every rank makes with the same bad input: an error raised on one rank inside a collective would
// leave the other ranks waiting.
#define EXPECT_ARMCI_ERROR(stmt, ...)                                             \
  do {                                                                            \
    /* copies: a want given as temporary().c_str() must outlive the loop below */ \
    const std::vector<std::string> armcix_wants_{__VA_ARGS__};                    \
    ::armcix_test::ErrorCapture armcix_capture_;                                  \
    bool armcix_raised_ = false;                                                  \
    try {                                                                         \
      stmt;                                                                       \
    } catch (const ::armcix_test::ArmciError& e) {                                \
      armcix_raised_ = true;                                                      \
      for (const std::string& want : armcix_wants_)                               \
        EXPECT_NE(e.message.find(want), std::string::npos)                        \
            << "error message '" << e.message << "' lacks '" << want << "'";      \
    }                                                                             \
    EXPECT_TRUE(armcix_raised_) << #stmt " did not raise an ARMCI error";         \
  } while (0)
