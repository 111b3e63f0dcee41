// SPDX-License-Identifier: MIT
// Users' kernels (issue 20): test/kernels/advect.comp, compiled by ripple_add_kernels, recorded with
// Device::compile(KernelDesc) and CommandRecorder::record beside an operator, ordered by the recorder.
#include "ripple_ops_tests_kernels.hpp"
#include "runtime/access.hpp"
#include "runtime/objects.hpp"
#include "support/gpu.hpp"
#include "support/host_tensor.hpp"
#include "support/reference.hpp"

#include <ripple/version.hpp>

#include <catch2/catch.hpp>

#include <cstring>
#include <random>

using namespace ripple;

TEST_CASE("A user kernel advects particles, then a TopK reads what it wrote: one barrier between them",
          "[user_kernel][gpu]") {
    Device& dev = rt::device();
    // Under RIPPLE_TEST_KERNELS=hlsl, the kernel's D3D12 form: its HLSL compiled back (HLSL_ROUND_TRIP).
    const KernelSource& source = rt::hlslRoundTrip() && !rt::onD3D12()
                                     ? test_kernels::hlsl_round_trip::advect_d2
                                     : test_kernels::advect_d2;
    REQUIRE(test_kernels::hlsl_round_trip::advect_d2.Hlsl != nullptr); // the HLSL it was compiled from
    auto kernel = dev.compile(KernelDesc{&source});
    REQUIRE(kernel.ok());
    CHECK(kernel.value().name() == "advect.d2");
    const uint32_t n = 1000;
    std::mt19937 rng(4);
    std::vector<float> positions(2 * n), velocities(2 * n);
    for (float& p : positions) p = static_cast<float>(static_cast<int>(rng() % 4001) - 2000) / 4.0f;
    for (float& v : velocities) v = static_cast<float>(static_cast<int>(rng() % 201) - 100) / 8.0f;
    const float dt = 0.5f; // every product and sum exact in FLOAT32
    auto pos = dev.createBuffer(2 * n * 4), vel = dev.createBuffer(2 * n * 4),
         stats = dev.createBuffer(16 + n * 4);
    REQUIRE((pos.ok() && vel.ok() && stats.ok()));
    REQUIRE(dev.upload(pos.value(), 0, positions.data(), 2 * n * 4).ok());
    REQUIRE(dev.upload(vel.value(), 0, velocities.data(), 2 * n * 4).ok());
    std::vector<uint8_t> poison(16 + n * 4, 0xA5);
    REQUIRE(dev.upload(stats.value(), 0, poison.data(), poison.size()).ok());

    TopKDesc k; // the 8 largest coordinates after the move
    k.InputTensor = {DataType::Float32, {1, 2 * n}, {}};
    k.OutputValueTensor = {DataType::Float32, {1, 8}, {}};
    k.OutputIndexTensor = {DataType::UInt32, {1, 8}, {}};
    k.Axis = 1;
    k.K = 8;
    auto topk = dev.compile(k);
    REQUIRE(topk.ok());
    auto values = dev.createBuffer(32), indices = dev.createBuffer(32);
    REQUIRE((values.ok() && indices.ok()));

    RecorderOptions options; // labels and GPU times in the reports, as for operators
    options.timestamps = true;
    auto rec = dev.createRecorder(options);
    REQUIRE(rec.ok());
    struct {
        uint32_t count;
        float dt;
    } push{n, dt};
    KernelDispatch d;
    d.GroupCount[0] = (n + 63) / 64;
    d.Bindings = {{&pos.value(), 0, 0}, {&vel.value(), 0, 0}, {&stats.value(), 0, 0}};
    d.PushConstants = &push;
    d.PushConstantBytes = sizeof push;
    REQUIRE(rec->record(kernel.value(), d).ok());
    REQUIRE(rec->record(topk.value(), {{&pos.value(), 0}, {&values.value(), 0}, {&indices.value(), 0}}).ok());
    // The TopK reads the positions the kernel writes, and each of its passes what the one before wrote
    // (one pass here; several where a device's limits take other strategies, e.g.
    // RIPPLE_DEVICE_PROFILE=mobile-vk11). A first pass that does not read the input (the radix selection's
    // state clearing) runs beside the kernel, in its level.
    const auto& plan = ripple::detail::impl(topk.value())->plan;
    bool firstReadsInput = false;
    for (const auto& b : plan.dispatches.front().bindings)
        firstReadsInput = firstReadsInput || (b.kind == core::BindingKind::Tensor && b.tensor == 0);
    CHECK(rec->statistics().barriers == plan.dispatches.size() - (firstReadsInput ? 0 : 1));
    auto ticket = dev.submit(rec.value());
    REQUIRE(ticket.ok());
    REQUIRE(dev.wait(ticket.value()).ok());
    auto reports = dev.reports(ticket.value());
    REQUIRE(reports.ok());
    REQUIRE(reports.value().size() == 2);
    CHECK(reports.value()[0].label == "advect.d2"); // no Label given: the kernel's name
    CHECK(reports.value()[0].status.ok());
    if (dev.adapter().features.timestamps && firstReadsInput)
        CHECK(reports.value()[1].gpuBeginNanoseconds >= reports.value()[0].gpuEndNanoseconds);

    std::vector<float> want(2 * n);
    for (uint32_t i = 0; i < 2 * n; ++i) want[i] = positions[i] + velocities[i] * dt;
    std::vector<float> got(2 * n);
    REQUIRE(dev.download(pos.value(), 0, got.data(), 2 * n * 4).ok());
    CHECK(std::memcmp(got.data(), want.data(), 2 * n * 4) == 0);
    std::vector<uint32_t> st(4 + n);
    REQUIRE(dev.download(stats.value(), 0, st.data(), st.size() * 4).ok());
    for (uint32_t i = 0; i < 4; ++i) CHECK(st[i] == 0xA5A5A5A5u); // writeonly header: untouched
    for (uint32_t i = 0; i < n; ++i) CHECK(st[4 + i] == 1u);

    rt::HostTensor in(DataType::Float32, {1, 2 * n});
    std::memcpy(in.bytes.data(), want.data(), 2 * n * 4);
    std::vector<uint8_t> wantValues, wantIndices;
    rt::referenceTopK(k, in, wantValues, wantIndices);
    std::vector<uint8_t> gotValues(32), gotIndices(32);
    REQUIRE(dev.download(values.value(), 0, gotValues.data(), 32).ok());
    REQUIRE(dev.download(indices.value(), 0, gotIndices.data(), 32).ok());
    CHECK(gotValues == wantValues);
    CHECK(gotIndices == wantIndices);
    CHECK(dev.validationMessageCount() == 0);
}

