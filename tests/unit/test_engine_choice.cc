// Path and engine choice (transfer/engine_choice.h): every rule of choose_contig, choose_strided and choose_iov,
// without MPI.
#include <gtest/gtest.h>

#include <cstddef>

#include "transfer/engine_choice.h"

using armcix::choose_contig;
using armcix::choose_iov;
using armcix::choose_strided;
using armcix::Config;
using armcix::ContigFacts;
using armcix::ContigMpi;
using armcix::ContigPath;
using armcix::engine_name;
using armcix::IovEngine;
using armcix::IovFacts;
using armcix::IovMethod;
using armcix::kContigAuto;
using armcix::kStridedAuto;
using armcix::StridedEngine;
using armcix::StridedMethod;
using armcix::StridedShape;
using armcix::TargetPath;
using armcix::XferOp;

namespace {

const XferOp kOps[] = {XferOp::Put, XferOp::Get, XferOp::Acc};

// A one-level shape: `segments` runs of `run` bytes (strides do not enter the choice).
StridedShape shape(int run, std::size_t segments) {
  StridedShape s;
  s.levels = segments > 1 ? 1 : 0;
  s.count[0] = run;
  s.count[1] = static_cast<int>(segments);
  s.nseg = segments;
  s.lstride[0] = s.rstride[0] = run;
  s.lextent = s.rextent = s.total_bytes();
  return s;
}

Config strided_config(StridedMethod m, std::size_t pack_chunk = 0) {  // 0: ARMCI_PACK_CHUNK=auto
  Config c;
  c.strided_method = m;
  c.pack_chunk_bytes = pack_chunk;
  return c;
}

Config iov_config(IovMethod m) {
  Config c;
  c.iov_method = m;
  return c;
}

}  // namespace

// ---- contiguous ------------------------------------------------------------------------------------------

namespace {

constexpr ContigMpi kMpich{true, true};  // ordered puts by accumulate, accumulates from held copies
constexpr ContigMpi kOpenMpi{false, false};
const TargetPath kPaths[] = {TargetPath::NodeLocal, TargetPath::SameNode, TargetPath::OtherNode};

ContigFacts contig(XferOp op, TargetPath path, std::size_t bytes = 8) {
  ContigFacts f;
  f.op = op;
  f.path = path;
  f.bytes = bytes;
  return f;
}
ContigFacts under_handle(ContigFacts f, bool explicit_handle) {
  f.blocking = false;
  f.explicit_handle = explicit_handle;
  return f;
}
ContigFacts overlapping(ContigFacts f) {
  f.overlaps_pending_put = true;
  return f;
}
ContigFacts served(ContigFacts f) {
  f.served_by_progress_rank = true;
  return f;
}
const std::size_t kSmall = kContigAuto.small_max_bytes;

}  // namespace

TEST(ChooseContig, NodeLocalTargetGoesByLoadStoreWhateverElse) {
  for (XferOp op : kOps)
    for (const ContigMpi& m : {kMpich, kOpenMpi})
      for (std::size_t bytes : {std::size_t{8}, kSmall + 1}) {
        const ContigFacts f = contig(op, TargetPath::NodeLocal, bytes);
        EXPECT_EQ(choose_contig(f, m), ContigPath::Local);
        EXPECT_EQ(choose_contig(under_handle(f, true), m), ContigPath::Local);
        EXPECT_EQ(choose_contig(overlapping(served(f)), m), ContigPath::Local);
      }
}

TEST(ChooseContig, WithinANodeThroughMpiEverythingIsFlushed) {
  // No held copies and no requests of their own: a flush within a node costs no more (completion/ordering.h).  Nor
  // does the MPI library matter there, which transfer/paths.h's contig_path relies on (it does not ask).
  for (XferOp op : kOps)
    for (const ContigMpi& m : {kMpich, kOpenMpi}) {
      const ContigFacts f = contig(op, TargetPath::SameNode);
      EXPECT_EQ(choose_contig(f, m), ContigPath::Flushed) << engine_name(choose_contig(f, m));
      EXPECT_EQ(choose_contig(under_handle(f, true), m), ContigPath::Flushed);
      EXPECT_EQ(choose_contig(under_handle(f, false), m), ContigPath::Flushed);
      if (op == XferOp::Put) {
        EXPECT_EQ(choose_contig(overlapping(f), m), ContigPath::Flushed);
      }
    }
}

