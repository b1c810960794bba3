#include "transfer/staging.h"

#include <cstring>

#include "base/error.h"
#include "base/state.h"
#include "nb/request.h"

namespace armcix {

std::unique_ptr<char[]> new_buffer(std::size_t bytes) {
  return std::unique_ptr<char[]>(new char[bytes ? bytes : 1]);
}

bool must_stage(const void* p) {
  return rt().config.shr_buf_method == ShrBufMethod::Copy && gmr_find(rt().me, p).gmr != nullptr;
}

void Staged::hand_to(Request* req) {
  if (req && owned) request_keep(req, std::move(owned));
  owned.reset();
}

void Staged::copy_out_to(void* dst, std::size_t bytes, Request* req) {
  if (!owned) return;
  if (!req) {
    std::memcpy(dst, owned.get(), bytes);
    owned.reset();
    return;
  }
  const char* from = owned.get();
  request_on_complete(req, [dst, from, bytes] { std::memcpy(dst, from, bytes); });
  request_keep(req, std::move(owned));
}

Staged stage_origin(const void* src, std::size_t bytes) {
  Staged s;
  s.ptr = const_cast<void*>(src);
  if (must_stage(src)) {
    s.owned = new_buffer(bytes);
    std::memcpy(s.owned.get(), src, bytes);
    s.ptr = s.owned.get();
  }
  return s;
}

Staged stage_result(void* dst, std::size_t bytes) {
  Staged s;
  s.ptr = dst;
  if (must_stage(dst)) {
    s.owned = new_buffer(bytes);
    s.ptr = s.owned.get();
  }
  return s;
}

Staged stage_scaled(const AccType& t, const void* scale, const void* src, std::size_t bytes) {
  if (scale_is_one(t, scale)) return stage_origin(src, bytes);
  Staged s;
  s.owned = new_buffer(bytes);
  scale_copy(t, scale, src, s.owned.get(), bytes);
  s.ptr = s.owned.get();
  return s;
}

}  // namespace armcix
