// SPDX-License-Identifier: MIT
// SHA-256 (FIPS 180-4), for the kernel cache's keys (kernel_cache.hpp). Debian 12 packages no hashing library
// that ripple's build already depends on, and a cache key must not collide by accident.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ripple_embed {

class Sha256 {
  public:
    Sha256();
    void add(const void* data, size_t size);
    void add(const std::string& text) { add(text.data(), text.size()); }
    /// Adds the text's length first, so that ("ab", "c") and ("a", "bc") differ.
    void field(const std::string& text);
    /// The digest in lowercase hex; the object is spent afterwards.
    std::string hex();

  private:
    void block(const uint8_t* p);
    uint32_t h_[8];
    uint8_t buffer_[64];
    size_t buffered_ = 0;
    uint64_t total_ = 0;
};

} // namespace ripple_embed
