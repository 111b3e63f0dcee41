// SPDX-License-Identifier: MIT
// The public tensor helpers (ripple/tensor.hpp): element sizes, names of data types and status codes,
// packed strides, and DirectML's DML_CALC_BUFFER_TENSOR_SIZE.
#include "ripple/tensor.hpp"
#include "core/shape.hpp"

namespace ripple {

uint32_t elementSize(DataType type) {
    switch (type) {
    case DataType::UInt8:
    case DataType::Int8:
        return 1;
    case DataType::Float16:
    case DataType::BFloat16:
    case DataType::UInt16:
    case DataType::Int16:
        return 2;
    case DataType::Float32:
    case DataType::UInt32:
    case DataType::Int32:
        return 4;
    case DataType::Float64:
    case DataType::UInt64:
    case DataType::Int64:
        return 8;
    }
    return 0;
}

const char* toString(DataType type) {
    switch (type) {
    case DataType::Float32:
        return "FLOAT32";
    case DataType::Float16:
        return "FLOAT16";
    case DataType::UInt32:
        return "UINT32";
    case DataType::UInt16:
        return "UINT16";
    case DataType::UInt8:
        return "UINT8";
    case DataType::Int32:
        return "INT32";
    case DataType::Int16:
        return "INT16";
    case DataType::Int8:
        return "INT8";
    case DataType::Float64:
        return "FLOAT64";
    case DataType::UInt64:
        return "UINT64";
    case DataType::Int64:
        return "INT64";
    case DataType::BFloat16:
        return "BFLOAT16";
    }
    return "UNKNOWN";
}

uint64_t TensorDesc::elementCount() const {
    return core::product(Sizes, 0, Sizes.size());
}

std::vector<uint32_t> packedStrides(const std::vector<uint32_t>& sizes) {
    std::vector<uint32_t> strides(sizes.size());
    uint64_t s = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
        strides[i] = s > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(s);
        s = core::mulSaturated(s, sizes[i] ? sizes[i] : 1);
    }
    return strides;
}

uint64_t calcBufferTensorSize(const TensorDesc& desc) {
    if (desc.elementCount() == 0) return 0;
    if (!desc.Strides.empty() && desc.Strides.size() != desc.Sizes.size()) return UINT64_MAX; // malformed
    uint64_t lastIndex = 0; // in 64 bits: packed strides of large tensors do not fit 32
    uint64_t packed = 1;
    for (size_t i = desc.Sizes.size(); i-- > 0;) {
        const uint64_t stride = desc.Strides.empty() ? packed : desc.Strides[i];
        lastIndex = core::addSaturated(lastIndex, core::mulSaturated(desc.Sizes[i] - 1u, stride));
        packed = core::mulSaturated(packed, desc.Sizes[i]);
    }
    const uint64_t bytes = core::mulSaturated(core::addSaturated(lastIndex, 1), elementSize(desc.DataType));
    return bytes > UINT64_MAX - 3 ? UINT64_MAX : (bytes + 3) & ~uint64_t(3);
}

const char* toString(StatusCode code) {
    switch (code) {
    case StatusCode::Ok:
        return "Ok";
    case StatusCode::InvalidArgument:
        return "InvalidArgument";
    case StatusCode::Unsupported:
        return "Unsupported";
    case StatusCode::IndexOutOfRange:
        return "IndexOutOfRange";
    case StatusCode::OutOfMemory:
        return "OutOfMemory";
    case StatusCode::NoDevice:
        return "NoDevice";
    case StatusCode::DeviceLost:
        return "DeviceLost";
    case StatusCode::Timeout:
        return "Timeout";
    case StatusCode::Internal:
        return "Internal";
    }
    return "Unknown";
}

} // namespace ripple
