// What the transfer engines find out about a target before they choose a path (transfer/engine_choice.h,
// whose choices are pure functions of these facts): where it is and, for a contiguous transfer, the pair's
// pending state and the MPI library in use; and the local completion the MPI paths end with.
#pragma once

#include <cstddef>

#include "gmr/gmr.h"
#include "completion/ordering.h"
#include "nb/request.h"
#include "profile/profiler.h"
#include "topo/nodes.h"
#include "transfer/engine_choice.h"
#include "transfer/node_local.h"

namespace armcix {

// Where the resolved target is for an operation of `op` on process `proc`.
inline TargetPath target_path(const GmrRef& r, XferOp op, int proc) {
  if (reached_by_load_store(r, op)) return TargetPath::NodeLocal;
  return on_my_node(proc) ? TargetPath::SameNode : TargetPath::OtherNode;
}

[[gnu::always_inline]] inline ContigFacts contig_facts(const GmrRef& r, XferOp op, std::size_t bytes, int proc,
                                                       const Request* req) {
  ContigFacts f;
  f.op = op;
  f.bytes = bytes;
  f.path = target_path(r, op, proc);
  if (f.path == TargetPath::NodeLocal) return f;  // the rest is not read (the node-local fast path)
  f.blocking = req == nullptr;
  f.explicit_handle = req != nullptr && !req->implicit;
  f.overlaps_pending_put =
      op == XferOp::Put && overlaps_pending_put(r.gmr, r.win_rank, r.disp, r.disp + static_cast<MPI_Aint>(bytes));
  f.served_by_progress_rank = server_of(r.gmr, r.win_rank) >= 0;
  return f;
}

inline ContigMpi contig_mpi() {
  return ContigMpi{ordered_puts_by_accumulate(), accs_from_held_copies()};
}

// The path of a contiguous transfer (choose_contig).  The MPI library's side matters only to another node or
// to a progress rank, and is not asked for otherwise.  Forced inline, as contig_facts and choose_contig: on
// every contiguous call's path, where a call and a returned struct cost more than the decision.
[[gnu::always_inline]] inline ContigPath contig_path(const GmrRef& r, XferOp op, std::size_t bytes, int proc,
                                                     const Request* req) {
  const ContigFacts f = contig_facts(r, op, bytes, proc, req);
  const bool mpi_matters = f.path == TargetPath::OtherNode || f.served_by_progress_rank;
  return choose_contig(f, mpi_matters ? contig_mpi() : ContigMpi{});
}

// ARMCI_PROFILE's count of the path a transfer took (profile/profiler.h, "Paths taken"), under its
// engine_name.  When profiling is off, one predictable branch, as ProfScope's.
inline PathFamily path_family(ContigPath) { return PathFamily::Contig; }
inline PathFamily path_family(StridedEngine) { return PathFamily::Strided; }
inline PathFamily path_family(IovEngine) { return PathFamily::Iov; }
static_assert(static_cast<int>(ContigPath::Flushed) < kPathsPerFamily &&
                  static_cast<int>(StridedEngine::PackStream) < kPathsPerFamily &&
                  static_cast<int>(IovEngine::RejectSeveralRegions) < kPathsPerFamily,
              "every path has a profile slot (the last enumerator of each)");
template <typename Path>
[[gnu::always_inline]] inline void profile_path(Path p) {
  if (g_profiling) prof_count_path(path_family(p), static_cast<int>(p), engine_name(p));
}

// Whether a blocking accumulate of `bytes` through MPI to r's slice goes from a held copy: exactly when a
// contiguous one of that size would (the strided engines pack into the held copy).
bool acc_from_held_copy(const GmrRef& r, std::size_t bytes, int proc);

// Local completion of the operations just issued to (g, wr): now (flush_local_pair, completion/ordering.h, beside
// the remote completion flush_pair) or when `req` completes.
void complete_local(Gmr* g, int wr, Request* req);

}  // namespace armcix
