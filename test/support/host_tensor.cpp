// SPDX-License-Identifier: MIT
#include "host_tensor.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace rt {

HostTensor::HostTensor(ripple::DataType type, std::vector<uint32_t> sizes, std::vector<uint32_t> strides) {
    desc.DataType = type;
    desc.Sizes = std::move(sizes);
    desc.Strides = std::move(strides);
    bytes.assign(ripple::calcBufferTensorSize(desc), 0);
}

uint64_t HostTensor::offsetOf(uint64_t linear) const {
    if (desc.Strides.empty()) return linear; // packed: no vector of strides for each element
    uint64_t off = 0;
    for (size_t d = desc.Sizes.size(); d-- > 0;) {
        off += (linear % desc.Sizes[d]) * desc.Strides[d];
        linear /= desc.Sizes[d];
    }
    return off;
}

namespace {
// A test that reads or writes past its tensor stops here, in every build (the sanitizer job runs few tests).
uint64_t checkedByte(const HostTensor& t, uint64_t linear, uint32_t size) {
    const uint64_t at = t.offsetOf(linear) * size;
    if (linear >= t.count() || at + size > t.bytes.size()) {
        std::fprintf(stderr, "HostTensor: element %llu of %s is outside its %zu bytes\n",
                     static_cast<unsigned long long>(linear), describe(t.desc).c_str(), t.bytes.size());
        std::abort();
    }
    return at;
}
} // namespace

uint64_t HostTensor::bits(uint64_t linear) const {
    uint32_t size = ripple::elementSize(desc.DataType);
    uint64_t v = 0;
    std::memcpy(&v, bytes.data() + checkedByte(*this, linear, size), size);
    return v;
}

void HostTensor::setBits(uint64_t linear, uint64_t v) {
    uint32_t size = ripple::elementSize(desc.DataType);
    std::memcpy(bytes.data() + checkedByte(*this, linear, size), &v, size);
}

int64_t HostTensor::indexValue(uint64_t linear) const {
    uint64_t v = bits(linear);
    switch (desc.DataType) {
    case ripple::DataType::Int32:
        return static_cast<int32_t>(v);
    default:
        return static_cast<int64_t>(v); // INT64, and unsigned types below 2^63
    }
}

bool isSigned(ripple::DataType t) {
    using ripple::DataType;
    return t == DataType::Int8 || t == DataType::Int16 || t == DataType::Int32 || t == DataType::Int64;
}
bool isFloat(ripple::DataType t) {
    using ripple::DataType;
    return t == DataType::Float16 || t == DataType::BFloat16 || t == DataType::Float32 ||
           t == DataType::Float64;
}

namespace {

uint64_t floatBits(ripple::DataType t, double v) {
    if (t == ripple::DataType::Float64) {
        uint64_t b;
        std::memcpy(&b, &v, 8);
        return b;
    }
    float f = static_cast<float>(v);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    if (t == ripple::DataType::Float32) return b;
    if (t == ripple::DataType::BFloat16) { // round to nearest even; NaN stays NaN
        if ((b & 0x7FFFFFFFu) > 0x7F800000u) return (b >> 16) | 0x40;
        return (b + 0x7FFF + ((b >> 16) & 1)) >> 16;
    }
    // float -> half, for the exactly representable values the fills use
    uint32_t sign = (b >> 16) & 0x8000;
    int exp = static_cast<int>((b >> 23) & 0xFF) - 127 + 15;
    uint32_t mant = b & 0x7FFFFF;
    if (((b >> 23) & 0xFF) == 0xFF) return sign | 0x7C00 | (mant ? 0x200 : 0);
    if (exp <= 0) return sign; // tiny values flush to signed zero
    if (exp >= 31) return sign | 0x7C00;
    return sign | (exp << 10) | (mant >> 13);
}

} // namespace

