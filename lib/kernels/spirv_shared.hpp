// SPDX-License-Identifier: MIT
// Bytes of workgroup (shared) memory a SPIR-V module declares: the sizes of its Workgroup-storage variables,
// each type at its natural alignment, for given specialization constants. Used by ripple-embed for the
// registry's reflection and by Device::compile for users' kernels, so that a variant over a device's
// maxComputeSharedMemorySize is never chosen. Header-only: ripple-embed builds without libripple.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>

namespace ripple::kernels {

// A specialization constant's value, by its SpecId, as a pipeline would set it.
struct SpecValue {
    uint32_t specId;
    uint32_t value;
};

// OpSpecConstantOp's 32-bit unsigned arithmetic on a and b; UINT64_MAX for another opcode, a division by
// zero or a result outside 32 bits.
inline uint64_t specOp(uint32_t opcode, uint64_t a, uint64_t b) {
    uint64_t v = UINT64_MAX;
    if (opcode == 128) v = a + b;            // OpIAdd
    if (opcode == 130 && a >= b) v = a - b;  // OpISub
    if (opcode == 132) v = a * b;            // OpIMul
    if (opcode == 134 && b) v = a / b;       // OpUDiv
    if (opcode == 137 && b) v = a % b;       // OpUMod
    if (opcode == 194 && b < 32) v = a >> b; // OpShiftRightLogical
    if (opcode == 196 && b < 32) v = a << b; // OpShiftLeftLogical
    if (opcode == 197) v = a | b;            // OpBitwiseOr
    if (opcode == 199) v = a & b;            // OpBitwiseAnd
    return v <= 0xFFFFFFFFu ? v : UINT64_MAX;
}

// 0 for a module without workgroup variables; UINT32_MAX for one this scan cannot size (malformed, or a
// type it does not know), which no device's limit admits. Array lengths may be specialization constants
// (OpSpecConstant, and OpSpecConstantComposite/OpSpecConstantOp of them: composite extracts and 32-bit
// unsigned arithmetic, as glslang makes of `shared uint s[gl_WorkGroupSize.x * 2u]`): at the values in
// `spec` by SpecId, else the module's defaults. An operation whose result leaves 32 bits, or divides by
// zero, leaves its array unsized.
inline uint32_t workgroupBytes(const uint32_t* words, size_t count, const SpecValue* spec = nullptr,
                               size_t specCount = 0) {
    struct Type {
        uint64_t size = 0, align = 1;
    };
    std::unordered_map<uint32_t, Type> types;
    std::unordered_map<uint32_t, uint64_t> constants; // OpConstant and specialization values (low word)
    std::unordered_map<uint32_t, uint32_t> pointee;   // Workgroup pointer type -> pointee type
    std::unordered_map<uint32_t, uint32_t> specIds;   // result id -> its SpecId decoration
    struct Composite { // an OpSpecConstantComposite of at most 4 constituents (vectors)
        uint32_t count = 0, ids[4] = {};
    };
    std::unordered_map<uint32_t, Composite> composites;
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
        case 71: // OpDecorate %target SpecId n
            if (n >= 4 && w[2] == 1) specIds[w[1]] = w[3];
            break;
        case 48: // OpSpecConstantTrue
        case 49: // OpSpecConstantFalse
        case 50: // OpSpecConstant
            if (n >= 3) {
                uint64_t v = op == 50 ? (n >= 4 ? w[3] : 0) : (op == 48 ? 1 : 0);
                auto id = specIds.find(w[2]);
                for (size_t k = 0; id != specIds.end() && k < specCount; ++k)
                    if (spec[k].specId == id->second) v = op == 50 ? spec[k].value : (spec[k].value != 0);
                if (op != 50 || n >= 4) constants[w[2]] = v;
            }
            break;
        case 51: // OpSpecConstantComposite
            if (n >= 3 && n - 3 <= 4) {
                Composite& c = composites[w[2]];
                c.count = n - 3;
                for (uint32_t k = 3; k < n; ++k) c.ids[k - 3] = w[k];
            }
            break;
        case 52: { // OpSpecConstantOp %type %result opcode operands...
            if (n < 5) break;
            const uint32_t result = w[2], code = w[3];
            if (code == 81) { // OpCompositeExtract %composite index
                auto c = composites.find(w[4]);
                if (n == 6 && c != composites.end() && w[5] < c->second.count &&
                    constants.count(c->second.ids[w[5]]))
                    constants[result] = constants[c->second.ids[w[5]]];
                break;
            }
            if (n != 6 || !constants.count(w[4]) || !constants.count(w[5])) break;
            const uint64_t a = constants[w[4]] & 0xFFFFFFFFu, b = constants[w[5]] & 0xFFFFFFFFu;
            const uint64_t v = specOp(code, a, b);
            if (v <= 0xFFFFFFFFu) constants[result] = v;
            break;
        }
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