TEST(ChooseContig, PutOverlappingAPendingPutToAnotherNodeGoesOrderedOnMpich) {
  const ContigFacts f = overlapping(contig(XferOp::Put, TargetPath::OtherNode));
  EXPECT_EQ(choose_contig(f, kMpich), ContigPath::OrderedPut);
  EXPECT_EQ(choose_contig(under_handle(f, true), kMpich), ContigPath::OrderedPut);
  EXPECT_EQ(choose_contig(under_handle(f, false), kMpich), ContigPath::OrderedPut);
  EXPECT_EQ(choose_contig(overlapping(contig(XferOp::Put, TargetPath::OtherNode, kSmall)), kMpich),
            ContigPath::OrderedPut);
  // Above the size limit a put stays plain (and flushes the pair first).
  EXPECT_EQ(choose_contig(overlapping(contig(XferOp::Put, TargetPath::OtherNode, kSmall + 1)), kMpich),
            ContigPath::Flushed);
  // Not overlapping: plain.
  EXPECT_EQ(choose_contig(contig(XferOp::Put, TargetPath::OtherNode), kMpich), ContigPath::Flushed);
  EXPECT_EQ(choose_contig(under_handle(contig(XferOp::Put, TargetPath::OtherNode), true), kMpich), ContigPath::Flushed);
}

TEST(ChooseContig, SmallPutsToATargetReachedByAccumulatesGoOrdered) {
  // ARMCI_RMA_BY_ACCUMULATE: the put is an MPI_Accumulate(MPI_REPLACE) anyway, so it goes from a held copy and
  // streams behind earlier ones, overlapping or not, blocking or not.
  ContigFacts f = contig(XferOp::Put, TargetPath::OtherNode);
  f.puts_by_accumulate = true;
  EXPECT_EQ(choose_contig(f, kMpich), ContigPath::OrderedPut);
  EXPECT_EQ(choose_contig(overlapping(f), kMpich), ContigPath::OrderedPut);
  EXPECT_EQ(choose_contig(under_handle(f, true), kMpich), ContigPath::OrderedPut);
  EXPECT_EQ(choose_contig(under_handle(f, false), kMpich), ContigPath::OrderedPut);
  EXPECT_EQ(choose_contig(served(f), kMpich), ContigPath::OrderedPut);
  // Above the size limit: plain (the backend still issues it as an accumulate, and flushes it locally).
  ContigFacts big = f;
  big.bytes = kSmall + 1;
  EXPECT_EQ(choose_contig(big, kMpich), ContigPath::Flushed);
  // Where accumulates are dearer than a flush (Open MPI) the put keeps Open MPI's rule.
  EXPECT_EQ(choose_contig(f, kOpenMpi), ContigPath::HeldCopy);
  EXPECT_EQ(choose_contig(under_handle(f, true), kOpenMpi), ContigPath::Flushed);
  // Within a node nothing changes.
  f.path = TargetPath::SameNode;
  EXPECT_EQ(choose_contig(f, kMpich), ContigPath::Flushed);
}

TEST(ChooseContig, OpenMpiBlockingSmallPutsToAnotherNodeGoFromHeldCopies) {
  for (bool overlap : {false, true}) {
    ContigFacts f = contig(XferOp::Put, TargetPath::OtherNode);
    f.overlaps_pending_put = overlap;
    EXPECT_EQ(choose_contig(f, kOpenMpi), ContigPath::HeldCopy);
    EXPECT_EQ(choose_contig(under_handle(f, true), kOpenMpi), ContigPath::Flushed);
    EXPECT_EQ(choose_contig(under_handle(f, false), kOpenMpi), ContigPath::Flushed);
    f.bytes = kSmall + 1;
    EXPECT_EQ(choose_contig(f, kOpenMpi), ContigPath::Flushed);
  }
}

