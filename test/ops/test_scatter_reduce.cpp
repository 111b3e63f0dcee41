// SPDX-License-Identifier: MIT
// Scatter reductions (ADD, MUL, MAX, MIN; SEMANTICS.md, ONNX ScatterND-18 / ScatterElements-18) on the
// device against the CPU reference: every data type and reduction, many duplicates (1,000,000 updates into
// 1,024 targets), neighbouring 8- and 16-bit targets updated at the same time, slices and non-last axes.
#include "runtime/access.hpp"
#include "scatter_cases.hpp"
#include "support/parts.hpp"

#include "core/planners.hpp"   // core::minClaimedUpdates
#include "runtime/objects.hpp" // Operator internals: the kernels chosen

#include <type_traits>

using namespace ripple;
using namespace sc;

namespace {

const ScatterReduction kReductions[] = {ScatterReduction::Add, ScatterReduction::Mul, ScatterReduction::Max,
                                        ScatterReduction::Min};
const DataType kReduceTypes[] = {DataType::Float32, DataType::Float16, DataType::BFloat16, DataType::UInt32,
                                 DataType::UInt16,  DataType::UInt8,   DataType::Int32,    DataType::Int16,
                                 DataType::Int8,    DataType::Float64, DataType::UInt64,   DataType::Int64};

const char* reductionName(ScatterReduction r) {
    return r == ScatterReduction::Add   ? "ADD"
           : r == ScatterReduction::Mul ? "MUL"
           : r == ScatterReduction::Max ? "MAX"
                                        : "MIN";
}

// A float value for `op` on type t, exactly representable there: for ADD k/256 (FLOAT16, FLOAT32, FLOAT64)
// or k/16 (BFLOAT16); for MUL +-(1 + k/2^s), near 1 so that a thousand products stay in range; for MAX/MIN
// normal values of either sign, ties and infinities.
double floatValue(DataType t, ScatterReduction op, std::mt19937& rng) {
    const bool bf16 = t == DataType::BFloat16;
    const int k = static_cast<int>(rng() % 255) - 127;
    if (op == ScatterReduction::Add) return bf16 ? k / 16.0 : k * 8 / 256.0;
    if (op == ScatterReduction::Mul) {
        const double step = t == DataType::Float16 ? 1024.0 : bf16 ? 128.0 : 4096.0;
        const double span = bf16 ? 2 : 8;
        return ((rng() & 1) ? -1.0 : 1.0) * (1.0 + std::fmod(std::fabs(double(k)), span + 1) / step);
    }
    switch (rng() % 8) {
    case 0:
        return 0.0;
    case 1:
        return -0.0;
    case 2:
        return (rng() & 1) ? INFINITY : -INFINITY;
    default:
        return k / 4.0;
    }
}

const uint64_t kNaN[] = {0x7FC00000u, 0x7E00u, 0x7FC0u, 0x7FF8000000000000ull}; // f32, f16, bf16, f64

uint64_t nanBits(DataType t) {
    return t == DataType::Float32    ? kNaN[0]
           : t == DataType::Float16  ? kNaN[1]
           : t == DataType::BFloat16 ? kNaN[2]
                                     : kNaN[3];
}

// Updates whose combination does not depend on the order the device applies them in: integer ADD and MUL
// wrap, which commutes exactly (MUL's factors odd, so products never collapse to 0), and MAX/MIN keep one
// of the operands (one NaN pattern, now and then); float ADD and MUL round after every update, so all
// updates of one target carry that target's own value, and only their count decides the result.
void fillReduce(rt::HostTensor& input, rt::HostTensor& updates, const std::vector<uint64_t>& targetOf,
                ScatterReduction op, std::mt19937& rng) {
    const DataType t = input.desc.DataType;
    const bool fl = rt::isFloat(t);
    const bool perTarget = fl && (op == ScatterReduction::Add || op == ScatterReduction::Mul);
    std::vector<uint64_t> targetValue(input.count());
    for (uint64_t i = 0; i < input.count(); ++i) {
        input.setBits(i, fl ? floatBits(t, op == ScatterReduction::Mul ? 1.0 + (rng() % 64) / 64.0
                                                                       : floatValue(t, op, rng))
                            : (uint64_t(rng()) << 32 | rng()));
        targetValue[i] = fl ? floatBits(t, floatValue(t, op, rng)) : 0;
    }
    // Float MAX/MIN: every fourth target sees only zeros of both signs (and, for MAX, negative values; for
    // MIN positive ones), so that the +0.0-above--0.0 rule decides it.
    auto zeroTarget = [&](uint64_t target) { return fl && !perTarget && target % 4 == 0; };
    const double away = op == ScatterReduction::Max ? -1.0 : 1.0;
    for (uint64_t i = 0; i < input.count(); i += 4)
        if (zeroTarget(i)) input.setBits(i, floatBits(t, (rng() & 1) ? 0.0 : away));
    for (uint64_t e = 0; e < updates.count(); ++e) {
        uint64_t bits = uint64_t(rng()) << 32 | rng();
        if (perTarget)
            bits = targetValue[targetOf[e]];
        else if (zeroTarget(targetOf[e]))
            bits = floatBits(t, rng() % 3 == 0 ? away * (1 + rng() % 4) : (rng() & 1) ? 0.0 : -0.0);
        else if (fl)
            bits = rng() % 100000 == 0 ? nanBits(t) : floatBits(t, floatValue(t, op, rng));
        else if (op == ScatterReduction::Mul)
            bits |= 1;
        updates.setBits(e, bits);
    }
}

// Runs one reduction case and compares with the reference (which applies the updates in row-major order).
// FLOAT32 runs on both of its kernels: the fast one (ADD by float atomic add, where the device has
// shaderBufferFloat32AtomicAdd: lavapipe does) and the portable one (compare-and-swap loops).
template <class Desc>
void run(Desc& desc, const rt::HostTensor& in, const rt::HostTensor& ind, const rt::HostTensor& upd,
         std::vector<uint8_t> (*reference)(const Desc&, const rt::HostTensor&, const rt::HostTensor&,
                                           const rt::HostTensor&, int*)) {
    INFO(reductionName(desc.Reduction)
         << " input " << rt::describe(desc.InputTensor) << " indices " << rt::describe(desc.IndicesTensor));
    const bool f32 = desc.InputTensor.DataType == DataType::Float32;
    const std::vector<KernelPreference> prefs = rt::kernelPreferences();
    for (KernelPreference pref : prefs) {
        if (pref == KernelPreference::Portable && !f32 && pref != prefs.front()) break; // FLOAT32's own
        INFO("kernels " << (pref == KernelPreference::Auto ? "auto" : "portable"));
        Device& dev = rt::device(pref);
        auto op = dev.compile(desc);
        if (noD3D12Form(op, desc.InputTensor.DataType)) return;
        INFO(op.status().message());
        REQUIRE(op.ok());
        if (f32 && !rt::hlslRoundTrip()) { // the scatter pass's variant is the one intended
            // The scatter pass: the last dispatch, or the one before the shared sums' adding step. A small
            // device (RIPPLE_DEVICE_PROFILE) runs the portable variants' small forms.
            const auto& kernels = ripple::detail::impl(op.value())->kernels;
            auto unsuffixed = [](std::string name) {
                const bool small = name.size() > 6 && name.compare(name.size() - 6, 6, ".small") == 0;
                return small ? name.substr(0, name.size() - 6) : name;
            };
            const std::string last = unsuffixed(kernels.back()->name);
            const bool small = last != kernels.back()->name;
            std::string pass = last;
            if (last == "scatter_sums_add" && kernels.size() > 1)
                pass = unsuffixed(kernels[kernels.size() - 2]->name);
            const bool fast =
                pref == KernelPreference::Auto && dev.adapter().features.float32AtomicAdd && !small;
            INFO(pass << (small ? " (small forms)" : ""));
            // ScatterElements ADD into at most 4096 elements (2048 on a small device), 16+ updates each: sums
            // in shared memory first.
            bool sharedSums = false;
            if constexpr (std::is_same<Desc, ScatterElementsDesc>::value)
                sharedSums = desc.Reduction == ScatterReduction::Add &&
                             desc.OutputTensor.elementCount() <= (small ? 2048u : 4096u) &&
                             desc.UpdatesTensor.elementCount() >= 16 * desc.OutputTensor.elementCount();
            CHECK(pass.find(sharedSums ? "_reduce_shared.f32." : "_reduce.f32.") != std::string::npos);
            // Without float atomics the shared sums' partials are added by a dispatch of their own.
            if (sharedSums) CHECK((last == "scatter_sums_add") == !fast);
            // The fused row pass (last axis, 128+ lines) combines in shared memory: no float atomics.
            if (pass.find("rows_reduce") == std::string::npos)
                CHECK(pass.substr(pass.rfind('.')) == (fast ? ".fast" : ".portable"));
        }
        rt::GpuResult r = rt::runOnGpu(dev, op.value(), {&in, &ind, &upd}, {desc.OutputTensor});
        INFO(r.status.message());
        REQUIRE(r.status.ok());
        int outOfRange = 0;
        compareOutput(r, reference(desc, in, ind, upd, &outOfRange), desc.OutputTensor);
        CHECK(outOfRange == 0);
    }
}

} // namespace