TEST_CASE("Misusing a user kernel gives InvalidArgument naming the kernel and the binding",
          "[user_kernel][gpu]") {
    Device& dev = rt::device();
    CHECK(dev.compile(KernelDesc{}).status().code() == StatusCode::InvalidArgument);
    CHECK(Device().compile(KernelDesc{&test_kernels::advect_d2}).status().code() ==
          StatusCode::InvalidArgument);
    KernelSource broken = test_kernels::advect_d2; // sources no ripple_add_kernels would write
    broken.BindingCount = kMaxKernelBindings + 1;
    Status s = dev.compile(KernelDesc{&broken}).status();
    CHECK((s.code() == StatusCode::InvalidArgument && s.message().find("advect.d2") != std::string::npos));
    broken = test_kernels::advect_d2;
    broken.PushConstantBytes = 132;
    CHECK(dev.compile(KernelDesc{&broken}).status().code() == StatusCode::InvalidArgument);
    if (!dev.adapter().features.profiling) { // a feature lavapipe lacks: Unsupported, naming it
        broken = test_kernels::advect_d2;
        broken.Features = ~0u;
        s = dev.compile(KernelDesc{&broken}).status();
        CHECK(s.code() == StatusCode::Unsupported);
        CHECK_THAT(s.message(), Catch::Contains("advect.d2") && Catch::Contains("shaderSMBuiltins"));
    }
    auto kernel = dev.compile(KernelDesc{&test_kernels::advect_d3});
    REQUIRE(kernel.ok());
    auto a = dev.createBuffer(4096), b = dev.createBuffer(4096), small = dev.createBuffer(8);
    REQUIRE((a.ok() && b.ok() && small.ok()));
    const uint32_t push[3] = {16, 0, 0};
    auto rec = dev.createRecorder();
    REQUIRE(rec.ok());
    auto attempt = [&](KernelDispatch d) { return rec->record(kernel.value(), d); };
    KernelDispatch good;
    good.Bindings = {{&a.value(), 0, 0}, {&b.value(), 0, 0}, {&b.value(), 0, 0}};
    good.PushConstants = push;
    good.PushConstantBytes = 12;
    auto message = [](const Status& s) { return s.message(); };
    KernelDispatch d = good;
    d.Bindings.pop_back();
    s = attempt(d);
    CHECK(s.code() == StatusCode::InvalidArgument);
    CHECK_THAT(message(s), Catch::Contains("advect.d3") && Catch::Contains("2 bindings given"));
    d = good;
    d.Bindings[2].Buffer = &small.value(); // the header alone needs 16 bytes
    s = attempt(d);
    CHECK_THAT(message(s), Catch::Contains("binding 2 (stats)") && Catch::Contains("needs 16"));
    d = good;
    d.PushConstantBytes = 8;
    CHECK_THAT(message(attempt(d)), Catch::Contains("push constants"));
    d = good;
    d.GroupCount[1] = 0;
    CHECK_THAT(message(attempt(d)), Catch::Contains("GroupCount[1] is 0"));
    const uint32_t limit = dev.adapter().features.maxWorkgroupCount[2];
    if (limit < UINT32_MAX) {
        d = good;
        d.GroupCount[2] = limit + 1;
        CHECK_THAT(message(attempt(d)), Catch::Contains("GroupCount[2] is " + std::to_string(limit + 1)) &&
                                            Catch::Contains("maxComputeWorkGroupCount"));
    }
    d = good;
    d.Bindings[0].Offset = 4;
    CHECK_THAT(message(attempt(d)), Catch::Contains("bindingAlignment"));
    d = good;
    d.Bindings[1].Buffer = nullptr;
    CHECK_THAT(message(attempt(d)), Catch::Contains("binding 1 (velocities) has no Buffer"));
    CHECK(rec->record(Kernel(), good).code() == StatusCode::InvalidArgument);
    CHECK(rec->statistics().dispatches == 0); // nothing was recorded
    CHECK(attempt(good).ok());
}