TEST(ChooseContig, GetsToAnotherNodeCompleteByTheirOwnRequest) {
  for (const ContigMpi& m : {kMpich, kOpenMpi})
    for (std::size_t bytes : {std::size_t{8}, kSmall + 1}) {
      const ContigFacts f = contig(XferOp::Get, TargetPath::OtherNode, bytes);
      EXPECT_EQ(choose_contig(f, m), ContigPath::OwnRequest);
      EXPECT_EQ(choose_contig(served(f), m), ContigPath::OwnRequest);
      EXPECT_EQ(choose_contig(under_handle(f, true), m), ContigPath::HandleRequest);
      // Implicit handles complete per target with one flush (WaitProc / WaitAll).
      EXPECT_EQ(choose_contig(under_handle(f, false), m), ContigPath::Flushed);
    }
}

TEST(ChooseContig, SmallBlockingAccumulatesGoFromHeldCopiesWhereTheTargetsCpuWouldBeWaitedFor) {
  EXPECT_EQ(choose_contig(contig(XferOp::Acc, TargetPath::OtherNode), kMpich), ContigPath::HeldCopy);
  EXPECT_EQ(choose_contig(contig(XferOp::Acc, TargetPath::OtherNode, kSmall), kMpich), ContigPath::HeldCopy);
  // A progress rank serving the slice, on this node too.
  EXPECT_EQ(choose_contig(served(contig(XferOp::Acc, TargetPath::SameNode)), kMpich), ContigPath::HeldCopy);
  EXPECT_EQ(choose_contig(contig(XferOp::Acc, TargetPath::SameNode), kMpich), ContigPath::Flushed);
  // Larger, non-blocking, or ARMCI_ACC_HELD_COPY off (Open MPI's auto): by request to another node.
  EXPECT_EQ(choose_contig(contig(XferOp::Acc, TargetPath::OtherNode, kSmall + 1), kMpich), ContigPath::OwnRequest);
  EXPECT_EQ(choose_contig(contig(XferOp::Acc, TargetPath::OtherNode), kOpenMpi), ContigPath::OwnRequest);
  EXPECT_EQ(choose_contig(contig(XferOp::Acc, TargetPath::OtherNode), ContigMpi{true, false}), ContigPath::OwnRequest);
  EXPECT_EQ(choose_contig(contig(XferOp::Acc, TargetPath::OtherNode), ContigMpi{false, true}), ContigPath::HeldCopy);
  EXPECT_EQ(choose_contig(under_handle(contig(XferOp::Acc, TargetPath::OtherNode), true), kMpich),
            ContigPath::HandleRequest);
  EXPECT_EQ(choose_contig(under_handle(contig(XferOp::Acc, TargetPath::OtherNode), false), kMpich),
            ContigPath::Flushed);
  EXPECT_EQ(choose_contig(served(contig(XferOp::Acc, TargetPath::SameNode)), kOpenMpi), ContigPath::Flushed);
}

TEST(ChooseContig, OnlyPutsGoOrderedAndOnlyPutsAndAccumulatesFromHeldCopies) {
  for (const ContigMpi& m : {kMpich, kOpenMpi, ContigMpi{true, false}, ContigMpi{false, true}})
    for (TargetPath path : kPaths)
      for (int bits = 0; bits < 8; ++bits) {
        ContigFacts f = contig(XferOp::Get, path, bits & 4 ? kSmall + 1 : 8);
        f.blocking = bits & 1;
        f.explicit_handle = !f.blocking && (bits & 2);
        f.overlaps_pending_put = true;
        f.served_by_progress_rank = true;
        const ContigPath p = choose_contig(f, m);
        EXPECT_NE(p, ContigPath::OrderedPut);
        EXPECT_NE(p, ContigPath::HeldCopy);
        f.op = XferOp::Acc;
        EXPECT_NE(choose_contig(f, m), ContigPath::OrderedPut);
        if (!f.blocking) {
          EXPECT_NE(choose_contig(f, m), ContigPath::HeldCopy);
        }
        f.op = XferOp::Put;
        if (!f.blocking) {
          EXPECT_NE(choose_contig(f, m), ContigPath::HeldCopy);
        }
        EXPECT_NE(choose_contig(f, m), ContigPath::OwnRequest);
        EXPECT_NE(choose_contig(f, m), ContigPath::HandleRequest);
      }
}

// ---- strided ---------------------------------------------------------------------------------------------

