// SPDX-License-Identifier: MIT
/// @file
/// @brief Tensor descriptions, after DirectML's DML_BUFFER_TENSOR_DESC.
#pragma once

#include "ripple/export.hpp"

#include <cstdint>
#include <vector>

/// ripple: DirectML's ScatterND, ScatterElements and TopK with DirectML's exact semantics, on any GPU.
namespace ripple {

/// Element data types: DirectML's (DML_TENSOR_DATA_TYPE), then ripple's additions. Each entry's comment
/// gives its size in bytes (elementSize()).
enum class DataType : uint32_t {
    Float32, ///< 4 bytes, IEEE binary32
    Float16, ///< 2 bytes, IEEE binary16
    UInt32,  ///< 4 bytes
    UInt16,  ///< 2 bytes
    UInt8,   ///< 1 byte
    Int32,   ///< 4 bytes, two's complement
    Int16,   ///< 2 bytes
    Int8,    ///< 1 byte
    Float64, ///< 8 bytes, IEEE binary64
    UInt64,  ///< 8 bytes
    Int64,   ///< 8 bytes
    /// 2 bytes. ripple's addition (not in DirectML): bfloat16, the upper 16 bits of a FLOAT32 (sign, 8-bit
    /// exponent, 7-bit mantissa), ordered and compared as the FLOAT32 it widens to. Accepted by TopK as input
    /// and output values, and moved as bits by the scatters (docs/SEMANTICS.md).
    BFloat16,
};

/// @return the size of one element of `type` in bytes (1, 2, 4 or 8); 0 for a value outside the enum.
/// Thread safety: any thread.
RIPPLE_API uint32_t elementSize(DataType type);
/// @return DirectML's name of `type`: "FLOAT32", "UINT8", ... ("BFLOAT16" for ripple's addition). Never null.
RIPPLE_API const char* toString(DataType type);

/// The most dimensions a tensor may have (DirectML's DML_TENSOR_DIMENSION_COUNT_MAX1).
constexpr uint32_t kMaxDimensionCount = 8;

/// A tensor in a buffer: data type, 1 to 8 Sizes, and optional Strides, both in elements (not bytes).
/// The tensor occupies calcBufferTensorSize() bytes from its binding's offset. Validation (at
/// Device::compile) refuses, naming the tensor and the rule: more than kMaxDimensionCount sizes, Strides of
/// another length, sizes whose product or byte extent overflows, or tensors larger than the device binds.
struct RIPPLE_API TensorDesc {
    ripple::DataType DataType = ripple::DataType::Float32; ///< the element type
    /// Sizes, outermost first (DirectML's order). A size of 0 is allowed: the tensor is empty.
    std::vector<uint32_t> Sizes;
    /// Empty (packed row-major), or one stride per size, in elements. A stride of 0 broadcasts (inputs
    /// only); outputs are always packed.
    std::vector<uint32_t> Strides;

    /// @return Sizes.size(), DirectML's DimensionCount.
    uint32_t dimensionCount() const { return static_cast<uint32_t>(Sizes.size()); }
    /// @return the product of Sizes (0 for an empty tensor), computed in 64 bits; saturates at
    /// UINT64_MAX if it overflows (validation refuses such a tensor).
    uint64_t elementCount() const;
};

/// Bytes the tensor occupies from its binding offset: (sum_i (Sizes[i]-1) * Strides[i] + 1) * elementSize,
/// rounded up to a multiple of 4, with packed strides when Strides is empty (DirectML's
/// DMLCalcBufferTensorSize). 0 for an empty tensor. UINT64_MAX when the arithmetic overflows or Strides has
/// neither 0 entries nor one per size (validation refuses both). Thread safety: any thread.
RIPPLE_API uint64_t calcBufferTensorSize(const TensorDesc& desc);

/// @return packed row-major strides (in elements) for `sizes`: the last is 1, each other the product of the
/// sizes after it. Products that overflow 32 bits are clamped to UINT32_MAX (validation refuses them).
RIPPLE_API std::vector<uint32_t> packedStrides(const std::vector<uint32_t>& sizes);

} // namespace ripple
