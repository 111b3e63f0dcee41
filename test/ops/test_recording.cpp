// SPDX-License-Identifier: MIT
// Replayable recordings (ripple/recording.hpp, issue 43): a recorder's commands submitted frame after frame
// without recording again. Each submission must follow the buffers' new contents and have its own reports
// (status words fresh each time), readbacks and timestamps; rebind() moves the commands to another buffer;
// every misuse is a Status.
#include "ripple/interop/vulkan.hpp"
#include "runtime/access.hpp"
#include "runtime/objects.hpp"
#include "support/gpu.hpp"
#include "support/host_tensor.hpp"
#include "support/reference.hpp"
#include "vulkan/device.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>

using namespace ripple;

namespace {

Buffer makeBuffer(Device& dev, uint64_t bytes) {
    auto b = dev.createBuffer(bytes);
    REQUIRE(b.ok());
    return std::move(b.value());
}

void put(Device& dev, Buffer& b, const std::vector<uint8_t>& bytes) {
    REQUIRE(dev.upload(b, 0, bytes.data(), bytes.size()).ok());
}

std::vector<uint8_t> get(Device& dev, const Buffer& b, size_t bytes) {
    std::vector<uint8_t> got(bytes);
    REQUIRE(dev.download(b, 0, got.data(), bytes).ok());
    return got;
}

std::vector<uint32_t> words(Device& dev, const Buffer& b) {
    std::vector<uint32_t> w(b.size() / 4);
    REQUIRE(dev.download(b, 0, w.data(), b.size()).ok());
    return w;
}

void poison(Device& dev, Buffer& b) {
    put(dev, b, std::vector<uint8_t>(b.size(), 0xA5));
}

// A recording of fills whose last one is on `last`: WAW on `scratch` orders them, so that the GPU (or
// lavapipe's threads) takes a while over it. 4 MiB: vkd3d 1.2 clears a UAV with a workgroup per
// 32 elements of the whole buffer, and more than 65535 workgroups break Vulkan's limit under it.
Recording slowRecording(Device& dev, Buffer& scratch, Buffer& last) {
    auto rec = dev.createRecorder();
    REQUIRE(rec.ok());
    for (uint32_t i = 0; i < 16; ++i) REQUIRE(rec->fillBuffer(scratch, 0, scratch.size(), i).ok());
    REQUIRE(rec->copyBuffer(scratch, 0, last, 0, last.size()).ok());
    auto made = dev.finishRecording(rec.value());
    REQUIRE(made.ok());
    return std::move(made.value());
}

} // namespace