TEST(ChooseStrided, NodeLocalTargetGoesByLoadStoreWhateverTheMethod) {
  for (StridedMethod m : {StridedMethod::Auto, StridedMethod::Direct, StridedMethod::Iov, StridedMethod::Pack})
    for (XferOp op : kOps) {
      EXPECT_EQ(choose_strided(shape(8, 100), op, strided_config(m), TargetPath::NodeLocal), StridedEngine::Local);
      EXPECT_EQ(choose_strided(shape(8, 1), op, strided_config(m), TargetPath::NodeLocal), StridedEngine::Local);
    }
}

TEST(ChooseStrided, OneSegmentIsThePlainOperationWhateverTheMethod) {
  for (StridedMethod m : {StridedMethod::Auto, StridedMethod::Direct, StridedMethod::Iov, StridedMethod::Pack})
    for (XferOp op : kOps)
      EXPECT_EQ(choose_strided(shape(1 << 20, 1), op, strided_config(m), TargetPath::SameNode),
                StridedEngine::Contiguous);
}

TEST(ChooseStrided, AutoShortRunsAreDirect) {
  const int below = kStridedAuto.per_segment_min_run - 1;
  for (XferOp op : kOps) {
    EXPECT_EQ(choose_strided(shape(16, 4096), op, strided_config(StridedMethod::Auto), TargetPath::SameNode),
              StridedEngine::Direct);
    EXPECT_EQ(choose_strided(shape(below, 4096), op, strided_config(StridedMethod::Auto), TargetPath::SameNode),
              StridedEngine::Direct);
  }
}

TEST(ChooseStrided, AutoLongRunsButFewSegmentsAreDirect) {
  const std::size_t few = kStridedAuto.per_segment_min_segments - 1;
  for (XferOp op : kOps)
    EXPECT_EQ(choose_strided(shape(1 << 20, few), op, strided_config(StridedMethod::Auto), TargetPath::SameNode),
              StridedEngine::Direct);
}

TEST(ChooseStrided, AutoLongRunsPutAndGetPerSegment) {
  const int run = kStridedAuto.per_segment_min_run;
  const std::size_t n = kStridedAuto.per_segment_min_segments;
  EXPECT_EQ(choose_strided(shape(run, n), XferOp::Put, strided_config(StridedMethod::Auto), TargetPath::SameNode),
            StridedEngine::Iov);
  EXPECT_EQ(choose_strided(shape(run, n), XferOp::Get, strided_config(StridedMethod::Auto), TargetPath::SameNode),
            StridedEngine::Iov);
}

