// SPDX-License-Identifier: MIT
// Tensor descriptions, after DirectML's DML_BUFFER_TENSOR_DESC.
#pragma once

#include "ripple/export.hpp"

#include <cstdint>
#include <vector>

namespace ripple {

// DirectML's data types (DML_TENSOR_DATA_TYPE) and their element sizes in bytes, then ripple's additions.
enum class DataType : uint32_t {
    Float32, // 4
    Float16, // 2
    UInt32,  // 4
    UInt16,  // 2
    UInt8,   // 1
    Int32,   // 4
    Int16,   // 2
    Int8,    // 1
    Float64, // 8
    UInt64,  // 8
    Int64,   // 8
    // ripple's addition (not in DirectML): bfloat16, the upper 16 bits of a FLOAT32 (sign, 8-bit exponent,
    // 7-bit mantissa), ordered and compared as the FLOAT32 it widens to. Accepted by TopK as input and
    // output values, and moved as bits by the scatters (docs/SEMANTICS.md).
    BFloat16, // 2
};

RIPPLE_API uint32_t elementSize(DataType type);
RIPPLE_API const char* toString(DataType type); // DirectML's name: "FLOAT32", "UINT8", ...

constexpr uint32_t kMaxDimensionCount = 8;

// A tensor: data type, 1 to 8 Sizes, and optional Strides in elements (not bytes).
// Empty Strides means packed row-major. A stride of 0 broadcasts (inputs only). A size of 0 is allowed
// (an empty tensor). The tensor occupies calcBufferTensorSize() bytes from its binding offset.
struct RIPPLE_API TensorDesc {
    ripple::DataType DataType = ripple::DataType::Float32;
    std::vector<uint32_t> Sizes;
    std::vector<uint32_t> Strides; // empty, or one per size

    uint32_t dimensionCount() const { return static_cast<uint32_t>(Sizes.size()); }
    uint64_t elementCount() const;
};

// Bytes the tensor occupies: (sum_i (Sizes[i]-1)*Strides[i] + 1) * elementSize, rounded up to a
// multiple of 4 (DirectML's DMLCalcBufferTensorSize). 0 for an empty tensor.
RIPPLE_API uint64_t calcBufferTensorSize(const TensorDesc& desc);

// Packed row-major strides for sizes (in elements).
RIPPLE_API std::vector<uint32_t> packedStrides(const std::vector<uint32_t>& sizes);

} // namespace ripple
