#include "runtime/window.h"

#include <cstring>

#include "runtime/error.h"

namespace armcix {

RmaWindow create_rma_window(MPI_Aint bytes, int disp_unit, MPI_Info info, MPI_Comm comm, unsigned char fill) {
  RmaWindow w;
  int size = 0;
  ARMCIX_MPI(MPI_Comm_size(comm, &size));
  if (size == 1) {
    // Nobody else can reach the memory, so it may be filled after the window is made.
    ARMCIX_MPI(MPI_Win_allocate(bytes, disp_unit, info, comm, &w.base, &w.win));
    if (bytes > 0) std::memset(w.base, fill, static_cast<std::size_t>(bytes));
  } else {
    if (bytes > 0) {
      w.base = alloc_mem_or_fail("MPI_Alloc_mem (RMA window)", bytes);
      std::memset(w.base, fill, static_cast<std::size_t>(bytes));
    }
    w.alloc_mem = w.base;
    ARMCIX_MPI(MPI_Win_create(w.base, bytes, disp_unit, info, comm, &w.win));
  }
  if (bytes == 0) w.base = nullptr;
  return w;
}

void* alloc_mem_or_fail(const char* call, MPI_Aint bytes) {
  // Failure goes to MPI_COMM_WORLD's handler: make it return to us for the time of the call.
  MPI_Errhandler app_handler;
  ARMCIX_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &app_handler));
  ARMCIX_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  void* p = nullptr;
  int rc = MPI_Alloc_mem(bytes, MPI_INFO_NULL, &p);
  ARMCIX_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, app_handler));
  ARMCIX_MPI(MPI_Errhandler_free(&app_handler));
  if (rc != MPI_SUCCESS || p == nullptr)
    fail(call, "argument 'bytes' = %ld: MPI_Alloc_mem could not allocate that much on this process",
         static_cast<long>(bytes));
  return p;
}

void free_rma_window(RmaWindow& w) {
  if (w.win != MPI_WIN_NULL) ARMCIX_MPI(MPI_Win_free(&w.win));
  if (w.alloc_mem) ARMCIX_MPI(MPI_Free_mem(w.alloc_mem));
  w = RmaWindow{};
}

}  // namespace armcix