uint64_t nanBits(ripple::DataType t, uint64_t payload, bool negative) {
    uint64_t sign = 0x8000000000000000ull, inf = 0x7FF0000000000000ull, mantissa = 0xFFFFFFFFFFFFFull;
    switch (t) {
    case ripple::DataType::Float16:
        sign = 0x8000, inf = 0x7C00, mantissa = 0x3FF;
        break;
    case ripple::DataType::Float32:
        sign = 0x80000000u, inf = 0x7F800000u, mantissa = 0x7FFFFF;
        break;
    case ripple::DataType::BFloat16:
        sign = 0x8000, inf = 0x7F80, mantissa = 0x7F;
        break;
    default:
        break;
    }
    // A quarter each the smallest payload (next to infinity, where a "> infinity" test sits) and the
    // largest; the rest drawn.
    const uint64_t pick = payload % 4, drawn = 1 + (payload >> 2) % mantissa;
    return (negative ? sign : 0) | inf | (pick == 0 ? 1 : pick == 1 ? mantissa : drawn);
}

uint64_t denormalBits(ripple::DataType t, uint64_t mantissa, bool negative) {
    switch (t) {
    case ripple::DataType::Float16:
        return (negative ? 0x8000 : 0) | (1 + mantissa % 0x3FF);
    case ripple::DataType::Float32:
        return (negative ? 0x80000000u : 0) | (1 + mantissa % 0x7FFFFF);
    case ripple::DataType::BFloat16:
        return (negative ? 0x8000 : 0) | (1 + mantissa % 0x7F);
    default:
        return (negative ? 0x8000000000000000ull : 0) | (1 + mantissa % 0xFFFFFFFFFFFFFull);
    }
}

void fill(HostTensor& t, std::mt19937& rng, Fill how) {
    const ripple::DataType type = t.desc.DataType;
    const uint32_t size = ripple::elementSize(type);
    const uint64_t mask = size == 8 ? ~0ull : ((1ull << (size * 8)) - 1);
    // Write every byte the tensor spans (strided gaps too), four from each of the engine's 32-bit draws (a
    // 64-bit uniform_int_distribution draw a byte took a third of some tests' time), then the elements.
    for (size_t i = 0; i < t.bytes.size(); i += 4) {
        const uint32_t r = rng();
        std::memcpy(t.bytes.data() + i, &r, std::min<size_t>(4, t.bytes.size() - i));
    }
    for (uint64_t i = 0, n = t.count(); i < n; ++i) {
        const uint64_t high = rng(); // two draws in sequence (an expression would leave their order open)
        const uint64_t r = high << 32 | rng();
        uint64_t v = 0;
        if (isFloat(type)) {
            switch (how) {
            case Fill::Random:
                v = floatBits(type, (static_cast<double>(r % 2000001) - 1000000.0) / 64.0);
                break;
            case Fill::Ties:
                v = floatBits(type, static_cast<double>(r % 5) - 2.0);
                break;
            case Fill::Special: {
                switch (r % 10) {
                case 0:
                    v = nanBits(type, r >> 8, (r >> 4) & 1);
                    break;
                case 1:
                    v = floatBits(type, 0.0);
                    break;
                case 2:
                    v = floatBits(type, -0.0);
                    break;
                case 3:
                    v = floatBits(type, (r >> 4) & 1 ? INFINITY : -INFINITY);
                    break;
                case 4: // a denormal of either sign (devices may flush them to zero); a quarter of them the
                        // smallest, next to zero, where a bound by value is off by one soonest
                    v = denormalBits(type, (r >> 5) & 3 ? r >> 8 : 0, (r >> 4) & 1);
                    break;
                default:
                    v = floatBits(type, static_cast<double>((r >> 8) % 7) - 3.0);
                    break;
                }
                break;
            }
            }
        } else {
            switch (how) {
            case Fill::Random:
                v = r & mask;
                break;
            case Fill::Ties:
                v = (r % 5) - (isSigned(type) ? 2 : 0);
                break;
            case Fill::Special: {
                uint64_t top = 1ull << (size * 8 - 1);
                uint64_t choices[] = {0, 1, mask, top, top - 1, 2};
                v = choices[r % 6];
                break;
            }
            }
            v &= mask;
        }
        t.setBits(i, v);
    }
}

std::string describe(const ripple::TensorDesc& d) {
    std::string s = std::string(ripple::toString(d.DataType)) + " {";
    for (size_t i = 0; i < d.Sizes.size(); ++i) s += (i ? "," : "") + std::to_string(d.Sizes[i]);
    s += "}";
    if (!d.Strides.empty()) {
        s += " strides {";
        for (size_t i = 0; i < d.Strides.size(); ++i) s += (i ? "," : "") + std::to_string(d.Strides[i]);
        s += "}";
    }
    return s;
}

} // namespace rt
