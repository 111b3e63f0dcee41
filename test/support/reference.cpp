// SPDX-License-Identifier: MIT
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace rt {
namespace {

double halfValue(uint64_t h) {
    int exp = (h >> 10) & 0x1F;
    double mant = static_cast<double>(h & 0x3FF);
    double v = exp == 0    ? std::ldexp(mant, -24)
               : exp == 31 ? (mant ? NAN : INFINITY)
                           : std::ldexp(mant + 1024, exp - 25);
    return (h & 0x8000) ? -v : v;
}

double floatValue(ripple::DataType t, uint64_t b) {
    if (t == ripple::DataType::Float16) return halfValue(b);
    if (t == ripple::DataType::BFloat16) {
        float f;
        uint32_t u = static_cast<uint32_t>(b) << 16;
        std::memcpy(&f, &u, 4);
        return f;
    }
    if (t == ripple::DataType::Float32) {
        float f;
        uint32_t u = static_cast<uint32_t>(b);
        std::memcpy(&f, &u, 4);
        return f;
    }
    double d;
    std::memcpy(&d, &b, 8);
    return d;
}

int64_t signedValue(ripple::DataType t, uint64_t b) {
    switch (ripple::elementSize(t)) {
    case 1:
        return static_cast<int8_t>(b);
    case 2:
        return static_cast<int16_t>(b);
    case 4:
        return static_cast<int32_t>(b);
    default:
        return static_cast<int64_t>(b);
    }
}

void putBits(std::vector<uint8_t>& out, uint64_t element, uint32_t size, uint64_t bits) {
    std::memcpy(out.data() + element * size, &bits, size);
}

uint64_t getBits(const std::vector<uint8_t>& out, uint64_t element, uint32_t size) {
    uint64_t bits = 0;
    std::memcpy(&bits, out.data() + element * size, size);
    return bits;
}

// x rounded to nearest even at `mantissaBits` bits of precision (normal range only: the reduction tests'
// values stay there), as the bits of a FLOAT16 (5 exponent bits) or BFLOAT16 (8).
uint64_t roundToNarrowFloat(double x, int mantissaBits, int exponentBits) {
    const int bias = (1 << (exponentBits - 1)) - 1;
    const uint64_t sign = std::signbit(x) ? 1u << (mantissaBits + exponentBits) : 0;
    const uint64_t inf = ((1u << exponentBits) - 1) << mantissaBits;
    if (x == 0) return sign;
    if (std::isinf(x)) return sign | inf;
    int e;
    const double m = std::frexp(std::fabs(x), &e);              // |x| = m 2^e, m in [0.5, 1)
    double r = std::nearbyint(std::ldexp(m, mantissaBits + 1)); // default mode: to nearest even
    if (r == std::ldexp(1.0, mantissaBits + 1)) r /= 2, ++e;    // rounded up to the next power of 2
    const int biased = e - 1 + bias;
    if (biased >= (1 << exponentBits) - 1) return sign | inf;
    return sign | (uint64_t(biased) << mantissaBits) | (uint64_t(r) - (1u << mantissaBits));
}

bool resolve(const HostTensor& indices, uint64_t linear, uint32_t size, uint64_t& out) {
    uint64_t raw = indices.bits(linear);
    if (isSigned(indices.desc.DataType)) {
        int64_t v = indices.indexValue(linear);
        if (v < 0) v += size;
        if (v < 0 || v >= static_cast<int64_t>(size)) return false;
        out = static_cast<uint64_t>(v);
        return true;
    }
    if (raw >= size) return false;
    out = raw;
    return true;
}

std::vector<uint8_t> packedCopy(const HostTensor& input, uint64_t outBytes) {
    std::vector<uint8_t> out(outBytes, 0);
    const uint32_t size = ripple::elementSize(input.desc.DataType);
    for (uint64_t i = 0; i < input.count(); ++i) putBits(out, i, size, input.bits(i));
    return out;
}

// The result of a float MAX / MIN (SEMANTICS.md): true when update b is, false when current a stays.
bool floatTakesUpdate(double a, double b, bool negativeA, bool negativeB, ripple::ScatterReduction op) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
    const bool max = op == ripple::ScatterReduction::Max;
    if (a == b) return max ? negativeA && !negativeB : !negativeA && negativeB; // +0.0 above -0.0
    return max ? b > a : b < a;
}

} // namespace

