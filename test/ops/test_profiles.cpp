// SPDX-License-Identifier: MIT
// The operator suite's profile subset (issue 40): under every emulated device profile
// (DeviceOptions::profile, lib/vulkan/profiles.cpp), TopK, ScatterND and ScatterElements run exactly, with
// kernel variants within the profile's limits as the embedded reflection gives them, in every strategy
// (profiles with Vulkan's minimum limits take the small-device variants); a refusal names a device feature
// the profile lacks, never a limit. Validation stays silent.
#include "profile_cases.hpp"
#include "runtime/access.hpp"
#include "scatter_cases.hpp"
#include "topk_cases.hpp"

using namespace ripple;

namespace {

Result<Device> profileDevice(const char* name) {
    DeviceOptions options;
    options.validation = rt::testValidation();
    options.profile = name;
    return Device::create(options);
}

// Compiles desc on dev, checking that its variants fit the profile, or that a refusal is for a feature.
template <class Desc> Result<Operator> compileChecked(Device& dev, const Desc& desc) {
    Result<Operator> op = dev.compile(desc);
    if (op.ok()) {
        for (const kernels::KernelInfo* k : ripple::detail::impl(op.value())->kernels)
            pc::requireFits(*k, dev.adapter().features);
    } else {
        pc::requireFeatureRefusal(op.status());
    }
    return op;
}

// Values whose sums and products of a few hundred stay finite and never NaN (floats: +-[1, 2) in steps
// of 1/64, exact in every float type); integers: random bits.
void fillValues(rt::HostTensor& t, std::mt19937& rng) {
    if (!rt::isFloat(t.desc.DataType)) return rt::fill(t, rng, rt::Fill::Random);
    for (uint64_t i = 0; i < t.count(); ++i)
        t.setBits(i,
                  sc::floatBits(t.desc.DataType, ((rng() & 1) ? -1.0 : 1.0) * (1.0 + (rng() % 64) / 64.0)));
}

// `count` indices into [0, size), as negative values half the time for signed index types; distinct when
// `distinct` (count <= size).
void putIndices(rt::HostTensor& t, uint64_t count, uint32_t size, bool distinct, std::mt19937& rng) {
    std::vector<uint32_t> perm(size);
    std::iota(perm.begin(), perm.end(), 0u);
    std::shuffle(perm.begin(), perm.end(), rng);
    for (uint64_t i = 0; i < count; ++i)
        sc::putIndex(t, i, distinct ? perm[i] : static_cast<uint32_t>(rng() % size), size, rng);
}

struct ScatterCase {
    DataType type, indexType;
    ScatterReduction reduction;
    bool deterministic;
    bool duplicates; // repeated targets: exact only with integer reductions or the deterministic mode
};

const ScatterCase kScatterCases[] = {
    {DataType::Float32, DataType::Int32, ScatterReduction::None, false, false},
    {DataType::UInt8, DataType::Int64, ScatterReduction::None, false, false},
    {DataType::Float16, DataType::UInt32, ScatterReduction::None, false, false},
    {DataType::Int32, DataType::Int32, ScatterReduction::Add, false, true},
    {DataType::Int16, DataType::Int64, ScatterReduction::Max, false, true},
    {DataType::Int64, DataType::Int32, ScatterReduction::None, false, false}, // 64-bit: features
    {DataType::Float32, DataType::Int32, ScatterReduction::Add, true, true},
    {DataType::Float16, DataType::Int64, ScatterReduction::Mul, true, true},
    {DataType::UInt8, DataType::Int32, ScatterReduction::None, true, true},
};

// Runs a scatter on (in, ind, upd): the output equals the reference's, and no index was out of range.
template <class Desc>
void runAndCompare(Device& dev, const Operator& op, const Desc& desc, const rt::HostTensor& in,
                   const rt::HostTensor& ind, const rt::HostTensor& upd,
                   std::vector<uint8_t> (*reference)(const Desc&, const rt::HostTensor&,
                                                     const rt::HostTensor&, const rt::HostTensor&, int*)) {
    rt::GpuResult r = rt::runOnGpu(dev, op, {&in, &ind, &upd}, {desc.OutputTensor});
    INFO(r.status.message());
    REQUIRE(r.status.ok());
    int outOfRange = 0;
    sc::compareOutput(r, reference(desc, in, ind, upd, &outOfRange), desc.OutputTensor);
    CHECK(outOfRange == 0);
}

void checkScatterND(Device& dev, const ScatterCase& c, uint32_t rows, uint32_t cols, uint32_t tuples,
                    std::mt19937& rng) {
    ScatterNDDesc desc;
    desc.InputTensor = desc.OutputTensor = {c.type, {rows, cols}, {}};
    desc.IndicesTensor = {c.indexType, {tuples, 1}, {}};
    desc.UpdatesTensor = {c.type, {tuples, cols}, {}};
    desc.InputDimensionCount = 2;
    desc.IndicesDimensionCount = 2;
    desc.Reduction = c.reduction;
    desc.Deterministic = c.deterministic;
    INFO("ScatterND " << rt::describe(desc.InputTensor) << " tuples " << tuples << " indices "
                      << toString(c.indexType) << " reduction " << int(c.reduction)
                      << (c.deterministic ? " deterministic" : ""));
    auto op = compileChecked(dev, desc);
    if (!op) return;
    rt::HostTensor in(c.type, {rows, cols}), ind(c.indexType, {tuples, 1}), upd(c.type, {tuples, cols});
    fillValues(in, rng);
    fillValues(upd, rng);
    putIndices(ind, tuples, rows, !c.duplicates, rng);
    runAndCompare(dev, op.value(), desc, in, ind, upd, rt::referenceScatterND);
}

// Along axis 0 (not the last): indices and updates {lines, cols} into {rows, cols}.
void checkScatterElements(Device& dev, const ScatterCase& c, uint32_t rows, uint32_t cols, uint32_t lines,
                          std::mt19937& rng) {
    ScatterElementsDesc desc;
    desc.InputTensor = desc.OutputTensor = {c.type, {rows, cols}, {}};
    desc.IndicesTensor = {c.indexType, {lines, cols}, {}};
    desc.UpdatesTensor = {c.type, {lines, cols}, {}};
    desc.Axis = 0;
    desc.Reduction = c.reduction;
    desc.Deterministic = c.deterministic;
    INFO("ScatterElements " << rt::describe(desc.InputTensor) << " updates " << lines << "x" << cols
                            << " indices " << toString(c.indexType) << " reduction " << int(c.reduction)
                            << (c.deterministic ? " deterministic" : ""));
    auto op = compileChecked(dev, desc);
    if (!op) return;
    rt::HostTensor in(c.type, {rows, cols}), ind(c.indexType, {lines, cols}), upd(c.type, {lines, cols});
    fillValues(in, rng);
    fillValues(upd, rng);
    if (c.duplicates) {
        putIndices(ind, uint64_t(lines) * cols, rows, false, rng);
    } else { // distinct along the axis in each column
        std::vector<uint32_t> perm(rows);
        for (uint32_t col = 0; col < cols; ++col) {
            std::iota(perm.begin(), perm.end(), 0u);
            std::shuffle(perm.begin(), perm.end(), rng);
            for (uint32_t l = 0; l < lines; ++l)
                sc::putIndex(ind, uint64_t(l) * cols + col, perm[l], rows, rng);
        }
    }
    runAndCompare(dev, op.value(), desc, in, ind, upd, rt::referenceScatterElements);
}

} // namespace