TEST_CASE("A Recording replays ScatterElements and TopK every frame on the buffers' new contents, each "
          "submission with its own reports, readbacks and timestamps",
          "[recording][gpu]") {
    Device& dev = rt::device();
    const bool timed = dev.adapter().features.timestamps;
    std::mt19937 rng(43);
    const uint32_t rows = 64, cols = 33, n = 7, k = 5;
    ScatterElementsDesc s;
    s.InputTensor = s.OutputTensor = {DataType::Float32, {rows, cols}, {}};
    s.IndicesTensor = {DataType::Int32, {rows, n}, {}};
    s.UpdatesTensor = {DataType::Float32, {rows, n}, {}};
    s.Axis = 1;
    TopKDesc t;
    t.InputTensor = {DataType::Float32, {rows, cols}, {}};
    t.OutputValueTensor = {DataType::Float32, {rows, k}, {}};
    t.OutputIndexTensor = {DataType::UInt32, {rows, k}, {}};
    t.Axis = 1;
    t.K = k;
    auto scatter = dev.compile(s);
    auto topk = dev.compile(t);
    REQUIRE((scatter.ok() && topk.ok()));

    rt::HostTensor input(DataType::Float32, {rows, cols}), indices(DataType::Int32, {rows, n}),
        updates(DataType::Float32, {rows, n});
    Buffer in = makeBuffer(dev, input.bytes.size()), idx = makeBuffer(dev, indices.bytes.size()),
           upd = makeBuffer(dev, updates.bytes.size()), scattered = makeBuffer(dev, input.bytes.size()),
           values = makeBuffer(dev, rows * k * 4), order = makeBuffer(dev, rows * k * 4);
    std::vector<uint8_t> readBack(rows * k * 4);

    RecorderOptions options;
    options.timestamps = timed;
    auto rec = dev.createRecorder(options);
    REQUIRE(rec.ok());
    REQUIRE(rec->record(scatter.value(), {{&in, 0}, {&idx, 0}, {&upd, 0}, {&scattered, 0}}, "scatter").ok());
    REQUIRE(rec->record(topk.value(), {{&scattered, 0}, {&values, 0}, {&order, 0}}, "topk").ok());
    REQUIRE(rec->readback(order, 0, readBack.data(), readBack.size()).ok());
    auto made = dev.finishRecording(rec.value());
    REQUIRE(made.ok());
    Recording recording = std::move(made.value());
    CHECK(recording.statistics().operators == 2);
    CHECK(recording.statistics().copies == 1);
    CHECK(rec->statistics().operators == 0); // the recorder is empty again, and usable
    CHECK(recording.valid());

    uint64_t lastEnd = 0;
    for (int frame = 0; frame < 5; ++frame) {
        INFO("frame " << frame);
        rt::fill(input, rng, frame % 2 ? rt::Fill::Ties : rt::Fill::Random);
        rt::fill(updates, rng, rt::Fill::Random);
        // Distinct targets in a row (duplicates may land in any order), half written as negative indices.
        for (uint32_t r = 0; r < rows; ++r) {
            std::vector<int32_t> order(cols);
            for (uint32_t c = 0; c < cols; ++c) order[c] = static_cast<int32_t>(c);
            std::shuffle(order.begin(), order.end(), rng);
            for (uint32_t j = 0; j < n; ++j)
                indices.setBits(r * n + j,
                                static_cast<uint32_t>(rng() % 2 ? order[j] : order[j] - int32_t(cols)));
        }
        const bool bad = frame == 2;
        if (bad) indices.setBits(11, cols + 4);
        put(dev, in, input.bytes);
        put(dev, idx, indices.bytes);
        put(dev, upd, updates.bytes);
        for (Buffer* b : {&scattered, &values, &order}) poison(dev, *b);
        std::fill(readBack.begin(), readBack.end(), uint8_t(0x5A));

        auto ticket = dev.submit(recording);
        REQUIRE(ticket.ok());
        CHECK(dev.wait(ticket.value()).code() == (bad ? StatusCode::IndexOutOfRange : StatusCode::Ok));
        auto reports = dev.reports(ticket.value());
        REQUIRE(reports.ok());
        REQUIRE(reports.value().size() == 2);
        CHECK(reports.value()[0].label == "scatter");
        CHECK(reports.value()[0].status.code() == (bad ? StatusCode::IndexOutOfRange : StatusCode::Ok));
        CHECK(reports.value()[1].status.ok());
        if (timed) { // this submission's own times: after the last one's (a coarse clock may give 0 spans)
            for (const OperatorReport& r : reports.value()) {
                CHECK(r.gpuBeginNanoseconds > lastEnd);
                CHECK(r.gpuEndNanoseconds >= r.gpuBeginNanoseconds);
            }
            lastEnd = reports.value().back().gpuEndNanoseconds;
        }

        int dropped = 0;
        const std::vector<uint8_t> expected =
            rt::referenceScatterElements(s, input, indices, updates, &dropped);
        CHECK(dropped == (bad ? 1 : 0));
        CHECK(get(dev, scattered, expected.size()) == expected);
        rt::HostTensor after(DataType::Float32, {rows, cols});
        after.bytes = expected;
        std::vector<uint8_t> refValues, refIndices;
        rt::referenceTopK(t, after, refValues, refIndices);
        CHECK(get(dev, values, refValues.size()) == refValues);
        CHECK(get(dev, order, refIndices.size()) == refIndices);
        CHECK(readBack == refIndices); // written again by this submission
    }
    INFO("validation layer messages (see stderr)");
    CHECK(dev.validationMessageCount() == 0);
}

