#include "transfer/node_local.h"

namespace armcix {

namespace {

// One segment's dst[i] += scale * src[i] under the target slice's lock, between the caller's fences.
void scale_add_locked(const GmrRef& r, const AccType& t, const void* scale, const void* src, std::size_t bytes) {
  SliceLock lock(r.gmr->slice_lock(r.win_rank));
  scale_add(t, scale, src, mapped(r), bytes);
}

}  // namespace

void local_acc(const GmrRef& r, const AccType& t, const void* scale, const void* src, std::size_t bytes) {
  prepare_op(r.gmr, r.win_rank, XferOp::Acc, r.disp, r.disp + static_cast<MPI_Aint>(bytes));
  before_local_store();
  scale_add_locked(r, t, scale, src, bytes);
  after_local_store();
}

void local_strided(XferOp op, const AccType* t, const void* scale, const StridedShape& s, char* local,
                   const GmrRef& r) {
  char* remote = mapped(r);
  const std::size_t seg = s.count[0];
  prepare_op(r.gmr, r.win_rank, op, r.disp, r.disp + static_cast<MPI_Aint>(s.rextent));
  switch (op) {
    case XferOp::Put:
      before_local_store();
      for_each_segment(s, [&](long loff, long roff) { std::memcpy(remote + roff, local + loff, seg); });
      after_local_store();
      break;
    case XferOp::Get:
      // A process polling memory it reads with loads must still let MPI serve the RMA aimed at that memory
      // (as local_get and local_iov do): ARMCI_NODE_SIZE=1, 3 ranks on MPICH, the owner polling its own
      // flag with ARMCI_GetS while another rank's ARMCI_Fence waited in MPI_Win_flush for it: hung for good.
      poke_progress(r.gmr);
      before_local_load();
      for_each_segment(s, [&](long loff, long roff) { std::memcpy(local + loff, remote + roff, seg); });
      after_local_load();
      break;
    case XferOp::Acc: {
      before_local_store();
      SliceLock lock(r.gmr->slice_lock(r.win_rank));
      for_each_segment(s, [&](long loff, long roff) { scale_add(*t, scale, local + loff, remote + roff, seg); });
      after_local_store();
      break;
    }
  }
}

void local_iov(XferOp op, const AccType* t, const void* scale, void* const* local, void* const* remote, int n,
               int bytes, const GmrRef& r, MPI_Aint lo, MPI_Aint hi) {
  Gmr* g = r.gmr;
  const int wr = r.win_rank;
  const char* base = g->base(wr);
  char* mapped_base = g->local_ptr(wr);
  prepare_op(g, wr, op, lo, hi);
  const std::size_t len = static_cast<std::size_t>(bytes);
  switch (op) {
    case XferOp::Put:
      before_local_store();
      for (int i = 0; i < n; ++i)
        std::memcpy(mapped_base + (static_cast<const char*>(remote[i]) - base), local[i], len);
      after_local_store();
      break;
    case XferOp::Get:
      poke_progress(g);
      before_local_load();
      for (int i = 0; i < n; ++i)
        std::memcpy(local[i], mapped_base + (static_cast<const char*>(remote[i]) - base), len);
      after_local_load();
      break;
    case XferOp::Acc:
      before_local_store();
      for (int i = 0; i < n; ++i)
        scale_add_locked(GmrRef{g, wr, static_cast<const char*>(remote[i]) - base}, *t, scale, local[i], len);
      after_local_store();
      break;
  }
}

}  // namespace armcix