TEST(ChooseStrided, AutoBetweenNodesPacksRunsShorterThanAChunk) {
  const Config c = strided_config(StridedMethod::Auto);
  for (XferOp op : kOps) {
    // Accumulates of runs shorter than per_segment_min_run stay DIRECT; puts and gets pack whatever the run.
    const StridedEngine short_runs = op == XferOp::Acc ? StridedEngine::Direct : StridedEngine::PackStream;
    EXPECT_EQ(choose_strided(shape(16, 4), op, c, TargetPath::OtherNode), short_runs);
    EXPECT_EQ(choose_strided(shape(8, 100000), op, c, TargetPath::OtherNode), short_runs);
    EXPECT_EQ(choose_strided(shape(kStridedAuto.per_segment_min_run - 8, 64), op, c, TargetPath::OtherNode),
              short_runs);
    EXPECT_EQ(choose_strided(shape(1024, 16), op, c, TargetPath::OtherNode), StridedEngine::PackStream);
    EXPECT_EQ(choose_strided(shape(1024, 2), op, c, TargetPath::OtherNode), StridedEngine::PackStream);
    // Large accumulates of such runs from a contiguous local side: one MPI_Accumulate (DIRECT), as ARMCI-MPI;
    // from a strided local side, and puts and gets, still packed.
    const std::size_t acc_max = kStridedAuto.other_node_acc_stream_max_bytes;
    const StridedEngine large = op == XferOp::Acc ? StridedEngine::Direct : StridedEngine::PackStream;
    EXPECT_EQ(choose_strided(shape(1024, 1024), op, c, TargetPath::OtherNode), large);
    EXPECT_EQ(choose_strided(shape(2048, 256), op, c, TargetPath::OtherNode), large);  // GA's 256 x 256 doubles
    EXPECT_EQ(choose_strided(shape(1024, acc_max / 1024), op, c, TargetPath::OtherNode), StridedEngine::PackStream);
    EXPECT_EQ(choose_strided(shape(1024, acc_max / 1024 + 1), op, c, TargetPath::OtherNode), large);
    StridedShape strided_local = shape(1024, 1024);
    strided_local.lstride[0] = 2048;
    strided_local.lextent = 1023 * 2048 + 1024;
    EXPECT_EQ(choose_strided(strided_local, op, c, TargetPath::OtherNode), StridedEngine::PackStream);
    const int chunk = static_cast<int>(kStridedAuto.other_node_chunk_bytes);
    EXPECT_EQ(choose_strided(shape(chunk - 8, 2), op, c, TargetPath::OtherNode), StridedEngine::PackStream);
    EXPECT_EQ(choose_strided(shape(chunk - 8, 64), op, c, TargetPath::OtherNode), large);
    // Puts and gets that go as accumulates (ARMCI_RMA_BY_ACCUMULATE) follow the accumulates' rule: a large
    // one from a contiguous local side is one operation (GA's NGA_Put / NGA_Get of a 256 x 256 tile).
    EXPECT_EQ(choose_strided(shape(2048, 256), op, c, TargetPath::OtherNode, true), StridedEngine::Direct);
    EXPECT_EQ(choose_strided(shape(1024, acc_max / 1024), op, c, TargetPath::OtherNode, true),
              StridedEngine::PackStream);
    EXPECT_EQ(choose_strided(strided_local, op, c, TargetPath::OtherNode, true), StridedEngine::PackStream);
    // A run of a chunk or more: one operation per run, nothing to pack.
    EXPECT_EQ(choose_strided(shape(chunk, 64), op, c, TargetPath::OtherNode), StridedEngine::Iov);
    EXPECT_EQ(choose_strided(shape(1 << 20, 2), op, c, TargetPath::OtherNode), StridedEngine::Iov);
    // One segment is still the plain operation.
    EXPECT_EQ(choose_strided(shape(1024, 1), op, c, TargetPath::OtherNode), StridedEngine::Contiguous);
  }
  // ARMCI_PACK_CHUNK set: its chunk decides between the two.
  EXPECT_EQ(
      choose_strided(shape(8192, 4), XferOp::Put, strided_config(StridedMethod::Auto, 4096), TargetPath::OtherNode),
      StridedEngine::Iov);
  EXPECT_EQ(
      choose_strided(shape(2048, 4), XferOp::Put, strided_config(StridedMethod::Auto, 4096), TargetPath::OtherNode),
      StridedEngine::PackStream);
}

TEST(ChooseStrided, AutoWithinANodeNeverStreamsPacks) {
  const Config c = strided_config(StridedMethod::Auto);
  for (XferOp op : kOps)
    for (std::size_t n : {std::size_t{4}, std::size_t{16}, std::size_t{1024}})
      for (int run : {16, 1024, 1 << 16})
        EXPECT_NE(choose_strided(shape(run, n), op, c, TargetPath::SameNode), StridedEngine::PackStream);
}

TEST(ChooseStrided, ExplicitMethodIsKeptBetweenNodesExceptPackStreams) {
  for (XferOp op : kOps) {
    EXPECT_EQ(choose_strided(shape(1024, 64), op, strided_config(StridedMethod::Iov), TargetPath::OtherNode),
              StridedEngine::Iov);
    EXPECT_EQ(choose_strided(shape(1024, 64), op, strided_config(StridedMethod::Direct), TargetPath::OtherNode),
              StridedEngine::Direct);
    // PACK to another node streams its chunks, gets included, whatever the run length.
    EXPECT_EQ(choose_strided(shape(1024, 64), op, strided_config(StridedMethod::Pack), TargetPath::OtherNode),
              StridedEngine::PackStream);
    EXPECT_EQ(choose_strided(shape(1 << 16, 4), op, strided_config(StridedMethod::Pack), TargetPath::OtherNode),
              StridedEngine::PackStream);
  }
  EXPECT_EQ(choose_strided(shape(8, 100), XferOp::Get, strided_config(StridedMethod::Iov), TargetPath::NodeLocal),
            StridedEngine::Local);
}

