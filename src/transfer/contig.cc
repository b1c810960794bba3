// Contiguous put / get / accumulate, the dispatch: validate the arguments, resolve the target, decide its
// locality once (target_path), then the path and the backend (contig_put / contig_get / contig_acc,
// transfer/paths.h: transfer/node_local.h or transfer/mpi_backend.h).
#include "acc/acc_types.h"
#include "base/error.h"
#include "base/state.h"
#include "completion/ordering.h"
#include "transfer/paths.h"
#include "transfer/rma.h"

namespace armcix {

namespace {

void check_args(const char* call, const void* src, const void* dst, int bytes, int proc) {
  require_initialized(call);
  check_rank(call, "proc", proc);
  ARMCIX_REQUIRE(bytes >= 0, call, "argument 'bytes' = %d is negative", bytes);
  if (bytes > 0) {
    ARMCIX_REQUIRE(src != nullptr, call, "argument 'src' is NULL");
    ARMCIX_REQUIRE(dst != nullptr, call, "argument 'dst' is NULL");
  }
}

}  // namespace

void check_remote(const char* call, const char* arg, const void* addr, int bytes, int proc) {
  require_initialized(call);
  check_rank(call, "proc", proc);
  ARMCIX_REQUIRE(addr != nullptr, call, "argument '%s' is NULL", arg);
  resolve_target(call, arg, proc, addr, static_cast<std::size_t>(bytes));
}

void put(const char* call, const void* src, void* dst, int bytes, int proc, Request* req) {
  check_args(call, src, dst, bytes, proc);
  if (bytes == 0) return;
  const GmrRef r = resolve_target(call, "dst", proc, dst, bytes);
  contig_put(r, target_path(r, XferOp::Put, proc), src, bytes, proc, req);
}

void get(const char* call, const void* src, void* dst, int bytes, int proc, Request* req) {
  check_args(call, src, dst, bytes, proc);
  if (bytes == 0) return;
  const GmrRef r = resolve_target(call, "src", proc, src, bytes);
  contig_get(call, r, target_path(r, XferOp::Get, proc), dst, bytes, proc, req);
}

void put_flag(const char* call, int* flag, int value, int proc) {
  fence_proc(proc);  // the data is remotely complete before the flag can be seen
  put(call, &value, flag, sizeof(int), proc, nullptr);
}

void acc(const char* call, int datatype, const void* scale, const void* src, void* dst, int bytes, int proc,
         Request* req) {
  check_args(call, src, dst, bytes, proc);
  const AccType& t = acc_type(call, datatype);
  ARMCIX_REQUIRE(scale != nullptr, call, "argument 'scale' is NULL");
  ARMCIX_REQUIRE(bytes % t.elem_bytes == 0, call,
                 "argument 'bytes' = %d is not a multiple of the %s element "
                 "size (%d)",
                 bytes, t.name, t.elem_bytes);
  if (bytes == 0) return;
  const GmrRef r = resolve_target(call, "dst", proc, dst, bytes);
  contig_acc(call, r, target_path(r, XferOp::Acc, proc), t, scale, src, bytes, proc, req);
}

}  // namespace armcix
