// SPDX-License-Identifier: MIT
// TopK's sampled selection on a small device (issue 58): under the mobile-vk11 profile (128 invocations,
// 16 KiB of shared memory, 4 storage buffers) rows over 1024 of types up to 32 bits take the
// 128-invocation forms of topk_select_{sample,filter,final} (2048 samples, 1024 bins of 10-bit digits, the
// final step's scratch in one binding), and with K over 1024 those of the list sort and topk_values,
// checked against the CPU reference: every type, ties, all-equal, two-valued and narrow-range rows, strides,
// samples shared by several workgroups and grouped samples, the first ties of tau, buckets sorted in place,
// the whole-row fallback, and repeated runs over the same scratch.
#include "profile_cases.hpp"
#include "runtime/access.hpp"
#include "topk_cases.hpp"

#include <algorithm>

using namespace ripple;
using namespace tk;

namespace {

Device& smallDevice() {
    static Result<Device> dev = [] {
        DeviceOptions options;
        options.validation = rt::testValidation();
        options.profile = "mobile-vk11";
        return Device::create(options);
    }();
    INFO(dev.status().message());
    REQUIRE(dev.ok());
    return dev.value();
}

// The operator's kernels: sampled selection's small forms (with K over 1024 the list sort's and the values
// pass after them), each within the profile's limits.
void requireSmallSelect(Device& dev, const TopKDesc& desc) {
    auto op = dev.compile(desc);
    INFO(op.status().message());
    REQUIRE(op.ok());
    const auto& kernels = ripple::detail::impl(op.value())->kernels;
    std::vector<std::string> names = {"topk_select_sample.", "topk_select_filter.", "topk_select_final."};
    if (desc.K > 1024)
        names.insert(names.end(), {"topk_list_split.", "topk_list_count.", "topk_list_scatter.",
                                   "topk_list_sort.", "topk_values."});
    REQUIRE(kernels.size() == names.size());
    for (size_t i = 0; i < names.size(); ++i) {
        const std::string name = kernels[i]->name;
        INFO(name);
        CHECK(name.rfind(names[i], 0) == 0);
        CHECK(name.size() > 6);
        CHECK(name.compare(name.size() - 6, 6, ".small") == 0);
        pc::requireFits(*kernels[i], dev.adapter().features);
    }
}

void smallSelection(rt::Part& part) {
    if (!pc::hasSmallDeviceKernels()) return;
    Device& dev = smallDevice();
    std::mt19937 rng(58);
    const Layout shapes[] = {
        {{3, 5000}, {}, 1},        // a few rows of odd length, one filter workgroup each
        {{2, 6001}, {6007, 1}, 1}, // padded rows (16-bit ones at an odd start)
        {{4099, 3}, {}, 0},        // a long non-last axis
        {{1, 70001}, {}, 1},       // index digits beyond 16 bits
        {{1, 300007}, {}, 1},      // 2048 samples shared by 32 workgroups
        {{1, 600011}, {}, 1},      // each sample the smallest of 2 elements
        {{5, 1025}, {}, 1},        // rows just over 1024 (the full planner's topk_row), lists of 1024
        {{2001, 7}, {}, 0},        // a short non-last axis
    };
    for (DataType type : kTypes32) {
        for (const Layout& s : shapes) {
            for (Data how : kAllData) {
                if (!part.take()) continue;
                rt::HostTensor input(type, s.sizes, s.strides);
                fillData(input, rng, how);
                const uint32_t n = s.sizes[s.axis];
                const uint32_t k = std::array<uint32_t, 6>{1, 7, 33, 100, 1024, 777}[rng() % 6];
                const auto dir = rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing;
                // Rows up to 4096 with K up to 32 may take the lanes instead (topk.cpp).
                if (how == Data::Random && (n > 4096 || k > 32))
                    requireSmallSelect(dev, makeTopKDesc(input.desc, s.axis, std::min(k, n), dir));
                checkTopK(dev, input, s.axis, std::min(k, n), dir,
                          rng() & 1 ? DataType::UInt32 : DataType::Int64);
            }
        }
    }
}

} // namespace

RIPPLE_TEST_PARTS_3(smallSelection,
                    "TopK's sampled selection on a small device: every type up to 32 bits, ties, strides",
                    "[topk_small][gpu][exhaustive]")

