// SPDX-License-Identifier: MIT
// The validators' and planners' shared rules (core/shape.hpp): a tensor's checks (rank, sizes, strides, type,
// byte extent) with the Status naming the argument, saturating products, and the views kernels read.
#include "core/shape.hpp"

#include <algorithm>

namespace ripple::core {

uint32_t groupsFor(uint64_t work) {
    return groupsFor(work, 256);
}

uint32_t groupsFor(uint64_t work, uint32_t perGroup) {
    const uint64_t groups = (work + perGroup - 1) / perGroup;
    return static_cast<uint32_t>(std::clamp<uint64_t>(groups, 1, 65535));
}

std::string formatSizes(const std::vector<uint32_t>& sizes) {
    std::string s = "{";
    for (size_t i = 0; i < sizes.size(); ++i) s += (i ? "," : "") + std::to_string(sizes[i]);
    return s + "}";
}

const char* typeClass(DataType type) {
    switch (type) {
    case DataType::Float32:
        return "f32";
    case DataType::Float16:
        return "f16";
    case DataType::BFloat16:
        return "bf16";
    case DataType::Int32:
        return "i32";
    case DataType::UInt32:
        return "u32";
    case DataType::Int16:
        return "i16";
    case DataType::UInt16:
        return "u16";
    case DataType::Int8:
        return "i8";
    case DataType::UInt8:
        return "u8";
    case DataType::Float64:
        return "f64";
    case DataType::Int64:
        return "i64";
    default:
        return "u64";
    }
}

uint64_t mulSaturated(uint64_t a, uint64_t b) {
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}
uint64_t addSaturated(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t product(const std::vector<uint32_t>& sizes, size_t begin, size_t end) {
    uint64_t p = 1;
    for (size_t i = begin; i < end && i < sizes.size(); ++i) p = mulSaturated(p, sizes[i]);
    return p;
}

Status invalid(const char* op, const std::string& message) {
    return Status(StatusCode::InvalidArgument, std::string(op) + ": " + message);
}
Status unsupported(const char* op, const std::string& message) {
    return Status(StatusCode::Unsupported, std::string(op) + ": " + message);
}

Status checkTensor(const char* op, const char* name, const TensorDesc& t, bool output,
                   const PlanLimits& limits) {
    std::string n = name;
    if (t.Sizes.empty() || t.Sizes.size() > kMaxDimensionCount)
        return invalid(op, n + ".DimensionCount (" + std::to_string(t.Sizes.size()) + ") must be 1 to 8");
    if (static_cast<uint32_t>(t.DataType) > static_cast<uint32_t>(DataType::BFloat16))
        return invalid(op, n + ".DataType (" + std::to_string(static_cast<uint32_t>(t.DataType)) +
                               ") is not a DataType");
    if (!t.Strides.empty() && t.Strides.size() != t.Sizes.size())
        return invalid(op, n + ".Strides has " + std::to_string(t.Strides.size()) +
                               " entries; it must be empty or have one per size (" +
                               std::to_string(t.Sizes.size()) + ")");
    if (output && !t.Strides.empty() && t.Strides != packedStrides(t.Sizes))
        return unsupported(op,
                           n + ".Strides " + formatSizes(t.Strides) +
                               " are not packed: ripple writes packed outputs only (leave Strides empty)");
    // Kernels index elements and words in 32-bit arithmetic with grid-stride loops; below 2^31 nothing wraps.
    // elementCount() saturates: a product past 2^64 reads UINT64_MAX instead of wrapping to a small count.
    const uint64_t count = t.elementCount();
    if (count > 0x7FFFFFFFull)
        return unsupported(op, n + " has " + (count == UINT64_MAX ? "2^64 or more" : std::to_string(count)) +
                                   " elements (Sizes " + formatSizes(t.Sizes) +
                                   "); at most 2147483647 are supported");
    uint64_t bytes = calcBufferTensorSize(t);
    if (bytes > limits.maxStorageBufferRange)
        return unsupported(op, n + " spans " + std::to_string(bytes) +
                                   " bytes, more than the device's maxStorageBufferRange (" +
                                   std::to_string(limits.maxStorageBufferRange) + ")");
    return {};
}

Status checkType(const char* op, const char* name, const TensorDesc& t,
                 std::initializer_list<DataType> allowed, const char* allowedText) {
    if (std::find(allowed.begin(), allowed.end(), t.DataType) != allowed.end()) return {};
    return invalid(op, std::string(name) + ".DataType (" + toString(t.DataType) + ") must be " + allowedText);
}

Status checkSameRank(const char* op, const char* name, const TensorDesc& t, const TensorDesc& input) {
    if (t.Sizes.size() == input.Sizes.size()) return {};
    return invalid(op, std::string(name) + ".DimensionCount (" + std::to_string(t.Sizes.size()) +
                           ") must equal InputTensor.DimensionCount (" + std::to_string(input.Sizes.size()) +
                           ")");
}

Status checkSameType(const char* op, const char* name, const TensorDesc& t, const TensorDesc& input) {
    if (t.DataType == input.DataType) return {};
    return invalid(op, std::string(name) + ".DataType (" + toString(t.DataType) +
                           ") must equal InputTensor.DataType (" + toString(input.DataType) + ")");
}

Status checkSizes(const char* op, const char* name, const TensorDesc& t,
                  const std::vector<uint32_t>& expected, const char* why) {
    if (t.Sizes == expected) return {};
    return invalid(op, std::string(name) + ".Sizes " + formatSizes(t.Sizes) + " must be " +
                           formatSizes(expected) + " (" + why + ")");
}

std::vector<uint32_t> effectiveStrides(const TensorDesc& t) {
    return t.Strides.empty() ? packedStrides(t.Sizes) : t.Strides;
}

uint32_t appendView(std::vector<uint32_t>& params, uint32_t blockBase, const std::vector<uint32_t>& sizes,
                    const std::vector<uint32_t>& strides) {
    uint32_t at = static_cast<uint32_t>(params.size()) - blockBase;
    params.push_back(static_cast<uint32_t>(sizes.size()));
    for (size_t i = 0; i < 8; ++i) params.push_back(i < sizes.size() ? sizes[i] : 1);
    for (size_t i = 0; i < 8; ++i) params.push_back(i < strides.size() ? strides[i] : 0);
    return at;
}

uint32_t appendPackedView(std::vector<uint32_t>& params, uint32_t blockBase, const TensorDesc& t) {
    const std::vector<uint32_t> strides = effectiveStrides(t);
    if (strides == packedStrides(t.Sizes)) return appendView(params, blockBase, {}, {});
    return appendView(params, blockBase, t.Sizes, strides);
}

} // namespace ripple::core
