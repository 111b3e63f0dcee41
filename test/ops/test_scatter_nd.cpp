// SPDX-License-Identifier: MIT
// ScatterND on the device against the CPU reference.
#include "scatter_cases.hpp"

using namespace ripple;
using namespace sc;

namespace {

struct NDCase {
    std::vector<uint32_t> input; // meaningful input sizes
    std::vector<uint32_t> batch; // meaningful indices sizes without the last
    uint32_t q;                  // tuple length
    uint32_t rank;               // DimensionCount (>= every meaningful rank): leading 1s pad
};

// Builds a case with distinct target tuples, runs it and compares. `strided`: inputs use padded strides.
void checkScatterND(Device& dev, const NDCase& c, DataType type, DataType indexType, bool strided,
                    std::mt19937& rng) {
    const uint32_t n = c.rank;
    auto pad = [&](std::vector<uint32_t> s) {
        s.insert(s.begin(), n - s.size(), 1);
        return s;
    };
    std::vector<uint32_t> indSizes = c.batch;
    indSizes.push_back(c.q);
    std::vector<uint32_t> updSizes = c.batch;
    updSizes.insert(updSizes.end(), c.input.begin() + c.q, c.input.end());
    auto stridesFor = [&](const std::vector<uint32_t>& sizes) {
        if (!strided) return std::vector<uint32_t>{};
        std::vector<uint32_t> st(sizes.size());
        uint32_t s = 1;
        for (size_t i = sizes.size(); i-- > 0;)
            st[i] = s, s *= sizes[i] + (i % 2 ? 0 : 1); // gaps in some dims
        return st;
    };
    ScatterNDDesc desc;
    desc.InputTensor = {type, pad(c.input), {}};
    desc.IndicesTensor = {indexType, pad(indSizes), {}};
    desc.UpdatesTensor = {type, pad(updSizes), {}};
    desc.OutputTensor = {type, pad(c.input), {}};
    desc.InputTensor.Strides = stridesFor(desc.InputTensor.Sizes);
    desc.IndicesTensor.Strides = stridesFor(desc.IndicesTensor.Sizes);
    desc.UpdatesTensor.Strides = stridesFor(desc.UpdatesTensor.Sizes);
    desc.InputDimensionCount = static_cast<uint32_t>(c.input.size());
    desc.IndicesDimensionCount = static_cast<uint32_t>(indSizes.size());

    rt::HostTensor input(type, desc.InputTensor.Sizes, desc.InputTensor.Strides);
    rt::HostTensor updates(type, desc.UpdatesTensor.Sizes, desc.UpdatesTensor.Strides);
    rt::HostTensor indices(indexType, desc.IndicesTensor.Sizes, desc.IndicesTensor.Strides);
    rt::fill(input, rng, rt::Fill::Special);
    rt::fill(updates, rng, rt::Fill::Random);
    rt::fill(indices, rng, rt::Fill::Random); // every byte random, then the real tuples below
    // Distinct tuples: a random sample of all prefixes of the first q input dims.
    uint64_t prefixes = 1;
    for (uint32_t j = 0; j < c.q; ++j) prefixes *= c.input[j];
    const uint64_t tuples = indices.count() / c.q;
    REQUIRE(tuples <= prefixes);
    std::vector<uint64_t> pick(prefixes);
    std::iota(pick.begin(), pick.end(), 0);
    std::shuffle(pick.begin(), pick.end(), rng);
    for (uint64_t t = 0; t < tuples; ++t) {
        uint64_t p = pick[t];
        for (uint32_t j = c.q; j-- > 0;) {
            putIndex(indices, t * c.q + j, static_cast<uint32_t>(p % c.input[j]), c.input[j], rng);
            p /= c.input[j];
        }
    }
    INFO("ScatterND input " << rt::describe(desc.InputTensor) << " indices "
                            << rt::describe(desc.IndicesTensor) << " updates "
                            << rt::describe(desc.UpdatesTensor));
    auto op = dev.compile(desc);
    if (noD3D12Form(op, type)) return;
    INFO(op.status().message());
    REQUIRE(op.ok());
    rt::GpuResult r = rt::runOnGpu(dev, op.value(), {&input, &indices, &updates}, {desc.OutputTensor});
    INFO(r.status.message());
    REQUIRE(r.status.ok());
    int outOfRange = 0;
    compareOutput(r, rt::referenceScatterND(desc, input, indices, updates, &outOfRange), desc.OutputTensor);
    CHECK(outOfRange == 0);
}

const NDCase kCases[] = {
    {{8}, {4}, 1, 2},          // the DirectML example's shape
    {{7}, {}, 1, 1},           // a single tuple
    {{4, 5, 6}, {3}, 1, 3},    // row slices
    {{4, 5, 6}, {2, 3}, 2, 4}, // batch of tuples, padded rank
    {{3, 5, 7}, {4}, 3, 3},    // element updates
    {{33, 3}, {1, 7}, 1, 5},   // odd sizes, leading 1s
    {{1000}, {33}, 1, 2},
    // Slices of whole 16-byte blocks for some types (scatter_nd_rows.comp: NONE, packed updates):
    {{40, 16}, {9}, 1, 2},     // 16 elements: every type up to 32 bits
    {{6, 5, 8}, {2, 3}, 2, 3}, // q = 2, 8 elements: 16-bit and 32-bit types
    {{9, 7, 4}, {5}, 1, 3},    // 28 elements: 32-bit types (7 blocks)
    // 2500 slices of 64 elements (FLOAT32: 40,000 blocks, 157 workgroups): many workgroups, the last partial
    {{3001, 64}, {2500}, 1, 2},
};

} // namespace

