#include "transfer/engine_choice.h"

#include <algorithm>

namespace armcix {

std::size_t pack_chunk_bytes(const Config& c, TargetPath path) {
  if (c.pack_chunk_bytes > 0) return c.pack_chunk_bytes;
  return path == TargetPath::OtherNode ? kStridedAuto.other_node_chunk_bytes : kStridedAuto.node_chunk_bytes;
}

std::size_t pack_segments_per_chunk(const StridedShape& s, const Config& c, TargetPath path) {
  const std::size_t seg = static_cast<std::size_t>(s.count[0]);
  const std::size_t chunk_bytes = std::max<std::size_t>(pack_chunk_bytes(c, path), seg);
  return std::max<std::size_t>(1, chunk_bytes / seg);
}

StridedEngine choose_strided(const StridedShape& s, XferOp op, const Config& c, TargetPath path, bool rma_by_acc) {
  if (path == TargetPath::NodeLocal) return StridedEngine::Local;
  if (s.nseg == 1) return StridedEngine::Contiguous;
  if (path == TargetPath::OtherNode) {
    if (c.strided_method == StridedMethod::Pack) return StridedEngine::PackStream;
    if (c.strided_method == StridedMethod::Auto) {
      if (static_cast<std::size_t>(s.count[0]) >= pack_chunk_bytes(c, path)) return StridedEngine::Iov;
      if (op == XferOp::Acc && s.count[0] < kStridedAuto.per_segment_min_run) return StridedEngine::Direct;
      // A large accumulate from a contiguous local side (GA's NGA_Acc buffer) needs no packing: one operation;
      // so do puts and gets that go as accumulates (rma_by_acc: GA's NGA_Put and NGA_Get buffers).
      if ((op == XferOp::Acc || rma_by_acc) && s.lextent == s.total_bytes() &&
          s.total_bytes() > kStridedAuto.other_node_acc_stream_max_bytes)
        return StridedEngine::Direct;
      return StridedEngine::PackStream;
    }
  }
  StridedEngine e = StridedEngine::Direct;
  switch (c.strided_method) {
    case StridedMethod::Auto: {
      const StridedAutoTuning& t = kStridedAuto;
      if (s.count[0] >= t.per_segment_min_run && s.nseg >= t.per_segment_min_segments) {
        if (op != XferOp::Acc)
          e = StridedEngine::Iov;
        else if (s.total_bytes() >= t.pack_acc_min_bytes)
          e = StridedEngine::Pack;
      }
      break;
    }
    case StridedMethod::Direct:
      e = StridedEngine::Direct;
      break;
    case StridedMethod::Iov:
      e = StridedEngine::Iov;
      break;
    case StridedMethod::Pack:
      e = StridedEngine::Pack;
      break;
  }
  if (e == StridedEngine::Pack && (op == XferOp::Get || s.nseg <= pack_segments_per_chunk(s, c)))
    e = StridedEngine::Direct;
  return e;
}

IovChecks iov_checks_needed(XferOp op, const Config& c, bool one_region, bool node_local) {
  const IovMethod m = c.iov_method;
  const bool explicit_mpi = m == IovMethod::Batched || m == IovMethod::Direct;
  const bool auto_mpi = m == IovMethod::Auto && one_region && !node_local;
  IovChecks need;
  need.written_side = op != XferOp::Acc && (explicit_mpi || auto_mpi);
  need.remote_side = op == XferOp::Acc && one_region && !node_local && (m == IovMethod::Auto || m == IovMethod::Direct);
  return need;
}

IovEngine choose_iov(XferOp op, const Config& c, const IovFacts& f) {
  switch (c.iov_method) {
    case IovMethod::Consrv:
      return IovEngine::Consrv;
    case IovMethod::Auto:
      if (f.node_local) return IovEngine::Local;
      if (!f.one_region || f.written_overlaps) return IovEngine::Consrv;
      // One datatype operation is far faster than one operation per segment, and never worse than one
      // flush interval of BATCHED (doc/design.md, "I/O vectors").
      return op == XferOp::Acc && f.remote_overlaps ? IovEngine::Batched : IovEngine::Direct;
    case IovMethod::Batched:
    case IovMethod::Direct:
      if (f.written_overlaps) return IovEngine::RejectOverlap;
      if (!f.one_region) return IovEngine::RejectSeveralRegions;
      if (f.node_local) return IovEngine::Local;
      if (c.iov_method == IovMethod::Batched) return IovEngine::Batched;
      return op == XferOp::Acc && f.remote_overlaps ? IovEngine::Batched : IovEngine::Direct;
  }
  return IovEngine::Consrv;
}

const char* engine_name(ContigPath p) {
  switch (p) {
    case ContigPath::Local:
      return "local";
    case ContigPath::OrderedPut:
      return "ordered put";
    case ContigPath::HeldCopy:
      return "held copy";
    case ContigPath::OwnRequest:
      return "own request";
    case ContigPath::HandleRequest:
      return "handle's request";
    case ContigPath::Flushed:
      return "flushed";
  }
  return "?";
}

const char* engine_name(StridedEngine e) {
  switch (e) {
    case StridedEngine::Local:
      return "local";
    case StridedEngine::Contiguous:
      return "contiguous";
    case StridedEngine::Direct:
      return "DIRECT";
    case StridedEngine::Iov:
      return "IOV";
    case StridedEngine::Pack:
      return "PACK";
    case StridedEngine::PackStream:
      return "PACK_STREAM";
  }
  return "?";
}

const char* engine_name(IovEngine e) {
  switch (e) {
    case IovEngine::Local:
      return "local";
    case IovEngine::Consrv:
      return "CONSRV";
    case IovEngine::Batched:
      return "BATCHED";
    case IovEngine::Direct:
      return "DIRECT";
    case IovEngine::RejectOverlap:
      return "reject (overlap)";
    case IovEngine::RejectSeveralRegions:
      return "reject (several allocations)";
  }
  return "?";
}

}  // namespace armcix