uint64_t combineBits(ripple::DataType t, uint64_t a, uint64_t b, ripple::ScatterReduction op) {
    using ripple::DataType;
    using ripple::ScatterReduction;
    const uint32_t size = ripple::elementSize(t);
    const uint64_t mask = size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
    const bool add = op == ScatterReduction::Add, mul = op == ScatterReduction::Mul;
    if (isFloat(t)) {
        const double x = floatValue(t, a), y = floatValue(t, b);
        if (!add && !mul)
            return floatTakesUpdate(x, y, (a >> (8 * size - 1)) & 1, (b >> (8 * size - 1)) & 1, op) ? b : a;
        // FLOAT16, BFLOAT16, FLOAT32 operands: their sum and product rounded to double, then to the type,
        // are rounded correctly (double's 53 bits are at least twice the type's precision plus 2).
        // FLOAT64: the double operation itself.
        const double exact = add ? x + y : x * y;
        if (t == DataType::Float16) return roundToNarrowFloat(exact, 10, 5);
        if (t == DataType::BFloat16) return roundToNarrowFloat(exact, 7, 8);
        uint64_t bits = 0;
        if (t == DataType::Float32) {
            const float f = static_cast<float>(exact);
            std::memcpy(&bits, &f, 4);
        } else {
            std::memcpy(&bits, &exact, 8);
        }
        return bits;
    }
    if (add) return (a + b) & mask; // wraps
    if (mul) return (a * b) & mask;
    const int c = compareValues(t, b, a);
    return (op == ScatterReduction::Max ? c > 0 : c < 0) ? b : a;
}

int compareValues(ripple::DataType t, uint64_t a, uint64_t b) {
    if (isFloat(t)) {
        double x = floatValue(t, a), y = floatValue(t, b);
        bool nx = std::isnan(x), ny = std::isnan(y);
        if (nx || ny) return nx && ny ? 0 : nx ? 1 : -1;
        return x < y ? -1 : x > y ? 1 : 0; // -0.0 == +0.0
    }
    if (isSigned(t)) {
        int64_t x = signedValue(t, a), y = signedValue(t, b);
        return x < y ? -1 : x > y ? 1 : 0;
    }
    return a < b ? -1 : a > b ? 1 : 0;
}

std::vector<uint8_t> referenceScatterND(const ripple::ScatterNDDesc& desc, const HostTensor& input,
                                        const HostTensor& indices, const HostTensor& updates,
                                        int* outOfRange) {
    std::vector<uint8_t> out = packedCopy(input, ripple::calcBufferTensorSize(desc.OutputTensor));
    const auto& in = desc.InputTensor.Sizes;
    const uint32_t n = static_cast<uint32_t>(in.size());
    const uint32_t q = indices.desc.Sizes.back();
    const uint32_t first = n - desc.InputDimensionCount;
    uint64_t slice = 1;
    for (uint32_t d = first + q; d < n; ++d) slice *= in[d];
    const uint32_t size = ripple::elementSize(input.desc.DataType);
    const uint64_t tuples = slice ? updates.count() / slice : 0; // q = 0: the indices have no elements
    for (uint64_t t = 0; t < tuples; ++t) {
        uint64_t base = 0;
        bool ok = true;
        for (uint32_t j = 0; j < q; ++j) {
            uint64_t r;
            ok = ok && resolve(indices, t * q + j, in[first + j], r);
            if (!ok) break;
            uint64_t pitch = 1;
            for (uint32_t d = first + j + 1; d < n; ++d) pitch *= in[d];
            base += r * pitch;
        }
        if (!ok) {
            if (outOfRange) ++*outOfRange;
            continue;
        }
        for (uint64_t s = 0; s < slice; ++s)
            putBits(out, base + s, size,
                    desc.Reduction == ripple::ScatterReduction::None
                        ? updates.bits(t * slice + s)
                        : combineBits(input.desc.DataType, getBits(out, base + s, size),
                                      updates.bits(t * slice + s), desc.Reduction));
    }
    return out;
}

namespace {
// Output position of each ScatterElements update, or ~0 when out of range.
std::vector<uint64_t> elementTargets(const ripple::ScatterElementsDesc& desc, const HostTensor& indices) {
    const auto& in = desc.InputTensor.Sizes;
    const auto& is = indices.desc.Sizes;
    std::vector<uint32_t> pitch = ripple::packedStrides(in);
    std::vector<uint64_t> targets(indices.count());
    for (uint64_t e = 0; e < indices.count(); ++e) {
        uint64_t linear = e, target = 0;
        for (size_t d = is.size(); d-- > 0;) {
            uint64_t c = linear % is[d];
            linear /= is[d];
            if (d != desc.Axis) target += c * pitch[d];
        }
        uint64_t r;
        targets[e] = resolve(indices, e, in[desc.Axis], r) ? target + r * pitch[desc.Axis] : ~0ull;
    }
    return targets;
}
} // namespace