TEST(ChooseStrided, PackChunkIsPerPathWhenAuto) {
  EXPECT_EQ(armcix::pack_chunk_bytes(strided_config(StridedMethod::Auto), TargetPath::SameNode),
            kStridedAuto.node_chunk_bytes);
  EXPECT_EQ(armcix::pack_chunk_bytes(strided_config(StridedMethod::Auto), TargetPath::OtherNode),
            kStridedAuto.other_node_chunk_bytes);
  for (TargetPath p : {TargetPath::SameNode, TargetPath::OtherNode})
    EXPECT_EQ(armcix::pack_chunk_bytes(strided_config(StridedMethod::Pack, 4096), p), 4096u);
  EXPECT_EQ(
      armcix::pack_segments_per_chunk(shape(1024, 100), strided_config(StridedMethod::Auto), TargetPath::OtherNode),
      kStridedAuto.other_node_chunk_bytes / 1024);
  EXPECT_EQ(armcix::pack_segments_per_chunk(shape(1024, 100), strided_config(StridedMethod::Auto)),
            kStridedAuto.node_chunk_bytes / 1024);
}

TEST(ChooseStrided, AutoLongRunAccumulatesPackFromTheThresholdAndAreDirectBelow) {
  const int run = kStridedAuto.per_segment_min_run;  // 1 KiB
  const std::size_t at = kStridedAuto.pack_acc_min_bytes / static_cast<std::size_t>(run);
  EXPECT_EQ(choose_strided(shape(run, at), XferOp::Acc, strided_config(StridedMethod::Auto), TargetPath::SameNode),
            StridedEngine::Pack);
  EXPECT_EQ(choose_strided(shape(run, at - 1), XferOp::Acc, strided_config(StridedMethod::Auto), TargetPath::SameNode),
            StridedEngine::Direct);
}

TEST(ChooseStrided, ExplicitMethodsAreUsedAsAsked) {
  for (XferOp op : kOps) {
    EXPECT_EQ(choose_strided(shape(16, 4096), op, strided_config(StridedMethod::Direct), TargetPath::SameNode),
              StridedEngine::Direct);
    EXPECT_EQ(choose_strided(shape(1 << 16, 4096), op, strided_config(StridedMethod::Direct), TargetPath::SameNode),
              StridedEngine::Direct);
    EXPECT_EQ(choose_strided(shape(16, 4096), op, strided_config(StridedMethod::Iov), TargetPath::SameNode),
              StridedEngine::Iov);
  }
  EXPECT_EQ(
      choose_strided(shape(16, 4096), XferOp::Put, strided_config(StridedMethod::Pack, 4096), TargetPath::SameNode),
      StridedEngine::Pack);
  EXPECT_EQ(
      choose_strided(shape(16, 4096), XferOp::Acc, strided_config(StridedMethod::Pack, 4096), TargetPath::SameNode),
      StridedEngine::Pack);
}

TEST(ChooseStrided, PackFallsBackToDirectForGetsAndSingleChunks) {
  const Config c = strided_config(StridedMethod::Pack, 4096);
  EXPECT_EQ(choose_strided(shape(16, 4096), XferOp::Get, c, TargetPath::SameNode), StridedEngine::Direct);
  // 4 KiB chunks of 16-byte runs: 256 runs fit in one chunk.
  EXPECT_EQ(armcix::pack_segments_per_chunk(shape(16, 256), c), 256u);
  EXPECT_EQ(choose_strided(shape(16, 256), XferOp::Put, c, TargetPath::SameNode), StridedEngine::Direct);
  EXPECT_EQ(choose_strided(shape(16, 257), XferOp::Put, c, TargetPath::SameNode), StridedEngine::Pack);
  // A run longer than the chunk is one chunk by itself.
  EXPECT_EQ(armcix::pack_segments_per_chunk(shape(8192, 2), c), 1u);
  EXPECT_EQ(choose_strided(shape(8192, 2), XferOp::Acc, c, TargetPath::SameNode), StridedEngine::Pack);
}

