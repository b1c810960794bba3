// Origin-side buffers of one operation: the user's buffer, or a private copy when the data must be
// scaled (accumulate) or when the buffer lies in global memory and ARMCI_SHR_BUF_METHOD=COPY.  A staged
// buffer lives until the operation completes locally: freed on return for blocking operations, handed to
// the request for non-blocking ones.
#pragma once

#include <cstddef>
#include <memory>

#include "acc/acc_types.h"
#include "gmr/gmr.h"

namespace armcix {

struct Request;

struct Staged {
  void* ptr = nullptr;            // what to give MPI
  std::unique_ptr<char[]> owned;  // set if ptr is a private copy

  // Passes ownership of a private copy to `req` (non-blocking), or frees it now (blocking).
  void hand_to(Request* req);
  // For results (get): after local completion, copies the private buffer to `dst` (now, or when `req`
  // completes) and releases it.
  void copy_out_to(void* dst, std::size_t bytes, Request* req);
};

// True if `p` lies in global memory of this process and the configuration asks to stage such buffers.
bool must_stage(const void* p);

Staged stage_origin(const void* src, std::size_t bytes);
Staged stage_result(void* dst, std::size_t bytes);
Staged stage_scaled(const AccType& t, const void* scale, const void* src, std::size_t bytes);
std::unique_ptr<char[]> new_buffer(std::size_t bytes);

}  // namespace armcix
