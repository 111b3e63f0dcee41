// SPDX-License-Identifier: MIT
// The embedded modules' encoding, shared by ripple-embed (packs, at build time) and the library (unpacks,
// when a pipeline is made). Both forms are LEB128 varints (7 bits a byte, low bits first, the high bit set
// on every byte but a value's last), the bytes stored four to a 32-bit word, first byte in the low bits.
//   - encode/decode (DXBC): each 32-bit word as one varint.
//   - encodeSpirv/decodeSpirv (SPIR-V): the 5-word header as is, but for the magic number, which becomes
//     kSpirvTag, so that data packed the old way is refused rather than misread. Then per instruction:
//     its opcode and word count as one value, opcode * 16 + count (a count of 15 or more is written as 15,
//     then the count), and each operand as the zigzag of its difference from the same operand of the last
//     instruction with that opcode (0 where there is none). SPIR-V's ids grow by small steps and its
//     instructions repeat with small changes, so most operands take one byte. On ripple's 760 variants,
//     11.6 MB of SPIR-V packs into 4.1 MB this way, 5.6 MB as one varint a word (docs/USING.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ripple::kernels::spirv_pack {

constexpr uint32_t kSpirvMagic = 0x07230203u;
// The first value of a packed SPIR-V module, in place of SPIR-V's magic number.
constexpr uint32_t kSpirvTag = 0x52504B32u; // "RPK2"

inline void putVarint(std::vector<uint8_t>& bytes, uint32_t w) {
    while (w >= 0x80) {
        bytes.push_back(static_cast<uint8_t>((w & 0x7F) | 0x80));
        w >>= 7;
    }
    bytes.push_back(static_cast<uint8_t>(w));
}

// Bytes as the embedded tables hold them: four to a 32-bit word, the first in the low bits.
inline std::vector<uint32_t> toWords(const std::vector<uint8_t>& bytes) {
    std::vector<uint32_t> words((bytes.size() + 3) / 4, 0u);
    for (size_t i = 0; i < bytes.size(); ++i) words[i / 4] |= uint32_t(bytes[i]) << (8 * (i % 4));
    return words;
}

inline std::vector<uint8_t> encode(const std::vector<uint32_t>& words) {
    std::vector<uint8_t> bytes;
    for (uint32_t w : words) putVarint(bytes, w);
    return bytes;
}

// Reads varints from `byteCount` bytes held four to a word.
struct VarintReader {
    const uint32_t* packed;
    uint32_t byteCount;
    uint32_t at = 0;
    // False at the end, or on a varint longer than 5 bytes or over 32 bits, or cut short.
    bool next(uint32_t& value) {
        value = 0;
        for (uint32_t shift = 0; at < byteCount; shift += 7) {
            const uint32_t byte = (packed[at / 4] >> (8 * (at % 4))) & 0xFF;
            ++at;
            if (shift == 28 && (byte & 0xF0) != 0) return false; // over 32 bits
            value |= (byte & 0x7F) << shift;
            if (!(byte & 0x80)) return true;
        }
        return false;
    }
    bool done() const { return at == byteCount; }
};

// Decodes `byteCount` bytes held four to a word in `packed` into exactly `wordCount` words. False on
// malformed data: a varint longer than 5 bytes or over 32 bits, bytes left over, or too few words.
inline bool decode(const uint32_t* packed, uint32_t byteCount, uint32_t wordCount,
                   std::vector<uint32_t>& out) {
    out.clear();
    // Each word takes a byte at least: a hostile wordCount reserves no more than the bytes allow.
    out.reserve(wordCount < byteCount ? wordCount : byteCount);
    VarintReader in{packed, byteCount};
    for (uint32_t w; out.size() < wordCount && in.next(w);) out.push_back(w);
    if (out.size() != wordCount || !in.done()) return out.clear(), false;
    return true;
}

inline uint32_t zigzag(uint32_t difference) { // the difference read as a signed 32-bit value
    return (difference << 1) ^ (0u - (difference >> 31));
}
inline uint32_t unzigzag(uint32_t z) {
    return (z >> 1) ^ (0u - (z & 1));
}

// False (and `bytes` empty) where `words` is not a SPIR-V module whose instructions tile it exactly: the
// encoding needs each instruction's word count.
inline bool encodeSpirv(const std::vector<uint32_t>& words, std::vector<uint8_t>& bytes) {
    bytes.clear();
    if (words.size() < 5 || words[0] != kSpirvMagic) return false;
    putVarint(bytes, kSpirvTag);
    for (size_t i = 1; i < 5; ++i) putVarint(bytes, words[i]);
    std::unordered_map<uint32_t, size_t> last; // opcode -> the index of its last instruction
    for (size_t i = 5; i < words.size();) {
        const uint32_t count = words[i] >> 16, opcode = words[i] & 0xFFFF;
        if (count == 0 || count > words.size() - i) return bytes.clear(), false;
        putVarint(bytes, opcode * 16 + (count < 15 ? count : 15));
        if (count >= 15) putVarint(bytes, count);
        auto seen = last.find(opcode);
        const size_t prev = seen == last.end() ? 0 : seen->second;
        const uint32_t prevCount = seen == last.end() ? 0 : words[prev] >> 16;
        for (uint32_t j = 1; j < count; ++j)
            putVarint(bytes, zigzag(words[i + j] - (j < prevCount ? words[prev + j] : 0u)));
        last[opcode] = i;
        i += count;
    }
    return true;
}

// Decodes encodeSpirv's bytes into exactly `wordCount` words. False (and `out` empty) on malformed data:
// a bad varint, no tag, an instruction of no words or past wordCount, bytes left over or too few words.
inline bool decodeSpirv(const uint32_t* packed, uint32_t byteCount, uint32_t wordCount,
                        std::vector<uint32_t>& out) {
    out.clear();
    out.reserve(wordCount < byteCount ? wordCount : byteCount); // a word takes a byte at least
    VarintReader in{packed, byteCount};
    uint32_t v = 0;
    if (wordCount < 5 || !in.next(v) || v != kSpirvTag) return false;
    out.push_back(kSpirvMagic);
    while (out.size() < 5 && in.next(v)) out.push_back(v);
    std::unordered_map<uint32_t, size_t> last;
    while (out.size() < wordCount && in.next(v)) {
        const uint32_t opcode = v >> 4;
        uint32_t count = v & 15;
        if (count == 15 && !in.next(count)) break;
        if (opcode > 0xFFFF || count == 0 || count > 0xFFFF || count > wordCount - out.size()) break;
        const size_t i = out.size();
        out.push_back(count << 16 | opcode);
        auto seen = last.find(opcode);
        const size_t prev = seen == last.end() ? 0 : seen->second;
        const uint32_t prevCount = seen == last.end() ? 0 : out[prev] >> 16;
        for (uint32_t j = 1; j < count; ++j) {
            if (!in.next(v)) return out.clear(), false;
            out.push_back((j < prevCount ? out[prev + j] : 0u) + unzigzag(v));
        }
        last[opcode] = i;
    }
    if (out.size() != wordCount || !in.done()) return out.clear(), false;
    return true;
}

} // namespace ripple::kernels::spirv_pack