TEST_CASE("Misusing a Recording gives a Status: empty, foreign, in flight, released buffers, uploads, "
          "rebinds that break its rules, a lost device",
          "[recording][gpu]") {
    Device& dev = rt::device();
    Buffer a = makeBuffer(dev, 4096), b = makeBuffer(dev, 4096), c = makeBuffer(dev, 4096),
           small = makeBuffer(dev, 1024);

    // Empty and moved-from recordings and recorders.
    Recording empty;
    CHECK(!empty.valid());
    CHECK(empty.statistics().operators == 0);
    CHECK(dev.submit(empty).status().code() == StatusCode::InvalidArgument);
    CHECK(empty.rebind(a, b).code() == StatusCode::InvalidArgument);
    CommandRecorder none;
    CHECK(dev.finishRecording(none).status().code() == StatusCode::InvalidArgument);
    CHECK(Device().finishRecording(none).status().code() == StatusCode::InvalidArgument);

    // Uploads are refused, and the recorder keeps its commands for a submit.
    {
        auto rec = dev.createRecorder();
        REQUIRE(rec.ok());
        const std::vector<uint32_t> host(1024, 9);
        REQUIRE(rec->upload(a, 0, host.data(), 4096).ok());
        auto refused = dev.finishRecording(rec.value());
        CHECK(refused.status().code() == StatusCode::InvalidArgument);
        CHECK(refused.status().message().find("upload") != std::string::npos);
        CHECK(rec->statistics().copies == 1);
        auto ticket = dev.submit(rec.value());
        REQUIRE(ticket.ok());
        REQUIRE(dev.wait(ticket.value()).ok());
        CHECK(words(dev, a) == host);
    }
    // Profiled recorders are not kept.
    {
        RecorderOptions profiled;
        profiled.profile = true;
        auto rec = dev.createRecorder(profiled);
        REQUIRE(rec.ok());
        CHECK(dev.finishRecording(rec.value()).status().code() == StatusCode::Unsupported);
    }

    // fill a with 7, copy a to b.
    auto rec = dev.createRecorder();
    REQUIRE(rec.ok());
    REQUIRE(rec->fillBuffer(a, 0, 4096, 7).ok());
    REQUIRE(rec->copyBuffer(a, 0, b, 0, 4096).ok());
    auto made = dev.finishRecording(rec.value());
    REQUIRE(made.ok());
    Recording recording = std::move(made.value());

    // Another device's recording.
    Device other = rt::freshDevice();
    CHECK(other.submit(recording).status().code() == StatusCode::InvalidArgument);

    // Rebinds against the rules change nothing.
    CHECK(recording.rebind(b, small).code() == StatusCode::InvalidArgument); // another size
    CHECK(recording.rebind(c, b).code() == StatusCode::InvalidArgument);     // c is not bound
    CHECK(recording.rebind(b, a).code() == StatusCode::InvalidArgument);     // a is bound already
    CHECK(recording.rebind(b, Buffer()).code() == StatusCode::InvalidArgument);
    Buffer foreign = makeBuffer(other, 4096);
    CHECK(recording.rebind(b, foreign).code() == StatusCode::InvalidArgument);
    poison(dev, b);
    auto first = dev.submit(recording);
    REQUIRE(first.ok());
    REQUIRE(dev.wait(first.value()).ok());
    CHECK(words(dev, b) == std::vector<uint32_t>(1024, 7));

    // rebind b -> c: the next submission writes c, not b.
    poison(dev, b);
    poison(dev, c);
    REQUIRE(recording.rebind(b, c).ok());
    auto second = dev.submit(recording);
    REQUIRE(second.ok());
    REQUIRE(dev.wait(second.value()).ok());
    CHECK(words(dev, c) == std::vector<uint32_t>(1024, 7));
    CHECK(words(dev, b) == std::vector<uint32_t>(1024, 0xA5A5A5A5u));

    // A released buffer: the submission is refused, nothing runs, and no rebind records it again.
    c = Buffer();
    auto refused = dev.submit(recording);
    CHECK(refused.status().code() == StatusCode::InvalidArgument);
    CHECK(refused.status().message().find("released") != std::string::npos);
    Status rebound = recording.rebind(a, small);
    CHECK(rebound.code() == StatusCode::InvalidArgument); // another size: checked first
    Buffer d = makeBuffer(dev, 4096);
    rebound = recording.rebind(a, d);
    CHECK(rebound.code() == StatusCode::InvalidArgument);
    CHECK(rebound.message().find("released") != std::string::npos);
    CHECK(recording.valid());

    // In flight: a second submit (or a rebind) before the first completed is refused. A slow recording,
    // tried a few times in case one completes before the next call. A rebind that succeeds must have come
    // after the submission completed (it reads as complete then); it is undone and tried again (the Wine
    // job saw the submission complete between a refused submit and the rebind).
    {
        Buffer scratch = makeBuffer(dev, 4ull << 20), last = makeBuffer(dev, 4096),
               spare = makeBuffer(dev, 4096);
        Recording slow = slowRecording(dev, scratch, last);
        bool refusedInFlight = false, rebindRefused = false;
        for (int attempt = 0; attempt < 10 && !(refusedInFlight && rebindRefused); ++attempt) {
            auto t1 = dev.submit(slow);
            REQUIRE(t1.ok());
            auto t2 = dev.submit(slow);
            if (!t2.ok()) {
                CHECK(t2.status().code() == StatusCode::InvalidArgument);
                CHECK(t2.status().message().find("in flight") != std::string::npos);
                refusedInFlight = true;
            }
            const Ticket latest = t2.ok() ? t2.value() : t1.value();
            const Status rebound = slow.rebind(last, spare);
            if (rebound.ok()) {
                auto done = dev.isComplete(latest);
                REQUIRE(done.ok());
                CHECK(done.value());
                REQUIRE(slow.rebind(spare, last).ok());
            } else {
                CHECK(rebound.code() == StatusCode::InvalidArgument);
                rebindRefused = true;
            }
            REQUIRE(dev.wait(latest).ok());
        }
        CHECK(refusedInFlight);
        CHECK(rebindRefused);
        // Destroyed while in flight: freed once the submission completes.
        auto t = dev.submit(slow);
        REQUIRE(t.ok());
        slow = Recording();
        REQUIRE(dev.wait(t.value()).ok());
        CHECK(words(dev, last) == std::vector<uint32_t>(1024, 15));
    }
    INFO("validation layer messages (see stderr)");
    CHECK(dev.validationMessageCount() == 0);
    CHECK(other.validationMessageCount() == 0);
}