TEST_CASE("A KernelSource that disagrees with its SPIR-V is refused, naming the field (issue 41)",
          "[user_kernel][gpu]") {
    Device& dev = rt::device();
    // advect.d2: LocalSize 64x1x1, 8 bytes of push constants, bindings 0 (read-write), 1 (read), 2 (write).
    const KernelSource& good = test_kernels::advect_d2;
    REQUIRE(good.PushConstantBytes == 8);
    REQUIRE(good.BindingCount == 3);
    REQUIRE(dev.compile(KernelDesc{&good}).ok());
    struct Case {
        const char* what;
        void (*change)(KernelSource&);
        const char* field;
    };
    const Case cases[] = {
        {"no push constants where the SPIR-V has 8 bytes", [](KernelSource& k) { k.PushConstantBytes = 0; },
         "PushConstantBytes (0)"},
        {"more push-constant bytes than the SPIR-V's", [](KernelSource& k) { k.PushConstantBytes = 12; },
         "PushConstantBytes (12)"},
        {"a binding left out", [](KernelSource& k) { k.BindingCount = 2; }, "BindingCount (2)"},
        {"a binding renumbered", [](KernelSource& k) { k.Bindings[2].Binding = 7; },
         "Bindings[2].Binding (7)"},
        {"a binding number of 4,000,000,000", [](KernelSource& k) { k.Bindings[2].Binding = 4000000000u; },
         "Bindings[2].Binding (4000000000)"},
        {"bindings out of order", [](KernelSource& k) { std::swap(k.Bindings[0], k.Bindings[1]); },
         "Bindings[1].Binding (0)"},
        {"a written binding claimed read-only",
         [](KernelSource& k) { k.Bindings[0].Access = BindingAccess::Read; }, "Bindings[0].Access (Read)"},
        {"another workgroup size", [](KernelSource& k) { k.LocalSize[0] = 32; }, "LocalSize (32x1x1)"},
        {"SPIR-V cut short", [](KernelSource& k) { k.SpirvWords = 40; }, "advect.d2"},
        {"a SPIR-V word count of 4,000,000,000", [](KernelSource& k) { k.SpirvWords = 4000000000u; },
         "packed SPIR-V is malformed"},
        {"DXBC words without the DXBC",
         [](KernelSource& k) {
             k.PackedDxbc = nullptr;
             k.DxbcWords = 100;
         },
         "PackedDxbc"},
        {"SPIR-V given as the DXBC",
         [](KernelSource& k) {
             k.PackedDxbc = k.PackedSpirv;
             k.PackedDxbcBytes = k.PackedBytes;
             k.DxbcWords = k.SpirvWords;
         },
         "PackedDxbc"},
        {"DXBC of 4,000,000,000 words",
         [](KernelSource& k) {
             k.PackedDxbc = k.PackedSpirv;
             k.PackedDxbcBytes = k.PackedBytes;
             k.DxbcWords = 4000000000u;
         },
         "PackedDxbc"},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        KernelSource broken = good;
        c.change(broken);
        const Status s = dev.compile(KernelDesc{&broken}).status();
        CHECK(s.code() == StatusCode::InvalidArgument);
        CHECK_THAT(s.message(), Catch::Contains("advect.d2") && Catch::Contains(c.field));
    }
    CHECK(dev.validationMessageCount() == 0);
}

