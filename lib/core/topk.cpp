// TopK (DML_TOP_K1_OPERATOR_DESC; ONNX TopK): validation and plan.
//
// Strategy (see glsl/topk_*.comp): sort tiles of up to 1024 entries in shared memory, keep each tile's best
// min(K, tile) entries, then merge pairs of runs level by level (each output placed by binary search,
// truncated to K), then emit values and indices. Work is O(n log n) per row whatever K is, every pass is
// parallel over all rows, and non-last axes are read in place through the input's strides.
#include "core/planners.hpp"
#include "core/shape.hpp"

#include <algorithm>

namespace ripple::core {
namespace {

constexpr uint64_t kSlots = 1024; // entries a workgroup sorts in shared memory (topk_tile.comp's SLOTS)

const char* keyClass(DataType type) {
    switch (type) {
    case DataType::Float32:
        return "f32";
    case DataType::Float16:
        return "f16";
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
    case DataType::Int64:
        return "i64";
    default:
        return "u64";
    }
}

uint64_t runCapacity(uint64_t K, uint64_t T, uint32_t level) {
    return std::min<uint64_t>(K, T << level);
}
uint64_t runCount(uint64_t tiles, uint32_t level) {
    return ((tiles - 1) >> level) + 1;
}

} // namespace

Result<Plan> planTopK(const TopKDesc& desc, const PlanLimits& limits) {
    const char* op = "TopK";
    const TensorDesc& in = desc.InputTensor;
    if (Status s = checkTensor(op, "InputTensor", in, false, limits); !s) return s;
    if (Status s = checkTensor(op, "OutputValueTensor", desc.OutputValueTensor, true, limits); !s) return s;
    if (Status s = checkTensor(op, "OutputIndexTensor", desc.OutputIndexTensor, true, limits); !s) return s;
    if (Status s = checkType(op, "InputTensor", in,
                             {DataType::Float32, DataType::Float16, DataType::Int8, DataType::Int16,
                              DataType::Int32, DataType::Int64, DataType::UInt8, DataType::UInt16,
                              DataType::UInt32, DataType::UInt64},
                             "FLOAT32, FLOAT16, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32 or UINT64");
        !s)
        return s;
    if (Status s =
            checkType(op, "OutputIndexTensor", desc.OutputIndexTensor,
                      {DataType::UInt32, DataType::UInt64, DataType::Int64}, "UINT32, UINT64 or INT64");
        !s)
        return s;
    if (Status s = checkSameRank(op, "OutputValueTensor", desc.OutputValueTensor, in); !s) return s;
    if (Status s = checkSameRank(op, "OutputIndexTensor", desc.OutputIndexTensor, in); !s) return s;
    if (Status s = checkSameType(op, "OutputValueTensor", desc.OutputValueTensor, in); !s) return s;
    const uint32_t n = in.dimensionCount();
    if (desc.Axis >= n)
        return invalid(op, "Axis (" + std::to_string(desc.Axis) +
                               ") must be less than InputTensor.DimensionCount (" + std::to_string(n) + ")");
    const uint32_t axisSize = in.Sizes[desc.Axis];
    if (desc.K > axisSize)
        return invalid(op, "K (" + std::to_string(desc.K) + ") exceeds InputTensor.Sizes[" +
                               std::to_string(desc.Axis) + "] (" + std::to_string(axisSize) + ")");
    if (static_cast<uint32_t>(desc.AxisDirection) > 1)
        return invalid(op, "AxisDirection (" + std::to_string(static_cast<uint32_t>(desc.AxisDirection)) +
                               ") must be DECREASING (0) or INCREASING (1)");
    std::vector<uint32_t> outSizes = in.Sizes;
    outSizes[desc.Axis] = desc.K;
    const char* why = "InputTensor.Sizes with Sizes[Axis] = K";
    if (Status s = checkSizes(op, "OutputValueTensor", desc.OutputValueTensor, outSizes, why); !s) return s;
    if (Status s = checkSizes(op, "OutputIndexTensor", desc.OutputIndexTensor, outSizes, why); !s) return s;

    Plan plan;
    plan.op = op;
    plan.tensorNames = {"InputTensor", "OutputValueTensor", "OutputIndexTensor"};
    plan.tensors = {in, desc.OutputValueTensor, desc.OutputIndexTensor};
    plan.firstOutput = 1;
    const uint64_t rows = in.elementCount() / std::max<uint32_t>(axisSize, 1);
    const uint64_t K = desc.K;
    if (K == 0 || rows == 0 || axisSize == 0) return plan;

    uint64_t T = 1, tiles = 1, perGroup = 1;
    if (axisSize <= kSlots) {
        while (T < axisSize) T <<= 1;
        perGroup = kSlots / T;
    } else {
        T = kSlots;
        tiles = (axisSize + T - 1) / T;
    }
    uint32_t log2T = 0;
    while ((1ull << log2T) < T) ++log2T;
    uint32_t levels = 0;
    while ((1ull << levels) < tiles) ++levels;
    const uint64_t totalTiles = rows * tiles;
    const bool wide = elementSize(in.DataType) == 8;
    const uint64_t entryBytes = wide ? 12 : 8;

    // Runs of even levels live in region A, odd levels in region B.
    uint64_t regionEntries[2] = {0, 0};
    for (uint32_t l = 0; l <= levels; ++l)
        regionEntries[l % 2] =
            std::max(regionEntries[l % 2], rows * runCount(tiles, l) * runCapacity(K, T, l));
    const uint64_t bytesA = regionEntries[0] * entryBytes, bytesB = regionEntries[1] * entryBytes;
    if (std::max(bytesA, bytesB) > limits.maxStorageBufferRange || totalTiles > 0xFFFFFFFFull)
        return unsupported(op, "its merge passes need " + std::to_string(std::max(bytesA, bytesB)) +
                                   " bytes of scratch in one binding, more than the device's "
                                   "maxStorageBufferRange (" +
                                   std::to_string(limits.maxStorageBufferRange) + ")");
    const uint64_t offsetB = (bytesA + 255) & ~uint64_t(255);
    plan.scratchBytes = offsetB + bytesB;

    // Params layout documented in glsl/include/ripple/topk.glsl.
    auto& p = plan.params;
    const std::vector<uint32_t> strides = effectiveStrides(in);
    std::vector<uint32_t> rowSizes, rowStrides;
    for (uint32_t d = 0; d < n; ++d)
        if (d != desc.Axis) rowSizes.push_back(in.Sizes[d]), rowStrides.push_back(strides[d]);
    const uint32_t indexWords = elementSize(desc.OutputIndexTensor.DataType) / 4;
    p = {axisSize,
         desc.K,
         static_cast<uint32_t>(desc.AxisDirection),
         static_cast<uint32_t>(T),
         log2T,
         static_cast<uint32_t>(tiles),
         static_cast<uint32_t>(perGroup),
         static_cast<uint32_t>(totalTiles),
         static_cast<uint32_t>(rows),
         strides[desc.Axis],
         static_cast<uint32_t>(product(in.Sizes, desc.Axis + 1, n)),
         indexWords,
         levels};
    appendView(p, 0, rowSizes, rowStrides);

    auto region = [&](uint32_t level) {
        return level % 2 ? PlanBinding{BindingKind::Scratch, 0, offsetB, bytesB}
                         : PlanBinding{BindingKind::Scratch, 0, 0, bytesA};
    };
    const std::string keyw = wide ? "k2" : "k1";
    PlanDispatch tile;
    tile.kernel = std::string("topk_tile.") + keyClass(in.DataType);
    tile.bindings = {{BindingKind::Params}, {BindingKind::Tensor, 0}, region(0)};
    tile.groups = static_cast<uint32_t>(std::min<uint64_t>((totalTiles + perGroup - 1) / perGroup, 65535));
    plan.dispatches.push_back(tile);
    for (uint32_t l = 0; l < levels; ++l) {
        PlanDispatch merge;
        merge.kernel = "topk_merge." + keyw;
        merge.bindings = {{BindingKind::Params}, region(l), region(l + 1)};
        merge.arg = l;
        merge.groups = groupsFor(rows * runCount(tiles, l) * runCapacity(K, T, l));
        plan.dispatches.push_back(merge);
    }
    PlanDispatch emit;
    emit.kernel = std::string("topk_emit.") + elementClass(in.DataType) + "." + keyw;
    emit.bindings = {{BindingKind::Params},
                     {BindingKind::Tensor, 0},
                     region(levels),
                     {BindingKind::Tensor, 1},
                     {BindingKind::Tensor, 2}};
    emit.groups = groupsFor(rows * K);
    plan.dispatches.push_back(emit);
    return plan;
}

} // namespace ripple::core