namespace {

void topkEveryProfile(rt::Part& part) {
    std::mt19937 rng(40);
    struct Case {
        std::vector<uint32_t> sizes;
        uint32_t axis, k;
    };
    // The strategies: rank counting, lanes, tiles, one workgroup per row, chunks, K over 1024; a non-last
    // axis; odd sizes.
    const Case cases[] = {{{1, 1, 3, 4}, 3, 2}, {{3, 1000}, 1, 4},   {{2, 33}, 1, 33},     {{7, 5}, 0, 3},
                          {{2, 3000}, 1, 100},  {{2, 50000}, 1, 50}, {{1, 20000}, 1, 1500}};
    for (const char* name : pc::kProfiles) {
        if (!part.take()) continue;
        DYNAMIC_SECTION("profile " << name) {
            auto dev = profileDevice(name);
            INFO(dev.status().message());
            REQUIRE(dev.ok());
            const AdapterFeatures& f = dev->adapter().features;
            CHECK(dev->adapter().name.find(name) != std::string::npos);
            const std::string p = name;
            CHECK(f.timelineSemaphore == (p != "mobile-vk11" && p != "android-baseline-2022"));
            // Host query resets: required by Vulkan 1.2, by extension in Mesa's 1.1 mobile drivers, not in
            // Android's baselines (lavapipe offers it, so only the profile decides).
            CHECK(f.hostQueryReset == (p != "mobile-vk11" && p != "android-baseline-2022"));
            // Float controls are a Vulkan 1.2 property on ripple's side.
            if (dev->adapter().apiVersion < (1u << 22 | 2u << 12))
                CHECK_FALSE(f.signedZeroInfNanPreserveFloat32);
            for (const Case& c : cases) {
                for (DataType type :
                     {DataType::Float32, DataType::UInt8, DataType::Float16, DataType::Int64}) {
                    rt::HostTensor input(type, c.sizes);
                    rt::fill(input, rng, rt::Fill::Ties);
                    const TopKDesc desc = tk::makeTopKDesc(input.desc, c.axis, c.k);
                    INFO("TopK " << rt::describe(input.desc) << " axis " << c.axis << " K " << c.k);
                    if (!compileChecked(dev.value(), desc)) continue;
                    for (auto dir : {AxisDirection::Decreasing, AxisDirection::Increasing})
                        tk::checkTopK(dev.value(), input, c.axis, c.k, dir, DataType::UInt32);
                }
            }
            CHECK(dev->validationMessageCount() == 0);
        }
    }
}

} // namespace

