// SPDX-License-Identifier: MIT
// ScatterElements on the device against the CPU reference, and duplicate targets.
#include "scatter_cases.hpp"
#include "support/parts.hpp"

using namespace ripple;
using namespace sc;

namespace {

// indices: for every line along the axis, distinct positions (a shuffled prefix of 0..input axis size).
void distinctAlongAxis(rt::HostTensor& indices, const std::vector<uint32_t>& input, uint32_t axis,
                       std::mt19937& rng) {
    const auto& s = indices.desc.Sizes;
    uint64_t inner = 1, outer = 1;
    for (size_t d = axis + 1; d < s.size(); ++d) inner *= s[d];
    for (size_t d = 0; d < axis; ++d) outer *= s[d];
    std::vector<uint32_t> perm(input[axis]);
    for (uint64_t o = 0; o < outer; ++o) {
        for (uint64_t i = 0; i < inner; ++i) {
            std::iota(perm.begin(), perm.end(), 0u);
            std::shuffle(perm.begin(), perm.end(), rng);
            for (uint32_t j = 0; j < s[axis]; ++j)
                putIndex(indices, (o * s[axis] + j) * inner + i, perm[j], input[axis], rng);
        }
    }
}

void checkScatterElements(Device& dev, DataType type, DataType indexType, const std::vector<uint32_t>& input,
                          const std::vector<uint32_t>& idx, uint32_t axis, bool strided, std::mt19937& rng) {
    ScatterElementsDesc desc;
    desc.InputTensor = desc.OutputTensor = {type, input, {}};
    desc.IndicesTensor = {indexType, idx, {}};
    desc.UpdatesTensor = {type, idx, {}};
    desc.Axis = axis;
    if (strided) { // updates transposed in memory (last two dims swapped), indices with row padding
        std::vector<uint32_t> us = ripple::packedStrides(idx);
        if (idx.size() >= 2) {
            const size_t a = idx.size() - 2, b = idx.size() - 1;
            us[a] = 1;      // column-major inside the last two dims;
            us[b] = idx[a]; // the outer dims keep their packed strides
        }
        desc.UpdatesTensor.Strides = us;
        std::vector<uint32_t> is(idx.size());
        uint32_t st = 1;
        for (size_t d = idx.size(); d-- > 0;) is[d] = st, st *= idx[d] + 2;
        desc.IndicesTensor.Strides = is;
    }
    rt::HostTensor in(type, input), ind(indexType, idx, desc.IndicesTensor.Strides),
        upd(type, idx, desc.UpdatesTensor.Strides);
    rt::fill(in, rng, rt::Fill::Special);
    rt::fill(upd, rng, rt::Fill::Random);
    rt::fill(ind, rng, rt::Fill::Random);
    distinctAlongAxis(ind, input, axis, rng);
    INFO("ScatterElements input " << rt::describe(desc.InputTensor) << " indices "
                                  << rt::describe(desc.IndicesTensor) << " updates "
                                  << rt::describe(desc.UpdatesTensor) << " axis " << axis);
    auto op = dev.compile(desc);
    if (noD3D12Form(op, type)) return;
    INFO(op.status().message());
    REQUIRE(op.ok());
    rt::GpuResult r = rt::runOnGpu(dev, op.value(), {&in, &ind, &upd}, {desc.OutputTensor});
    INFO(r.status.message());
    REQUIRE(r.status.ok());
    int outOfRange = 0;
    compareOutput(r, rt::referenceScatterElements(desc, in, ind, upd, &outOfRange), desc.OutputTensor);
    CHECK(outOfRange == 0);
}

struct ECase {
    std::vector<uint32_t> input, indices;
    uint32_t axis;
};
const ECase kCases[] = {
    {{1}, {1}, 0},
    {{7}, {3}, 0},
    {{3, 3}, {2, 3}, 0},
    {{3, 33}, {3, 7}, 1},
    {{5, 4, 7}, {2, 3, 7}, 1}, // non-axis sizes smaller than the input's (ONNX Runtime allows it)
    {{2, 3, 4, 5}, {2, 3, 4, 5}, 3},
    {{1, 2, 1, 3, 1, 2, 1, 5}, {1, 2, 1, 3, 1, 2, 1, 4}, 7},
    {{1000}, {33}, 0},
    // Along the last axis with lines of whole 16-byte blocks up to 16 KiB, elements up to 32 bits: the fused
    // copy-and-scatter pass (glsl/scatter_elements_rows.comp) for some types; leading sizes smaller than the
    // input's; more lines than workgroups; a 16 KiB FLOAT32 line.
    {{3, 5, 1024}, {2, 4, 100}, 2},
    {{70000, 4}, {70000, 2}, 1},
    {{4, 4096}, {4, 4096}, 1},
    {{2, 4100}, {2, 7}, 1},
};

void everyType(rt::Part& part) {
    std::mt19937 rng(11);
    for (DataType type : kDataTypes)
        for (DataType indexType : kIndexTypes)
            for (const ECase& c : kCases)
                if (part.take())
                    checkScatterElements(rt::device(), type, indexType, c.input, c.indices, c.axis, false,
                                         rng);
}

} // namespace