TEST_CASE("ScatterND matches the reference for every data type and index type", "[scatter_nd][gpu]") {
    std::mt19937 rng(2024);
    for (DataType type : kDataTypes)
        for (DataType indexType : kIndexTypes)
            for (const NDCase& c : kCases) checkScatterND(rt::device(), c, type, indexType, false, rng);
}

TEST_CASE("ScatterND reads strided inputs, indices and updates", "[scatter_nd][gpu]") {
    std::mt19937 rng(77);
    for (DataType type :
         {DataType::UInt8, DataType::Float16, DataType::BFloat16, DataType::Int32, DataType::Float64})
        for (const NDCase& c : kCases) checkScatterND(rt::device(), c, type, DataType::Int64, true, rng);
}

TEST_CASE("ScatterND with the portable kernels", "[scatter_nd][gpu][portable]") {
    std::mt19937 rng(31);
    for (DataType type : kDataTypes)
        for (const NDCase& c : kCases)
            checkScatterND(rt::device(KernelPreference::Portable), c, type, DataType::Int32, false, rng);
}

TEST_CASE("ScatterND drops out-of-range tuples, writes the rest and reports IndexOutOfRange",
          "[scatter_nd][gpu]") {
    std::mt19937 rng(3);
    for (DataType indexType : kIndexTypes) {
        for (DataType type : {DataType::UInt8, DataType::Float32, DataType::Int64}) {
            ScatterNDDesc desc;
            desc.InputTensor = desc.OutputTensor = {type, {6, 4}, {}};
            desc.IndicesTensor = {indexType, {5, 1}, {}};
            desc.UpdatesTensor = {type, {5, 4}, {}};
            desc.InputDimensionCount = desc.IndicesDimensionCount = 2;
            rt::HostTensor input(type, {6, 4}), updates(type, {5, 4}), indices(indexType, {5, 1});
            rt::fill(input, rng, rt::Fill::Random);
            rt::fill(updates, rng, rt::Fill::Random);
            const bool s = rt::isSigned(indexType);
            const uint64_t big = indexType == DataType::Int32 || indexType == DataType::UInt32
                                     ? 0x80000000ull
                                     : 0x100000002ull;
            const uint64_t values[] = {1, 6, big, s ? static_cast<uint64_t>(-7) : 4,
                                       s ? static_cast<uint64_t>(-6) : 0};
            for (int i = 0; i < 5; ++i) indices.setBits(i, values[i]);
            auto op = rt::device().compile(desc);
            if (noD3D12Form(op, type)) continue;
            REQUIRE(op.ok());
            rt::GpuResult r =
                rt::runOnGpu(rt::device(), op.value(), {&input, &indices, &updates}, {desc.OutputTensor});
            INFO(toString(indexType) << " " << toString(type) << ": " << r.status.message());
            CHECK(r.status.code() == StatusCode::IndexOutOfRange);
            CHECK(r.status.message().find("IndicesTensor") != std::string::npos);
            int dropped = 0;
            compareOutput(r, rt::referenceScatterND(desc, input, indices, updates, &dropped),
                          desc.OutputTensor);
            CHECK(dropped == (s ? 3 : 2));
        }
    }
}

