// SPDX-License-Identifier: MIT
// The embedded SPIR-V's encoding, shared by ripple-embed (packs, at build time) and the library (unpacks,
// when a pipeline is made): each 32-bit word as a LEB128 varint (7 bits a byte, low bits first, the high
// bit set on every byte but a word's last), the bytes stored four to a 32-bit word, first byte in the low
// bits. SPIR-V is mostly small ids and opcodes, so most words take 1-3 bytes.
#pragma once

#include <cstdint>
#include <vector>

namespace ripple::kernels::spirv_pack {

inline std::vector<uint8_t> encode(const std::vector<uint32_t>& words) {
    std::vector<uint8_t> bytes;
    for (uint32_t w : words) {
        while (w >= 0x80) {
            bytes.push_back(static_cast<uint8_t>((w & 0x7F) | 0x80));
            w >>= 7;
        }
        bytes.push_back(static_cast<uint8_t>(w));
    }
    return bytes;
}

// Decodes `byteCount` bytes held four to a word in `packed` into exactly `wordCount` words. False on
// malformed data: a varint longer than 5 bytes or over 32 bits, bytes left over, or too few words.
inline bool decode(const uint32_t* packed, uint32_t byteCount, uint32_t wordCount,
                   std::vector<uint32_t>& out) {
    out.clear();
    // Each word takes a byte at least: a hostile wordCount reserves no more than the bytes allow.
    out.reserve(wordCount < byteCount ? wordCount : byteCount);
    uint32_t value = 0, shift = 0;
    for (uint32_t i = 0; i < byteCount; ++i) {
        const uint32_t byte = (packed[i / 4] >> (8 * (i % 4))) & 0xFF;
        if (shift == 28 && (byte & 0xF0) != 0) return out.clear(), false; // over 32 bits
        value |= (byte & 0x7F) << shift;
        if (byte & 0x80) {
            shift += 7;
            continue;
        }
        if (out.size() == wordCount) return out.clear(), false;
        out.push_back(value);
        value = 0;
        shift = 0;
    }
    if (shift != 0 || out.size() != wordCount) return out.clear(), false;
    return true;
}

} // namespace ripple::kernels::spirv_pack