std::vector<uint8_t> referenceScatterElements(const ripple::ScatterElementsDesc& desc,
                                              const HostTensor& input, const HostTensor& indices,
                                              const HostTensor& updates, int* outOfRange) {
    std::vector<uint8_t> out = packedCopy(input, ripple::calcBufferTensorSize(desc.OutputTensor));
    const uint32_t size = ripple::elementSize(input.desc.DataType);
    std::vector<uint64_t> targets = elementTargets(desc, indices);
    for (uint64_t e = 0; e < targets.size(); ++e) {
        if (targets[e] == ~0ull) {
            if (outOfRange) ++*outOfRange;
            continue;
        }
        putBits(out, targets[e], size,
                desc.Reduction == ripple::ScatterReduction::None
                    ? updates.bits(e)
                    : combineBits(input.desc.DataType, getBits(out, targets[e], size), updates.bits(e),
                                  desc.Reduction));
    }
    return out;
}

std::vector<std::vector<uint64_t>> scatterTargets(const ripple::ScatterElementsDesc& desc,
                                                  const HostTensor& indices) {
    std::vector<std::vector<uint64_t>> by(desc.InputTensor.elementCount());
    std::vector<uint64_t> targets = elementTargets(desc, indices);
    for (uint64_t e = 0; e < targets.size(); ++e)
        if (targets[e] != ~0ull) by[targets[e]].push_back(e);
    return by;
}

namespace {

// A key whose unsigned order is compareValues' order: floats by value with -0.0 == +0.0 and every NaN equal
// and above +infinity; signed integers with the sign bit flipped.
uint64_t orderKey(ripple::DataType t, uint64_t b) {
    if (isFloat(t)) {
        const double x = floatValue(t, b);
        if (std::isnan(x)) return ~0ull;
        uint64_t u;
        const double y = x == 0 ? 0.0 : x; // -0.0 -> +0.0
        std::memcpy(&u, &y, 8);
        return u >> 63 ? ~u : u | (1ull << 63);
    }
    if (isSigned(t)) return static_cast<uint64_t>(signedValue(t, b)) ^ (1ull << 63);
    return b;
}

} // namespace

void referenceTopK(const ripple::TopKDesc& desc, const HostTensor& input, std::vector<uint8_t>& values,
                   std::vector<uint8_t>& indices) {
    const auto& sizes = input.desc.Sizes;
    const uint32_t axis = desc.Axis, K = desc.K, n = sizes[axis];
    uint64_t inner = 1, outer = 1;
    for (size_t d = axis + 1; d < sizes.size(); ++d) inner *= sizes[d];
    for (size_t d = 0; d < axis; ++d) outer *= sizes[d];
    const ripple::DataType t = input.desc.DataType;
    const uint32_t vsize = ripple::elementSize(t),
                   isize = ripple::elementSize(desc.OutputIndexTensor.DataType);
    values.assign(ripple::calcBufferTensorSize(desc.OutputValueTensor), 0);
    indices.assign(ripple::calcBufferTensorSize(desc.OutputIndexTensor), 0);
    const bool decreasing = desc.AxisDirection == ripple::AxisDirection::Decreasing;
    // (order key, index) pairs, the key inverted when decreasing: their order is the stable sort's (ties
    // keep ascending index), and only the first K need sorting.
    std::vector<std::pair<uint64_t, uint32_t>> order(n);
    std::vector<uint64_t> row(n);
    for (uint64_t o = 0; o < outer; ++o) {
        for (uint64_t i = 0; i < inner; ++i) {
            for (uint32_t j = 0; j < n; ++j) {
                row[j] = input.bits((o * n + j) * inner + i);
                const uint64_t key = orderKey(t, row[j]);
                order[j] = {decreasing ? ~key : key, j};
            }
            std::partial_sort(order.begin(), order.begin() + K, order.end());
            for (uint32_t k = 0; k < K; ++k) {
                uint64_t pos = (o * K + k) * inner + i;
                putBits(values, pos, vsize, row[order[k].second]);
                putBits(indices, pos, isize, order[k].second);
            }
        }
    }
}

} // namespace rt
