// SPDX-License-Identifier: MIT
// Bytes of workgroup (shared) memory a SPIR-V module declares: the sizes of its Workgroup-storage variables,
// each type at its natural alignment. Used by ripple-embed for the registry's reflection and by
// Device::compile for users' kernels, so that a variant over a device's maxComputeSharedMemorySize is never
// chosen. Header-only: ripple-embed builds without libripple.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>

namespace ripple::kernels {

// 0 for a module without workgroup variables; UINT32_MAX for one this scan cannot size (malformed, or a
// type it does not know), which no device's limit admits.
inline uint32_t workgroupBytes(const uint32_t* words, size_t count) {
    struct Type {
        uint64_t size = 0, align = 1;
    };
    std::unordered_map<uint32_t, Type> types;
    std::unordered_map<uint32_t, uint64_t> constants; // OpConstant values (low word)
    std::unordered_map<uint32_t, uint32_t> pointee;   // Workgroup pointer type -> pointee type
    uint64_t total = 0;
    bool unknown = false;
    // Every size and alignment saturates at 2^40 bytes, over every device's limit, so no chain of hostile
    // types (vectors of vectors, structs of huge arrays) can wrap around to a small size.
    constexpr uint64_t huge = 1ull << 40;
    auto cap = [](uint64_t v) { return v > huge ? huge : v; };
    auto alignUp = [&](uint64_t v, uint64_t a) { return cap(a ? (v + a - 1) / a * a : v); };
    auto put = [&](uint32_t id, uint64_t size, uint64_t align) { types[id] = {cap(size), cap(align)}; };
    for (size_t i = 5; i < count;) {
        const uint32_t n = words[i] >> 16, op = words[i] & 0xFFFFu;
        if (n == 0 || n > count - i) return UINT32_MAX;
        const uint32_t* w = words + i;
        // Every case below reads only w[1..n-1]: a 1-word OpTypeBool at the end must not read past the words.
        switch (n < 2 ? 0u : op) {
        case 20: // OpTypeBool
            put(w[1], 4, 4);
            break;
        case 21: // OpTypeInt
        case 22: // OpTypeFloat
            // Widths of 8-64 bits only: a hostile module's width 0 would make an alignment of 0.
            if (n >= 3 && (w[2] == 8 || w[2] == 16 || w[2] == 32 || w[2] == 64))
                put(w[1], w[2] / 8u, w[2] / 8u);
            break;
        case 23: // OpTypeVector
        case 24: // OpTypeMatrix
            if (n >= 4 && types.count(w[2]) && w[3] >= 1 && w[3] <= 4) {
                const Type e = types[w[2]];
                const uint64_t c = w[3];
                put(w[1], e.size * c, e.align * (c == 3 ? 4 : c));
            }
            break;
        case 28: // OpTypeArray
            if (n >= 4 && types.count(w[2]) && constants.count(w[3])) {
                const Type e = types[w[2]];
                const uint64_t element = alignUp(e.size, e.align);
                const uint64_t length = constants[w[3]];
                put(w[1], element && length > huge / element ? huge : element * length, e.align);
            }
            break;
        case 30: { // OpTypeStruct
            Type s;
            bool known = true;
            for (uint32_t m = 2; m < n; ++m) {
                if (!types.count(w[m])) known = false;
                if (!known) break;
                const Type e = types[w[m]];
                s.size = cap(alignUp(s.size, e.align) + e.size);
                if (e.align > s.align) s.align = e.align;
            }
            if (known) put(w[1], alignUp(s.size, s.align), s.align);
            break;
        }
        case 32:                                           // OpTypePointer
            if (n >= 4 && w[2] == 4) pointee[w[1]] = w[3]; // StorageClass Workgroup
            break;
        case 43: // OpConstant
            if (n >= 4) constants[w[2]] = w[3];
            break;
        case 59: // OpVariable
            if (n >= 4 && w[3] == 4) {
                auto p = pointee.find(w[1]);
                if (p == pointee.end() || !types.count(p->second)) {
                    unknown = true;
                } else {
                    const Type t = types[p->second];
                    total = cap(alignUp(total, t.align) + t.size);
                }
            }
            break;
        default:
            break;
        }
        i += n;
    }
    if (unknown || total > UINT32_MAX) return UINT32_MAX;
    return static_cast<uint32_t>(total);
}

} // namespace ripple::kernels