namespace {

struct ListSeams {
    ~ListSeams() {
        core::selectCapacityForTests = 0, core::listSlotsForTests = core::listBucketsForTests = 0;
    }
};

// K over 1024: the winners' candidates gathered, sorted by the list sort's small forms (at most 1024 buckets
// and 1024 entries a sort workgroup ranks), then the values from the indices.
void smallLargeK(rt::Part& part) {
    if (!pc::hasSmallDeviceKernels()) return;
    Device& dev = smallDevice();
    std::mt19937 rng(5865536);
    struct Case {
        Layout layout;
        uint32_t k;
    };
    const Case cases[] = {{{{2, 30011}, {}, 1}, 2000},          // two rows, buckets of about 64
                          {{{1, 300007}, {}, 1}, 20000},        // 1024 buckets (the small forms' most)
                          {{{9001, 2}, {}, 0}, 1100},           // a non-last axis
                          {{{2, 12011}, {12013, 1}, 1}, 1500}}; // padded rows
    for (DataType type : kTypes32) {
        for (const Case& c : cases) {
            for (Data how : {Data::Random, Data::Ties, Data::TwoValued, Data::Narrow}) {
                if (!part.take()) continue;
                rt::HostTensor input(type, c.layout.sizes, c.layout.strides);
                fillData(input, rng, how);
                const auto dir = rng() & 1 ? AxisDirection::Decreasing : AxisDirection::Increasing;
                if (how == Data::Random)
                    requireSmallSelect(dev, makeTopKDesc(input.desc, c.layout.axis, c.k, dir));
                checkTopK(dev, input, c.layout.axis, c.k, dir,
                          rng() & 1 ? DataType::UInt32 : DataType::Int64);
            }
        }
    }
}

} // namespace

RIPPLE_TEST_PARTS_2(smallLargeK,
                    "TopK with K over 1024 on a small device: every type up to 32 bits, ties, strides",
                    "[topk_small][gpu][exhaustive]")

TEST_CASE("On a small device TopK with K over 1024 sorts large buckets in shared memory or in place, and "
          "takes the whole row when the list overflows",
          "[topk_small][gpu]") {
    if (!pc::hasSmallDeviceKernels()) return;
    Device& dev = smallDevice();
    std::mt19937 rng(58655);
    ListSeams restore;
    rt::HostTensor input(DataType::Float32, {2, 30011});
    fillData(input, rng, Data::Random);
    core::listSlotsForTests = 16; // buckets of about 30 entries: most sorted in the bucketed list itself
    core::listBucketsForTests = 64;
    requireSmallSelect(dev, makeTopKDesc(input.desc, 1, 2000));
    checkTopK(dev, input, 1, 2000, AxisDirection::Decreasing, DataType::UInt32);
    core::listSlotsForTests = core::listBucketsForTests = 0;
    core::listBucketsForTests = 2048; // over the small forms' 1024: the plan keeps 1024
    checkTopK(dev, input, 1, 3000, AxisDirection::Increasing, DataType::UInt32);
    core::listBucketsForTests = 64; // buckets of about 480 entries: those over 512 sorted in shared memory
    for (Data how : {Data::Random, Data::Ties}) {
        rt::HostTensor wide(DataType::Float32, {1, 300007});
        fillData(wide, rng, how);
        checkTopK(dev, wide, 1, 20000, AxisDirection::Decreasing, DataType::UInt32);
    }
    core::listBucketsForTests = 0;
    core::selectCapacityForTests = 16; // raised to K: the gather step selects from the whole row
    for (DataType type : {DataType::Float16, DataType::UInt8}) {
        rt::HostTensor small(type, {2, 30011});
        fillData(small, rng, Data::Random);
        checkTopK(dev, small, 1, 1500, AxisDirection::Decreasing, DataType::Int64);
    }
}

TEST_CASE("On a small device TopK's sampled selection falls back to the whole row, exactly, and leaves its "
          "state clean for the next run",
          "[topk_small][gpu]") {
    if (!pc::hasSmallDeviceKernels()) return;
    Device& dev = smallDevice();
    std::mt19937 rng(5858);
    {
        // A 16-entry list: K > 16 takes the whole row, K <= 16 mostly the list.
        struct Restore {
            ~Restore() { core::selectCapacityForTests = 0; }
        } restore;
        core::selectCapacityForTests = 16;
        for (DataType type : {DataType::Float32, DataType::Int16, DataType::UInt8}) {
            rt::HostTensor input(type, {2, 9001});
            fillData(input, rng, Data::Random);
            requireSmallSelect(dev, makeTopKDesc(input.desc, 1, 300));
            checkTopK(dev, input, 1, 300, AxisDirection::Decreasing, DataType::UInt32);
            checkTopK(dev, input, 1, 5, AxisDirection::Increasing, DataType::UInt32);
        }
    }
    // One operator run three times on new data, outputs poisoned before each run.
    const TopKDesc desc = makeTopKDesc({DataType::Float16, {4, 30011}, {}}, 1, 50);
    auto op = dev.compile(desc);
    REQUIRE(op.ok());
    rt::HostTensor input(desc.InputTensor.DataType, desc.InputTensor.Sizes);
    for (int run = 0; run < 3; ++run) {
        INFO("run " << run);
        fillData(input, rng, run == 1 ? Data::TwoValued : Data::Random);
        rt::GpuResult r =
            rt::runOnGpu(dev, op.value(), {&input}, {desc.OutputValueTensor, desc.OutputIndexTensor});
        REQUIRE(r.status.ok());
        std::vector<uint8_t> values, indices;
        rt::referenceTopK(desc, input, values, indices);
        CHECK(meaningful(r.outputs[0], desc.OutputValueTensor) == meaningful(values, desc.OutputValueTensor));
        CHECK(meaningful(r.outputs[1], desc.OutputIndexTensor) ==
              meaningful(indices, desc.OutputIndexTensor));
    }
    CHECK(dev.validationMessageCount() == 0);
}
