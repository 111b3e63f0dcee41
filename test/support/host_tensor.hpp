// SPDX-License-Identifier: MIT
// Tensors on the host for tests: a desc and the bytes it spans, element access by bits, random fills.
#pragma once

#include "ripple/ripple.hpp"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace rt {

struct HostTensor {
    ripple::TensorDesc desc;
    std::vector<uint8_t> bytes; // calcBufferTensorSize(desc) bytes

    HostTensor() = default;
    HostTensor(ripple::DataType type, std::vector<uint32_t> sizes, std::vector<uint32_t> strides = {});
    uint64_t count() const { return desc.elementCount(); }
    // Element offset (in elements, through Strides) of the element at packed row-major position `linear`.
    uint64_t offsetOf(uint64_t linear) const;
    uint64_t bits(uint64_t linear) const; // the element's bits, zero-extended
    void setBits(uint64_t linear, uint64_t bits);
    int64_t indexValue(uint64_t linear) const; // for index tensors: the value, sign-extended if signed
};

enum class Fill {
    Random,  // random bits (floats: finite random values)
    Ties,    // few distinct values: many ties
    Special, // floats with NaN (several payloads), +-0.0, +-inf, denormals, ties; integers at their extremes
};

void fill(HostTensor& t, std::mt19937& rng, Fill how);
// A NaN of a floating-point type (mantissa 1 + payload % its largest), either sign.
uint64_t nanBits(ripple::DataType type, uint64_t payload, bool negative);
// A denormal of a floating-point type (mantissa 1 + mantissa % its largest), either sign.
uint64_t denormalBits(ripple::DataType type, uint64_t mantissa, bool negative);
bool isSigned(ripple::DataType type);
bool isFloat(ripple::DataType type);
std::string describe(const ripple::TensorDesc& desc);

} // namespace rt