namespace {

void everyReduction(rt::Part& part) {
    std::mt19937 rng(1024);
    const uint32_t targets = 1024, count = 1000000;
    uint32_t round = 0;
    for (DataType type : kReduceTypes) {
        for (ScatterReduction reduction : kReductions) {
            const DataType indexType = kIndexTypes[round++ % 4];
            if (!part.take()) continue;
            std::vector<uint64_t> targetOf(count);
            rt::HostTensor indices(indexType, {count});
            for (uint32_t e = 0; e < count; ++e) {
                targetOf[e] = rng() % targets;
                putIndex(indices, e, static_cast<uint32_t>(targetOf[e]), targets, rng);
            }
            rt::HostTensor input(type, {targets}), updates(type, {count});
            fillReduce(input, updates, targetOf, reduction, rng);
            // ScatterElements along the only axis, then ScatterND with one-element tuples: the same targets.
            ScatterElementsDesc e;
            e.InputTensor = e.OutputTensor = {type, {targets}, {}};
            e.IndicesTensor = {indexType, {count}, {}};
            e.UpdatesTensor = {type, {count}, {}};
            e.Reduction = reduction;
            run(e, input, indices, updates, rt::referenceScatterElements);

            ScatterNDDesc n;
            n.InputTensor = n.OutputTensor = {type, {1, targets}, {}};
            n.IndicesTensor = {indexType, {count, 1}, {}};
            n.UpdatesTensor = {type, {1, count}, {}};
            n.InputDimensionCount = 1;
            n.IndicesDimensionCount = 2;
            n.Reduction = reduction;
            rt::HostTensor input2(type, {1, targets}), indices2(indexType, {count, 1}),
                updates2(type, {1, count});
            input2.bytes = input.bytes, indices2.bytes = indices.bytes, updates2.bytes = updates.bytes;
            run(n, input2, indices2, updates2, rt::referenceScatterND);
        }
    }
}

} // namespace