RIPPLE_TEST_PARTS_2(
    topkEveryProfile,
    "Under every emulated profile, TopK runs exactly in every strategy, within the profile's limits",
    "[profiles][gpu][exhaustive]")

TEST_CASE("Under every emulated profile, ScatterND and ScatterElements run exactly, deterministic mode "
          "included, within the profile's limits",
          "[profiles][gpu]") {
    std::mt19937 rng(41);
    for (const char* name : pc::kProfiles) {
        DYNAMIC_SECTION("profile " << name) {
            auto dev = profileDevice(name);
            INFO(dev.status().message());
            REQUIRE(dev.ok());
            for (const ScatterCase& c : kScatterCases) {
                checkScatterND(dev.value(), c, 33, 7, c.duplicates ? 100 : 20, rng);
                checkScatterND(dev.value(), c, 1, 1, 1, rng);
                checkScatterElements(dev.value(), c, 7, 33, c.duplicates ? 12 : 5, rng);
            }
            // FLOAT32 ADD with 17 updates a target: sums per workgroup in shared memory, added by float
            // atomics, or without them stored and added by a second dispatch (the small forms' way too).
            // Sums of these values are exact in any order.
            checkScatterElements(dev.value(),
                                 {DataType::Float32, DataType::Int32, ScatterReduction::Add, false, true}, 7,
                                 33, 120, rng);
            // Deterministic with several sort blocks and rounds (70,000 pairs) and two radix passes.
            checkScatterElements(dev.value(),
                                 {DataType::Int32, DataType::Int32, ScatterReduction::Add, true, true}, 1000,
                                 7, 10000, rng);
            CHECK(dev->validationMessageCount() == 0);
        }
    }
}
