// SPDX-License-Identifier: MIT
// A SPIR-V compute module's interface as the module itself declares it: workgroup size, push-constant block
// size, descriptor bindings with their access, and the device features its capabilities need. Device::compile
// cross-checks a user's KernelSource against it, so a struct that disagrees with its SPIR-V (a push-constant
// block it omits, a binding it does not bind) is refused instead of reaching the driver. Header-only, like
// spirv_shared.hpp.
#pragma once

#include "kernels/kernel_info.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ripple::kernels {

struct SpirvBinding {
    uint32_t set = 0, binding = 0;
    bool readOnly = false, writeOnly = false; // NonWritable / NonReadable on the variable or every member
    bool uniform = false;                     // a uniform buffer (Block in Uniform storage)
    bool other = false;                       // not a buffer: an image, sampler or descriptor array
};

struct SpirvInterface {
    std::string error; // empty when the module could be read
    uint32_t localSize[3] = {0, 0, 0};
    bool localSizeFromConstants = false; // LocalSizeId or a specialization-constant WorkgroupSize
    uint32_t pushConstantBytes = 0;      // the block's size: its last member's offset plus size
    uint32_t pushConstantBlocks = 0;
    std::vector<SpirvBinding> bindings; // in declaration order
    uint32_t features = 0;              // Feature bits its capabilities need (kernel_info.hpp)
    uint32_t entryPoints = 0;           // GLCompute entry points
};

// The Feature bit a capability needs (0: none of ripple's).
inline uint32_t capabilityFeature(uint32_t capability) {
    switch (capability) {
    case 11: // Int64
        return FeatureInt64;
    case 22: // Int16
        return FeatureInt16;
    case 39: // Int8
        return FeatureInt8;
    case 9: // Float16
        return FeatureFloat16;
    case 10: // Float64
        return FeatureFloat64;
    case 4448: // StorageBuffer8BitAccess
        return FeatureStorage8;
    case 4433: // StorageBuffer16BitAccess
        return FeatureStorage16;
    case 12: // Int64Atomics
        return FeatureInt64Atomics;
    case 6033: // AtomicFloat32AddEXT
        return FeatureFloat32AtomicAdd;
    case 4466: // SignedZeroInfNanPreserve
        return FeatureFloat32NanPreserve;
    case 5055: // ShaderClockKHR
    case 5373: // ShaderSMBuiltinsNV
        return FeatureProfiling;
    case 61: // GroupNonUniform
    case 63: // GroupNonUniformArithmetic
    case 64: // GroupNonUniformBallot
    case 65: // GroupNonUniformShuffle
        return FeatureSubgroupBasic;
    default:
        return 0;
    }
}

