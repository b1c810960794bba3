// What the MPI backend's operations share (transfer/mpi_backend.h): the local completion every one ends with,
// and whether an accumulate goes from a held copy.
#include "transfer/mpi_backend.h"

#include "topo/nodes.h"
#include "transfer/paths.h"
#include "transfer/rma.h"

namespace armcix {

namespace {

// The path a blocking contiguous `op` of `bytes` to r's slice would take, overlapping nothing pending: what the
// strided engines ask before they pack into a held copy.
ContigPath blocking_contig_path(XferOp op, const GmrRef& r, std::size_t bytes, int proc) {
  ContigFacts f;
  f.op = op;
  f.bytes = bytes;
  f.path = on_my_node(proc) ? TargetPath::SameNode : TargetPath::OtherNode;
  f.puts_by_accumulate = op == XferOp::Put && rma_by_accumulate(proc);
  f.served_by_progress_rank = server_of(r.gmr, r.win_rank) >= 0;
  return choose_contig(f, contig_mpi());
}

}  // namespace

bool acc_from_held_copy(const GmrRef& r, std::size_t bytes, int proc) {
  return blocking_contig_path(XferOp::Acc, r, bytes, proc) == ContigPath::HeldCopy;
}

bool put_from_held_copy(const GmrRef& r, std::size_t bytes, int proc) {
  return blocking_contig_path(XferOp::Put, r, bytes, proc) == ContigPath::OrderedPut;
}

void complete_local(Gmr* g, int wr, Request* req) {
  if (req)
    request_track(req, g, wr);
  else
    flush_local_pair(g, wr);
}

}  // namespace armcix