TEST_CASE("ScatterND of empty tensors succeeds", "[scatter_nd][gpu]") {
    std::mt19937 rng(1);
    ScatterNDDesc desc;
    desc.InputTensor = desc.OutputTensor = {DataType::Float32, {4, 3}, {}};
    desc.IndicesTensor = {DataType::Int32, {0, 1}, {}};
    desc.UpdatesTensor = {DataType::Float32, {0, 3}, {}};
    desc.InputDimensionCount = desc.IndicesDimensionCount = 2;
    rt::HostTensor input(DataType::Float32, {4, 3}), indices(DataType::Int32, {0, 1}),
        updates(DataType::Float32, {0, 3});
    rt::fill(input, rng, rt::Fill::Random);
    auto op = rt::device().compile(desc);
    REQUIRE(op.ok());
    rt::GpuResult r =
        rt::runOnGpu(rt::device(), op.value(), {&input, &indices, &updates}, {desc.OutputTensor});
    REQUIRE(r.status.ok());
    compareOutput(r, rt::referenceScatterND(desc, input, indices, updates, nullptr), desc.OutputTensor);
}

// ONNX ScatterND-18's q = 0 (issue 18; docs/SEMANTICS.md): empty index tuples, each update the whole tensor.
// ONNX Runtime's own tests use it; ripple refused it before.
TEST_CASE("ScatterND with q = 0: each update addresses the whole tensor, for every reduction",
          "[scatter_nd][gpu]") {
    std::mt19937 rng(18);
    auto run = [&](const std::vector<uint32_t>& sizes, uint32_t tuples, DataType type,
                   ScatterReduction reduction, bool deterministic) {
        const uint32_t n = static_cast<uint32_t>(sizes.size()) + 1;
        ScatterNDDesc desc;
        std::vector<uint32_t> padded = sizes, upd = sizes, ind(n, 1);
        padded.insert(padded.begin(), 1);
        upd.insert(upd.begin(), tuples);
        ind[n - 2] = tuples;
        ind[n - 1] = 0;
        desc.InputTensor = desc.OutputTensor = {type, padded, {}};
        desc.IndicesTensor = {DataType::Int64, ind, {}};
        desc.UpdatesTensor = {type, upd, {}};
        desc.InputDimensionCount = n - 1;
        desc.IndicesDimensionCount = 2;
        desc.Reduction = reduction;
        desc.Deterministic = deterministic;
        rt::HostTensor input(type, padded), indices(DataType::Int64, ind), updates(type, upd);
        if (rt::isFloat(type)) { // exact in every order: eighths, and products of at most 3 factors 1 + k/64
            const bool mul = reduction == ScatterReduction::Mul;
            for (uint64_t i = 0; i < input.count(); ++i)
                input.setBits(
                    i, floatBits(type, mul ? 1.0 + (rng() % 64) / 64.0 : (int(rng() % 65) - 32) / 8.0));
            for (uint64_t i = 0; i < updates.count(); ++i)
                updates.setBits(
                    i, floatBits(type, mul ? 1.0 + (rng() % 64) / 64.0 : (int(rng() % 65) - 32) / 8.0));
        } else {
            rt::fill(input, rng, rt::Fill::Random);
            rt::fill(updates, rng, rt::Fill::Random);
        }
        INFO("q = 0: input " << rt::describe(desc.InputTensor) << ", " << tuples << " tuples, reduction "
                             << static_cast<int>(reduction) << (deterministic ? ", deterministic" : ""));
        auto op = rt::device().compile(desc);
        INFO(op.status().message());
        REQUIRE(op.ok());
        rt::GpuResult r =
            rt::runOnGpu(rt::device(), op.value(), {&input, &indices, &updates}, {desc.OutputTensor});
        INFO(r.status.message());
        REQUIRE(r.status.ok());
        compareOutput(r, rt::referenceScatterND(desc, input, indices, updates, nullptr), desc.OutputTensor);
    };
    for (const std::vector<uint32_t>& sizes : {std::vector<uint32_t>{7}, {3, 33}, {2, 4, 5}, {1000}}) {
        for (DataType type : kDataTypes) {
            if (rt::hlslRoundTrip() && elementSize(type) == 8) continue;
            run(sizes, 1, type, ScatterReduction::None, false); // one update replaces the whole tensor
        }
        run(sizes, 3, DataType::Int32, ScatterReduction::None, true); // the last of three wins
        run(sizes, 3, DataType::Float16, ScatterReduction::None, true);
        for (ScatterReduction reduction :
             {ScatterReduction::Add, ScatterReduction::Mul, ScatterReduction::Max, ScatterReduction::Min})
            for (DataType type : {DataType::Int32, DataType::Float32, DataType::UInt8})
                for (bool deterministic : {false, true}) run(sizes, 3, type, reduction, deterministic);
    }
}

