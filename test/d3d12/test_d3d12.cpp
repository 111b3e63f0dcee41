// SPDX-License-Identifier: MIT
// The D3D12 backend's host code on vkd3d (D3D12 over Vulkan, here on lavapipe): device, compute queue,
// committed buffers, root signatures from reflection, descriptor tables of raw views, state transitions,
// UAV barriers, fences as tickets, upload and readback, driven with the DXBC fixtures of test/data/d3d12
// (shader model 5.0; nothing on Linux compiles HLSL to DXBC). What this cannot prove: that fxc/dxc accept
// ripple's HLSL, and anything about real Windows GPUs (docs/D3D12.md: "What is verified where").
#include "d3d12/device.hpp" // includes d3d12_api.hpp first: its WIDL switch must precede the headers
#include "runtime/access.hpp"

#include "ripple/version.hpp"

#include <catch2/catch.hpp>

#include "ripple/interop/d3d12.hpp"
#include "ripple_d3d12_tests_kernels.hpp"
#include "runtime/objects.hpp"
#include "runtime/recorder_impl.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <thread>

using namespace ripple;

namespace {

std::vector<uint8_t> fixture(const std::string& name) {
    std::ifstream f(std::string(RIPPLE_TEST_DATA_DIR) + "/d3d12/" + name, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// Reflection as ripple-embed gives it for a kernel with a read-only buffer at binding 0 (t0), a written one
// at binding 1 (u1), and `pushBytes` of root constants at b0.
kernels::KernelInfo info(const char* name, uint32_t pushBytes) {
    return kernels::KernelInfo{name, {nullptr, 0, 0}, {64, 1, 1}, pushBytes, 2, {{0, true}, {1, false}},
                               0,    nullptr,         0};
}

} // namespace

TEST_CASE("D3D12 backend on vkd3d: root constants, descriptor tables, barriers, fences, readback",
          "[d3d12]") {
    auto created = d3d12::D3D12Device::create({});
    INFO(created.status().message());
    REQUIRE(created.ok());
    d3d12::D3D12Device& dev = *created.value();
    CHECK(dev.adapter().backend == Backend::D3D12);

    const kernels::KernelInfo affine = info("test.affine_u32", 12),
                              affineLen = info("test.affine_len_u32", 0);
    std::vector<uint8_t> dxbc = fixture("affine_u32_cs50.dxbc"),
                         dxbcLen = fixture("affine_len_u32_cs50.dxbc");
    REQUIRE(dxbc.size() > 64);
    REQUIRE(dxbcLen.size() > 64);
    dev.setBytecodeForTesting(affine.name, dxbc);
    dev.setBytecodeForTesting(affineLen.name, dxbcLen);
    REQUIRE(dev.preparePipeline(affine).ok());
    REQUIRE(dev.preparePipeline(affineLen).ok());

    const uint32_t n = 1000; // not a multiple of the 64-wide workgroup
    std::vector<uint32_t> in(n);
    std::mt19937 rng(5);
    for (uint32_t& v : in) v = rng();
    auto make = [&](uint64_t bytes) {
        auto b = dev.createBuffer(bytes, false);
        REQUIRE(b.ok());
        return std::move(b.value());
    };
    auto bin = make(n * 4), bmid = make(n * 4), bout = make(n * 4 + 64), blen = make(n * 4);
    REQUIRE(dev.upload(*bin, 0, in.data(), n * 4, UINT64_MAX, nullptr).ok());
    const std::vector<uint32_t> poison(n + 16, 0xA5A5A5A5u);
    REQUIRE(dev.upload(*bout, 0, poison.data(), (n + 16) * 4, UINT64_MAX, nullptr).ok());

    // in -> (x*3+7) -> mid -> (x*5+1) -> out[16..]; and in -> (x*2+1) -> len (n = 1000 in that kernel).
    auto list = dev.beginCommands(0);
    REQUIRE(list.ok());
    const uint32_t first[3] = {n, 3, 7}, second[3] = {n, 5, 1}, none[3] = {0, 0, 0};
    const uint32_t groups[3] = {(n + 63) / 64, 1, 1};
    list.value()->dispatch(affine, {{bin.get(), 0, n * 4}, {bmid.get(), 0, n * 4}}, first, groups);
    list.value()->barrier();
    list.value()->dispatch(affine, {{bmid.get(), 0, n * 4}, {bout.get(), 64, n * 4}}, second, groups);
    list.value()->dispatch(affineLen, {{bin.get(), 0, n * 4}, {blen.get(), 0, n * 4}}, none, groups);
    auto ticket = dev.submit(std::move(list.value()));
    REQUIRE(ticket.ok());
    REQUIRE(dev.wait(ticket.value(), 60'000'000'000ull).ok());
    auto done = dev.isComplete(ticket.value());
    REQUIRE(done.ok());
    CHECK(done.value());

    std::vector<uint32_t> out(n + 16), len(n);
    REQUIRE(dev.download(*bout, 0, out.data(), (n + 16) * 4, UINT64_MAX).ok());
    REQUIRE(dev.download(*blen, 0, len.data(), n * 4, UINT64_MAX).ok());
    for (uint32_t i = 0; i < 16; ++i) CHECK(out[i] == 0xA5A5A5A5u); // before the bound range: untouched
    uint32_t wrong = 0, wrongLen = 0;
    for (uint32_t i = 0; i < n; ++i) {
        wrong += out[16 + i] != (in[i] * 3 + 7) * 5 + 1;
        wrongLen += len[i] != in[i] * 2 + 1;
    }
    CHECK(wrong == 0);
    CHECK(wrongLen == 0);
    CHECK(dev.wait(ticket.value(), 0).ok()); // a completed ticket returns at once
}

TEST_CASE("D3D12 through the public API: a device whose operators run the build's bytecode, or a clear "
          "error where the build has none and no HLSL compiler is at hand",
          "[d3d12]") {
    DeviceOptions options;
    options.backend = Backend::D3D12;
    auto device = Device::create(options);
    INFO(device.status().message());
    REQUIRE(device.ok());
    CHECK(device->adapter().backend == Backend::D3D12);
    CHECK(std::string(toString(device->adapter().backend)) == "D3D12");
    TopKDesc d;
    d.InputTensor = {DataType::Float32, {2, 5}, {}};
    d.OutputValueTensor = {DataType::Float32, {2, 2}, {}};
    d.OutputIndexTensor = {DataType::UInt32, {2, 2}, {}};
    d.Axis = 1;
    d.K = 2;
    auto op = device->compile(d); // compileHlslAtRunTime off: the build's bytecode or nothing
    INFO(op.status().message());
    const bool embedded = *ripple::d3d12BytecodeCompiler() != 0;
    if (embedded) {
        CHECK(op.ok());
    } else {
        CHECK(op.status().code() == StatusCode::Unsupported);
        CHECK(op.status().message().find("without D3D12 bytecode") != std::string::npos);
        CHECK(op.status().message().find("compileHlslAtRunTime") != std::string::npos);
        // Switched on: compiled at first use, where this process has an HLSL compiler.
        options.compileHlslAtRunTime = true;
        auto compiling = Device::create(options);
        REQUIRE(compiling.ok());
        auto compiled = compiling->compile(d);
        INFO(compiled.status().message());
        const char* compiler = std::getenv("RIPPLE_D3D12_HLSL_COMPILER");
        if (compiler && *compiler) { // the d3d12-real run (tools/vkd3d-tool.sh's library)
            CHECK(compiled.ok());
        } else {
            CHECK(compiled.status().code() == StatusCode::Unsupported);
            CHECK(compiled.status().message().find("no HLSL compiler here") != std::string::npos);
            CHECK(compiled.status().message().find("RIPPLE_D3D12_HLSL_COMPILER") != std::string::npos);
        }
    }
    auto adapters = enumerateAdapters(Backend::D3D12);
    REQUIRE(adapters.ok());
    REQUIRE(adapters.value().size() == 1);
    CHECK(adapters.value()[0].backend == Backend::D3D12);
    CHECK(adapters.value()[0].name.find("vkd3d") != std::string::npos);
}

TEST_CASE("D3D12 through the public API: a user kernel, its root signature from its reflection, ordered by "
          "the recorder",
          "[d3d12]") {
    DeviceOptions options;
    options.backend = Backend::D3D12;
    auto device = Device::create(options);
    REQUIRE(device.ok());
    const KernelSource& source = d3d12_kernels::affine;
    REQUIRE(source.Hlsl != nullptr); // what D3DCompile would compile on Windows
    // vkd3d compiles no HLSL: the kernel's bytecode is the DXBC fixture of the same computation, under the
    // name the device gives the kernel (lib/runtime/kernel.cpp).
    char name[64];
    std::snprintf(name, sizeof name, "user:affine@%p", static_cast<const void*>(&source));
    static_cast<d3d12::D3D12Device&>(*ripple::detail::impl(device.value())->backend)
        .setBytecodeForTesting(name, fixture("affine_u32_cs50.dxbc"));
    auto kernel = device->compile(KernelDesc{&source});
    INFO(kernel.status().message());
    REQUIRE(kernel.ok());

    const uint32_t n = 777;
    std::vector<uint32_t> in(n);
    std::mt19937 rng(8);
    for (uint32_t& v : in) v = rng();
    auto bin = device->createBuffer(n * 4), bmid = device->createBuffer(n * 4),
         bout = device->createBuffer(n * 4);
    REQUIRE((bin.ok() && bmid.ok() && bout.ok()));
    REQUIRE(device->upload(bin.value(), 0, in.data(), n * 4).ok());
    const std::vector<uint32_t> poison(n, 0xA5A5A5A5u);
    REQUIRE(device->upload(bout.value(), 0, poison.data(), n * 4).ok());
    RecorderOptions ro;
    ro.timestamps = true;
    auto rec = device->createRecorder(ro);
    REQUIRE(rec.ok());
    auto dispatch = [&](const Buffer& from, const Buffer& to, uint32_t mul, uint32_t add, const char* label) {
        const uint32_t push[3] = {n, mul, add};
        KernelDispatch d;
        d.GroupCount[0] = (n + 63) / 64;
        d.Bindings = {{&from, 0, 0}, {&to, 0, 0}};
        d.PushConstants = push;
        d.PushConstantBytes = sizeof push;
        d.Label = label;
        return rec->record(kernel.value(), d);
    };
    REQUIRE(dispatch(bin.value(), bmid.value(), 3, 7, "first").ok());
    REQUIRE(dispatch(bmid.value(), bout.value(), 5, 1, "second").ok()); // reads what the first wrote
    CHECK(rec->statistics().barriers == 1);
    auto ticket = device->submit(rec.value());
    REQUIRE(ticket.ok());
    REQUIRE(device->wait(ticket.value()).ok());
    std::vector<uint32_t> out(n);
    REQUIRE(device->download(bout.value(), 0, out.data(), n * 4).ok());
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < n; ++i) wrong += out[i] != (in[i] * 3 + 7) * 5 + 1;
    CHECK(wrong == 0);
    auto reports = device->reports(ticket.value());
    REQUIRE(reports.ok());
    REQUIRE(reports.value().size() == 2);
    CHECK(reports.value()[0].label == "first");
    CHECK(reports.value()[1].label == "second");
    CHECK(reports.value()[1].gpuBeginNanoseconds >= reports.value()[0].gpuEndNanoseconds);
}

TEST_CASE("D3D12 interop: ripple on an engine's device, queue, buffers and command list", "[d3d12]") {
    // The engine's own objects.
    ID3D12Device* engineDevice = nullptr;
    REQUIRE(SUCCEEDED(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_ID3D12Device,
                                        reinterpret_cast<void**>(&engineDevice))));
    D3D12_COMMAND_QUEUE_DESC qd{};
    qd.Type = D3D12_COMMAND_LIST_TYPE_COMPUTE;
    ID3D12CommandQueue* queue = nullptr;
    REQUIRE(SUCCEEDED(
        engineDevice->CreateCommandQueue(&qd, IID_ID3D12CommandQueue, reinterpret_cast<void**>(&queue))));
    const uint32_t n = 333;
    auto makeResource = [&]() {
        D3D12_HEAP_PROPERTIES heap{};
        heap.Type = D3D12_HEAP_TYPE_DEFAULT;
        D3D12_RESOURCE_DESC desc{};
        desc.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
        desc.Width = n * 4;
        desc.Height = desc.DepthOrArraySize = desc.MipLevels = 1;
        desc.SampleDesc.Count = 1;
        desc.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
        desc.Flags = D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS;
        ID3D12Resource* r = nullptr;
        REQUIRE(SUCCEEDED(engineDevice->CreateCommittedResource(
            &heap, D3D12_HEAP_FLAG_NONE, &desc, D3D12_RESOURCE_STATE_COMMON, nullptr, IID_ID3D12Resource,
            reinterpret_cast<void**>(&r))));
        return r;
    };
    ID3D12Resource* input = makeResource();
    ID3D12Resource* output = makeResource();
    {
        int locks = 0, unlocks = 0;
        interop::D3D12DeviceDesc desc;
        desc.device = engineDevice;
        desc.queue = queue;
        desc.lockQueue = [&] { ++locks; };
        desc.unlockQueue = [&] { ++unlocks; };
        auto device = interop::adoptD3D12Device(desc);
        INFO(device.status().message());
        REQUIRE(device.ok());
        REQUIRE(device->adapter().backend == Backend::D3D12); // ripple has no RTTI: the kind tells the class
        auto* backend = static_cast<d3d12::D3D12Device*>(ripple::detail::impl(device.value())->backend.get());
        const kernels::KernelInfo affine = info("test.affine_u32", 12);
        backend->setBytecodeForTesting(affine.name, fixture("affine_u32_cs50.dxbc"));
        REQUIRE(backend->preparePipeline(affine).ok());
        auto in = interop::wrapD3D12Resource(device.value(), input, n * 4);
        auto out = interop::wrapD3D12Resource(device.value(), output, n * 4);
        REQUIRE((in.ok() && out.ok()));
        std::vector<uint32_t> data(n);
        for (uint32_t i = 0; i < n; ++i) data[i] = i * 2654435761u;
        REQUIRE(device->upload(in.value(), 0, data.data(), n * 4).ok()); // ripple's own submission
        CHECK(locks > 0);
        CHECK(locks == unlocks);

        // The engine's command list, with ripple's commands recorded into it.
        ID3D12CommandAllocator* allocator = nullptr;
        ID3D12GraphicsCommandList* list = nullptr;
        REQUIRE(SUCCEEDED(engineDevice->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE,
                                                               IID_ID3D12CommandAllocator,
                                                               reinterpret_cast<void**>(&allocator))));
        REQUIRE(SUCCEEDED(engineDevice->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, allocator,
                                                          nullptr, IID_ID3D12GraphicsCommandList,
                                                          reinterpret_cast<void**>(&list))));
        auto rec = interop::recordInto(device.value(), list);
        REQUIRE(rec.ok());
        // The fixture kernel goes through the recorder's own queue (an operator would need HLSL compiled).
        detail::PendingCommand c;
        c.kernel = &affine;
        c.ranges = {{ripple::detail::impl(in.value())->buffer.get(), 0, n * 4},
                    {ripple::detail::impl(out.value())->buffer.get(), 0, n * 4}};
        c.push[0] = n, c.push[1] = 9, c.push[2] = 4;
        c.groups[0] = (n + 63) / 64;
        const std::vector<detail::Access> accesses = {{c.ranges[0].buffer, 0, n * 4, false},
                                                      {c.ranges[1].buffer, 0, n * 4, true}};
        ripple::detail::impl(rec.value())->add(std::move(c), accesses);
        auto pending = interop::endRecording(device.value(), rec.value());
        REQUIRE(pending.ok());
        REQUIRE(SUCCEEDED(list->Close()));
        ID3D12Fence* fence = nullptr;
        REQUIRE(SUCCEEDED(engineDevice->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_ID3D12Fence,
                                                    reinterpret_cast<void**>(&fence))));
        ID3D12CommandList* lists[] = {list};
        queue->ExecuteCommandLists(1, lists);
        REQUIRE(SUCCEEDED(queue->Signal(fence, 1)));
        for (int spin = 0; fence->GetCompletedValue() < 1 && spin < 1000000; ++spin)
            std::this_thread::yield();
        REQUIRE(fence->GetCompletedValue() >= 1);
        CHECK(interop::completeRecording(device.value(), pending.value()).ok());

