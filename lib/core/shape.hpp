// SPDX-License-Identifier: MIT
// Shape and tensor helpers shared by the planners and validators.
#pragma once

#include "core/plan.hpp"
#include "ripple/status.hpp"
#include "ripple/tensor.hpp"

#include <initializer_list>
#include <string>
#include <vector>

namespace ripple::core {

std::string formatSizes(const std::vector<uint32_t>& sizes); // "{1,2,3}"
// The DTYPE axis value of every per-type kernel variant (TopK's keys, the scatters' reductions): "f32",
// "f16", "bf16", "f64", "i32", "u32", "i16", "u16", "i8", "u8", "i64", "u64".
const char* typeClass(DataType type);
// Products and sums of sizes saturate at UINT64_MAX instead of wrapping, so an overflowing tensor fails the
// size rules (checkTensor) rather than passing as a small one.
uint64_t mulSaturated(uint64_t a, uint64_t b);
uint64_t addSaturated(uint64_t a, uint64_t b);
uint64_t product(const std::vector<uint32_t>& sizes, size_t begin, size_t end); // of sizes[begin, end)

Status invalid(const char* op, const std::string& message);     // InvalidArgument "<op>: <message>"
Status unsupported(const char* op, const std::string& message); // Unsupported "<op>: <message>"

// The rules every tensor follows: 1..8 dims, Strides empty or one per size, a byte size within the device's
// maxStorageBufferRange, fewer than 2^31 elements. `output`: must be packed (no broadcast, no strides).
Status checkTensor(const char* op, const char* name, const TensorDesc& t, bool output,
                   const PlanLimits& limits);
Status checkType(const char* op, const char* name, const TensorDesc& t,
                 std::initializer_list<DataType> allowed, const char* allowedText);
Status checkSameRank(const char* op, const char* name, const TensorDesc& t, const TensorDesc& input);
Status checkSameType(const char* op, const char* name, const TensorDesc& t, const TensorDesc& input);
Status checkSizes(const char* op, const char* name, const TensorDesc& t,
                  const std::vector<uint32_t>& expected, const char* why);

// Appends a tensor view [rank, sizes[8], strides[8]] to params; returns its offset in the block.
uint32_t appendView(std::vector<uint32_t>& params, uint32_t blockBase, const std::vector<uint32_t>& sizes,
                    const std::vector<uint32_t>& strides);
std::vector<uint32_t> effectiveStrides(const TensorDesc& t);
// As appendView, but a packed tensor's view gets rank 0, which viewOffset (glsl/include/ripple/common.glsl)
// maps to the element's own position without dividing by each size.
uint32_t appendPackedView(std::vector<uint32_t>& params, uint32_t blockBase, const TensorDesc& t);

} // namespace ripple::core