RIPPLE_TEST_PARTS_3(
    everyReduction,
    "Scatter reductions combine every duplicate: each reduction and data type, 1,000,000 updates "
    "into 1,024 targets",
    "[scatter_reduce][gpu][exhaustive]")

TEST_CASE("Scatter reductions over slices and along a non-last axis, with strided updates",
          "[scatter_reduce][gpu]") {
    std::mt19937 rng(33);
    uint32_t round = 0;
    for (DataType type : kReduceTypes) {
        for (ScatterReduction reduction : kReductions) {
            const DataType indexType = kIndexTypes[round++ % 4];
            { // ScatterND: tuples of one index select rows of 33 (slices); 3000 tuples over 64 rows
                const uint32_t rows = 64, cols = 33, tuples = 3000;
                rt::HostTensor indices(indexType, {tuples, 1});
                std::vector<uint64_t> targetOf(uint64_t(tuples) * cols);
                for (uint32_t t = 0; t < tuples; ++t) {
                    const uint32_t r = rng() % rows;
                    putIndex(indices, t, r, rows, rng);
                    for (uint32_t c = 0; c < cols; ++c)
                        targetOf[uint64_t(t) * cols + c] = uint64_t(r) * cols + c;
                }
                rt::HostTensor input(type, {rows, cols}), updates(type, {tuples, cols});
                fillReduce(input, updates, targetOf, reduction, rng);
                ScatterNDDesc d;
                d.InputTensor = d.OutputTensor = {type, {rows, cols}, {}};
                d.IndicesTensor = {indexType, {tuples, 1}, {}};
                d.UpdatesTensor = {type, {tuples, cols}, {}};
                d.InputDimensionCount = d.IndicesDimensionCount = 2;
                d.Reduction = reduction;
                run(d, input, indices, updates, rt::referenceScatterND);
            }
            { // ScatterElements along axis 0 of [7, 33]: 500 updates per column, updates stored transposed
                const uint32_t rows = 7, cols = 33, per = 500;
                rt::HostTensor indices(indexType, {per, cols});
                std::vector<uint64_t> targetOf(uint64_t(per) * cols);
                for (uint32_t i = 0; i < per; ++i)
                    for (uint32_t c = 0; c < cols; ++c) {
                        const uint32_t r = rng() % rows;
                        putIndex(indices, uint64_t(i) * cols + c, r, rows, rng);
                        targetOf[uint64_t(i) * cols + c] = uint64_t(r) * cols + c;
                    }
                rt::HostTensor input(type, {rows, cols});
                rt::HostTensor updates(type, {per, cols}, {1, per}); // column-major
                fillReduce(input, updates, targetOf, reduction, rng);
                ScatterElementsDesc d;
                d.InputTensor = d.OutputTensor = {type, {rows, cols}, {}};
                d.IndicesTensor = {indexType, {per, cols}, {}};
                d.UpdatesTensor = {type, {per, cols}, {1, per}};
                d.Axis = 0;
                d.Reduction = reduction;
                run(d, input, indices, updates, rt::referenceScatterElements);
            }
            { // ScatterElements along the last axis of [160, 8 KiB of elements], 40 updates per line into its
              // first 48 elements (copy and combine fused per line in shared memory for elements up to 32
              // bits: lines of 8 to 16 KiB, core/scatter_elements.cpp)
                const uint32_t lines = 160, len = 8192 / elementSize(type), span = 48, per = 40;
                rt::HostTensor indices(indexType, {lines, per});
                std::vector<uint64_t> targetOf(uint64_t(lines) * per);
                for (uint32_t l = 0; l < lines; ++l)
                    for (uint32_t i = 0; i < per; ++i) {
                        const uint32_t r = rng() % span;
                        putIndex(indices, uint64_t(l) * per + i, r, len, rng);
                        targetOf[uint64_t(l) * per + i] = uint64_t(l) * len + r;
                    }
                rt::HostTensor input(type, {lines, len}), updates(type, {lines, per});
                fillReduce(input, updates, targetOf, reduction, rng);
                ScatterElementsDesc d;
                d.InputTensor = d.OutputTensor = {type, {lines, len}, {}};
                d.IndicesTensor = {indexType, {lines, per}, {}};
                d.UpdatesTensor = {type, {lines, per}, {}};
                d.Axis = 1;
                d.Reduction = reduction;
                run(d, input, indices, updates, rt::referenceScatterElements);
                if (elementSize(type) <= 4 && !rt::hlslRoundTrip()) {
                    auto op = rt::device().compile(d);
                    REQUIRE(op.ok());
                    const std::string fusedPass = ripple::detail::impl(op.value())->kernels.front()->name;
                    CHECK(fusedPass.rfind("scatter_elements_rows_reduce.", 0) == 0);
                }
            }
        }
    }
}

