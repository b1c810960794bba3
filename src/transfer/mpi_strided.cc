// The MPI backend's strided engines (ARMCI_STRIDED_METHOD; which one runs is choose_strided() in
// transfer/engine_choice.h, called by the dispatch, strided.cc):
//   DIRECT  one MPI operation with derived datatypes (nested hvectors) on both sides;
//   IOV     walk the segments with an odometer and issue one operation per segment, completed together;
//   PACK    pack the local side into a bounded buffer and move it chunk by chunk, the target side
//           described by an indexed datatype per chunk; each chunk completes locally before the buffer is
//           packed again (not pipelined), so a non-blocking call is complete on return;
//   PACK_STREAM  (to another node) the same chunks from one buffer of the whole transfer (up to a window),
//           all in flight together and completed once, so that packing, network and unpacking overlap.
// `lbase` is the local side's base (src of put/acc, dst of get).
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "topo/nodes.h"
#include "transfer/datatypes.h"
#include "transfer/mpi_backend.h"
#include "transfer/rma.h"

namespace armcix {

namespace {

// A get that landed packed in `landing` (the local side is staged): copies it out into the strided local
// side now (blocking) or when the request completes, which keeps the buffer alive until then.
void scatter_after(const StridedShape& s, char* local, std::unique_ptr<char[]> landing, Request* req) {
  const char* packed = landing.get();
  auto scatter = [shape = s, local, packed] {
    const char* in = packed;
    for_each_segment(shape, [&](long loff, long) {
      std::memcpy(local + loff, in, shape.count[0]);
      in += shape.count[0];
    });
  };
  if (req) {
    request_on_complete(req, scatter);
    request_keep(req, std::move(landing));
  } else {
    scatter();
  }
}

// One operation, datatypes on both sides.
void direct_engine(XferOp op, const AccType* t, const void* scale, const StridedShape& s, char* lbase, const GmrRef& r,
                   Request* req) {
  MPI_Datatype elem = t ? t->mpi_elem : MPI_BYTE;
  int per_run = t ? s.count[0] / t->elem_bytes * t->mpi_per_elem : s.count[0];
  OwnedType rtype = strided_type(elem, per_run, s.count, s.rstride, s.levels);
  Gmr* g = r.gmr;
  const MPI_Aint lo = r.disp, hi = r.disp + static_cast<MPI_Aint>(s.rextent);
  if (op == XferOp::Acc) {
    Staged origin;
    OwnedType ltype;
    int lcount = 1;
    MPI_Datatype lt;
    // A held copy (completion/ordering.h) is taken after prepare_op, whose flush would free the pair's held copies.
    prepare_op(g, r.win_rank, XferOp::Acc, lo, hi);
    const bool held = req == nullptr && acc_from_held_copy(r, s.total_bytes(), g->abs_rank_of(r.win_rank));
    if (!held && scale_is_one(*t, scale) && !must_stage(lbase) && s.lextent == s.total_bytes()) {
      origin.ptr = lbase;  // a contiguous local side (GA's buffer): plain elements, nothing for MPI to pack
      lcount = static_cast<int>(s.nseg) * per_run;
      lt = elem;
    } else if (!held && scale_is_one(*t, scale) && !must_stage(lbase)) {
      ltype = strided_type(elem, per_run, s.count, s.lstride, s.levels);
      origin.ptr = lbase;
      lt = ltype.get();
    } else {  // packed, and scaled while packing: one pass over the source
      if (!held) origin.owned = new_buffer(s.total_bytes());
      char* out = held ? static_cast<char*>(hold_copy_space(g, r.win_rank, s.total_bytes())) : origin.owned.get();
      origin.ptr = out;
      const bool plain_copy = held && scale_is_one(*t, scale);  // a held copy of unscaled data is a memcpy
      for_each_segment(s, [&](long loff, long) {
        if (plain_copy)
          std::memcpy(out, lbase + loff, s.count[0]);
        else
          scale_copy(*t, scale, lbase + loff, out, s.count[0]);
        out += s.count[0];
      });
      lcount = static_cast<int>(s.nseg) * per_run;
      lt = elem;
    }
    ARMCIX_MPI(MPI_Accumulate(origin.ptr, lcount, lt, mpi_target(g, r.win_rank), mpi_disp(g, r.win_rank, r.disp), 1,
                              rtype.get(), MPI_SUM, g->win));
    note_issued(g, r.win_rank, XferOp::Acc, lo, hi);
    if (held) {  // completes, and is freed, with the pair's next flush
      wake_server(g, r.win_rank);
      return;
    }
    complete_local(g, r.win_rank, req);
    origin.hand_to(req);
    return;
  }
  // A contiguous local side (GA's buffers) goes as plain bytes: with a derived origin type MPI packs or
  // unpacks it itself, which between nodes costs more than the transfer.
  const bool local_plain = s.lextent == s.total_bytes();
  OwnedType ltype;
  if (!local_plain) ltype = strided_type(MPI_BYTE, s.count[0], s.count, s.lstride, s.levels);
  const int plain_count = local_plain ? static_cast<int>(s.total_bytes()) : 1;
  const MPI_Datatype plain_type = local_plain ? MPI_BYTE : ltype.get();
  const bool by_acc = rma_by_accumulate(op, s.total_bytes(), g->abs_rank_of(r.win_rank));
  if (op == XferOp::Put) {
    Staged origin;
    origin.ptr = lbase;
    int lcount = plain_count;
    MPI_Datatype lt = plain_type;
    if (must_stage(lbase)) {
      origin.owned = new_buffer(s.total_bytes());
      char* out = origin.owned.get();
      for_each_segment(s, [&](long loff, long) {
        std::memcpy(out, lbase + loff, s.count[0]);
        out += s.count[0];
      });
      origin.ptr = origin.owned.get();
      lcount = static_cast<int>(s.total_bytes());
      lt = MPI_BYTE;
    }
    prepare_op(g, r.win_rank, XferOp::Put, lo, hi, by_acc);
    ARMCIX_MPI(put_or_replace(by_acc, origin.ptr, lcount, lt, mpi_target(g, r.win_rank),
                              mpi_disp(g, r.win_rank, r.disp), 1, rtype.get(), g->win));
    note_issued(g, r.win_rank, XferOp::Put, lo, hi, false, by_acc);
    complete_local(g, r.win_rank, req);
    origin.hand_to(req);
    return;
  }
  // Get.  With staging, land the data packed in a private buffer and scatter it afterwards.
  if (must_stage(lbase)) {
    Staged target;
    target.owned = new_buffer(s.total_bytes());
    target.ptr = target.owned.get();
    prepare_op(g, r.win_rank, XferOp::Get, lo, hi);
    ARMCIX_MPI(get_or_no_op(by_acc, target.ptr, static_cast<int>(s.total_bytes()), MPI_BYTE, mpi_target(g, r.win_rank),
                            mpi_disp(g, r.win_rank, r.disp), 1, rtype.get(), g->win));
    complete_local(g, r.win_rank, req);
    note_issued(g, r.win_rank, XferOp::Get, lo, hi, req != nullptr);
    scatter_after(s, lbase, std::move(target.owned), req);
    return;
  }
  prepare_op(g, r.win_rank, XferOp::Get, lo, hi);
  // Flush_local, not MPI_Rget + MPI_Wait as the contiguous get to another node: with a derived target type
  // MPICH's UCX netmod completes the Rget's request before the data has landed (MPICH 4.0.2 and 4.2.1, MPICH
  // issue 7896; tools/repro/mpich-rget-derived-target.c; tests/mpi/test_strided with ARMCI_NODE_SIZE=1
  // caught it).
  ARMCIX_MPI(get_or_no_op(by_acc, lbase, plain_count, plain_type, mpi_target(g, r.win_rank),
                          mpi_disp(g, r.win_rank, r.disp), 1, rtype.get(), g->win));
  complete_local(g, r.win_rank, req);
  note_issued(g, r.win_rank, XferOp::Get, lo, hi, req != nullptr);
}

// One operation per segment, all completed together (at most `limit` between local completions).
void iov_engine(XferOp op, const AccType* t, const void* scale, const StridedShape& s, char* lbase, const GmrRef& r,
                Request* req) {
  Gmr* g = r.gmr;
  const int seg = s.count[0];
  const int limit = rt().config.iov_batched_limit;
  const MPI_Aint lo = r.disp, hi = r.disp + static_cast<MPI_Aint>(s.rextent);
  const bool by_acc = rma_by_accumulate(op, s.total_bytes(), g->abs_rank_of(r.win_rank));
  prepare_op(g, r.win_rank, op, lo, hi, by_acc);
  Staged packed;  // scaled / staged source, packed segment after segment
  bool stage_local = must_stage(lbase);
  if ((op == XferOp::Acc && (!scale_is_one(*t, scale) || stage_local)) || (op == XferOp::Put && stage_local)) {
    packed.owned = new_buffer(s.total_bytes());
    char* out = packed.owned.get();
    for_each_segment(s, [&](long loff, long) {
      if (op == XferOp::Acc)
        scale_copy(*t, scale, lbase + loff, out, seg);
      else
        std::memcpy(out, lbase + loff, seg);
      out += seg;
    });
  }
  Staged landing;  // get with staging: packed landing area, scattered after completion
  if (op == XferOp::Get && stage_local) landing.owned = new_buffer(s.total_bytes());
  long issued = 0, k = 0;
  const int n = op == XferOp::Acc ? seg / t->elem_bytes * t->mpi_per_elem : seg;
  MPI_Datatype elem = op == XferOp::Acc ? t->mpi_elem : MPI_BYTE;
  const bool other_node = !on_my_node(g->abs_rank_of(r.win_rank));
  for_each_segment(s, [&](long loff, long roff) {
    MPI_Aint disp = r.disp + roff;
    char* local = packed.owned    ? packed.owned.get() + k * seg
                  : landing.owned ? landing.owned.get() + k * seg
                                  : lbase + loff;
    switch (op) {
      case XferOp::Put:
        ARMCIX_MPI(put_or_replace(by_acc, local, n, elem, mpi_target(g, r.win_rank), mpi_disp(g, r.win_rank, disp), n,
                                  elem, g->win));
        break;
      case XferOp::Get:
        ARMCIX_MPI(get_or_no_op(by_acc, local, n, elem, mpi_target(g, r.win_rank), mpi_disp(g, r.win_rank, disp), n,
                                elem, g->win));
        break;
      case XferOp::Acc:  // to another node a run above kContigAuto.acc_piece_bytes goes in pieces (transfer/rma.h)
        for_each_acc_piece(*t, seg, other_node, [&](MPI_Aint at, int len) {
          ARMCIX_MPI(MPI_Accumulate(local + at, len, elem, mpi_target(g, r.win_rank),
                                    mpi_disp(g, r.win_rank, disp + at), len, elem, MPI_SUM, g->win));
        });
        break;
    }
    ++k;
    if (limit > 0 && ++issued == limit) {
      flush_local_pair(g, r.win_rank);
      issued = 0;
    }
  });
  complete_local(g, r.win_rank, req);
  note_issued(g, r.win_rank, op, lo, hi, req != nullptr, by_acc);
  packed.hand_to(req);
  if (landing.owned) scatter_after(s, lbase, std::move(landing.owned), req);
}

// Packs segments of the local side into a bounded buffer (ARMCI_PACK_CHUNK) and moves it chunk by chunk;
// target side: an indexed datatype per chunk.  Puts and accumulates of more than one chunk only
// (choose_strided sends the rest to DIRECT).  Every chunk completes locally before the call returns, so a
// non-blocking call through this engine is complete on return and needs no request.
void pack_engine(XferOp op, const AccType* t, const void* scale, const StridedShape& s, char* lbase, const GmrRef& r) {
  const std::size_t seg = s.count[0];
  const std::size_t segs_per_chunk = pack_segments_per_chunk(s, rt().config);
  Gmr* g = r.gmr;
  const MPI_Aint lo = r.disp, hi = r.disp + static_cast<MPI_Aint>(s.rextent);
  prepare_op(g, r.win_rank, op, lo, hi);
  MPI_Datatype elem = t ? t->mpi_elem : MPI_BYTE;
  int per_seg = t ? static_cast<int>(seg) / t->elem_bytes * t->mpi_per_elem : static_cast<int>(seg);
  // One bounded buffer, one operation per chunk.  Pipelining chunks with MPI_Rput/MPI_Raccumulate and
  // two buffers was measured wrong on MPICH 4.0.2 (ch4:ucx): after MPI_Wait on an MPI_Rput the buffer is
  // still read, and MPI_Request_free on such a request is rejected.  So each chunk completes locally
  // (MPI_Win_flush_local) before its buffer is packed again.
  std::unique_ptr<char[]> buf = new_buffer(segs_per_chunk * seg);
  std::vector<MPI_Aint> displs;
  displs.reserve(segs_per_chunk);
  std::size_t in_chunk = 0;
  char* out = buf.get();
  auto send = [&] {
    OwnedType rtype = indexed_type(elem, per_seg, displs.data(), static_cast<int>(displs.size()));
    int n = static_cast<int>(displs.size()) * per_seg;
    if (op == XferOp::Put)
      ARMCIX_MPI(MPI_Put(buf.get(), n, elem, mpi_target(g, r.win_rank), mpi_disp(g, r.win_rank, r.disp), 1, rtype.get(),
                         g->win));
    else
      ARMCIX_MPI(MPI_Accumulate(buf.get(), n, elem, mpi_target(g, r.win_rank), mpi_disp(g, r.win_rank, r.disp), 1,
                                rtype.get(), MPI_SUM, g->win));
    flush_local_pair(g, r.win_rank);
    out = buf.get();
    displs.clear();
    in_chunk = 0;
  };
  for_each_segment(s, [&](long loff, long roff) {
    if (op == XferOp::Acc)
      scale_copy(*t, scale, lbase + loff, out, seg);
    else
      std::memcpy(out, lbase + loff, seg);
    out += seg;
    displs.push_back(roff);
    if (++in_chunk == segs_per_chunk) send();
  });
  if (in_chunk) send();
  note_issued(g, r.win_rank, op, lo, hi);
}

// To another node: the local side packed into one buffer (put, acc: scaled while packing) or landed packed
// there (get) and scattered afterwards; one MPI operation per chunk of segments, the target side of each an
// hvector (evenly spaced segments, the usual case) or an hindexed block type; every chunk in flight before one
// local completion.  Transfers beyond kStridedAuto.pack_stream_window_chunks chunks (4 MiB of 32 KiB chunks)
// complete locally window by window and reuse the buffer; the last window (all of the usual transfer)
// completes with `req` when there is one.
void pack_stream_engine(XferOp op, const AccType* t, const void* scale, const StridedShape& s, char* lbase,
                        const GmrRef& r, Request* req) {
  const std::size_t seg = s.count[0];
  const std::size_t per_chunk = pack_segments_per_chunk(s, rt().config, TargetPath::OtherNode);
  const std::size_t window = kStridedAuto.pack_stream_window_chunks * per_chunk;
  const std::size_t in_buffer = std::min(window, s.nseg);
  Gmr* g = r.gmr;
  const int wr = r.win_rank;
  const MPI_Aint lo = r.disp, hi = r.disp + static_cast<MPI_Aint>(s.rextent);
  const bool by_acc = rma_by_accumulate(op, s.total_bytes(), g->abs_rank_of(wr));
  prepare_op(g, wr, op, lo, hi, by_acc);
  MPI_Datatype elem = t ? t->mpi_elem : MPI_BYTE;
  const int per_seg = t ? static_cast<int>(seg) / t->elem_bytes * t->mpi_per_elem : static_cast<int>(seg);
  const bool unit_scale = op == XferOp::Acc && scale_is_one(*t, scale);
  // A blocking accumulate of at most kContigAuto.small_max_bytes packs into a held copy and waits for nothing;
  // so does a put of that size that goes as an accumulate (put_from_held_copy), blocking or not: its request
  // has nothing left to wait for.
  const bool held =
      (op == XferOp::Acc && req == nullptr && acc_from_held_copy(r, s.total_bytes(), g->abs_rank_of(wr))) ||
      (op == XferOp::Put && by_acc && put_from_held_copy(r, s.total_bytes(), g->abs_rank_of(wr)));
  std::unique_ptr<char[]> owned = held ? nullptr : new_buffer(in_buffer * seg);
  char* const buf = held ? static_cast<char*>(hold_copy_space(g, wr, in_buffer * seg)) : owned.get();
  std::vector<long> loffs;  // get: where the window's segments go locally
  if (op == XferOp::Get) loffs.reserve(in_buffer);
  std::vector<MPI_Aint> displs;
  displs.reserve(per_chunk);
  std::size_t done = 0, in_window = 0, chunk_first = 0;
  MPI_Aint chunk_disp = 0;
  auto scatter = [seg](const std::vector<long>& offs, const char* from, char* local) {
    for (long off : offs) {
      std::memcpy(local + off, from, seg);
      from += seg;
    }
  };
  auto issue_chunk = [&] {
    OwnedType rtype = blocks_type(elem, per_seg, displs.data(), static_cast<int>(displs.size()));
    char* o = buf + chunk_first * seg;
    const int n = static_cast<int>(displs.size()) * per_seg;
    const MPI_Aint disp = mpi_disp(g, wr, r.disp + chunk_disp);
    switch (op) {
      case XferOp::Put:
        ARMCIX_MPI(put_or_replace(by_acc, o, n, elem, mpi_target(g, wr), disp, 1, rtype.get(), g->win));
        break;
      case XferOp::Get:
        ARMCIX_MPI(get_or_no_op(by_acc, o, n, elem, mpi_target(g, wr), disp, 1, rtype.get(), g->win));
        break;
      case XferOp::Acc:
        ARMCIX_MPI(MPI_Accumulate(o, n, elem, mpi_target(g, wr), disp, 1, rtype.get(), MPI_SUM, g->win));
        break;
    }
    displs.clear();
  };
  for_each_segment(s, [&](long loff, long roff) {
    if (displs.empty()) {
      chunk_first = in_window;
      chunk_disp = roff;
    }
    char* slot = buf + in_window * seg;
    if (op == XferOp::Put || (op == XferOp::Acc && unit_scale))  // a call per run: memcpy is inlined, scale_copy not
      std::memcpy(slot, lbase + loff, seg);
    else if (op == XferOp::Acc)
      scale_copy(*t, scale, lbase + loff, slot, seg);
    else
      loffs.push_back(loff);
    displs.push_back(roff - chunk_disp);
    ++in_window;
    ++done;
    if (displs.size() == per_chunk || in_window == in_buffer || done == s.nseg) issue_chunk();
    if (in_window == in_buffer && done < s.nseg) {  // a window full and more to come: complete it, reuse
      flush_local_pair(g, wr);
      if (op == XferOp::Get) {
        scatter(loffs, buf, lbase);
        loffs.clear();
      }
      in_window = 0;
    }
  });
  if (held) {
    note_issued(g, wr, op, lo, hi, false, by_acc);
    wake_server(g, wr);
    return;
  }
  complete_local(g, wr, req);
  note_issued(g, wr, op, lo, hi, req != nullptr, by_acc);
  if (op != XferOp::Get) {
    if (req) request_keep(req, std::move(owned));
    return;
  }
  if (!req) {
    scatter(loffs, buf, lbase);
    return;
  }
  const char* from = buf;
  char* local = lbase;
  request_on_complete(req, [scatter, offs = std::move(loffs), from, local] { scatter(offs, from, local); });
  request_keep(req, std::move(owned));
}

}  // namespace

void mpi_strided(StridedEngine engine, XferOp op, const AccType* t, const void* scale, const StridedShape& s,
                 char* local, const GmrRef& r, Request* req) {
  switch (engine) {
    case StridedEngine::Direct:
      return direct_engine(op, t, scale, s, local, r, req);
    case StridedEngine::Iov:
      return iov_engine(op, t, scale, s, local, r, req);
    case StridedEngine::Pack:
      return pack_engine(op, t, scale, s, local, r);
    case StridedEngine::PackStream:
      return pack_stream_engine(op, t, scale, s, local, r, req);
    case StridedEngine::Local:
    case StridedEngine::Contiguous:
      break;  // the dispatch's (strided.cc): never here
  }
}

}  // namespace armcix
