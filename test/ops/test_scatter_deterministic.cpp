// SPDX-License-Identifier: MIT
// The scatters' deterministic mode (ScatterNDDesc / ScatterElementsDesc `Deterministic`; SEMANTICS.md):
// duplicates applied in IndicesTensor's row-major order, so that the output equals the CPU reference (which
// applies them in that order) bit for bit, float sums and products included, and stays the same bits when
// the device runs the workgroups in other orders (core::groupOrderSeedForTests shuffles them).
#include "profile_cases.hpp"
#include "scatter_cases.hpp"
#include "support/parts.hpp"

#include "core/planners.hpp"

#include <set>

using namespace ripple;
using namespace sc;

namespace {

const ScatterReduction kAllReductions[] = {ScatterReduction::None, ScatterReduction::Add,
                                           ScatterReduction::Mul, ScatterReduction::Max,
                                           ScatterReduction::Min};
const DataType kAllTypes[] = {DataType::Float32, DataType::Float16, DataType::BFloat16, DataType::UInt32,
                              DataType::UInt16,  DataType::UInt8,   DataType::Int32,    DataType::Int16,
                              DataType::Int8,    DataType::Float64, DataType::UInt64,   DataType::Int64};

// Sets the planner's workgroup shuffle for one scope.
struct GroupOrder {
    explicit GroupOrder(uint32_t seed) { core::groupOrderSeedForTests = seed; }
    ~GroupOrder() { core::groupOrderSeedForTests = 0; }
};

// A value whose sums and products with its neighbours round differently in another order: full random
// mantissas, magnitudes that keep products of a few hundred factors normal (no denormals, which a device
// may flush). MAX/MIN: ties and zeros of both signs. Integers: random bits (MUL: odd).
uint64_t valueFor(DataType t, ScatterReduction op, std::mt19937& rng) {
    if (!rt::isFloat(t)) return (uint64_t(rng()) << 32 | rng()) | (op == ScatterReduction::Mul ? 1 : 0);
    const double u = rng() / 4294967296.0, sign = (rng() & 1) ? -1.0 : 1.0;
    switch (op) {
    case ScatterReduction::Add:
        return floatBits(t, sign * (0.5 + 15 * u));
    case ScatterReduction::Mul:
        return floatBits(t, sign * (1.0 + u / 64));
    case ScatterReduction::None:
        return floatBits(t, sign * 100 * u);
    default:
        return floatBits(t, rng() % 4 == 0 ? sign * 0.0 : double(int(rng() % 9) - 4) / 2);
    }
}

void fill(rt::HostTensor& t, ScatterReduction op, std::mt19937& rng) {
    for (uint64_t i = 0; i < t.count(); ++i) t.setBits(i, valueFor(t.desc.DataType, op, rng));
}

// 64-bit reductions need shaderInt64, which the D3D12 path does not offer: Unsupported there. A device
// without what 64-bit types need (operators.hpp: shaderInt64, shaderBufferInt64Atomics, for FLOAT64 also
// shaderFloat64; an emulated profile such as mobile-vk11) may refuse them too, naming the feature
// (profile_cases.hpp's rule); where it has them, every case must compile.
bool unsupportedHere(const Result<Operator>& op, DataType type, ScatterReduction reduction) {
    if (elementSize(type) != 8) return false;
    INFO(op.status().message());
    if (rt::hlslRoundTrip() && reduction != ScatterReduction::None) {
        CHECK(op.status().code() == StatusCode::Unsupported);
        return true;
    }
    const AdapterFeatures& f = rt::device().adapter().features;
    if (op.ok() || (f.int64 && f.int64Atomics && (type != DataType::Float64 || f.float64))) return false;
    pc::requireFeatureRefusal(op.status());
    return true;
}

// Runs desc under workgroup order `seed`; the output bytes (fails the test on an error).
template <class Desc>
std::vector<uint8_t> runSeeded(const Desc& desc, const std::vector<const rt::HostTensor*>& inputs,
                               uint32_t seed) {
    GroupOrder order(seed);
    auto op = rt::device().compile(desc);
    INFO(op.status().message());
    REQUIRE(op.ok());
    rt::GpuResult r = rt::runOnGpu(rt::device(), op.value(), inputs, {desc.OutputTensor});
    INFO(r.status.message());
    REQUIRE(r.status.ok());
    return meaningful(r.outputs[0], desc.OutputTensor);
}

// Runs desc under `seeds` workgroup orders: every output equals the reference.
template <class Desc>
void checkOrdered(const Desc& desc, const rt::HostTensor& in, const rt::HostTensor& ind,
                  const rt::HostTensor& upd,
                  std::vector<uint8_t> (*reference)(const Desc&, const rt::HostTensor&, const rt::HostTensor&,
                                                    const rt::HostTensor&, int*),
                  uint32_t seeds) {
    INFO(toString(desc.InputTensor.DataType)
         << " reduction " << static_cast<int>(desc.Reduction) << " input " << rt::describe(desc.InputTensor)
         << " indices " << rt::describe(desc.IndicesTensor) << " updates "
         << rt::describe(desc.UpdatesTensor));
    if (unsupportedHere(rt::device().compile(desc), desc.InputTensor.DataType, desc.Reduction)) return;
    const std::vector<uint8_t> want = meaningful(reference(desc, in, ind, upd, nullptr), desc.OutputTensor);
    for (uint32_t seed = 0; seed < seeds; ++seed) {
        INFO("workgroup order " << seed);
        const std::vector<uint8_t> got = runSeeded(desc, {&in, &ind, &upd}, seed);
        INFO(rt::firstDifference(got, want, elementSize(desc.InputTensor.DataType)));
        REQUIRE(got == want);
    }
}

} // namespace

