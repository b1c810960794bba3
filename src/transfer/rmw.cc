// ARMCI_Rmw, the dispatch: fetch-and-add and swap (int and long).  Validate the arguments, resolve the
// target, decide its locality once, then the node-local backend (local_rmw, transfer/node_local.h: hardware
// atomics under the slice lock) or the MPI backend (mpi_rmw, transfer/mpi_rmw.cc: MPI's atomics).  Either
// is atomic with the accumulates of its own path, and reached_by_load_store sends an accumulate and an Rmw
// on the same word the same way.
#include <armci.h>

#include <cstdint>

#include "acc/acc_types.h"
#include "base/error.h"
#include "base/state.h"
#include "completion/ordering.h"
#include "transfer/mpi_backend.h"
#include "transfer/node_local.h"
#include "transfer/rma.h"

namespace armcix {

namespace {

// The four operations: X(ENUM, element type as its accumulate type, swap?).  The operand types int and long
// are ARMCI_ACC_INT and ARMCI_ACC_LNG exactly -- the same C type and MPI datatype an accumulate of that type
// uses, which is what makes an Rmw atomic with MPI accumulates on the same word (transfer/mpi_rmw.cc) -- so they come
// from acc/acc_types.h's list rather than from a list of their own.
#define ARMCIX_RMW_OPS(X)                           \
  X(ARMCI_FETCH_AND_ADD, ARMCI_ACC_INT, false)      \
  X(ARMCI_FETCH_AND_ADD_LONG, ARMCI_ACC_LNG, false) \
  X(ARMCI_SWAP, ARMCI_ACC_INT, true)                \
  X(ARMCI_SWAP_LONG, ARMCI_ACC_LNG, true)
static_assert(ARMCI_FETCH_AND_ADD == 0 && ARMCI_FETCH_AND_ADD_LONG == 1 && ARMCI_SWAP == 2 && ARMCI_SWAP_LONG == 3,
              "ARMCI_Rmw operations differ from ARMCI-MPI's ABI (include/armci.h)");

// One Rmw on an operand of accumulate type AccT; `op` already validated.
template <int AccT>
int rmw_typed(const char* call, bool is_swap, void* ploc, void* prem, int value, int proc) {
  using T = typename AccTraits<AccT>::type;
  static_assert(AccTraits<AccT>::mpi_per_elem == 1, "MPI atomics act on one MPI element");
  ARMCIX_REQUIRE(ploc != nullptr, call, "argument 'ploc' is NULL");
  ARMCIX_REQUIRE(prem != nullptr, call, "argument 'prem' is NULL");
  const int size = AccTraits<AccT>::elem_bytes;
  ARMCIX_REQUIRE(reinterpret_cast<uintptr_t>(prem) % size == 0, call,
                 "argument 'prem' = %p is not aligned to the %d-byte operand", prem, size);
  const GmrRef r = resolve_target(call, "prem", proc, prem, size);
  T* const out = static_cast<T*>(ploc);
  // Fetch-and-add adds the int `value` (converted to long for the long operations); swap stores *ploc.
  const T operand = is_swap ? *out : static_cast<T>(value);
  if (reached_by_load_store(r, XferOp::Acc)) {
    *out = local_rmw<T>(r, operand, is_swap);
    return 0;
  }
  *out = mpi_rmw<T>(call, r, AccTraits<AccT>::mpi_elem(), operand, is_swap, proc);
  // The fetched value proves the operation happened at the target: nothing is left pending.
  return 0;
}

}  // namespace

int rmw(const char* call, int op, void* ploc, void* prem, int value, int proc) {
  require_initialized(call);
  check_rank(call, "proc", proc);
  switch (op) {
#define ARMCIX_RMW_CASE(e, acc, swap) \
  case e:                             \
    return rmw_typed<acc>(call, swap, ploc, prem, value, proc);
    ARMCIX_RMW_OPS(ARMCIX_RMW_CASE)
#undef ARMCIX_RMW_CASE
    default:
#define ARMCIX_RMW_NAME(e, acc, swap) " " #e
      fail(call, "argument 'op' = %d is not an ARMCI_Rmw operation (one of" ARMCIX_RMW_OPS(ARMCIX_RMW_NAME) ")", op);
#undef ARMCIX_RMW_NAME
  }
}

}  // namespace armcix
