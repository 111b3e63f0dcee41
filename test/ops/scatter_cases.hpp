// SPDX-License-Identifier: MIT
// Shared by the scatter tests: type lists, index generation (distinct targets, negative forms for signed
// index types) and the comparison of a run with the reference.
#pragma once

#include "support/gpu.hpp"
#include "support/reference.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace sc {

using namespace ripple;

inline const DataType kDataTypes[] = {DataType::Float32, DataType::Float16, DataType::UInt32,
                                      DataType::UInt16,  DataType::UInt8,   DataType::Int32,
                                      DataType::Int16,   DataType::Int8,    DataType::Float64,
                                      DataType::UInt64,  DataType::Int64};
inline const DataType kIndexTypes[] = {DataType::Int32, DataType::UInt32, DataType::Int64, DataType::UInt64};

// The bits of value v (exactly representable in the type) of a float type; BFLOAT16 from the FLOAT32's
// upper half (exact when v has at most 8 significant bits).
inline uint64_t floatBits(DataType t, double v) {
    uint64_t bits = 0;
    if (t == DataType::Float64) {
        std::memcpy(&bits, &v, 8);
    } else if (t == DataType::Float16) {
        // By hand: GCC's _Float16 is not in Clang 14 on x86 (the sanitizer build's compiler).
        const uint64_t sign = std::signbit(v) ? 0x8000 : 0;
        int e = 0;
        const double m = std::frexp(std::fabs(v), &e); // |v| = m * 2^e, m in [0.5, 1)
        if (v == 0)
            bits = sign;
        else if (e + 14 >= 1) // normal: (1 + f/1024) * 2^(E - 15)
            bits = sign | uint64_t(e + 14) << 10 | static_cast<uint64_t>((m * 2 - 1) * 1024);
        else // subnormal: f/1024 * 2^-14
            bits = sign | static_cast<uint64_t>(std::ldexp(std::fabs(v), 24));
    } else {
        const float f = static_cast<float>(v);
        std::memcpy(&bits, &f, 4);
        if (t == DataType::BFloat16) bits >>= 16;
    }
    return bits;
}

// Writes index value r (0 <= r < size) at `linear`, as r - size half the time for signed types.
inline void putIndex(rt::HostTensor& t, uint64_t linear, uint32_t r, uint32_t size, std::mt19937& rng) {
    int64_t v = r;
    if (rt::isSigned(t.desc.DataType) && (rng() & 1)) v -= size;
    t.setBits(linear, static_cast<uint64_t>(v));
}

// In the HLSL round-trip run, 64-bit scatters have no D3D12 form: checks they are Unsupported and says
// the case is done.
inline bool noD3D12Form(const Result<Operator>& op, DataType type) {
    if (!rt::hlslRoundTrip() || elementSize(type) != 8) return false;
    INFO(op.status().message());
    CHECK(op.status().code() == StatusCode::Unsupported);
    return true;
}

inline std::vector<uint8_t> meaningful(std::vector<uint8_t> bytes, const TensorDesc& d) {
    bytes.resize(d.elementCount() * elementSize(d.DataType));
    return bytes;
}

inline void compareOutput(const rt::GpuResult& r, const std::vector<uint8_t>& want, const TensorDesc& out) {
    INFO("output: " << rt::firstDifference(meaningful(r.outputs[0], out), meaningful(want, out),
                                           elementSize(out.DataType)));
    CHECK(meaningful(r.outputs[0], out) == meaningful(want, out));
}

} // namespace sc
