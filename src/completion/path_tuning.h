// The compiled-in thresholds that choose how a transfer moves, in one table per kind of transfer: re-tuning
// for another machine or MPI library changes the numbers here, not control flow.  The rules that read them
// are transfer/engine_choice.h (choose_contig, choose_strided), completion/ordering.cc (when held copies
// force a flush) and transfer/rma.h (accumulate pieces); the measurements behind them are in
// doc/performance.md.
//
// In completion/, because completion/ (held copies, a copy block sized for the largest ordered put) sits
// below transfer/ (the rules) in the layer order (doc/design.md, "Layers") and both read this table: no
// MPI, no state, constants only.
#pragma once

#include <cstddef>

namespace armcix {

// ---- Contiguous transfers (choose_contig) and what they share with the others ---------------------------
struct ContigAutoTuning {
  // Small: puts and accumulates of at most this many bytes to another node (or, accumulates, to a progress
  // rank) go from held copies, and a put overlapping a pending put goes ordered (MPI_Accumulate(MPI_REPLACE))
  // rather than flushing first.  Larger ones go plain and are flushed: MPI implementations move big
  // accumulates through the target's CPU, and next to the transfer time a round trip no longer counts
  // (doc/performance.md, "Ordered puts: the size limit").  Strided accumulates pack into a held copy up to
  // the same size.
  std::size_t small_max_bytes;
  // An accumulate to another node larger than this moves as equal MPI accumulates of at most this many
  // bytes, all in flight before one completion: MPICH (ch4:ucx) over TCP switches an accumulate above ~56 KiB
  // to a slower protocol (doc/performance.md, "Strided and large accumulates between hosts").
  int acc_piece_bytes;
  // Held copies (completion/ordering.h, hold_put_copy): when a (window, target) pair holds this many, or all pairs
  // together more than held_copy_bytes, the pairs concerned are flushed first.  The flush waits for the
  // target's CPU to work through the accumulates, so the count bound is far above
  // ARMCI_MAX_OUTSTANDING_PER_TARGET (doc/performance.md, "Ordered puts: the size limit").
  int held_copies_per_target;
  std::size_t held_copy_bytes;
  // Where puts and gets to other nodes go as accumulates (ARMCI_RMA_BY_ACCUMULATE, transfer/rma_by_accumulate.h),
  // gets of fewer bytes stay MPI_Get: a small MPI_Get_accumulate costs more, a larger one less.
  std::size_t get_by_acc_min_bytes;
};
constexpr ContigAutoTuning kContigAuto{64 * 1024, 56 * 1024, 4096, std::size_t{1} << 20, 8 * 1024};

// ---- Strided transfers: ARMCI_STRIDED_METHOD=AUTO (choose_strided; the rule: transfer/engine_choice.h) ---
struct StridedAutoTuning {
  int per_segment_min_run;                // bytes per run from which IOV / PACK beat DIRECT ...
  std::size_t per_segment_min_segments;   // ... given at least this many runs
  std::size_t pack_acc_min_bytes;         // accumulates of such runs: PACK from this total, DIRECT below
  std::size_t node_chunk_bytes;           // ARMCI_PACK_CHUNK=auto within a node (PACK)
  std::size_t other_node_chunk_bytes;     // ARMCI_PACK_CHUNK=auto to another node (PACK_STREAM)
  std::size_t pack_stream_window_chunks;  // PACK_STREAM's buffer, in chunks: completes locally and reuses it beyond
  // To another node, accumulates of runs from per_segment_min_run up to a chunk whose local side is contiguous
  // (GA's NGA_Acc buffer) stream packed (PACK_STREAM) up to this total and go as one MPI_Accumulate (DIRECT, as
  // ARMCI-MPI) above it: there is nothing to pack, and packing it only copies it and splits it into pieces the
  // target unpacks one by one.  A strided local side still streams: DIRECT would make MPI pack it, slower
  // still (benchmarks/results/2026-12-07-large-acc-between-nodes.md has the measurements).
  std::size_t other_node_acc_stream_max_bytes;
};
constexpr StridedAutoTuning kStridedAuto{1024, 16, std::size_t{1} << 20, 64 * 1024, 32 * 1024, 128, 64 * 1024};

}  // namespace armcix