// Issue 55: ripple_add_kernels compiles each variant's HLSL to D3D12 bytecode at build time where the build
// has an HLSL compiler, and a D3D12 device runs it as it is. Bytecode compiled at run time would be kept for
// pipelineCacheData(); the embedded one is not (every process has it), so the data does not grow.
TEST_CASE("A user kernel with build-time D3D12 bytecode is compiled at run time by no one",
          "[user_kernel][gpu]") {
    const KernelSource& source = test_kernels::advect_d3;
    const bool embedded = source.PackedDxbc != nullptr;
    CHECK(embedded == (source.Hlsl != nullptr && *ripple::d3d12BytecodeCompiler() != '\0'));
    Device dev = rt::freshDevice();
    auto before = dev.pipelineCacheData();
    REQUIRE(before.ok());
    auto kernel = dev.compile(KernelDesc{&source});
    REQUIRE(kernel.ok());
    auto afterData = dev.pipelineCacheData();
    REQUIRE(afterData.ok());
    const std::vector<uint8_t>& after = afterData.value();
    if (rt::onD3D12() && embedded)
        CHECK(after == before.value()); // the build's bytecode: nothing compiled, nothing to keep
    else if (rt::onD3D12())
        CHECK(after.size() > before.value().size()); // compiled at run time, kept
    else
        CHECK(!after.empty()); // Vulkan: its pipeline cache, whatever the bytecode
}

