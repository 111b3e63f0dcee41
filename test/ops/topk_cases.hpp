// SPDX-License-Identifier: MIT
// Shared by the TopK tests: type lists, the run of one case against the CPU reference, input data for the
// selection strategies and the layout sweep.
#pragma once

#include "core/planners.hpp"
#include "support/gpu.hpp"
#include "support/parts.hpp"
#include "support/reference.hpp"

#include <catch2/catch.hpp>

namespace tk {

using namespace ripple;

inline const DataType kTypes[] = {DataType::Float32, DataType::Float16, DataType::BFloat16, DataType::Int32,
                                  DataType::UInt32,  DataType::Int16,   DataType::UInt16,   DataType::Int8,
                                  DataType::UInt8,   DataType::Int64,   DataType::UInt64};

// The types of the 32-bit-key strategies (row, chunk and sampled selection).
inline const DataType kTypes32[] = {DataType::Float32, DataType::Float16, DataType::BFloat16,
                                    DataType::Int32,   DataType::UInt32,  DataType::Int16,
                                    DataType::UInt16,  DataType::Int8,    DataType::UInt8};

// A test input's shape: sizes, strides (empty: packed) and the TopK axis.
struct Layout {
    std::vector<uint32_t> sizes;
    std::vector<uint32_t> strides;
    uint32_t axis;
};

inline std::vector<uint8_t> meaningful(std::vector<uint8_t> bytes, const TensorDesc& d) {
    bytes.resize(d.elementCount() * elementSize(d.DataType));
    return bytes;
}

// TopK of `input` along `axis`: packed outputs of the input's type and of `indexType`.
inline TopKDesc makeTopKDesc(const TensorDesc& input, uint32_t axis, uint32_t k,
                             AxisDirection direction = AxisDirection::Decreasing,
                             DataType indexType = DataType::UInt32) {
    TopKDesc desc;
    desc.InputTensor = input;
    desc.Axis = axis;
    desc.K = k;
    desc.AxisDirection = direction;
    std::vector<uint32_t> outSizes = input.Sizes;
    outSizes[axis] = k;
    desc.OutputValueTensor = {input.DataType, outSizes, {}};
    desc.OutputIndexTensor = {indexType, outSizes, {}};
    return desc;
}

// The kernels of the plan for `desc` on the planner's default limits (a full device's), with the tests'
// switches applied, in dispatch order.
inline std::string plannedKernels(const TopKDesc& desc) {
    auto plan = core::planTopK(desc, core::PlanLimits{});
    if (!plan.ok()) return "(no plan: " + std::string(plan.status().message()) + ")";
    std::string names;
    for (const core::PlanDispatch& d : plan->dispatches) names += (names.empty() ? "" : " ") + d.kernel;
    return names;
}

// Requires that the plan for `desc` runs a kernel whose name starts with `prefix` (a strategy's kernel,
// e.g. "topk_lane_group."): a case that the planner sends to another strategy tests nothing of the one
// its test names (the lane group's test once named rows that went to topk_row).
inline void requireStrategy(const TopKDesc& desc, const std::string& prefix) {
    const std::string names = plannedKernels(desc);
    INFO("TopK input " << rt::describe(desc.InputTensor) << " axis " << desc.Axis << " K " << desc.K
                       << " plans " << names << ", not " << prefix);
    REQUIRE((" " + names).find(" " + prefix) != std::string::npos);
}

// Runs one TopK case on `dev` and compares values and indices bit for bit with the reference.
inline void checkTopK(Device& dev, const rt::HostTensor& input, uint32_t axis, uint32_t k,
                      AxisDirection direction, DataType indexType) {
    const TopKDesc desc = makeTopKDesc(input.desc, axis, k, direction, indexType);
    INFO("TopK input " << rt::describe(input.desc) << " axis " << axis << " K " << k << " "
                       << (direction == AxisDirection::Decreasing ? "DECREASING" : "INCREASING")
                       << " indices " << toString(indexType));
    auto op = dev.compile(desc);
    INFO(op.status().message());
    REQUIRE(op.ok());
    rt::GpuResult r =
        rt::runOnGpu(dev, op.value(), {&input}, {desc.OutputValueTensor, desc.OutputIndexTensor});
    INFO(r.status.message());
    REQUIRE(r.status.ok());
    std::vector<uint8_t> values, indices;
    rt::referenceTopK(desc, input, values, indices);
    INFO("values: " << rt::firstDifference(meaningful(r.outputs[0], desc.OutputValueTensor),
                                           meaningful(values, desc.OutputValueTensor),
                                           elementSize(input.desc.DataType)));
    CHECK(meaningful(r.outputs[0], desc.OutputValueTensor) == meaningful(values, desc.OutputValueTensor));
    INFO("indices: " << rt::firstDifference(meaningful(r.outputs[1], desc.OutputIndexTensor),
                                            meaningful(indices, desc.OutputIndexTensor),
                                            elementSize(indexType)));
    CHECK(meaningful(r.outputs[1], desc.OutputIndexTensor) == meaningful(indices, desc.OutputIndexTensor));
}

// Input data for the selection strategies. Narrow: values within a few hundred units in the last place of
// one another, so they share the key's upper digits (sampled selection's candidate lists overflow).
enum class Data { Random, Ties, Special, AllEqual, TwoValued, Narrow };
inline const Data kAllData[] = {Data::Random,   Data::Ties,      Data::Special,
                                Data::AllEqual, Data::TwoValued, Data::Narrow};

inline void fillData(rt::HostTensor& input, std::mt19937& rng, Data how) {
    const DataType type = input.desc.DataType;
    rt::fill(input, rng,
             how == Data::Special  ? rt::Fill::Special
             : how == Data::Random ? rt::Fill::Random
                                   : rt::Fill::Ties);
    if (how == Data::AllEqual || how == Data::TwoValued) {
        // A one-element tensor has no second value: TwoValued is then AllEqual.
        const uint64_t a = input.bits(0), b = input.count() > 1 ? input.bits(1) : a;
        for (uint64_t i = 0, n = input.count(); i < n; ++i)
            input.setBits(i, how == Data::AllEqual || (rng() & 1) ? a : b);
    }
    if (how == Data::Narrow) {
        const uint64_t base = type == DataType::Float32   ? 0x3F800000u // 1.0
                              : type == DataType::Float16 ? 0x3C00u     // 1.0
                                                          : 0x20u;
        const uint32_t span = elementSize(type) == 1 ? 50 : 700;
        for (uint64_t i = 0, n = input.count(); i < n; ++i) input.setBits(i, base + rng() % span);
    }
}

// Tests only: plans without the one-dispatch chunk strategy while alive (sampled selection instead).
struct WithoutChunks {
    WithoutChunks() { core::chunkDisabledForTests = true; }
    ~WithoutChunks() { core::chunkDisabledForTests = false; }
};

// Tests only: plans without rank counting while alive (the lane and tile strategies on short rows).
struct WithoutRank {
    WithoutRank() { core::rankDisabledForTests = true; }
    ~WithoutRank() { core::rankDisabledForTests = false; }
};

// Tests only: plans the direct lanes (topk_lane) for rows of neighbouring elements too while alive, not
// the staged ones (topk_lane_staged).
struct WithoutStagedLanes {
    WithoutStagedLanes() { core::laneStagedDisabledForTests = true; }
    ~WithoutStagedLanes() { core::laneStagedDisabledForTests = false; }
};

// Tests only: plans the strided rows that lanes take (K <= 16, types up to 32 bits) as a row's parts in one
// workgroup (topk_lane_group) wherever it can, up to this many parts where rows allow, while alive.
struct WithLaneGroup {
    explicit WithLaneGroup(uint64_t parts) { core::laneGroupPartsForTests = parts; }
    ~WithLaneGroup() { core::laneGroupPartsForTests = 0; }
};

// Tests only: plans strided rows that the lane group would take for topk_lane while alive.
struct WithoutLaneGroup {
    WithoutLaneGroup() { core::laneGroupDisabledForTests = true; }
    ~WithoutLaneGroup() { core::laneGroupDisabledForTests = false; }
};

// Tests only: contiguous 32-bit rows of whole 16-byte quads read directly (topk_lane, true) or through
// shared memory (topk_lane_staged, false) whatever their length and K, while alive.
struct WithDirectQuads {
    explicit WithDirectQuads(bool direct) { core::laneDirectQuadsForTests = direct ? 1 : 0; }
    ~WithDirectQuads() { core::laneDirectQuadsForTests = -1; }
};

// One strategy's test: every layout x 32-bit-key type x data kind, with the default kernels and the
// portable ones (once where they are the same: rt::kernelPreferences()). skip(layout, pref, data) leaves a
// combination out (it may draw from rng); pickK(n) draws K for rows of n; the direction is drawn too. With a
// part, only that part's combinations (support/parts.hpp). With a strategy, every case's plan must run a
// kernel of that prefix (requireStrategy).
template <typename Skip, typename PickK>
void checkLayouts(std::initializer_list<Layout> layouts, std::mt19937& rng, Skip skip, PickK pickK,
                  rt::Part* part = nullptr, const char* strategy = nullptr) {
    for (KernelPreference pref : rt::kernelPreferences()) {
        for (const Layout& c : layouts) {
            for (DataType type : kTypes32) {
                for (Data how : kAllData) {
                    if (part && !part->take()) continue;
                    if (skip(c, pref, how)) continue;
                    rt::HostTensor input(type, c.sizes, c.strides);
                    fillData(input, rng, how);
                    const uint32_t k = pickK(c.sizes[c.axis]);
                    const auto dir = rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing;
                    if (strategy) requireStrategy(makeTopKDesc(input.desc, c.axis, k, dir), strategy);
                    checkTopK(rt::device(pref), input, c.axis, k, dir, DataType::UInt32);
                }
            }
        }
    }
}

} // namespace tk