        std::vector<uint32_t> result(n);
        REQUIRE(device->download(out.value(), 0, result.data(), n * 4).ok());
        uint32_t wrong = 0;
        for (uint32_t i = 0; i < n; ++i) wrong += result[i] != data[i] * 9 + 4;
        CHECK(wrong == 0);
        fence->Release();
        list->Release();
        allocator->Release();
    } // ripple's device goes before the engine's objects
    output->Release();
    input->Release();
    queue->Release();
    engineDevice->Release();
}

TEST_CASE("D3D12 fills, timestamps, and the bytecode cache round trip", "[d3d12]") {
    std::vector<std::string> warnings;
    DeviceOptions options;
    options.log = [&](LogLevel level, const std::string& m) {
        if (level >= LogLevel::Warning) warnings.push_back(m);
    };
    auto created = d3d12::D3D12Device::create(options);
    REQUIRE(created.ok());
    d3d12::D3D12Device& dev = *created.value();
    const kernels::KernelInfo affine = info("test.affine_u32", 12);
    dev.setBytecodeForTesting(affine.name, fixture("affine_u32_cs50.dxbc"));
    REQUIRE(dev.preparePipeline(affine).ok());

    // A fill of [64, 64 + 400) of a 1024-byte buffer, then a timed dispatch reading it.
    auto a = dev.createBuffer(1024, false), b = dev.createBuffer(1024, false);
    REQUIRE((a.ok() && b.ok()));
    const std::vector<uint32_t> poison(256, 0x5A5A5A5Au);
    REQUIRE(dev.upload(*a.value(), 0, poison.data(), 1024, UINT64_MAX, nullptr).ok());
    auto list = dev.beginCommands(2);
    REQUIRE(list.ok());
    list.value()->fill({a.value().get(), 64, 400}, 0x01020304u);
    list.value()->barrier();
    list.value()->timestamp(0);
    const uint32_t push[3] = {256, 2, 0}, groups[3] = {4, 1, 1};
    list.value()->dispatch(affine, {{a.value().get(), 0, 1024}, {b.value().get(), 0, 1024}}, push, groups);
    list.value()->timestamp(1);
    auto ticket = dev.submit(std::move(list.value()));
    REQUIRE(ticket.ok());
    REQUIRE(dev.wait(ticket.value(), 60'000'000'000ull).ok());
    std::vector<uint32_t> filled(256), doubled(256);
    REQUIRE(dev.download(*a.value(), 0, filled.data(), 1024, UINT64_MAX).ok());
    REQUIRE(dev.download(*b.value(), 0, doubled.data(), 1024, UINT64_MAX).ok());
    for (uint32_t i = 0; i < 256; ++i) {
        const bool inside = i >= 16 && i < 16 + 100;
        CHECK(filled[i] == (inside ? 0x01020304u : 0x5A5A5A5Au));
        CHECK(doubled[i] == filled[i] * 2);
    }
    std::vector<uint64_t> times = dev.timestamps(ticket.value());
    REQUIRE(times.size() == 2);
    CHECK(times[1] >= times[0]);

    // The bytecode of the pipelines made is cache data a new device starts from.
    auto data = dev.pipelineCacheData();
    REQUIRE(data.ok());
    options.pipelineCacheData = data.value();
    auto reused = d3d12::D3D12Device::create(options);
    REQUIRE(reused.ok());
    CHECK(reused.value()->preparePipeline(affine).ok()); // no test bytecode given: it came from the cache
    CHECK(warnings.empty());
    options.pipelineCacheData[0] ^= 0xFF; // not ripple's D3D12 cache data
    auto foreign = d3d12::D3D12Device::create(options);
    REQUIRE(foreign.ok());
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("ignored") != std::string::npos);
    CHECK(foreign.value()->preparePipeline(affine).code() ==
          StatusCode::Unsupported); // nothing to compile with
}

TEST_CASE("D3D12: a Recording replayed, and submissions that wait on and signal the engine's fences",
          "[d3d12]") {
    DeviceOptions options;
    options.backend = Backend::D3D12;
    auto device = Device::create(options);
    REQUIRE(device.ok());
    Device& dev = device.value();
    auto* backend = static_cast<d3d12::D3D12Device*>(ripple::detail::impl(dev)->backend.get());
    ID3D12Fence* fence = nullptr;
    REQUIRE(SUCCEEDED(backend->handle()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_ID3D12Fence,
                                                     reinterpret_cast<void**>(&fence))));
    auto a = dev.createBuffer(1024), b = dev.createBuffer(1024);
    REQUIRE((a.ok() && b.ok()));
    std::vector<uint32_t> got(256);

    // Producer: fills a, signals 1. Consumer (a Recording, replayed): waits for 1 (then 2), copies a to b.
    auto producer = dev.createRecorder();
    REQUIRE(producer.ok());
    REQUIRE(producer->fillBuffer(a.value(), 0, 1024, 21).ok());
    auto rec = dev.createRecorder();
    REQUIRE(rec.ok());
    REQUIRE(rec->copyBuffer(a.value(), 0, b.value(), 0, 1024).ok());
    REQUIRE(rec->readback(b.value(), 0, got.data(), 1024).ok());
    auto consumer = dev.finishRecording(rec.value());
    INFO(consumer.status().message());
    REQUIRE(consumer.ok());
    interop::D3D12SubmitSync produced, consumed;
    produced.signals = {{fence, 1}};
    consumed.waits = {{fence, 1}};
    consumed.signals = {{fence, 2}};
    auto first = interop::submit(dev, producer.value(), produced);
    REQUIRE(first.ok());
    // The consumer goes in once vkd3d shows the producer's signal. vkd3d 1.2 moves fence values from a worker
    // thread: a queue Wait for a value still pending there can stall (seen under load), and a later signal
    // can land before an earlier one. A D3D12 queue has neither problem; this test checks ripple's part.
    REQUIRE(dev.wait(first.value()).ok());
    for (int i = 0; i < 5000 && fence->GetCompletedValue() < 1; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    REQUIRE(fence->GetCompletedValue() == 1);
    auto second = interop::submit(dev, consumer.value(), consumed);
    REQUIRE(second.ok());
    REQUIRE(dev.wait(second.value()).ok());
    CHECK(got == std::vector<uint32_t>(256, 21));
    // vkd3d moves the fence's value from a thread of its own, a moment after ripple's ticket: wait() returns
    // once the engine's fence reads as reached too.
    CHECK(fence->GetCompletedValue() == 2);

    // Replayed after new contents, without fences: the readback is written again.
    REQUIRE(dev.upload(a.value(), 0, std::vector<uint32_t>(256, 5).data(), 1024).ok());
    auto third = dev.submit(consumer.value());
    REQUIRE(third.ok());
    REQUIRE(dev.wait(third.value()).ok());
    CHECK(got == std::vector<uint32_t>(256, 5));

    // A null fence is refused by name; a Vulkan-only call is refused on D3D12 too.
    interop::D3D12SubmitSync bad;
    bad.signals = {{fence, 3}, {nullptr, 4}};
    auto refused = interop::submit(dev, consumer.value(), bad);
    CHECK(refused.status().code() == StatusCode::InvalidArgument);
    CHECK(refused.status().message().find("signals[1].fence") != std::string::npos);
    CHECK(fence->GetCompletedValue() == 2); // nothing of the refused submission was signalled
    fence->Release();
}

TEST_CASE("D3D12: uploads and downloads of buffers no pending work uses go on a queue of their own, never "
          "behind a submission waiting on the engine's fence, and a buffer in use times out",
          "[d3d12]") {
    DeviceOptions options;
    options.backend = Backend::D3D12;
    auto device = Device::create(options);
    REQUIRE(device.ok());
    Device& dev = device.value();
    auto* backend = static_cast<d3d12::D3D12Device*>(ripple::detail::impl(dev)->backend.get());
    ID3D12Fence* gate = nullptr;
    REQUIRE(SUCCEEDED(backend->handle()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_ID3D12Fence,
                                                     reinterpret_cast<void**>(&gate))));
    auto busy = dev.createBuffer(1024), idle = dev.createBuffer(1024);
    REQUIRE((busy.ok() && idle.ok()));
    auto rec = dev.createRecorder();
    REQUIRE(rec.ok());
    REQUIRE(rec->fillBuffer(busy.value(), 0, 1024, 9).ok());
    interop::D3D12SubmitSync gated;
    gated.waits = {{gate, 1}};
    auto ticket = interop::submit(dev, rec.value(), gated);
    REQUIRE(ticket.ok());

    const std::vector<uint32_t> frame(256, 0xCAFEF00Du);
    const auto start = std::chrono::steady_clock::now();
    const Status up = dev.upload(idle.value(), 0, frame.data(), 1024, 500'000'000ull);
    // On a D3D12 driver the transfer queue runs beside the gated one. vkd3d 1.2 on lavapipe puts both
    // D3D12 queues on lavapipe's one Vulkan queue, behind the gate: then the deadline holds, and the copy
    // lands once the gate opens.
    CHECK((up.ok() || up.code() == StatusCode::Timeout));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    std::vector<uint32_t> got(256);
    const char* const noGate =
        "this D3D12 ran the submission without waiting for the engine's fence: no gate to test";
    if (dev.isComplete(ticket.value()).value()) { // vkd3d 1.2 may run a Wait for a value not yet signalled
        WARN(noGate);
    } else if (const Status down = dev.download(busy.value(), 0, got.data(), 1024, 50'000'000ull);
               down.ok() && dev.isComplete(ticket.value()).value()) {
        // The same vkd3d behaviour, caught after the check above: the submission ran between the two
        // without its fence signalled (CI, a busy 2-core machine, 2026-12-03).
        WARN(noGate);
    } else {
        CHECK(down.code() == StatusCode::Timeout);
        CHECK(down.message().find("in use by ticket " + std::to_string(ticket.value().value)) !=
              std::string::npos);
    }

    REQUIRE(SUCCEEDED(gate->Signal(1)));
    REQUIRE(dev.wait(ticket.value()).ok());
    REQUIRE(dev.download(busy.value(), 0, got.data(), 1024).ok());
    CHECK(got == std::vector<uint32_t>(256, 9));
    REQUIRE(dev.download(idle.value(), 0, got.data(), 1024).ok());
    CHECK(got == frame);
    gate->Release();
}
