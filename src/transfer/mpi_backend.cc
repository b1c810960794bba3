// What the MPI backend's operations share (transfer/mpi_backend.h): the local completion every one ends with,
// and whether an accumulate goes from a held copy.
#include "transfer/mpi_backend.h"

#include "topo/nodes.h"
#include "transfer/paths.h"
#include "transfer/rma.h"

namespace armcix {

bool acc_from_held_copy(const GmrRef& r, std::size_t bytes, int proc) {
  ContigFacts f;
  f.op = XferOp::Acc;
  f.bytes = bytes;
  f.path = on_my_node(proc) ? TargetPath::SameNode : TargetPath::OtherNode;
  f.served_by_progress_rank = server_of(r.gmr, r.win_rank) >= 0;
  return choose_contig(f, contig_mpi()) == ContigPath::HeldCopy;
}

bool put_from_held_copy(const GmrRef& r, std::size_t bytes, int proc) {
  ContigFacts f;
  f.op = XferOp::Put;
  f.bytes = bytes;
  f.path = on_my_node(proc) ? TargetPath::SameNode : TargetPath::OtherNode;
  f.puts_by_accumulate = rma_by_accumulate(proc);
  f.served_by_progress_rank = server_of(r.gmr, r.win_rank) >= 0;
  return choose_contig(f, contig_mpi()) == ContigPath::OrderedPut;
}

void complete_local(Gmr* g, int wr, Request* req) {
  if (req)
    request_track(req, g, wr);
  else
    flush_local_pair(g, wr);
}

}  // namespace armcix
