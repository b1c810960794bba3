// Which path moves a contiguous transfer and which engine a strided or I/O-vector one: pure functions of the
// transfer's shape, the operation, the configuration and what the caller found out about the target, with no
// MPI and no global state, so that every rule is unit-tested (tests/unit/test_engine_choice.cc).  Re-tuning
// for another machine changes the thresholds in kContigAuto and kStridedAuto (completion/path_tuning.h, the one
// table of them), not control flow.  ARMCI_PROFILE counts the outcomes by engine_name (transfer/paths.h).
//
// Two engines complete a non-blocking call before it returns, which ARMCI allows (a handle may complete
// early) but which takes away the overlap the caller asked for (doc/user-guide.md, "Engines and
// non-blocking calls"):
//   IOV CONSRV   issues each segment as a blocking contiguous operation;
//   strided PACK completes each chunk locally (MPI_Win_flush_local) before it packs the next one into the
//                same buffer, so the call returns with every chunk locally complete.
#pragma once

#include <cstddef>

#include "base/config.h"
#include "completion/path_tuning.h"
#include "completion/pending.h"  // XferOp
#include "transfer/strided_shape.h"

namespace armcix {

// Where the target is, as far as the engine choice cares.
enum class TargetPath {
  NodeLocal,  // the target's slice is mapped into this process and, for an accumulate, its atomics may use
              // load/store (transfer/node_local.h: mapped(), local_atomics())
  SameNode,   // through MPI to a rank of this node (ARMCI_SHM=0, or MPI atomics): shared memory inside MPI
  OtherNode,  // through MPI across the network
};

// ---- Contiguous (ARMCI_Put / ARMCI_Get / ARMCI_Acc and their non-blocking forms) -----------------------

enum class ContigPath {
  Local,          // node-local target: memcpy, or for an accumulate scale-add under the slice lock
  OrderedPut,     // put overlapping a pending put: MPI_Accumulate(MPI_REPLACE) from a held copy
  HeldCopy,       // MPI_Put (put) / MPI_Accumulate (acc) from a held copy: returns without local completion
  OwnRequest,     // blocking: MPI_Rget / MPI_Raccumulate, waited for before the call returns
  HandleRequest,  // explicit handle: MPI_Rget / MPI_Raccumulate, waited for by the handle's wait
  Flushed,        // MPI_Put / MPI_Get / MPI_Accumulate, completed locally by MPI_Win_flush_local (now or at the
                  // request's completion)
};
// A held copy (completion/ordering.h, hold_put_copy) lives until the pair's next flush, which completes the operation
// remotely and so locally: the call costs a copy instead of MPI's local completion.

struct ContigFacts {
  XferOp op = XferOp::Put;
  std::size_t bytes = 0;
  TargetPath path = TargetPath::SameNode;  // NodeLocal for an accumulate only with load/store atomics
  bool blocking = true;                    // no request
  bool explicit_handle = false;            // an explicit handle's request (implicit ones complete per target with
                                           // one flush at WaitProc / WaitAll)
  bool overlaps_pending_put = false;       // put: the pair has a put or ordered put pending on these bytes
  bool puts_by_accumulate = false;         // put: puts to this target go as accumulates anyway
                                           // (ARMCI_RMA_BY_ACCUMULATE, transfer/rma_by_accumulate.h)
  bool served_by_progress_rank = false;    // a progress rank serves the target's slice (it may be asleep)
};

// What the MPI library in use makes cheapest (completion/ordering.h).
struct ContigMpi {
  bool ordered_puts_by_accumulate = true;  // false on Open MPI: its accumulates are dearer than a flush + put
  bool accs_from_held_copies = true;       // ARMCI_ACC_HELD_COPY, resolved
};

// To another node a get or accumulate completes by its own request rather than MPI_Win_flush_local, which
// over UCX costs one more round trip (doc/performance.md, "Cost model to another node").  Puts and
// accumulates of at most kContigAuto.small_max_bytes to a target whose CPU a local completion would wait
// for go from held copies; a put overlapping a pending one goes ordered rather than flushing first, and so
// does every small put to a target that puts reach as accumulates anyway (ARMCI_RMA_BY_ACCUMULATE): its
// local completion would wait for the target's CPU as an accumulate's does.  Large transfers and everything
// within a node go plain and are flushed.
[[gnu::always_inline]] inline ContigPath choose_contig(const ContigFacts& f, const ContigMpi& m) {
  if (f.path == TargetPath::NodeLocal) return ContigPath::Local;
  const bool other_node = f.path == TargetPath::OtherNode;
  const bool small = f.bytes <= kContigAuto.small_max_bytes;
  switch (f.op) {
    case XferOp::Put:
      if (other_node && small && m.ordered_puts_by_accumulate && (f.overlaps_pending_put || f.puts_by_accumulate))
        return ContigPath::OrderedPut;
      if (other_node && small && f.blocking && !m.ordered_puts_by_accumulate) return ContigPath::HeldCopy;
      return ContigPath::Flushed;
    case XferOp::Acc:
      if (f.blocking && small && m.accs_from_held_copies && (other_node || f.served_by_progress_rank))
        return ContigPath::HeldCopy;
      break;
    case XferOp::Get:
      break;
  }
  if (other_node && f.blocking) return ContigPath::OwnRequest;
  if (other_node && f.explicit_handle) return ContigPath::HandleRequest;
  return ContigPath::Flushed;
}

// ---- Strided (ARMCI_STRIDED_METHOD) --------------------------------------------------------------------

enum class StridedEngine {
  Local,       // node-local target: load/store, segment by segment
  Contiguous,  // one segment after all: the plain put/get/acc, cheapest for every engine
  Direct,      // one MPI operation, derived datatypes on both sides
  Iov,         // one MPI operation per segment, completed together
  Pack,        // local side packed into a bounded buffer, moved chunk by chunk
  PackStream,  // to another node: local side packed (put/acc) or landed packed (get), one operation per chunk,
               // all chunks in flight together, one local completion (per window of kStridedAuto bytes)
};

// The AUTO rule on the MPI path (doc/performance.md, "One node through MPI"): runs of 1 KiB and more move
// faster as one operation per segment (IOV) than as one derived-datatype operation; accumulates of such
// runs gain from packing (PACK) once about 1 MiB moves and lose below it.  Shorter runs: DIRECT.
//
// Between nodes (TargetPath::OtherNode) AUTO packs: PACK_STREAM for every put and get of several segments
// shorter than a chunk and for accumulates of runs from per_segment_min_run (1 KiB) up, IOV for segments of a
// chunk or more (nothing to gain from packing them).  An accumulate of such runs from a contiguous local side
// (GA's NGA_Acc buffer) above kStridedAuto.other_node_acc_stream_max_bytes (64 KiB) goes DIRECT, one
// MPI_Accumulate as ARMCI-MPI issues it, since there is nothing to pack
// (benchmarks/results/2026-12-07-large-acc-between-nodes.md).  Accumulates of shorter runs stay DIRECT: MPICH takes a
// strided origin of an accumulate as fast as a packed one, so packing only adds our loop over the runs,
// where a strided put's origin costs MPICH more.  MPICH over UCX's TCP transport moves a derived-datatype
// operation as active messages through both CPUs, and packs a non-contiguous origin itself more slowly than
// a memcpy loop; the same operation split into 32 KiB chunks from a packed buffer, all in flight before one
// completion, pipelines the packing, the network and the target's unpacking; 64 KiB chunks fall into
// MPICH's slow large-accumulate mode (kContigAuto.acc_piece_bytes, transfer/rma.h).  The measurements:
// doc/performance.md, "Strided and large accumulates between hosts".
// The thresholds: kStridedAuto (completion/path_tuning.h).

// Between nodes one operation per short segment (IOV) is never right: each MPI operation is a message of its
// own there (doc/performance.md, "Strided and large accumulates between hosts").  The per-segment rule
// above holds within a node, where an MPI
// operation is a copy.  An explicit PACK to another node is PACK_STREAM (gets included); explicit DIRECT and
// IOV are used as asked.
//
// Within a node PACK falls back to DIRECT for gets (there is nothing to pack on the origin side) and when
// everything fits in one chunk.
//
// rma_by_acc: puts and gets to this target go as accumulates (ARMCI_RMA_BY_ACCUMULATE, resolved;
// transfer/rma_by_accumulate.h); then a large put or get from a contiguous local side goes DIRECT between
// nodes, as a large accumulate does.
StridedEngine choose_strided(const StridedShape& s, XferOp op, const Config& c, TargetPath path,
                             bool rma_by_acc = false);

// The chunk of the PACK engines on `path`: ARMCI_PACK_CHUNK, or when that is auto kStridedAuto's.
std::size_t pack_chunk_bytes(const Config& c, TargetPath path);
// Segments the PACK engines move per chunk (at least one segment).
std::size_t pack_segments_per_chunk(const StridedShape& s, const Config& c, TargetPath path = TargetPath::SameNode);

// ---- I/O vector (ARMCI_IOV_METHOD), one descriptor --------------------------------------------------------

enum class IovEngine {
  Local,                 // node-local target, one allocation: segments in order by load/store
  Consrv,                // one blocking contiguous operation per segment (takes anything)
  Batched,               // one MPI operation per segment, one completion
  Direct,                // one MPI operation, indexed datatypes on both sides
  RejectOverlap,         // explicit BATCHED/DIRECT: the written side overlaps itself, which they cannot order
  RejectSeveralRegions,  // explicit BATCHED/DIRECT: the segments span several allocations
};

// What the caller found out about the descriptor.  The overlap checks cost O(n log n) (conflict tree), so
// the caller runs only those iov_checks_needed() asks for; the others stay false and are not read.
struct IovFacts {
  bool one_region = false;        // every remote segment lies in one allocation
  bool node_local = false;        // one_region, mapped here, and (acc) load/store atomics allowed
  bool written_overlaps = false;  // put: remote segments overlap; get: local segments overlap (not for acc)
  bool remote_overlaps = false;   // acc: remote segments overlap (an MPI datatype may not overlap itself)
};
struct IovChecks {
  bool written_side = false;  // compute IovFacts::written_overlaps
  bool remote_side = false;   // compute IovFacts::remote_overlaps
};
IovChecks iov_checks_needed(XferOp op, const Config& c, bool one_region, bool node_local);

// AUTO takes the node-local engine when it can, else DIRECT when the descriptor is in one allocation and
// its written side is free of overlap, else CONSRV: safe by default, unlike ARMCI-MPI.  An explicit method
// is used as asked, except that a node-local target still goes by load/store (after the same checks as on
// MPI), and an accumulate whose remote segments overlap goes BATCHED instead of DIRECT.
IovEngine choose_iov(XferOp op, const Config& c, const IovFacts& f);

// The names ARMCI_PROFILE reports the paths taken by (transfer/paths.h, profile_path).
const char* engine_name(ContigPath p);
const char* engine_name(StridedEngine e);
const char* engine_name(IovEngine e);

}  // namespace armcix
