// SPDX-License-Identifier: MIT
// Device limits and claims (issue 40): the kernel variants chosen fit the device's limits as reflected from
// their SPIR-V, emulated profiles narrow what ripple sees, and the probe of full subgroups catches a driver
// that claims them and launches partial ones (lavapipe at LP_NATIVE_VECTOR_WIDTH 1024 and 2048).
#include "kernels/spirv_shared.hpp"
#include "profile_cases.hpp"
#include "runtime/access.hpp"
#include "runtime/objects.hpp"
#include "topk_cases.hpp"

#include <cstdlib>
#include <cstring>

using namespace ripple;
using namespace tk;

TEST_CASE("The embedded reflection sizes every variant's shared memory as its SPIR-V declares it",
          "[limits][gpu]") {
    uint32_t over16k = 0;
    for (uint32_t i = 0; i < kernels::kKernelCount; ++i) {
        const kernels::KernelInfo& k = kernels::kKernels[i];
        std::vector<uint32_t> words;
        REQUIRE(kernels::unpackSpirv(k.spirv, words));
        INFO(k.name);
        CHECK(kernels::workgroupBytes(words.data(), words.size()) == k.sharedBytes);
        CHECK(k.sharedBytes <= 32768); // D3D12's and MoltenVK's maximum: every device class above the minimum
        over16k += k.sharedBytes > 16384;
    }
    CHECK(kernels::findKernel("topk_row.f32.s1024.portable")->sharedBytes > 16384); // the 25 KiB row kernel
    CHECK(over16k > 0);
}

TEST_CASE("The probe of full subgroups: lavapipe keeps the promise at widths up to 512, not at 1024 or 2048",
          "[limits][gpu][subgroups]") {
    Device& dev = rt::device();
    const AdapterFeatures& f = dev.adapter().features;
    CHECK((!f.fullSubgroups || f.subgroups));
    if (dev.adapter().name.rfind("llvmpipe", 0) == 0) {
        const char* env = std::getenv("LP_NATIVE_VECTOR_WIDTH");
        const long width = env ? std::strtol(env, nullptr, 10) : 256;
        INFO("LP_NATIVE_VECTOR_WIDTH " << width << ", subgroup size " << f.subgroupSize);
        CHECK(f.fullSubgroups == (width <= 512));
    }
    // A row TopK takes the subgroup variant exactly where full subgroups are kept.
    auto op = dev.compile(makeTopKDesc({DataType::Float32, {2, 3000}, {}}, 1, 100));
    REQUIRE(op.ok());
    bool subgroupKernel = false;
    for (const kernels::KernelInfo* k : ripple::detail::impl(op.value())->kernels) {
        pc::requireFits(*k, f);
        subgroupKernel |= (k->features & kernels::FeatureFullSubgroups) != 0;
    }
    CHECK(subgroupKernel == f.fullSubgroups);
}

TEST_CASE("An unknown profile is refused, naming the known ones", "[limits][gpu]") {
    DeviceOptions options;
    options.profile = "voodoo-3";
    auto dev = Device::create(options);
    CHECK(dev.status().code() == StatusCode::InvalidArgument);
    CHECK(dev.status().message().find("voodoo-3") != std::string::npos);
    CHECK(dev.status().message().find("mobile-vk11") != std::string::npos);
}

TEST_CASE("Tickets on a Vulkan 1.1 profile without timeline semaphores: fences, in order and out of order",
          "[limits][gpu]") {
    DeviceOptions options;
    options.validation = rt::testValidation();
    options.profile = "mobile-vk11";
    auto dev = Device::create(options);
    REQUIRE(dev.ok());
    CHECK_FALSE(dev->adapter().features.timelineSemaphore);
    auto buffer = dev->createBuffer(1 << 20);
    REQUIRE(buffer.ok());
    std::vector<Ticket> tickets;
    for (uint32_t i = 0; i < 8; ++i) {
        auto rec = dev->createRecorder();
        REQUIRE(rec.ok());
        REQUIRE(rec->fillBuffer(buffer.value(), uint64_t(i) * 4096, 4096, 0x01010101u * (i + 1)).ok());
        auto t = dev->submit(rec.value());
        REQUIRE(t.ok());
        tickets.push_back(t.value());
    }
    CHECK(dev->wait(tickets[5]).ok()); // a later one first: the earlier ones are complete with it
    for (uint32_t i = 0; i <= 5; ++i) CHECK(dev->isComplete(tickets[i]).value());
    CHECK(dev->wait(tickets[2]).ok());
    CHECK(dev->wait(tickets[7]).ok());
    std::vector<uint8_t> bytes(8 * 4096);
    REQUIRE(dev->download(buffer.value(), 0, bytes.data(), bytes.size()).ok());
    for (uint32_t i = 0; i < 8; ++i) CHECK(bytes[i * 4096 + 17] == i + 1);
    CHECK(dev->validationMessageCount() == 0);
}