TEST_CASE("ScatterND with q = 0 on an empty input, and without updates, succeeds", "[scatter_nd][gpu]") {
    std::mt19937 rng(19);
    for (ScatterReduction reduction : {ScatterReduction::None, ScatterReduction::Add}) {
        ScatterNDDesc desc;
        desc.InputTensor = desc.OutputTensor = {DataType::Float32, {1, 0, 4}, {}};
        desc.IndicesTensor = {DataType::Int32, {1, 2, 0}, {}};
        desc.UpdatesTensor = {DataType::Float32, {2, 0, 4}, {}};
        desc.InputDimensionCount = 2;
        desc.IndicesDimensionCount = 2;
        desc.Reduction = reduction;
        auto op = rt::device().compile(desc);
        INFO(op.status().message());
        REQUIRE(op.ok());
        rt::HostTensor input(DataType::Float32, {1, 0, 4}), indices(DataType::Int32, {1, 2, 0}),
            updates(DataType::Float32, {2, 0, 4});
        rt::GpuResult r =
            rt::runOnGpu(rt::device(), op.value(), {&input, &indices, &updates}, {desc.OutputTensor});
        CHECK(r.status.ok());
        // No tuples at all: the output is the input.
        desc.InputTensor = desc.OutputTensor = {DataType::Float32, {1, 3, 4}, {}};
        desc.IndicesTensor = {DataType::Int32, {1, 0, 0}, {}};
        desc.UpdatesTensor = {DataType::Float32, {0, 3, 4}, {}};
        auto none = rt::device().compile(desc);
        REQUIRE(none.ok());
        rt::HostTensor in2(DataType::Float32, {1, 3, 4}), ind2(DataType::Int32, {1, 0, 0}),
            upd2(DataType::Float32, {0, 3, 4});
        rt::fill(in2, rng, rt::Fill::Random);
        rt::GpuResult r2 =
            rt::runOnGpu(rt::device(), none.value(), {&in2, &ind2, &upd2}, {desc.OutputTensor});
        REQUIRE(r2.status.ok());
        compareOutput(r2, rt::referenceScatterND(desc, in2, ind2, upd2, nullptr), desc.OutputTensor);
    }
}