// (No ": " late in a test name: Catch 2.13's console reporter indents the wrapped name past it and aborts
// when that is wider than the console.)
TEST_CASE("Deterministic scatters equal the row-major reference bit for bit (every data type and reduction, "
          "slices, q = 2, a non-last axis, strided updates, shuffled workgroup orders)",
          "[scatter_deterministic][gpu][subgroups]") {
    std::mt19937 rng(71);
    uint32_t round = 0;
    for (DataType type : kAllTypes) {
        for (ScatterReduction reduction : kAllReductions) {
            const DataType indexType = kIndexTypes[round++ % 4];
            // ScatterND, tuples of one index selecting rows: 3000 rows of 7 into 61 rows (about 49 per row),
            // then 900 rows of 8 into 37 (the apply pass takes four elements per invocation)
            struct Rows {
                uint32_t rows, cols, tuples, seeds;
            };
            for (Rows c : {Rows{61, 7, 3000, 3}, Rows{37, 8, 900, 2}}) {
                rt::HostTensor input(type, {c.rows, c.cols}), indices(indexType, {c.tuples, 1}),
                    updates(type, {c.tuples, c.cols});
                for (uint32_t t = 0; t < c.tuples; ++t) putIndex(indices, t, rng() % c.rows, c.rows, rng);
                fill(input, reduction, rng);
                fill(updates, reduction, rng);
                ScatterNDDesc d;
                d.InputTensor = d.OutputTensor = {type, {c.rows, c.cols}, {}};
                d.IndicesTensor = {indexType, {c.tuples, 1}, {}};
                d.UpdatesTensor = {type, {c.tuples, c.cols}, {}};
                d.InputDimensionCount = d.IndicesDimensionCount = 2;
                d.Reduction = reduction;
                d.Deterministic = true;
                checkOrdered(d, input, indices, updates, rt::referenceScatterND, c.seeds);
            }
            { // ScatterND, tuples of two indices into [13, 9, 33]: 1000 tuples over 117 slices of 33
                const uint32_t tuples = 1000;
                rt::HostTensor input(type, {13, 9, 33}), indices(indexType, {1, tuples, 2}),
                    updates(type, {1, tuples, 33});
                for (uint32_t t = 0; t < tuples; ++t) {
                    putIndex(indices, 2 * t, rng() % 13, 13, rng);
                    putIndex(indices, 2 * t + 1, rng() % 9, 9, rng);
                }
                fill(input, reduction, rng);
                fill(updates, reduction, rng);
                ScatterNDDesc d;
                d.InputTensor = d.OutputTensor = {type, {13, 9, 33}, {}};
                d.IndicesTensor = {indexType, {1, tuples, 2}, {}};
                d.UpdatesTensor = {type, {1, tuples, 33}, {}};
                d.InputDimensionCount = 3;
                d.IndicesDimensionCount = 2;
                d.Reduction = reduction;
                d.Deterministic = true;
                checkOrdered(d, input, indices, updates, rt::referenceScatterND, 2);
            }
            { // ScatterElements along axis 0 of [97, 5] with [4000, 5] updates stored column-major (about
              // 41 per target); neighbouring 8/16-bit targets written at the same time
                rt::HostTensor input(type, {97, 5}), indices(indexType, {4000, 5}),
                    updates(type, {4000, 5}, {1, 4000});
                for (uint64_t i = 0; i < indices.count(); ++i) putIndex(indices, i, rng() % 97, 97, rng);
                fill(input, reduction, rng);
                fill(updates, reduction, rng);
                ScatterElementsDesc d;
                d.InputTensor = d.OutputTensor = {type, {97, 5}, {}};
                d.IndicesTensor = {indexType, {4000, 5}, {}};
                d.UpdatesTensor = {type, {4000, 5}, {1, 4000}};
                d.Axis = 0;
                d.Reduction = reduction;
                d.Deterministic = true;
                checkOrdered(d, input, indices, updates, rt::referenceScatterElements, 3);
            }
            { // ScatterElements, 2000 updates into the even elements of [33] (about 118 each, over two of the
              // long-run pass's batches of 64); the odd ones get none and keep their input
                rt::HostTensor input(type, {33}), indices(indexType, {2000}), updates(type, {2000});
                for (uint32_t i = 0; i < 2000; ++i) putIndex(indices, i, 2 * (rng() % 17), 33, rng);
                fill(input, reduction, rng);
                fill(updates, reduction, rng);
                ScatterElementsDesc d;
                d.InputTensor = d.OutputTensor = {type, {33}, {}};
                d.IndicesTensor = {indexType, {2000}, {}};
                d.UpdatesTensor = {type, {2000}, {}};
                d.Reduction = reduction;
                d.Deterministic = true;
                checkOrdered(d, input, indices, updates, rt::referenceScatterElements, 2);
            }
        }
    }
}

