// SPDX-License-Identifier: MIT
// Operator descriptions with DirectML's fields. Semantics: docs/SEMANTICS.md (DirectML's pages
// DML_SCATTER_ND_OPERATOR_DESC, DML_SCATTER_OPERATOR_DESC, DML_TOP_K1_OPERATOR_DESC, plus ripple's
// documented additions). Tensors are bound in the order their fields are declared here.
#pragma once

#include "ripple/tensor.hpp"

namespace ripple {

// ripple's addition: the reductions of ONNX ScatterND-18 / ScatterElements-18 (`reduction`). None (the
// default, DirectML's behaviour): each update is written, one of several for the same target wins. Add,
// Mul, Max, Min: every update is combined with its target, duplicates included, atomically. Integers wrap;
// FLOAT16 and BFLOAT16 round to nearest even after every update; float Max/Min count +0.0 above -0.0 and
// a NaN operand gives NaN. Float Add/Mul of duplicates combine in no fixed order (results may differ in
// the last place from run to run). 64-bit types need shaderInt64 and shaderBufferInt64Atomics, FLOAT64
// also shaderFloat64 (else StatusCode::Unsupported at compile).
enum class ScatterReduction : uint32_t { None, Add, Mul, Max, Min };

// ripple's addition: the scatters' `Deterministic` mode. Off (the default): duplicates are applied in
// whatever order the device runs them. On: every update is applied in IndicesTensor's row-major order
// (ScatterND: index tuple order), on every device and back-end, so results are the same bits from run to
// run: with None the last duplicate wins; with Add/Mul/Max/Min each target is folded from its input value
// through its updates in that order (float sums and products included). Cost: the updates are sorted by
// target first (a radix sort of 8 bytes per update, one pass per 8 bits of the target count) and each
// target's updates are applied by one invocation in turn; scratch 16 bytes per update (ScatterND: per index
// tuple). docs/SEMANTICS.md; H100 timings in bench/NOTES.md "Scatter deterministic".

// output = input; output[indices[...]] = updates[...]   (DML_SCATTER_ND_OPERATOR_DESC)
// - All four tensors have the same DimensionCount (1..8); shapes are right-aligned with leading 1s.
// - IndicesTensor: INT32, INT64, UINT32 or UINT64; its last size q (1 <= q <= InputDimensionCount) is
//   the index tuple length. Negative indices count from the end. Out-of-range tuples are dropped and
//   reported as StatusCode::IndexOutOfRange when the run completes.
// - UpdatesTensor.Sizes = leading 1s, IndicesTensor's meaningful sizes without the last, then the input's
//   trailing InputDimensionCount - q sizes. Same data type as InputTensor (any of the 11).
// - OutputTensor: InputTensor's sizes and data type, packed (no Strides).
// - Duplicate tuples: one of the colliding updates wins, whole; every other element is exact. With a
//   Reduction other than None, all of them are combined (ScatterReduction). With Deterministic, in
//   IndicesTensor's row-major order (the last one wins).
// - In place (ripple's addition): bind OutputTensor to exactly InputTensor's range (InputTensor packed):
//   only the updates are written (Device::execute).
struct ScatterNDDesc {
    TensorDesc InputTensor;
    TensorDesc IndicesTensor;
    TensorDesc UpdatesTensor;
    TensorDesc OutputTensor;
    uint32_t InputDimensionCount = 0;   // meaningful trailing ranks of InputTensor (1..DimensionCount)
    uint32_t IndicesDimensionCount = 0; // meaningful trailing ranks of IndicesTensor (1..DimensionCount)
    ScatterReduction Reduction = ScatterReduction::None;
    // ripple's addition: apply duplicates in IndicesTensor's row-major order (see "Deterministic" above).
    bool Deterministic = false;
};

// output = input; output[i0,..,indices[i0,..,in],..,in] = updates[i0,..,in], the index at Axis.
// (DML_SCATTER_OPERATOR_DESC, a.k.a. DML_SCATTER_ELEMENTS_OPERATOR_DESC; ONNX ScatterElements)
// - All four tensors have the same DimensionCount (1..8); Axis < DimensionCount.
// - IndicesTensor and UpdatesTensor have the same sizes, each no larger than InputTensor's off Axis.
// - Index types, negative and out-of-range indices, duplicates: as ScatterND.
// - OutputTensor: InputTensor's sizes and data type, packed (no Strides).
struct ScatterElementsDesc {
    TensorDesc InputTensor;
    TensorDesc IndicesTensor;
    TensorDesc UpdatesTensor;
    TensorDesc OutputTensor;
    uint32_t Axis = 0;
    ScatterReduction Reduction = ScatterReduction::None;
    bool Deterministic = false; // ripple's addition, as ScatterNDDesc's
};

// DML_AXIS_DIRECTION: Decreasing selects the largest K (sorted descending), Increasing the smallest K
// (sorted ascending).
enum class AxisDirection : uint32_t { Decreasing = 0, Increasing = 1 };

// The K largest or smallest elements of every sequence along Axis. (DML_TOP_K1_OPERATOR_DESC)
// - InputTensor: FLOAT32, FLOAT16, INT8..INT64, UINT8..UINT64, 1..8 dimensions, optional Strides.
// - OutputValueTensor / OutputIndexTensor: InputTensor's sizes with Sizes[Axis] = K, packed. Values
//   keep the input's type; indices are UINT32, UINT64 or INT64 and count from the sequence start.
// - 0 <= K <= Sizes[Axis]; K = 0 gives empty outputs.
// - Output sorted; ties by ascending index in both directions; -0.0 == +0.0; NaN ranks above +inf.
struct TopKDesc {
    TensorDesc InputTensor;
    TensorDesc OutputValueTensor;
    TensorDesc OutputIndexTensor;
    uint32_t Axis = 0;
    uint32_t K = 0;
    ripple::AxisDirection AxisDirection = ripple::AxisDirection::Decreasing;
};

} // namespace ripple