// KernelDispatch::IndirectBuffer (issue 43): group counts read on the GPU, written by the host, by an earlier
// command of the same submission, or too large (clamped, reported); a Recording replays it with new counts.
TEST_CASE(
    "A user kernel dispatched indirectly: counts from a buffer, written on the GPU, refused over the limit",
    "[user_kernel][gpu]") {
    Device& dev = rt::device();
    const KernelSource& source = rt::hlslRoundTrip() && !rt::onD3D12()
                                     ? test_kernels::hlsl_round_trip::advect_d2
                                     : test_kernels::advect_d2;
    auto kernel = dev.compile(KernelDesc{&source});
    REQUIRE(kernel.ok());
    const uint32_t n = 1000; // 64 invocations a workgroup: 16 workgroups touch all
    auto pos = dev.createBuffer(2 * n * 4), vel = dev.createBuffer(2 * n * 4),
         stats = dev.createBuffer(16 + n * 4), counts = dev.createBuffer(64), staged = dev.createBuffer(64);
    REQUIRE((pos.ok() && vel.ok() && stats.ok() && counts.ok() && staged.ok()));
    const std::vector<float> zeros(2 * n, 0.0f);
    REQUIRE(dev.upload(pos.value(), 0, zeros.data(), zeros.size() * 4).ok());
    REQUIRE(dev.upload(vel.value(), 0, zeros.data(), zeros.size() * 4).ok());
    struct {
        uint32_t count;
        float dt;
    } push{n, 0.5f};
    auto dispatch = [&](uint64_t offset) {
        KernelDispatch d;
        d.GroupCount[0] = 999999999; // ignored with IndirectBuffer
        d.Bindings = {{&pos.value(), 0, 0}, {&vel.value(), 0, 0}, {&stats.value(), 0, 0}};
        d.PushConstants = &push;
        d.PushConstantBytes = sizeof push;
        d.Label = "advect indirect";
        d.IndirectBuffer = &counts.value();
        d.IndirectOffset = offset;
        return d;
    };
    // The particles touched: the first min(64 * x, n) (y and z repeat the same invocations).
    auto touched = [&]() {
        std::vector<uint32_t> words((16 + n * 4) / 4);
        REQUIRE(dev.download(stats.value(), 0, words.data(), words.size() * 4).ok());
        uint32_t first = 0;
        while (first < n && words[4 + first] == 1u) ++first;
        uint32_t after = 0; // touched past the first untouched one: none
        for (uint32_t i = first; i < n; ++i) after += words[4 + i] != 0xA5A5A5A5u;
        CHECK(after == 0);
        return first;
    };
    auto poison = [&]() {
        const std::vector<uint8_t> p(16 + n * 4, 0xA5);
        REQUIRE(dev.upload(stats.value(), 0, p.data(), p.size()).ok());
    };
    const uint32_t yLimit = dev.adapter().features.maxWorkgroupCount[1];
    struct Case {
        const char* what;
        uint32_t x, y, z;
        uint64_t offset;
        uint32_t expect;
        bool clamped;
    };
    for (const Case& c :
         {Case{"5 x 1 x 1 at byte 4", 5, 1, 1, 4, 320, false},
          Case{"2 x 3 x 2 at byte 20", 2, 3, 2, 20, 128, false},
          Case{"0 x 1 x 1: nothing runs", 0, 1, 1, 0, 0, false},
          Case{"1 x 0xFFFFFFFF x 1: over the limit, nothing runs", 1, 0xFFFFFFFFu, 1, 8, 0, true},
          Case{"40 x 1 x 1: all 1000", 40, 1, 1, 52, n, false}}) {
        INFO(c.what);
        poison();
        const uint32_t words[3] = {c.x, c.y, c.z};
        REQUIRE(dev.upload(counts.value(), c.offset, words, 12).ok());
        auto rec = dev.createRecorder();
        REQUIRE(rec.ok());
        REQUIRE(rec->record(kernel.value(), dispatch(c.offset)).ok());
        auto ticket = dev.submit(rec.value());
        REQUIRE(ticket.ok());
        const Status s = dev.wait(ticket.value());
        CHECK(s.code() == (c.clamped ? StatusCode::InvalidArgument : StatusCode::Ok));
        if (c.clamped) CHECK(s.message().find("launched nothing") != std::string::npos);
        CHECK(touched() == c.expect);
        CHECK(yLimit >= 1);
    }

    // Counts written by an earlier command of the submission (a copy): ordered before the indirect read.
    // Kept as a Recording, replayed with other counts.
    auto rec = dev.createRecorder();
    REQUIRE(rec.ok());
    REQUIRE(rec->copyBuffer(staged.value(), 0, counts.value(), 32, 16).ok());
    REQUIRE(rec->record(kernel.value(), dispatch(32)).ok());
    auto recording = dev.finishRecording(rec.value());
    REQUIRE(recording.ok());
    for (uint32_t x : {3u, 7u, 1u}) {
        INFO("replayed with x " << x);
        poison();
        const uint32_t words[4] = {x, 1, 1, 0};
        REQUIRE(dev.upload(staged.value(), 0, words, 16).ok());
        REQUIRE(dev.upload(counts.value(), 32, std::vector<uint32_t>{0, 0, 0, 0}.data(), 16).ok());
        auto ticket = dev.submit(recording.value());
        REQUIRE(ticket.ok());
        REQUIRE(dev.wait(ticket.value()).ok());
        CHECK(touched() == 64 * x);
    }

    // Misuse: nothing recorded.
    auto bad = dev.createRecorder();
    REQUIRE(bad.ok());
    for (uint64_t offset : {2ull, 56ull, 64ull, 1ull << 40}) {
        INFO("offset " << offset);
        const Status s = bad->record(kernel.value(), dispatch(offset));
        CHECK(s.code() == StatusCode::InvalidArgument);
        CHECK(s.message().find("IndirectOffset") != std::string::npos);
    }
    KernelDispatch d = dispatch(0);
    Buffer empty;
    d.IndirectBuffer = &empty;
    CHECK(bad->record(kernel.value(), d).message().find("IndirectBuffer is empty") != std::string::npos);
    CHECK(bad->statistics().dispatches == 0);
    INFO("validation layer messages (see stderr)");
    CHECK(dev.validationMessageCount() == 0);
}