namespace {

void repeatedRuns(rt::Part& part) {
    std::mt19937 rng(20);
    const uint32_t targets = 1024, count = 1000000;
    rt::HostTensor indices(DataType::Int64, {count});
    for (uint32_t e = 0; e < count; ++e) putIndex(indices, e, rng() % targets, targets, rng);
    struct Case {
        DataType type;
        ScatterReduction reduction;
    };
    for (Case c :
         {Case{DataType::Float32, ScatterReduction::Add}, Case{DataType::Float16, ScatterReduction::Mul},
          Case{DataType::BFloat16, ScatterReduction::Add}, Case{DataType::Float32, ScatterReduction::None}}) {
        if (!part.take()) continue;
        rt::HostTensor input(c.type, {targets}), updates(c.type, {count});
        fill(input, c.reduction, rng);
        fill(updates, c.reduction, rng);
        ScatterElementsDesc d;
        d.InputTensor = d.OutputTensor = {c.type, {targets}, {}};
        d.IndicesTensor = {DataType::Int64, {count}, {}};
        d.UpdatesTensor = {c.type, {count}, {}};
        d.Reduction = c.reduction;
        d.Deterministic = true;
        checkOrdered(d, input, indices, updates, rt::referenceScatterElements, 20);

        // The shuffles are real: without Deterministic the same runs disagree with each other. (FLOAT32 ADD:
        // NONE on this one row runs as the fused row pass, one workgroup, which no shuffle reorders.)
        if (c.type != DataType::Float32 || c.reduction != ScatterReduction::Add) continue;
        d.Deterministic = false;
        std::set<std::vector<uint8_t>> seen;
        for (uint32_t seed = 0; seed < 20; ++seed)
            seen.insert(runSeeded(d, {&input, &indices, &updates}, seed));
        INFO("reduction " << static_cast<int>(c.reduction) << ": distinct outputs without Deterministic");
        CHECK(seen.size() > 1);
    }
}

} // namespace

// A part per data type and reduction (support/parts.hpp).
RIPPLE_TEST_PARTS_4(
    repeatedRuns,
    "Deterministic scatters give identical bits across 20 runs with shuffled workgroup orders "
    "(1,000,000 updates into 1,024 targets)",
    "[scatter_deterministic][gpu][exhaustive]")

