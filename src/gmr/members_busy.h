// Threads and collective allocation (doc/design.md, "Threads"): two threads of a process may allocate and
// free at once on groups whose member lists differ.  What the library keeps per member list (rank maps, the
// pool, cached segments, the window communicator) must change in the same order on every member, which two
// threads of one process on one member list cannot promise: the program must order those calls, as MPI
// requires for one communicator.  A thread that enters a collective allocation or free (or the release of a
// group) on a list that another thread of its process is in gets a named error instead of a hang or a
// pool that differs between members.  Only at MPI_THREAD_MULTIPLE; used under the API lock.
#pragma once

#include <map>
#include <vector>

#include "base/error.h"
#include "base/thread_lock.h"

namespace armcix {

class MembersBusy {
 public:
  MembersBusy(const char* call, const int* members, int n) {
    if (!calls_serialized()) return;
    key_.assign(members, members + n);
    auto [it, fresh] = busy().emplace(key_, call);
    if (!fresh)
      fail(call,
           "another thread of this process is in %s on a group with the same members: threads may allocate, "
           "free and release groups at once only on groups whose member lists differ; the program must order "
           "the others",
           it->second);
    held_ = true;
  }
  ~MembersBusy() {
    if (held_) busy().erase(key_);
  }
  MembersBusy(const MembersBusy&) = delete;
  MembersBusy& operator=(const MembersBusy&) = delete;

 private:
  static std::map<std::vector<int>, const char*>& busy() {
    static std::map<std::vector<int>, const char*> lists;  // member list -> the call in it
    return lists;
  }
  std::vector<int> key_;
  bool held_ = false;
};

}  // namespace armcix