RIPPLE_TEST_PARTS_6(everyType, "ScatterElements matches the reference for every data type and index type",
                    "[scatter_elements][gpu][exhaustive]")

TEST_CASE("ScatterElements reads strided indices and updates", "[scatter_elements][gpu]") {
    std::mt19937 rng(12);
    for (DataType type : {DataType::Int8, DataType::UInt16, DataType::Float32, DataType::UInt64})
        for (const ECase& c : kCases)
            checkScatterElements(rt::device(), type, DataType::Int64, c.input, c.indices, c.axis, true, rng);
}

TEST_CASE("ScatterElements with the portable kernels", "[scatter_elements][gpu][portable]") {
    std::mt19937 rng(13);
    for (DataType type : kDataTypes)
        for (const ECase& c : kCases)
            checkScatterElements(rt::device(KernelPreference::Portable), type, DataType::Int32, c.input,
                                 c.indices, c.axis, false, rng);
}

TEST_CASE("Colliding 8/16-bit scatters leave one whole update and never disturb neighbours",
          "[scatter_elements][gpu]") {
    std::mt19937 rng(14);
    for (KernelPreference pref : rt::kernelPreferences()) {
        for (DataType type :
             {DataType::UInt8, DataType::Int16, DataType::Float16, DataType::BFloat16, DataType::Int64}) {
            // 4096 updates into the even elements of a 64-element row: every target hit 128 times, while
            // the odd neighbours, sharing their 32-bit words, must keep the input's bits.
            ScatterElementsDesc desc;
            desc.InputTensor = desc.OutputTensor = {type, {64}, {}};
            desc.IndicesTensor = {DataType::UInt32, {4096}, {}};
            desc.UpdatesTensor = {type, {4096}, {}};
            rt::HostTensor in(type, {64}), ind(DataType::UInt32, {4096}), upd(type, {4096});
            rt::fill(in, rng, rt::Fill::Random);
            rt::fill(upd, rng, rt::Fill::Random);
            for (uint64_t i = 0; i < 4096; ++i) ind.setBits(i, (rng() % 32) * 2);
            auto op = rt::device(pref).compile(desc);
            if (noD3D12Form(op, type)) continue;
            REQUIRE(op.ok());
            rt::GpuResult r =
                rt::runOnGpu(rt::device(pref), op.value(), {&in, &ind, &upd}, {desc.OutputTensor});
            REQUIRE(r.status.ok());
            auto targets = rt::scatterTargets(desc, ind);
            const uint32_t size = elementSize(type);
            for (uint64_t e = 0; e < 64; ++e) {
                uint64_t got = 0;
                std::memcpy(&got, r.outputs[0].data() + e * size, size);
                INFO(toString(type) << " element " << e);
                if (targets[e].empty()) {
                    CHECK(got == in.bits(e));
                } else {
                    bool isOneOfThem = false;
                    for (uint64_t u : targets[e]) isOneOfThem |= got == upd.bits(u);
                    CHECK(isOneOfThem);
                }
            }
        }
    }
}

TEST_CASE("ScatterElements drops out-of-range indices and reports IndexOutOfRange",
          "[scatter_elements][gpu]") {
    std::mt19937 rng(15);
    for (DataType indexType : kIndexTypes) {
        ScatterElementsDesc desc;
        desc.InputTensor = desc.OutputTensor = {DataType::Int8, {3, 5}, {}};
        desc.IndicesTensor = desc.UpdatesTensor = {indexType, {3, 2}, {}};
        desc.UpdatesTensor.DataType = DataType::Int8;
        desc.Axis = 1;
        rt::HostTensor in(DataType::Int8, {3, 5}), ind(indexType, {3, 2}), upd(DataType::Int8, {3, 2});
        rt::fill(in, rng, rt::Fill::Random);
        rt::fill(upd, rng, rt::Fill::Random);
        const bool s = rt::isSigned(indexType);
        const uint64_t values[] = {0, 5, 4, s ? static_cast<uint64_t>(-5) : 1, 0xFFFFFFFFull, 2};
        for (int i = 0; i < 6; ++i) ind.setBits(i, values[i]);
        auto op = rt::device().compile(desc);
        REQUIRE(op.ok());
        rt::GpuResult r = rt::runOnGpu(rt::device(), op.value(), {&in, &ind, &upd}, {desc.OutputTensor});
        INFO(toString(indexType) << ": " << r.status.message());
        CHECK(r.status.code() == StatusCode::IndexOutOfRange);
        int dropped = 0;
        compareOutput(r, rt::referenceScatterElements(desc, in, ind, upd, &dropped), desc.OutputTensor);
        CHECK(dropped == (indexType == DataType::Int32 ? 1 : 2)); // INT32 0xFFFFFFFF is -1
    }
}
