// The transfer interface the API layer calls: contiguous, strided and I/O-vector put/get/accumulate and Rmw.
// Every function is a dispatch: it validates its arguments (naming `call` in errors), resolves the remote side
// (resolve_target, completion/ordering.h), decides its locality once and the path or engine, and calls the
// node-local backend (transfer/node_local.h) or the MPI backend (transfer/mpi_backend.h) with that target
// and that choice.
#pragma once

#include <armci.h>

#include "acc/acc_types.h"
#include "completion/path_tuning.h"
#include "completion/pending.h"  // XferOp

namespace armcix {

struct Request;  // non-blocking request (nb/request.h); nullptr = blocking operation

void put(const char* call, const void* src, void* dst, int bytes, int proc, Request* req);
void get(const char* call, const void* src, void* dst, int bytes, int proc, Request* req);
void acc(const char* call, int datatype, const void* scale, const void* src, void* dst, int bytes, int proc,
         Request* req);
// MPI elements of type t per accumulate piece for a run of `bytes`: the whole run within a node or up to
// kContigAuto.acc_piece_bytes (completion/path_tuning.h: MPICH over TCP slows down above it), otherwise equal
// pieces of at most that in whole ARMCI elements (complex: two MPI ones).
inline int acc_piece_mpi_elems(const AccType& t, int bytes, bool other_node) {
  constexpr int kPiece = kContigAuto.acc_piece_bytes;
  const int elems = bytes / t.elem_bytes;
  const int pieces = other_node && bytes > kPiece ? (bytes + kPiece - 1) / kPiece : 1;
  return (elems + pieces - 1) / pieces * t.mpi_per_elem;
}
// Calls issue(at, len) for each accumulate piece of a run of `bytes`: `at` its byte offset into the run, `len`
// its length in MPI elements of t.
template <typename Issue>
void for_each_acc_piece(const AccType& t, int bytes, bool other_node, Issue&& issue) {
  const int n = bytes / t.elem_bytes * t.mpi_per_elem;
  const int piece = acc_piece_mpi_elems(t, bytes, other_node);
  const int mpi_elem_bytes = t.elem_bytes / t.mpi_per_elem;
  for (int first = 0; first < n; first += piece)
    issue(static_cast<MPI_Aint>(first) * mpi_elem_bytes, n - first < piece ? n - first : piece);
}
// The flag half of ARMCI_Put_flag / ARMCI_PutS_flag: stores `value` at `flag` on proc once everything
// issued to proc before is remotely complete, so that a reader who sees the flag sees the data.
void put_flag(const char* call, int* flag, int value, int proc);

// Validates a remote operand that a call writes after its main transfer (the flag of ARMCI_Put_flag and
// ARMCI_PutS_flag): rank, NULL, and that [addr, addr + bytes) lies in ARMCI_Malloc memory on `proc`, so
// that a bad flag fails before any byte of the data moves.
void check_remote(const char* call, const char* arg, const void* addr, int bytes, int proc);

// ARMCI_Rmw: fetch-and-add or swap (ARMCI_FETCH_AND_ADD[_LONG], ARMCI_SWAP[_LONG]) at prem on proc.
int rmw(const char* call, int op, void* ploc, void* prem, int value, int proc);

// Strided: count[0] bytes per contiguous run, count[1..levels] repeat counts, strides in bytes.
struct AccArgs {
  int datatype;
  const void* scale;
};
void strided(const char* call, XferOp op, const AccArgs* acc, const void* src, const int* src_stride, void* dst,
             const int* dst_stride, const int* count, int levels, int proc, Request* req);
void iov(const char* call, XferOp op, const AccArgs* acc, const armci_giov_t* desc, int len, int proc, Request* req);

// Copies a strided local region into a contiguous buffer (to_buffer: armci_write_strided) or back out of
// it (armci_read_strided).
void local_strided_copy(const char* call, void* ptr, int levels, const int* stride, const int* count, char* buf,
                        bool to_buffer);

}  // namespace armcix
