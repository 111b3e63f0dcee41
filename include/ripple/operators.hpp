// SPDX-License-Identifier: MIT
/// @file
/// @brief Operator descriptions with DirectML's fields: ScatterND, ScatterElements, TopK.
///
/// Semantics: docs/SEMANTICS.md, which follows DirectML's pages DML_SCATTER_ND_OPERATOR_DESC,
/// DML_SCATTER_OPERATOR_DESC and DML_TOP_K1_OPERATOR_DESC, plus ripple's documented additions (empty
/// tensors, K = 0, NaN and -0.0 order, out-of-range indices, reductions, the deterministic mode). Tensors are
/// bound in the order their fields are declared here (Operator::tensorNames()). A desc is a plain value:
/// Device::compile validates it and returns InvalidArgument naming the tensor, field and rule broken, or
/// Unsupported naming the device feature missing.
#pragma once

#include "ripple/tensor.hpp"

namespace ripple {

/// ripple's addition: the reductions of ONNX ScatterND-18 / ScatterElements-18 (their `reduction`
/// attribute). None (the default) is DirectML's behaviour: each update is written, and one of several for
/// the same target wins. Add, Mul, Max, Min: every update is combined with its target, duplicates included,
/// atomically. Integers wrap; FLOAT16 and BFLOAT16 round to nearest even after every update; float Max/Min
/// count +0.0 above -0.0 and a NaN operand gives NaN. Float Add/Mul of duplicates combine in no fixed order
/// (results may differ in the last place from run to run) unless the desc's Deterministic is set; some
/// paths also group them differently from one by one: FLOAT32 Add into at most 4096 output elements sums
/// each workgroup's share first, and along the last axis a line's updates are combined in shared memory
/// before the line is stored (exact sums are unchanged; others may differ in the last place).
/// 64-bit types need shaderInt64 and shaderBufferInt64Atomics, FLOAT64 also shaderFloat64 (else
/// StatusCode::Unsupported at compile).
enum class ScatterReduction : uint32_t {
    None, ///< overwrite (DirectML)
    Add,  ///< target += update
    Mul,  ///< target *= update
    Max,  ///< target = max(target, update)
    Min,  ///< target = min(target, update)
};

/// ScatterND: `output = input; output[indices[i...]] = updates[i...]`, each index tuple selecting a slice
/// of the input's trailing dimensions. (DirectML: DML_SCATTER_ND_OPERATOR_DESC; ONNX: ScatterND.)
///
/// - All four tensors have the same DimensionCount (1..8); shapes are right-aligned with leading 1s.
/// - IndicesTensor: INT32, INT64, UINT32 or UINT64; its last size q (0 <= q <= InputDimensionCount) is the
///   index tuple length. Negative indices count from the end. Out-of-range tuples are dropped and reported
///   as StatusCode::IndexOutOfRange when the run completes; nothing outside OutputTensor is ever written.
///   q = 0 (ONNX ScatterND-18, a ripple addition): every update addresses the whole tensor; IndicesTensor
///   then has no elements and needs no Buffer.
/// - UpdatesTensor.Sizes = leading 1s, IndicesTensor's meaningful sizes without the last, then the input's
///   trailing InputDimensionCount - q sizes. Same data type as InputTensor (any DataType).
/// - OutputTensor: InputTensor's sizes and data type, packed (no Strides).
/// - Duplicate tuples: one of the colliding updates wins, whole; every other element is exact. With a
///   Reduction other than None all of them are combined; with Deterministic, in IndicesTensor's row-major
///   order (the last one wins).
/// - In place (ripple's addition): bind OutputTensor to exactly InputTensor's range (same Buffer and
///   Offset, InputTensor packed): only the updates are written (see Device::execute).
struct ScatterNDDesc {
    TensorDesc InputTensor;             ///< the tensor scattered into (any data type, may be strided)
    TensorDesc IndicesTensor;           ///< index tuples: INT32, INT64, UINT32 or UINT64, last size q
    TensorDesc UpdatesTensor;           ///< the values written (InputTensor's data type, may be strided)
    TensorDesc OutputTensor;            ///< the result: InputTensor's sizes and type, packed
    uint32_t InputDimensionCount = 0;   ///< meaningful trailing ranks of InputTensor (1..DimensionCount)
    uint32_t IndicesDimensionCount = 0; ///< meaningful trailing ranks of IndicesTensor (1..DimensionCount)
    ScatterReduction Reduction = ScatterReduction::None; ///< ripple's addition: how duplicates combine
    /// ripple's addition: apply every update in IndicesTensor's row-major order (index tuple order), on every
    /// device and back-end, so results are the same bits from run to run: with None the last duplicate wins;
    /// with Add/Mul/Max/Min each target is folded from its input value through its updates in that order
    /// (float sums and products included). Cost: the updates are sorted by target first (a radix sort of 8
    /// bytes per update) and each target's updates are applied by one invocation in turn; scratch 16 bytes
    /// per index tuple; on an H100 about as fast as the atomic path for 65536 rows of 256 elements.
    bool Deterministic = false;
    /// ripple's addition: an optional GPU-side count, read when the run executes (no host round trip).
    /// Absent when Sizes is empty (the default). Else one UINT32 element (every size 1, DimensionCount
    /// 1..8): only the first N update rows are applied, a row being an index tuple with its slice of
    /// UpdatesTensor (N counts tuples in IndicesTensor's row-major order); the others are neither
    /// applied nor checked. N over the rows the operator has applies them all and reports
    /// StatusCode::InvalidArgument ("clamped") when the run completes. docs/SEMANTICS.md "GPU-side counts".
    TensorDesc CountTensor;
};

/// ScatterElements: `output = input; output[i0,..,indices[i0,..,in],..,in] = updates[i0,..,in]`, the index
/// replacing the coordinate at Axis. (DirectML: DML_SCATTER_OPERATOR_DESC, a.k.a.
/// DML_SCATTER_ELEMENTS_OPERATOR_DESC; ONNX: ScatterElements.)
///
/// - All four tensors have the same DimensionCount (1..8); Axis < DimensionCount.
/// - IndicesTensor and UpdatesTensor have the same sizes, each no larger than InputTensor's off Axis.
/// - Index types, negative and out-of-range indices, duplicates, reductions and in place: as ScatterNDDesc.
/// - OutputTensor: InputTensor's sizes and data type, packed (no Strides).
struct ScatterElementsDesc {
    TensorDesc InputTensor;   ///< the tensor scattered into (any data type, may be strided)
    TensorDesc IndicesTensor; ///< one index per update: INT32, INT64, UINT32 or UINT64
    TensorDesc UpdatesTensor; ///< the values written: IndicesTensor's sizes, InputTensor's data type
    TensorDesc OutputTensor;  ///< the result: InputTensor's sizes and type, packed
    uint32_t Axis = 0;        ///< the dimension the indices select along (< DimensionCount)
    ScatterReduction Reduction = ScatterReduction::None; ///< ripple's addition: how duplicates combine
    /// ripple's addition: apply duplicates in IndicesTensor's row-major order, as
    /// ScatterNDDesc::Deterministic.
    bool Deterministic = false;
    /// ripple's addition: an optional GPU-side count, read when the run executes (no host round trip).
    /// Absent when Sizes is empty (the default). Else one UINT32 element (every size 1, DimensionCount
    /// 1..8): only the first N update rows are applied, a row being one element of IndicesTensor and
    /// UpdatesTensor (N counts elements in their row-major order); the others are neither
    /// applied nor checked. N over the rows the operator has applies them all and reports
    /// StatusCode::InvalidArgument ("clamped") when the run completes. docs/SEMANTICS.md "GPU-side counts".
    TensorDesc CountTensor;
};

/// DirectML's DML_AXIS_DIRECTION: which end of each sequence TopK selects.
enum class AxisDirection : uint32_t {
    Decreasing = 0, ///< the K largest, sorted descending
    Increasing = 1, ///< the K smallest, sorted ascending
};

/// TopK: the K largest or smallest elements of every sequence along Axis, with their indices.
/// (DirectML: DML_TOP_K1_OPERATOR_DESC; ONNX: TopK-11 with `sorted = 1`.)
///
/// - InputTensor: FLOAT32, FLOAT16, BFLOAT16, INT8..INT64, UINT8..UINT64 (not FLOAT64), 1..8 dimensions,
///   optional Strides.
/// - OutputValueTensor / OutputIndexTensor: InputTensor's sizes with Sizes[Axis] = K, packed. Values keep
///   the input's type; indices are UINT32, UINT64 or INT64 and count from the sequence's start.
/// - 0 <= K <= Sizes[Axis]; K = 0 gives empty outputs.
/// - Output sorted; ties by ascending index in both directions; -0.0 == +0.0; NaN ranks above +inf.
struct TopKDesc {
    TensorDesc InputTensor;       ///< the values to select from (may be strided)
    TensorDesc OutputValueTensor; ///< the selected values: InputTensor's type, Sizes[Axis] = K, packed
    TensorDesc OutputIndexTensor; ///< their positions along Axis: UINT32, UINT64 or INT64, packed
    uint32_t Axis = 0;            ///< the dimension whose sequences are selected from (< DimensionCount)
    uint32_t K = 0;               ///< how many to select from each sequence (0..Sizes[Axis])
    ripple::AxisDirection AxisDirection = ripple::AxisDirection::Decreasing; ///< largest or smallest
    /// ripple's addition: an optional GPU-side count, read when the run executes (no host round trip).
    /// Absent when Sizes is empty (the default). Else one UINT32 element N (every size 1, DimensionCount
    /// 1..8), bound after OutputIndexTensor: only the first N elements of each sequence are present. The
    /// outputs' first min(N, K) positions hold their top values; each position j past N holds index j and
    /// the direction's last-ranked value (DECREASING: -inf, or the type's least; INCREASING: the NaN
    /// 0x7FC00000 / 0x7E00 / 0x7FC0, or the type's greatest). N over Sizes[Axis] counts as Sizes[Axis]
    /// and is reported as StatusCode::InvalidArgument ("clamped") when the run completes. Cost: a packed
    /// copy of InputTensor in scratch, written first. docs/SEMANTICS.md "GPU-side counts".
    TensorDesc CountTensor;
};

} // namespace ripple
