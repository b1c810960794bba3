// FNV-1a, the 64-bit hash the start-up records and the collective checks compare between processes (machine
// keys, affinity masks, the settings' fingerprint, group member lists).  Only equality across the processes
// of one job matters: every process hashes with this same code.
#pragma once

#include <cstddef>
#include <cstdint>

namespace armcix {

class Fnv1a {
 public:
  Fnv1a& add(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) h_ = (h_ ^ p[i]) * 1099511628211ULL;
    return *this;
  }
  Fnv1a& add_byte(unsigned char c) { return add(&c, 1); }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 14695981039346656037ULL;
};

}  // namespace armcix