TEST_CASE("Deterministic scatters sort over many blocks: 70,000 tuples (two rounds a block), 2,200,000 "
          "updates (1,075 blocks of 2,048: digit scans of two rounds)",
          "[scatter_deterministic][gpu][subgroups]") {
    std::mt19937 rng(9);
    for (ScatterReduction reduction : {ScatterReduction::None, ScatterReduction::Add}) {
        // ScatterND: 70,000 tuples selecting rows of 3 from 70,001 (keys of three digits)
        const uint32_t rows = 70001, tuples = 70000;
        rt::HostTensor input(DataType::Int32, {rows, 3}), indices(DataType::Int32, {tuples, 1}),
            updates(DataType::Int32, {tuples, 3});
        for (uint32_t t = 0; t < tuples; ++t) putIndex(indices, t, rng() % rows, rows, rng);
        fill(input, reduction, rng);
        fill(updates, reduction, rng);
        ScatterNDDesc d;
        d.InputTensor = d.OutputTensor = {DataType::Int32, {rows, 3}, {}};
        d.IndicesTensor = {DataType::Int32, {tuples, 1}, {}};
        d.UpdatesTensor = {DataType::Int32, {tuples, 3}, {}};
        d.InputDimensionCount = d.IndicesDimensionCount = 2;
        d.Reduction = reduction;
        d.Deterministic = true;
        checkOrdered(d, input, indices, updates, rt::referenceScatterND, 2);
    }
    // ScatterElements: 2,200,000 FLOAT16 ADD updates into 3,001 targets, in order or the sums differ
    const uint32_t targets = 3001, count = 2200000;
    rt::HostTensor input(DataType::Float16, {targets}), indices(DataType::Int32, {count}),
        updates(DataType::Float16, {count});
    for (uint32_t e = 0; e < count; ++e) putIndex(indices, e, rng() % targets, targets, rng);
    fill(input, ScatterReduction::Add, rng);
    fill(updates, ScatterReduction::Add, rng);
    ScatterElementsDesc d;
    d.InputTensor = d.OutputTensor = {DataType::Float16, {targets}, {}};
    d.IndicesTensor = {DataType::Int32, {count}, {}};
    d.UpdatesTensor = {DataType::Float16, {count}, {}};
    d.Reduction = ScatterReduction::Add;
    d.Deterministic = true;
    checkOrdered(d, input, indices, updates, rt::referenceScatterElements, 2);
}

TEST_CASE("Deterministic scatters in place and with out-of-range indices",
          "[scatter_deterministic][gpu][d3d12_real]") {
    Device& dev = rt::device();
    std::mt19937 rng(5);
    for (DataType type : {DataType::Float32, DataType::Int8}) {
        for (ScatterReduction reduction : {ScatterReduction::None, ScatterReduction::Add}) {
            INFO(toString(type) << " reduction " << static_cast<int>(reduction));
            // In place: [200, 3] rows, 500 tuples, the output bound to the input's range.
            rt::HostTensor input(type, {200, 3}), indices(DataType::Int32, {500, 1}), updates(type, {500, 3});
            for (uint32_t t = 0; t < 500; ++t) putIndex(indices, t, rng() % 200, 200, rng);
            fill(input, reduction, rng);
            fill(updates, reduction, rng);
            ScatterNDDesc d;
            d.InputTensor = d.OutputTensor = {type, {200, 3}, {}};
            d.IndicesTensor = {DataType::Int32, {500, 1}, {}};
            d.UpdatesTensor = {type, {500, 3}, {}};
            d.InputDimensionCount = d.IndicesDimensionCount = 2;
            d.Reduction = reduction;
            d.Deterministic = true;
            auto op = dev.compile(d);
            REQUIRE(op.ok());
            auto buffer = [&](const rt::HostTensor& t) {
                auto b = dev.createBuffer((t.bytes.size() + 3) & ~size_t(3));
                REQUIRE(b.ok());
                REQUIRE(dev.upload(b.value(), 0, t.bytes.data(), t.bytes.size()).ok());
                return std::move(b.value());
            };
            Buffer data = buffer(input), ind = buffer(indices), upd = buffer(updates);
            REQUIRE(dev.execute(op.value(), {{&data, 0}, {&ind, 0}, {&upd, 0}, {&data, 0}}).ok());
            std::vector<uint8_t> got(input.bytes.size());
            REQUIRE(dev.download(data, 0, got.data(), got.size()).ok());
            CHECK(got ==
                  meaningful(rt::referenceScatterND(d, input, indices, updates, nullptr), d.OutputTensor));

            // Out of range: tuples 7 and 300 point past the 200 rows; they are dropped and reported.
            indices.setBits(7, 200);
            indices.setBits(300, static_cast<uint64_t>(-201));
            rt::GpuResult r = rt::runOnGpu(dev, op.value(), {&input, &indices, &updates}, {d.OutputTensor});
            CHECK(r.status.code() == StatusCode::IndexOutOfRange);
            int dropped = 0;
            compareOutput(r, rt::referenceScatterND(d, input, indices, updates, &dropped), d.OutputTensor);
            CHECK(dropped == 2); // tuples
        }
    }
}