inline SpirvInterface readSpirvInterface(const uint32_t* words, size_t count) {
    SpirvInterface out;
    if (!words || count < 5 || words[0] != 0x07230203u) {
        out.error = "not a SPIR-V module (no magic number)";
        return out;
    }
    struct Type {
        uint32_t op = 0, a = 0, b = 0; // OpType*: its operands (component type / count, pointee, ...)
        std::vector<uint32_t> members; // OpTypeStruct
    };
    std::unordered_map<uint32_t, Type> types;
    std::unordered_map<uint32_t, uint32_t> constants;          // OpConstant: low word
    std::unordered_map<uint32_t, std::vector<uint32_t>> comps; // OpConstantComposite
    std::unordered_map<uint32_t, bool> specConstants;
    struct Decorations {
        int64_t set = -1, binding = -1, arrayStride = -1, builtIn = -1;
        bool block = false, bufferBlock = false, nonWritable = false, nonReadable = false;
        std::unordered_map<uint32_t, uint32_t> memberOffsets;
        std::unordered_map<uint32_t, bool> memberNonWritable, memberNonReadable;
    };
    std::unordered_map<uint32_t, Decorations> deco;
    struct Variable {
        uint32_t id, pointerType, storage;
    };
    std::vector<Variable> variables;
    for (size_t i = 5; i < count;) {
        const uint32_t n = words[i] >> 16, op = words[i] & 0xFFFFu;
        if (n == 0 || n > count - i) {
            out.error = "an instruction's word count runs past the module's end";
            return out;
        }
        const uint32_t* w = words + i;
        switch (op) {
        case 17: // OpCapability
            if (n >= 2) out.features |= capabilityFeature(w[1]);
            break;
        case 15:                                        // OpEntryPoint
            if (n >= 3 && w[1] == 5) ++out.entryPoints; // GLCompute
            break;
        case 16: // OpExecutionMode
            if (n >= 6 && w[2] == 17)
                out.localSize[0] = w[3], out.localSize[1] = w[4], out.localSize[2] = w[5];
            if (n >= 3 && w[2] == 38) out.localSizeFromConstants = true; // LocalSizeId
            break;
        case 331: // OpExecutionModeId
            out.localSizeFromConstants = true;
            break;
        case 71: // OpDecorate
            if (n >= 3) {
                Decorations& d = deco[w[1]];
                const uint32_t kind = w[2];
                if (kind == 2) d.block = true;
                if (kind == 3) d.bufferBlock = true;
                if (kind == 24) d.nonWritable = true;
                if (kind == 25) d.nonReadable = true;
                if (kind == 33 && n >= 4) d.binding = w[3];
                if (kind == 34 && n >= 4) d.set = w[3];
                if (kind == 6 && n >= 4) d.arrayStride = w[3];
                if (kind == 11 && n >= 4) d.builtIn = w[3];
            }
            break;
        case 72: // OpMemberDecorate
            if (n >= 4) {
                Decorations& d = deco[w[1]];
                if (w[3] == 35 && n >= 5) d.memberOffsets[w[2]] = w[4];
                if (w[3] == 24) d.memberNonWritable[w[2]] = true;
                if (w[3] == 25) d.memberNonReadable[w[2]] = true;
            }
            break;
        case 20: // OpTypeBool
        case 21: // OpTypeInt
        case 22: // OpTypeFloat
        case 23: // OpTypeVector
        case 24: // OpTypeMatrix
        case 28: // OpTypeArray
        case 29: // OpTypeRuntimeArray
        case 32: // OpTypePointer
            if (n >= 2) types[w[1]] = {op, n >= 3 ? w[2] : 0, n >= 4 ? w[3] : 0, {}};
            break;
        case 30: // OpTypeStruct
            if (n >= 2) types[w[1]] = {op, 0, 0, std::vector<uint32_t>(w + 2, w + n)};
            break;
        case 43: // OpConstant
            if (n >= 4) constants[w[2]] = w[3];
            break;
        case 44: // OpConstantComposite
            if (n >= 3) comps[w[2]] = std::vector<uint32_t>(w + 3, w + n);
            break;
        case 48: // OpSpecConstantTrue
        case 49: // OpSpecConstantFalse
        case 50: // OpSpecConstant
        case 51: // OpSpecConstantComposite
        case 52: // OpSpecConstantOp
            if (n >= 3) specConstants[w[2]] = true;
            break;
        case 59: // OpVariable
            if (n >= 4) variables.push_back({w[2], w[1], w[3]});
            break;
        default:
            break;
        }
        i += n;
    }
    // A WorkgroupSize built-in constant overrides LocalSize: it must be a plain constant.
    for (auto& [id, d] : deco) {
        if (d.builtIn != 25) continue;
        if (specConstants.count(id)) {
            out.localSizeFromConstants = true;
        } else if (comps.count(id) && comps[id].size() == 3) {
            for (int k = 0; k < 3; ++k)
                out.localSize[k] = constants.count(comps[id][k]) ? constants[comps[id][k]] : 0;
        }
    }
    // Sizes of explicitly laid-out types (push-constant blocks): offsets and strides from the decorations.
    std::unordered_map<uint32_t, uint64_t> sizes;
    auto sizeOf = [&](auto&& self, uint32_t id, int depth) -> uint64_t {
        if (depth > 16 || !types.count(id)) return UINT64_MAX;
        if (auto s = sizes.find(id); s != sizes.end()) return s->second;
        const Type& t = types[id];
        uint64_t size = UINT64_MAX;
        switch (t.op) {
        case 20:
            size = 4;
            break;
        case 21:
        case 22:
            size = t.a / 8;
            break;
        case 23: {
            const uint64_t c = self(self, t.a, depth + 1);
            size = c == UINT64_MAX ? c : c * t.b;
            break;
        }
        case 28: {
            const uint64_t stride =
                deco.count(id) && deco[id].arrayStride >= 0 ? uint64_t(deco[id].arrayStride) : 0;
            if (stride && constants.count(t.b) && constants[t.b] <= UINT32_MAX / stride)
                size = stride * constants[t.b]; // else unknown: no push-constant block is that large
            break;
        }
        case 30: {
            uint64_t end = 0;
            const Decorations& d = deco[id];
            for (uint32_t m = 0; m < t.members.size(); ++m) {
                const auto off = d.memberOffsets.find(m);
                const uint64_t s = self(self, t.members[m], depth + 1);
                if (off == d.memberOffsets.end() || s == UINT64_MAX) return UINT64_MAX;
                end = std::max<uint64_t>(end, off->second + s);
            }
            size = end;
            break;
        }
        default:
            break;
        }
        sizes[id] = size;
        return size;
    };
    for (const Variable& v : variables) {
        const auto p = types.find(v.pointerType);
        if (p == types.end() || p->second.op != 32) continue;
        const uint32_t pointee = p->second.b;
        if (v.storage == 9) { // PushConstant
            ++out.pushConstantBlocks;
            const uint64_t s = sizeOf(sizeOf, pointee, 0);
            if (s == UINT64_MAX || s > UINT32_MAX) {
                out.error = "its push-constant block cannot be sized";
                return out;
            }
            out.pushConstantBytes = static_cast<uint32_t>(s);
            continue;
        }
        if (v.storage != 0 && v.storage != 2 && v.storage != 12) continue; // not a descriptor
        SpirvBinding b;
        const Decorations& vd = deco[v.id];
        b.set = vd.set < 0 ? 0 : static_cast<uint32_t>(vd.set);
        b.binding = vd.binding < 0 ? 0 : static_cast<uint32_t>(vd.binding);
        const auto t = types.find(pointee);
        if (v.storage == 0 || t == types.end() || t->second.op != 30) {
            b.other = true; // an image, a sampler, or an array of blocks
        } else {
            const Decorations& sd = deco[pointee];
            b.uniform = v.storage == 2 && sd.block && !sd.bufferBlock;
            const size_t members = t->second.members.size();
            bool allW = members > 0, allR = members > 0;
            for (uint32_t m = 0; m < members; ++m) {
                allW = allW && sd.memberNonWritable.count(m);
                allR = allR && sd.memberNonReadable.count(m);
            }
            b.readOnly = vd.nonWritable || allW;
            b.writeOnly = vd.nonReadable || allR;
        }
        out.bindings.push_back(b);
    }
    return out;
}

} // namespace ripple::kernels