TEST_CASE(
    "FLOAT32 ADD summed per workgroup keeps signed zeros and untouched targets as the sequential sum does",
    "[scatter_reduce][gpu][d3d12_real]") {
    // [64] targets: -0.0 at even, 1.5 at odd ones; 2048 updates to targets 0..31 only (64 each): -0.0 into
    // 0..15 (-0.0 + -0.0 stays -0.0), +0.0 or k/32 into 16..31 (-0.0 + +0.0 is +0.0); 32..63 get none.
    std::mt19937 rng(64);
    const uint32_t targets = 64, count = 2048;
    rt::HostTensor input(DataType::Float32, {targets}), indices(DataType::Int32, {count}),
        updates(DataType::Float32, {count});
    auto bitsOf = [](float f) {
        uint32_t b;
        std::memcpy(&b, &f, 4);
        return uint64_t(b);
    };
    for (uint32_t t = 0; t < targets; ++t) input.setBits(t, bitsOf(t % 2 ? 1.5f : -0.0f));
    for (uint32_t e = 0; e < count; ++e) {
        const uint32_t t = e % 32;
        putIndex(indices, e, t, targets, rng);
        const float v = t < 16 ? -0.0f : (rng() % 4 == 0 ? static_cast<float>(rng() % 64) / 32 : 0.0f);
        updates.setBits(e, bitsOf(v));
    }
    ScatterElementsDesc d;
    d.InputTensor = d.OutputTensor = {DataType::Float32, {targets}, {}};
    d.IndicesTensor = {DataType::Int32, {count}, {}};
    d.UpdatesTensor = {DataType::Float32, {count}, {}};
    d.Reduction = ScatterReduction::Add;
    run(d, input, indices, updates, rt::referenceScatterElements);
}