TEST_CASE("A Recording on a lost device returns DeviceLost", "[recording][gpu]") {
    Device dev = rt::freshDevice();
    Buffer a = makeBuffer(dev, 256);
    auto rec = dev.createRecorder();
    REQUIRE(rec.ok());
    REQUIRE(rec->fillBuffer(a, 0, 256, 1).ok());
    auto made = dev.finishRecording(rec.value());
    REQUIRE(made.ok());
    auto ok = dev.submit(made.value());
    REQUIRE(ok.ok());
    REQUIRE(dev.wait(ok.value()).ok());
    ripple::detail::impl(dev)->backend->injectFault(detail::FaultPoint::Submit, StatusCode::DeviceLost);
    CHECK(dev.submit(made.value()).status().code() == StatusCode::DeviceLost);
    CHECK(dev.submit(made.value()).status().code() == StatusCode::DeviceLost);
    auto again = dev.createRecorder();
    REQUIRE(again.ok());
    CHECK(dev.finishRecording(again.value()).status().code() == StatusCode::DeviceLost);
}

// The engine's semaphores (interop/vulkan.hpp): made here on ripple's own VkDevice, as an engine would on the
// device it adopted.
TEST_CASE("A submission waits on and signals the engine's binary and timeline semaphores",
          "[recording][gpu][vulkan_sync]") {
    Device& dev = rt::device();
    if (dev.adapter().backend != Backend::Vulkan) return; // D3D12's fences: test/d3d12/test_d3d12.cpp
    auto* vkdev = static_cast<vk::VulkanDevice*>(ripple::detail::impl(dev)->backend.get());
    const VolkDeviceTable& t = vkdev->table();
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo timelineInfo{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type},
        binaryInfo{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    struct Semaphores { // destroyed on every way out
        vk::VulkanDevice* device;
        VkSemaphore timeline = VK_NULL_HANDLE, binary = VK_NULL_HANDLE;
        ~Semaphores() {
            device->table().vkDestroySemaphore(device->handle(), timeline, nullptr);
            device->table().vkDestroySemaphore(device->handle(), binary, nullptr);
        }
    } made{vkdev};
    REQUIRE(t.vkCreateSemaphore(vkdev->handle(), &binaryInfo, nullptr, &made.binary) == VK_SUCCESS);
    const VkSemaphore binary = made.binary;
    if (vkdev->fenceTickets()) { // no timeline semaphores: a timeline value is refused, binary ones work
        auto rec = dev.createRecorder();
        REQUIRE(rec.ok());
        interop::VulkanSubmitSync timed;
        timed.signals = {{binary, 5}};
        auto refused = interop::submit(dev, rec.value(), timed);
        CHECK(refused.status().code() == StatusCode::Unsupported);
        CHECK(refused.status().message().find("signals[0].value") != std::string::npos);
        return;
    }
    REQUIRE(t.vkCreateSemaphore(vkdev->handle(), &timelineInfo, nullptr, &made.timeline) == VK_SUCCESS);
    const VkSemaphore timeline = made.timeline;
    Buffer a = makeBuffer(dev, 4096), b = makeBuffer(dev, 4096);
    poison(dev, b);

    // Producer: fills a, signals both. Consumer (a Recording): waits on both, copies a to b, signals 2.
    auto producer = dev.createRecorder();
    REQUIRE(producer.ok());
    REQUIRE(producer->fillBuffer(a, 0, 4096, 3).ok());
    auto rec = dev.createRecorder();
    REQUIRE(rec.ok());
    REQUIRE(rec->copyBuffer(a, 0, b, 0, 4096).ok());
    auto consumer = dev.finishRecording(rec.value());
    REQUIRE(consumer.ok());
    interop::VulkanSubmitSync produced, consumed;
    produced.signals = {{binary, 0}, {timeline, 1}};
    consumed.waits = {{binary, 0, VK_PIPELINE_STAGE_TRANSFER_BIT},
                      {timeline, 1, VK_PIPELINE_STAGE_TRANSFER_BIT}};
    consumed.signals = {{timeline, 2}};
    auto first = interop::submit(dev, producer.value(), produced);
    REQUIRE(first.ok());
    auto second = interop::submit(dev, consumer.value(), consumed);
    REQUIRE(second.ok());
    REQUIRE(dev.wait(second.value()).ok());
    CHECK(words(dev, b) == std::vector<uint32_t>(1024, 3));
    uint64_t value = 0;
    REQUIRE(t.vkGetSemaphoreCounterValue(vkdev->handle(), timeline, &value) == VK_SUCCESS);
    CHECK(value == 2);

    // Entries against the rules: nothing is submitted.
    interop::VulkanSubmitSync bad;
    bad.waits = {{VK_NULL_HANDLE, 0, VK_PIPELINE_STAGE_TRANSFER_BIT}};
    auto refused = interop::submit(dev, consumer.value(), bad);
    CHECK(refused.status().code() == StatusCode::InvalidArgument);
    CHECK(refused.status().message().find("waits[0].semaphore") != std::string::npos);
    bad.waits = {{timeline, 2, 0}};
    CHECK(interop::submit(dev, consumer.value(), bad).status().message().find("waits[0].stages") !=
          std::string::npos);
    bad.waits.clear();
    bad.signals = {{timeline, 3}, {VK_NULL_HANDLE, 0}};
    CHECK(interop::submit(dev, consumer.value(), bad).status().message().find("signals[1].semaphore") !=
          std::string::npos);
    REQUIRE(t.vkGetSemaphoreCounterValue(vkdev->handle(), timeline, &value) == VK_SUCCESS);
    CHECK(value == 2);
    CommandRecorder empty;
    CHECK(interop::submit(dev, empty, consumed).status().code() == StatusCode::InvalidArgument);
    Device noDevice;
    CHECK(interop::submit(noDevice, consumer.value(), consumed).status().code() ==
          StatusCode::InvalidArgument);

    INFO("validation layer messages (see stderr)");
    CHECK(dev.validationMessageCount() == 0);
}

TEST_CASE("interop::vulkanHandles gives the objects a Device runs on, and refuses an empty or D3D12 one",
          "[recording][gpu][vulkan_sync]") {
    Device empty;
    CHECK(interop::vulkanHandles(empty).status().code() == StatusCode::InvalidArgument);
    Device& dev = rt::device();
    auto h = interop::vulkanHandles(dev);
    if (dev.adapter().backend != Backend::Vulkan) {
        CHECK(h.status().code() == StatusCode::InvalidArgument);
        return;
    }
    REQUIRE(h.ok());
    auto* vkdev = static_cast<vk::VulkanDevice*>(ripple::detail::impl(dev)->backend.get());
    CHECK(h->device == vkdev->handle());
    CHECK(h->instance != VK_NULL_HANDLE);
    CHECK(h->physicalDevice != VK_NULL_HANDLE);
    REQUIRE(h->getDeviceProcAddr);
    // Its functions are the device's: a semaphore made through them works with interop::submit.
    auto create =
        reinterpret_cast<PFN_vkCreateSemaphore>(h->getDeviceProcAddr(h->device, "vkCreateSemaphore"));
    auto destroy =
        reinterpret_cast<PFN_vkDestroySemaphore>(h->getDeviceProcAddr(h->device, "vkDestroySemaphore"));
    REQUIRE(create);
    REQUIRE(destroy);
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    VkSemaphore semaphore = VK_NULL_HANDLE;
    REQUIRE(create(h->device, &info, nullptr, &semaphore) == VK_SUCCESS);
    auto rec = dev.createRecorder();
    REQUIRE(rec.ok());
    interop::VulkanSubmitSync sync;
    sync.signals.push_back({semaphore, 0});
    auto ticket = interop::submit(dev, rec.value(), sync);
    CHECK(ticket.ok());
    if (ticket) CHECK(dev.wait(ticket.value()).ok());
    destroy(h->device, semaphore, nullptr); // its signal completed with the ticket
}

TEST_CASE("Queue-family ownership transfers in a submission: checked entry by entry, none for ripple's own "
          "family",
          "[recording][gpu][vulkan_sync]") {
    Device& dev = rt::device();
    if (dev.adapter().backend != Backend::Vulkan) return; // Vulkan's concept; D3D12 has none
    auto h = interop::vulkanHandles(dev);
    REQUIRE(h.ok());
    Buffer b = makeBuffer(dev, 256);
    Device other = rt::freshDevice();
    Buffer foreign = makeBuffer(other, 256);
    auto rec = dev.createRecorder();
    REQUIRE(rec.ok());
    REQUIRE(rec->fillBuffer(b, 0, 256, 7).ok());
    struct Bad {
        interop::VulkanSubmitSync sync;
        const char* names;
    };
    std::vector<Bad> bad(4);
    bad[0].sync.acquires = {{nullptr, h->queueFamilyIndex}};
    bad[0].names = "sync.acquires[0].buffer";
    bad[1].sync.releases = {{&b, h->queueFamilyIndex}, {&foreign, h->queueFamilyIndex}};
    bad[1].names = "sync.releases[1].buffer";
    bad[2].sync.acquires = {{&b, 1000}};
    bad[2].names = "sync.acquires[0].family (1000)";
    Buffer empty;
    bad[3].sync.releases = {{&empty, 0}};
    bad[3].names = "sync.releases[0].buffer";
    for (const Bad& x : bad) {
        auto t = interop::submit(dev, rec.value(), x.sync);
        INFO(t.status().message());
        CHECK(t.status().code() == StatusCode::InvalidArgument);
        CHECK(t.status().message().find(x.names) != std::string::npos);
    }
    // The same family as ripple's queue: nothing to transfer, the submission runs as without.
    interop::VulkanSubmitSync same;
    same.acquires = {{&b, h->queueFamilyIndex}};
    same.releases = {{&b, h->queueFamilyIndex}};
    auto t = interop::submit(dev, rec.value(), same);
    REQUIRE(t.ok());
    CHECK(dev.wait(t.value()).ok());
    CHECK(words(dev, b) == std::vector<uint32_t>(64, 7));
}
