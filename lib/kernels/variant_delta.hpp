// SPDX-License-Identifier: MIT
// A variant's packed SPIR-V (kernels/spirv_pack.hpp) as copies from its kernel's base variant, shared by
// ripple-embed (encodes, at build time) and the library (decodes, when a pipeline is made). A kernel's
// variants are mostly one module: the same code over other types, sizes and switches. So after the base's
// bytes, most of another variant's bytes are runs the base or the variant itself already holds. On ripple's
// 1012 variants this halves the embedded SPIR-V (5.25 to 2.65 MB), where a consumer's binary has no room
// to spare (docs/USING.md).
//
// The form is LZ77 over a buffer that holds the base's bytes, then the variant's bytes as rebuilt so far.
// Tokens, as LEB128 varints except the literals (spirv_pack's VarintReader, bytes four to a word):
//   literal count L, then L bytes as they are; then, unless the data ends there, a copy: its length less
//   kMinCopy, then its distance back from the end of the buffer (1 to the buffer's size; a copy may overlap
//   what it makes).
#pragma once

#include "kernels/spirv_pack.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ripple::kernels::variant_delta {

constexpr uint32_t kMinCopy = 4;

inline uint8_t byteAt(const uint32_t* packed, size_t i) {
    return static_cast<uint8_t>(packed[i / 4] >> (8 * (i % 4)));
}

// `variant`'s bytes as tokens over `base` (greedy, the longest of up to 256 earlier runs of the same first
// four bytes).
inline std::vector<uint8_t> encode(const std::vector<uint8_t>& base, const std::vector<uint8_t>& variant) {
    std::vector<uint8_t> buf(base);
    buf.insert(buf.end(), variant.begin(), variant.end());
    constexpr uint32_t kHashBits = 16, kChain = 256;
    std::vector<int64_t> head(size_t(1) << kHashBits, -1), prev(buf.size(), -1);
    auto hashAt = [&](size_t i) {
        const uint32_t v = buf[i] | buf[i + 1] << 8 | buf[i + 2] << 16 | uint32_t(buf[i + 3]) << 24;
        return (v * 2654435761u) >> (32 - kHashBits);
    };
    auto insert = [&](size_t i) {
        if (i + kMinCopy > buf.size()) return;
        const uint32_t h = hashAt(i);
        prev[i] = head[h];
        head[h] = int64_t(i);
    };
    for (size_t i = 0; i < base.size(); ++i) insert(i);
    std::vector<uint8_t> out, literals;
    for (size_t i = base.size(); i < buf.size();) {
        size_t best = 0, distance = 0;
        if (i + kMinCopy <= buf.size()) {
            uint32_t tries = 0;
            for (int64_t c = head[hashAt(i)]; c >= 0 && tries < kChain; c = prev[size_t(c)], ++tries) {
                size_t n = 0;
                while (i + n < buf.size() && buf[size_t(c) + n] == buf[i + n]) ++n;
                if (n > best) best = n, distance = i - size_t(c);
            }
        }
        if (best < kMinCopy) {
            literals.push_back(buf[i]);
            insert(i++);
            continue;
        }
        spirv_pack::putVarint(out, uint32_t(literals.size()));
        out.insert(out.end(), literals.begin(), literals.end());
        literals.clear();
        spirv_pack::putVarint(out, uint32_t(best - kMinCopy));
        spirv_pack::putVarint(out, uint32_t(distance));
        for (size_t end = i + best; i < end; ++i) insert(i);
    }
    spirv_pack::putVarint(out, uint32_t(literals.size()));
    out.insert(out.end(), literals.begin(), literals.end());
    return out;
}

// Rebuilds exactly `expandedBytes` bytes, four to a word in `out`, from `packedBytes` bytes of tokens over
// `baseBytes` bytes of `base`. False (and `out` empty) on malformed data: a bad varint, literals or a copy
// past expandedBytes or past the data, a distance of 0 or before the buffer, or tokens left over.
inline bool decode(const uint32_t* base, uint32_t baseBytes, const uint32_t* packed, uint32_t packedBytes,
                   uint32_t expandedBytes, std::vector<uint32_t>& out) {
    out.assign((size_t(expandedBytes) + 3) / 4, 0u);
    auto at = [&](size_t i) { return i < baseBytes ? byteAt(base, i) : byteAt(out.data(), i - baseBytes); };
    spirv_pack::VarintReader in{packed, packedBytes};
    size_t made = 0; // bytes of `out` rebuilt
    for (uint32_t n;;) {
        if (!in.next(n) || n > expandedBytes - made || n > packedBytes - in.at) return out.clear(), false;
        for (uint32_t k = 0; k < n; ++k, ++made)
            out[made / 4] |= uint32_t(byteAt(packed, in.at++)) << (8 * (made % 4));
        if (in.done()) break;
        uint32_t extra = 0, distance = 0;
        if (!in.next(extra) || !in.next(distance) || distance == 0 || distance > baseBytes + made ||
            made + kMinCopy > expandedBytes || extra > expandedBytes - made - kMinCopy)
            return out.clear(), false;
        for (size_t from = baseBytes + made - distance, end = made + extra + kMinCopy; made < end; ++made)
            out[made / 4] |= uint32_t(at(from++)) << (8 * (made % 4));
    }
    if (made != expandedBytes) return out.clear(), false;
    return true;
}

} // namespace ripple::kernels::variant_delta