// ---- I/O vector ------------------------------------------------------------------------------------------

TEST(ChooseIov, ConsrvTakesEverything) {
  const Config c = iov_config(IovMethod::Consrv);
  for (XferOp op : kOps)
    for (int bits = 0; bits < 16; ++bits) {
      IovFacts f{(bits & 1) != 0, (bits & 3) == 3, (bits & 4) != 0, (bits & 8) != 0};
      EXPECT_EQ(choose_iov(op, c, f), IovEngine::Consrv);
    }
}

TEST(ChooseIov, AutoNodeLocalIsLocal) {
  for (XferOp op : kOps)
    EXPECT_EQ(choose_iov(op, iov_config(IovMethod::Auto), {true, true, false, false}), IovEngine::Local);
}

TEST(ChooseIov, AutoSeveralRegionsOrOverlapIsConsrv) {
  const Config c = iov_config(IovMethod::Auto);
  for (XferOp op : kOps) EXPECT_EQ(choose_iov(op, c, {false, false, false, false}), IovEngine::Consrv);
  EXPECT_EQ(choose_iov(XferOp::Put, c, {true, false, true, false}), IovEngine::Consrv);
  EXPECT_EQ(choose_iov(XferOp::Get, c, {true, false, true, false}), IovEngine::Consrv);
}

TEST(ChooseIov, AutoSafeDescriptorIsDirectExceptOverlappingAccumulates) {
  const Config c = iov_config(IovMethod::Auto);
  for (XferOp op : kOps) EXPECT_EQ(choose_iov(op, c, {true, false, false, false}), IovEngine::Direct);
  EXPECT_EQ(choose_iov(XferOp::Acc, c, {true, false, false, true}), IovEngine::Batched);
}

TEST(ChooseIov, ExplicitMpiMethodsRejectWhatTheyCannotOrder) {
  for (IovMethod m : {IovMethod::Batched, IovMethod::Direct}) {
    const Config c = iov_config(m);
    EXPECT_EQ(choose_iov(XferOp::Put, c, {true, false, true, false}), IovEngine::RejectOverlap);
    EXPECT_EQ(choose_iov(XferOp::Get, c, {true, true, true, false}), IovEngine::RejectOverlap);
    // Overlap is reported before the several allocations.
    EXPECT_EQ(choose_iov(XferOp::Put, c, {false, false, true, false}), IovEngine::RejectOverlap);
    for (XferOp op : kOps) EXPECT_EQ(choose_iov(op, c, {false, false, false, false}), IovEngine::RejectSeveralRegions);
  }
}

TEST(ChooseIov, ExplicitMpiMethodsOnANodeLocalTargetGoByLoadStore) {
  for (IovMethod m : {IovMethod::Batched, IovMethod::Direct})
    for (XferOp op : kOps) EXPECT_EQ(choose_iov(op, iov_config(m), {true, true, false, false}), IovEngine::Local);
}

TEST(ChooseIov, ExplicitBatchedAndDirect) {
  for (XferOp op : kOps) {
    EXPECT_EQ(choose_iov(op, iov_config(IovMethod::Batched), {true, false, false, false}), IovEngine::Batched);
    EXPECT_EQ(choose_iov(op, iov_config(IovMethod::Direct), {true, false, false, false}), IovEngine::Direct);
  }
  // A datatype may not overlap itself: overlapping accumulates go per segment.
  EXPECT_EQ(choose_iov(XferOp::Acc, iov_config(IovMethod::Direct), {true, false, false, true}), IovEngine::Batched);
}