TEST_CASE("A TopK whose strategy has a kernel beyond the device's limits is planned again with small kernels",
          "[limits][gpu]") {
    // (2,3000) K=100 takes one workgroup per row (topk_row: 19-25 KiB of shared memory); on a small device
    // it takes sampled selection's small forms (issue 58; the test below), its INT64 form the multi-pass
    // radix selection, and (2,1000) K=100 the tiles: topk_tile's 8 KiB, merge levels and the emit pass.
    // Every kernel of the radix and the tiles within 12 KiB of shared memory.
    const TopKDesc desc = makeTopKDesc({DataType::Float32, {2, 3000}, {}}, 1, 100);
    core::PlanLimits limits;
    auto usual = core::planTopK(desc, limits);
    REQUIRE(usual.ok());
    REQUIRE(usual->dispatches.size() == 1);
    CHECK(usual->dispatches[0].kernel.rfind("topk_row.", 0) == 0);
    limits.smallKernels = true;
    auto selected = core::planTopK(desc, limits);
    REQUIRE(selected.ok());
    CHECK(selected->dispatches.front().kernel == "topk_select_sample.f32");
    auto radix = core::planTopK(makeTopKDesc({DataType::Int64, {2, 3000}, {}}, 1, 100), limits);
    REQUIRE(radix.ok());
    REQUIRE(radix->dispatches.size() >= 5);
    CHECK(radix->dispatches.front().kernel == "topk_radix_init.k2"); // two words a key
    CHECK(radix->dispatches.back().kernel == "topk_emit.b64.k2");
    auto tiles = core::planTopK(makeTopKDesc({DataType::Float32, {2, 1000}, {}}, 1, 100), limits);
    REQUIRE(tiles.ok());
    REQUIRE(tiles->dispatches.size() >= 2);
    CHECK(tiles->dispatches.front().kernel == "topk_tile.f32");
    CHECK(tiles->dispatches.back().kernel == "topk_emit.b32.k1");
    for (const core::Plan* plan : {&radix.value(), &tiles.value()})
        for (const core::PlanDispatch& d : plan->dispatches) {
            const kernels::KernelInfo* k = kernels::findKernel(d.kernel + ".small");
            INFO(d.kernel);
            REQUIRE(k);
            CHECK(k->sharedBytes <= 12288);
            CHECK(k->localSize[0] * k->localSize[1] * k->localSize[2] <= 128);
        }
}

TEST_CASE("A small device's rows of 1025 to 4096 take sampled selection where its lists fit, else the radix",
          "[limits]") {
    // The full planner gives such rows topk_row (over a small device's limits). The small plan's lists keep
    // at least 1024 entries a row there, not 4096: (4096,4096) K=256 fits a 128 MiB binding range, while
    // (8192,4096) K=1024 (whole-row lists, 256 MiB) takes the radix.
    core::PlanLimits limits;
    limits.smallKernels = true;
    limits.maxStorageBufferRange = 128u << 20;
    auto selected = core::planTopK(makeTopKDesc({DataType::Float32, {4096, 4096}, {}}, 1, 256), limits);
    REQUIRE(selected.ok());
    REQUIRE(selected->dispatches.size() == 3);
    CHECK(selected->dispatches[0].kernel == "topk_select_sample.f32");
    CHECK(selected->dispatches[2].kernel == "topk_select_final.f32.write");
    CHECK(selected->scratchBytes <= limits.maxStorageBufferRange);
    CHECK(selected->params[33] < 4096); // the list's capacity (topk_select_params.glsl)
    auto radix = core::planTopK(makeTopKDesc({DataType::Float32, {8192, 4096}, {}}, 1, 1024), limits);
    REQUIRE(radix.ok());
    CHECK(radix->dispatches.front().kernel == "topk_radix_init.k1");
}

TEST_CASE("Rows over 4096 take sampled selection's small forms on a small device, never in a full plan",
          "[limits]") {
    // (64,128256) K=50: the full plan samples in the filter (fused) and may not run the small forms, whose
    // 2048 sample slots, separate state and one final scratch binding its params do not suit; the small
    // plan samples in a dispatch of its own, its final step's binding 2 the whole scratch, every kernel's
    // small form within 128 invocations, 16 KiB of shared memory and 4 storage buffers (params uniform).
    const TopKDesc desc = makeTopKDesc({DataType::Float16, {64, 128256}, {}}, 1, 50);
    core::PlanLimits limits;
    auto full = core::planTopK(desc, limits);
    REQUIRE(full.ok());
    REQUIRE(full->dispatches.size() == 2);
    CHECK(full->dispatches[0].kernel == "topk_select_filter.f16.sample");
    for (const core::PlanDispatch& d : full->dispatches) CHECK_FALSE(d.smallForm);
    limits.smallKernels = true;
    auto small = core::planTopK(desc, limits);
    REQUIRE(small.ok());
    REQUIRE(small->dispatches.size() == 3);
    CHECK(small->dispatches[0].kernel == "topk_select_sample.f16");
    CHECK(small->dispatches[1].kernel == "topk_select_filter.f16.state");
    CHECK(small->dispatches[2].kernel == "topk_select_final.f16.write");
    const core::PlanBinding& scratch = small->dispatches[2].bindings[2];
    CHECK(scratch.kind == core::BindingKind::Scratch);
    CHECK(scratch.offset == 0);
    CHECK(scratch.size == small->scratchBytes);
    CHECK(small->zeroedScratchBytes == 0);
    CHECK(small->params[36] == 2); // two digits of 11 and 5 bits, two of 10 and 6 in the small forms
    CHECK(small->params[49] == 2);
    CHECK(small->params[48] * 4 == small->dispatches[1].bindings[4].offset); // the list in the one binding
    for (const core::PlanDispatch& d : small->dispatches) {
        CHECK(d.smallForm);
        const kernels::KernelInfo* k = kernels::findKernel(d.kernel + ".portable.small");
        INFO(d.kernel);
        REQUIRE(k);
        uint32_t storage = 0;
        for (uint32_t b = 0; b < k->bindingCount; ++b) storage += k->bindings[b].uniform ? 0 : 1;
        CHECK(storage <= 4);
        CHECK(k->sharedBytes <= 16384);
        CHECK(k->localSize[0] * k->localSize[1] * k->localSize[2] <= 128);
    }
}