namespace {

// ScatterND tuples of one index into `rows` rows, each row selected by 0, 1 or many tuples: rows below
// rows / 4 take a run of duplicates (2 to 9 tuples each), the others at most one; out-of-range tuples
// (`dropped` of them) are mixed in and must be flagged.
rt::HostTensor claimIndices(DataType indexType, uint32_t rows, uint32_t tuples, uint32_t dropped,
                            std::vector<uint32_t>& rowOf, std::mt19937& rng) {
    std::vector<uint32_t> distinct(rows - rows / 4);
    std::iota(distinct.begin(), distinct.end(), rows / 4);
    std::shuffle(distinct.begin(), distinct.end(), rng);
    rowOf.clear();
    for (uint32_t i = 0; rowOf.size() < tuples; ++i) {
        if (i % 3 == 0 && i / 3 < distinct.size()) {
            rowOf.push_back(distinct[i / 3]);
        } else {
            const uint32_t r = rng() % (rows / 4), n = 2 + rng() % 8;
            for (uint32_t k = 0; k < n && rowOf.size() < tuples; ++k) rowOf.push_back(r);
        }
    }
    std::shuffle(rowOf.begin(), rowOf.end(), rng);
    rt::HostTensor indices(indexType, {tuples, 1});
    for (uint32_t t = 0; t < tuples; ++t) putIndex(indices, t, rowOf[t], rows, rng);
    for (uint32_t k = 0; k < dropped; ++k) indices.setBits(rng() % tuples, rows + 5 + k); // out of range
    return indices;
}

} // namespace