// The caller runs only the overlap checks iov_checks_needed() asks for: the choice must not depend on the
// facts it leaves out.
TEST(ChooseIov, ChoiceDependsOnlyOnTheChecksAskedFor) {
  for (IovMethod m : {IovMethod::Auto, IovMethod::Consrv, IovMethod::Batched, IovMethod::Direct})
    for (XferOp op : kOps)
      for (int where = 0; where < 3; ++where) {  // several regions / one region / one node-local region
        const Config c = iov_config(m);
        const bool one = where > 0, local = where == 2;
        const armcix::IovChecks need = armcix::iov_checks_needed(op, c, one, local);
        EXPECT_FALSE(op == XferOp::Acc && need.written_side);
        EXPECT_FALSE(op != XferOp::Acc && need.remote_side);
        for (int w = 0; w < 2; ++w)
          for (int rm = 0; rm < 2; ++rm) {
            IovFacts asked{one, local, need.written_side && w, need.remote_side && rm};
            IovFacts all{one, local, op != XferOp::Acc && w, op == XferOp::Acc && rm};
            EXPECT_EQ(choose_iov(op, c, asked), choose_iov(op, c, all))
                << "method " << armcix::name_of(m) << " op " << static_cast<int>(op) << " where " << where << ": "
                << engine_name(choose_iov(op, c, asked)) << " vs " << engine_name(choose_iov(op, c, all));
          }
      }
}

// ---- folding contiguous levels (transfer/strided_shape.h) --------------------------------------------------

namespace {

StridedShape shape_of(std::initializer_list<int> count, std::initializer_list<long> lstride,
                      std::initializer_list<long> rstride) {
  StridedShape s;
  s.levels = static_cast<int>(count.size()) - 1;
  int i = 0;
  for (int c : count) s.count[i++] = c;
  i = 0;
  for (long x : lstride) s.lstride[i++] = x;
  i = 0;
  for (long x : rstride) s.rstride[i++] = x;
  s.nseg = 1;
  for (int l = 1; l <= s.levels; ++l) s.nseg *= static_cast<std::size_t>(s.count[l]);
  return s;
}

// After folding: the levels, counts and strides expected, and nseg their product.
void expect_shape(const StridedShape& s, std::initializer_list<int> count, std::initializer_list<long> lstride,
                  std::initializer_list<long> rstride) {
  EXPECT_EQ(s.levels, static_cast<int>(count.size()) - 1);
  int i = 0;
  std::size_t nseg = 1;
  for (int c : count) {
    EXPECT_EQ(s.count[i], c) << "count[" << i << "]";
    if (i++ > 0) nseg *= static_cast<std::size_t>(c);
  }
  i = 0;
  for (long x : lstride) {
    EXPECT_EQ(s.lstride[i], x) << "lstride[" << i << "]";
    ++i;
  }
  i = 0;
  for (long x : rstride) {
    EXPECT_EQ(s.rstride[i], x) << "rstride[" << i << "]";
    ++i;
  }
  EXPECT_EQ(s.nseg, nseg);
}

}  // namespace

TEST(StridedShapeFold, WholeBlockTileIsOneSegment) {  // a GA tile as wide as its block: 256 rows of 2 KiB
  StridedShape s = shape_of({2048, 256}, {2048}, {2048});
  armcix::fold_contiguous_levels(s);
  expect_shape(s, {2048 * 256}, {}, {});
  EXPECT_EQ(s.total_bytes(), 2048u * 256u);
}

TEST(StridedShapeFold, OnlyWhereBothSidesAreContiguous) {
  StridedShape local_gap = shape_of({64, 8}, {128}, {64});  // the local side has gaps: unchanged
  armcix::fold_contiguous_levels(local_gap);
  expect_shape(local_gap, {64, 8}, {128}, {64});
  StridedShape remote_gap = shape_of({64, 8}, {64}, {72});
  armcix::fold_contiguous_levels(remote_gap);
  expect_shape(remote_gap, {64, 8}, {64}, {72});
}

TEST(StridedShapeFold, LowerLevelsFoldUpperLevelsStay) {
  // 16 B x 4 contiguous (64 B), then 3 blocks 1000 B apart locally and 512 B remotely, then 2 planes.
  StridedShape s = shape_of({16, 4, 3, 2}, {16, 1000, 5000}, {16, 512, 4096});
  armcix::fold_contiguous_levels(s);
  expect_shape(s, {64, 3, 2}, {1000, 5000}, {512, 4096});
  EXPECT_EQ(s.total_bytes(), 64u * 6u);
}

TEST(StridedShapeFold, LevelsOfOneBlockAreDropped) {
  StridedShape s = shape_of({32, 1, 5, 1}, {7, 100, 3}, {9, 200, 3});
  armcix::fold_contiguous_levels(s);
  expect_shape(s, {32, 5}, {100}, {200});
}
