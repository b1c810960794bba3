// The dispatch's decisions about a resolved target (transfer/engine_choice.h's choices are pure functions of
// these facts): where it is -- its locality, decided once per operation (target_path) -- and, for a
// contiguous transfer, the pair's pending state and the MPI library in use; then the contiguous operations on
// a target so placed (contig_put, contig_get, contig_acc), which the strided and vector dispatch call too.
#pragma once

#include <cstddef>

#include "completion/ordering.h"
#include "nb/request.h"
#include "profile/profiler.h"
#include "topo/nodes.h"
#include "transfer/engine_choice.h"
#include "transfer/mpi_backend.h"
#include "transfer/node_local.h"
#include "transfer/rma_by_accumulate.h"

namespace armcix {

// Where the resolved target is for an operation of `op` on process `proc`.
inline TargetPath target_path(const GmrRef& r, XferOp op, int proc) {
  if (reached_by_load_store(r, op)) return TargetPath::NodeLocal;
  return on_my_node(proc) ? TargetPath::SameNode : TargetPath::OtherNode;
}

// The facts of a contiguous transfer to r, whose locality `where` is already decided (target_path).
[[gnu::always_inline]] inline ContigFacts contig_facts(const GmrRef& r, TargetPath where, XferOp op, std::size_t bytes,
                                                       const Request* req) {
  ContigFacts f;
  f.op = op;
  f.bytes = bytes;
  f.path = where;
  if (f.path == TargetPath::NodeLocal) return f;  // the rest is not read (the node-local fast path)
  f.blocking = req == nullptr;
  f.explicit_handle = req != nullptr && !req->implicit;
  if (op == XferOp::Put) {
    f.overlaps_pending_put = overlaps_pending_put(r.gmr, r.win_rank, r.disp, r.disp + static_cast<MPI_Aint>(bytes));
    f.puts_by_accumulate = rma_by_accumulate(r.gmr->abs_rank_of(r.win_rank));
  }
  f.served_by_progress_rank = server_of(r.gmr, r.win_rank) >= 0;
  return f;
}

inline ContigMpi contig_mpi() {
  return ContigMpi{ordered_puts_by_accumulate(), accs_from_held_copies()};
}

// The path of a contiguous transfer (choose_contig).  The MPI library's side matters only to another node or
// to a progress rank, and is not asked for otherwise.  Forced inline, as contig_facts and choose_contig: on
// every contiguous call's path, where a call and a returned struct cost more than the decision.
[[gnu::always_inline]] inline ContigPath contig_path(const GmrRef& r, TargetPath where, XferOp op, std::size_t bytes,
                                                     const Request* req) {
  const ContigFacts f = contig_facts(r, where, op, bytes, req);
  const bool mpi_matters = f.path == TargetPath::OtherNode || f.served_by_progress_rank;
  return choose_contig(f, mpi_matters ? contig_mpi() : ContigMpi{});
}

// ARMCI_PROFILE's count of the path a transfer took (profile/profiler.h, "Paths taken"), under its
// engine_name.  When profiling is off, one predictable branch, as ProfScope's.
inline PathFamily path_family(ContigPath) {
  return PathFamily::Contig;
}
inline PathFamily path_family(StridedEngine) {
  return PathFamily::Strided;
}
inline PathFamily path_family(IovEngine) {
  return PathFamily::Iov;
}
static_assert(static_cast<int>(ContigPath::Flushed) < kPathsPerFamily &&
                  static_cast<int>(StridedEngine::PackStream) < kPathsPerFamily &&
                  static_cast<int>(IovEngine::RejectSeveralRegions) < kPathsPerFamily,
              "every path has a profile slot (the last enumerator of each)");
template <typename Path>
[[gnu::always_inline]] inline void profile_path(Path p) {
  if (g_profiling) prof_count_path(path_family(p), static_cast<int>(p), engine_name(p));
}

// ---- The contiguous operations on a resolved target whose locality `where` is decided --------------------
// The path (contig_path), its count for ARMCI_PROFILE, then the node-local or the MPI backend.  Forced
// inline: the body of put(), get() and acc() (contig.cc), and of the strided and vector dispatch's
// one-segment and conservative cases, which come here with the target they resolved and placed.

[[gnu::always_inline]] inline void contig_put(const GmrRef& r, TargetPath where, const void* src, int bytes, int proc,
                                              Request* req) {
  const ContigPath path = contig_path(r, where, XferOp::Put, bytes, req);
  profile_path(path);
  if (path == ContigPath::Local) return local_put(r, src, static_cast<std::size_t>(bytes));
  mpi_put(r, path, src, bytes, proc, req);
}

[[gnu::always_inline]] inline void contig_get(const char* call, const GmrRef& r, TargetPath where, void* dst, int bytes,
                                              int proc, Request* req) {
  const ContigPath path = contig_path(r, where, XferOp::Get, bytes, req);
  profile_path(path);
  if (path == ContigPath::Local) return local_get(r, dst, static_cast<std::size_t>(bytes));
  mpi_get(call, r, path, dst, bytes, proc, req);
}

[[gnu::always_inline]] inline void contig_acc(const char* call, const GmrRef& r, TargetPath where, const AccType& t,
                                              const void* scale, const void* src, int bytes, int proc, Request* req) {
  const ContigPath path = contig_path(r, where, XferOp::Acc, bytes, req);
  profile_path(path);
  if (path == ContigPath::Local) return local_acc(r, t, scale, src, static_cast<std::size_t>(bytes));
  mpi_acc(call, r, path, t, scale, src, bytes, proc, req);
}

}  // namespace armcix