TEST_CASE("ScatterND reductions over slices of whole 16-byte blocks claim their targets first (targets "
          "selected once combined whole, duplicated ones atomically, out-of-range tuples flagged)",
          "[scatter_reduce][gpu]") {
    std::mt19937 rng(59);
    uint32_t round = 0;
    struct SmallClaims { // the claimed path from the first update (the planner's threshold: 2^21)
        SmallClaims() { core::minClaimedUpdates = 1; }
        ~SmallClaims() { core::minClaimedUpdates = uint64_t(1) << 21; }
    } smallClaims;
    struct Shape {
        uint32_t rows, cols, tuples;
    };
    for (DataType type : {DataType::Float32, DataType::Int32, DataType::UInt32, DataType::Float16}) {
        for (ScatterReduction reduction : kReductions) {
            for (Shape c : {Shape{40, 4, 70}, Shape{33, 12, 61}, Shape{64, 256, 150}}) {
                const DataType indexType = kIndexTypes[round++ % 4];
                INFO(toString(type) << " " << reductionName(reduction) << " rows " << c.rows << " of "
                                    << c.cols << ", " << c.tuples << " tuples");
                ScatterNDDesc d;
                d.InputTensor = d.OutputTensor = {type, {c.rows, c.cols}, {}};
                d.IndicesTensor = {indexType, {c.tuples, 1}, {}};
                d.UpdatesTensor = {type, {c.tuples, c.cols}, {}};
                d.InputDimensionCount = d.IndicesDimensionCount = 2;
                d.Reduction = reduction;
                for (KernelPreference pref : rt::kernelPreferences()) {
                    Device& dev = rt::device(pref);
                    auto op = dev.compile(d);
                    INFO(op.status().message());
                    REQUIRE(op.ok());
                    // The claimed path: claims, the block pass, the claims cleared (FLOAT32 only; a
                    // small device keeps the element pass: 5 storage buffers are over its 4).
                    const auto& kernels = ripple::detail::impl(op.value())->kernels;
                    const bool small = dev.adapter().features.maxPerStageDescriptorStorageBuffers < 6;
                    const bool claimed = type == DataType::Float32 && !small;
                    INFO(kernels.back()->name);
                    CHECK((std::string(kernels.back()->name).rfind("scatter_nd_claim.", 0) == 0) == claimed);
                    if (claimed && !rt::hlslRoundTrip()) {
                        const bool fast =
                            pref == KernelPreference::Auto && dev.adapter().features.float32AtomicAdd;
                        const char* indexName = indexType == DataType::Int32    ? "i32"
                                                : indexType == DataType::UInt32 ? "u32"
                                                : indexType == DataType::Int64  ? "i64"
                                                                                : "u64";
                        CHECK(std::string(kernels[kernels.size() - 2]->name) ==
                              std::string("scatter_nd_rows_reduce.f32.") + indexName +
                                  (fast ? ".fast" : ".portable"));
                    }
                    // Twice on one operator, other indices the second time: the claims were cleared.
                    for (uint32_t dropped : {0u, 3u}) {
                        INFO("out-of-range tuples: " << dropped);
                        std::vector<uint32_t> rowOf;
                        rt::HostTensor indices =
                            claimIndices(indexType, c.rows, c.tuples, dropped, rowOf, rng);
                        std::vector<uint64_t> targetOf(uint64_t(c.tuples) * c.cols);
                        for (uint32_t t = 0; t < c.tuples; ++t)
                            for (uint32_t k = 0; k < c.cols; ++k)
                                targetOf[uint64_t(t) * c.cols + k] = uint64_t(rowOf[t]) * c.cols + k;
                        rt::HostTensor input(type, {c.rows, c.cols}), updates(type, {c.tuples, c.cols});
                        fillReduce(input, updates, targetOf, reduction, rng);
                        rt::GpuResult r =
                            rt::runOnGpu(dev, op.value(), {&input, &indices, &updates}, {d.OutputTensor});
                        INFO(r.status.message());
                        int outOfRange = 0;
                        const std::vector<uint8_t> want =
                            rt::referenceScatterND(d, input, indices, updates, &outOfRange);
                        CHECK((outOfRange > 0) == (dropped > 0));
                        CHECK(r.status.code() == (dropped ? StatusCode::IndexOutOfRange : StatusCode::Ok));
                        compareOutput(r, want, d.OutputTensor);
                    }
                }
            }
        }
    }
}

TEST_CASE("ScatterND FLOAT32 reductions claim their targets from 2^21 updates on", "[scatter_reduce][gpu]") {
    for (uint32_t tuples : {4096u, 8192u}) { // 2^20 and 2^21 updates of 256 elements
        ScatterNDDesc d;
        d.InputTensor = d.OutputTensor = {DataType::Float32, {65536, 256}, {}};
        d.IndicesTensor = {DataType::Int32, {tuples, 1}, {}};
        d.UpdatesTensor = {DataType::Float32, {tuples, 256}, {}};
        d.InputDimensionCount = d.IndicesDimensionCount = 2;
        d.Reduction = ScatterReduction::Add;
        auto op = rt::device().compile(d);
        INFO(op.status().message());
        REQUIRE(op.ok());
        const auto& kernels = ripple::detail::impl(op.value())->kernels;
        const bool small = rt::device().adapter().features.maxPerStageDescriptorStorageBuffers < 6;
        INFO(tuples << " tuples: " << kernels.back()->name);
        CHECK((std::string(kernels.back()->name).rfind("scatter_nd_claim.", 0) == 0) ==
              (tuples == 8192 && !small));
    }
}
