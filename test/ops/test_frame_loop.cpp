// SPDX-License-Identifier: MIT
// The frame-loop contract under hostile use (issue 57): transfers that never queue behind a submission
// gated on an engine's semaphore, readbacks that land however completion is seen, a total bound on a
// dispatch's workgroups, engine recorders refused where they mean nothing, memory and messages that do not
// grow with hostile input, and engine timeline values read as reached once wait() returns.
#include "ripple/interop/recording.hpp"
#include "ripple/interop/vulkan.hpp"
#include "ripple_ops_tests_kernels.hpp"
#include "runtime/access.hpp"
#include "runtime/objects.hpp"
#include "support/gpu.hpp"
#include "vulkan/device.hpp"
#include "vulkan/test_seams.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>

using namespace ripple;

namespace {

Buffer makeBuffer(Device& dev, uint64_t bytes) {
    auto b = dev.createBuffer(bytes);
    REQUIRE(b.ok());
    return std::move(b.value());
}

std::vector<uint32_t> words(Device& dev, const Buffer& b) {
    std::vector<uint32_t> w(b.size() / 4);
    REQUIRE(dev.download(b, 0, w.data(), b.size()).ok());
    return w;
}

vk::VulkanDevice* vulkanOf(Device& dev) {
    return dev.adapter().backend == Backend::Vulkan
               ? static_cast<vk::VulkanDevice*>(ripple::detail::impl(dev)->backend.get())
               : nullptr;
}

// An engine's timeline semaphore on ripple's device, destroyed on every way out.
struct Timeline {
    vk::VulkanDevice* device;
    VkSemaphore semaphore = VK_NULL_HANDLE;
    explicit Timeline(vk::VulkanDevice* d) : device(d) {
        VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
        type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
        VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
        REQUIRE(d->table().vkCreateSemaphore(d->handle(), &info, nullptr, &semaphore) == VK_SUCCESS);
    }
    ~Timeline() { device->table().vkDestroySemaphore(device->handle(), semaphore, nullptr); }
    uint64_t value() const {
        uint64_t v = 0;
        REQUIRE(device->table().vkGetSemaphoreCounterValue(device->handle(), semaphore, &v) == VK_SUCCESS);
        return v;
    }
    void signal(uint64_t v) const { // from the host, as an engine's other queue or thread would
        VkSemaphoreSignalInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
        info.semaphore = semaphore;
        info.value = v;
        REQUIRE(device->table().vkSignalSemaphore(device->handle(), &info) == VK_SUCCESS);
    }
};

double msSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// A submission that fills `target` with `value`, gated on the engine's `gate` reaching `at`.
Ticket gatedFill(Device& dev, Buffer& target, uint32_t value, const Timeline& gate, uint64_t at) {
    auto rec = dev.createRecorder();
    REQUIRE(rec.ok());
    REQUIRE(rec->fillBuffer(target, 0, target.size(), value).ok());
    interop::VulkanSubmitSync sync;
    sync.waits = {{gate.semaphore, at, VK_PIPELINE_STAGE_TRANSFER_BIT}};
    auto t = interop::submit(dev, rec.value(), sync);
    REQUIRE(t.ok());
    return t.value();
}

} // namespace

TEST_CASE("Uploads and downloads of buffers no pending work uses never wait for a submission gated on an "
          "engine's semaphore, and a buffer in use times out",
          "[frame_loop][gpu][vulkan_sync]") {
    for (int mode = 0; mode < 3; ++mode) {
        const bool mapped = mode == 0;
        INFO((mapped      ? "mapped memory (lavapipe, integrated GPUs)"
              : mode == 1 ? "memory the host cannot map (staging), one queue"
                          : "memory the host cannot map, DeviceOptions::transferQueue"));
        struct Seam { // buffers made while it is off are not mapped; back on, on every way out
            explicit Seam(bool on) { vk::setMappedTransfersForTests(on); }
            ~Seam() { vk::setMappedTransfersForTests(true); }
        } seam(mapped);
        DeviceOptions options;
        options.transferQueue = mode == 2; // lavapipe's family has one queue: none to take there
        Device dev = rt::freshDevice(options);
        vk::VulkanDevice* vkdev = vulkanOf(dev);
        if (!vkdev || vkdev->fenceTickets()) return; // a gate needs a timeline semaphore (wait before signal)
        Timeline gate(vkdev);
        Buffer busy = makeBuffer(dev, 4096), idle = makeBuffer(dev, 4096);
        const std::vector<uint32_t> pattern(1024, 0x12345678u);
        REQUIRE(dev.upload(busy, 0, pattern.data(), 4096).ok());
        const Ticket gated = gatedFill(dev, busy, 7, gate, 1);

        // The engine's pattern: submit gated, upload on the same thread, then open the gate.
        const auto start = std::chrono::steady_clock::now();
        const std::vector<uint32_t> other(1024, 0xCAFEF00Du);
        const Status up = dev.upload(idle, 0, other.data(), 4096, 300'000'000ull);
        CHECK(up.ok());
        CHECK(msSince(start) < 250.0);
        std::vector<uint32_t> back(1024);
        const Status read = dev.download(idle, 0, back.data(), 4096, 50'000'000ull);
        // Whether the host reads it in place is the device's: a discrete GPU's device-local memory is not
        // mappable, and uncached memory is read through staging.
        const auto* b = static_cast<const vk::VulkanBuffer*>(ripple::detail::impl(idle)->buffer.get());
        if ((b->mapped && b->hostCached) || vkdev->transferQueue()) {
            CHECK(read.ok());
            CHECK(back == other);
        } else { // one queue, unmapped memory: the upload's copy was queued behind the gate, not waited for
            CHECK(read.code() == StatusCode::Timeout);
            CHECK(read.message().find("in use by ticket") != std::string::npos);
        }
        // The busy buffer waits for its submission: Timeout, naming the ticket.
        std::vector<uint32_t> scratch(1024);
        const Status down = dev.download(busy, 0, scratch.data(), 4096, 50'000'000ull);
        CHECK(down.code() == StatusCode::Timeout);
        CHECK(down.message().find("in use by ticket " + std::to_string(gated.value)) != std::string::npos);
        CHECK(dev.upload(busy, 0, pattern.data(), 4096, 0).code() == StatusCode::Timeout);
        CHECK(!dev.isComplete(gated).value());

        gate.signal(1);
        REQUIRE(dev.wait(gated).ok());
        CHECK(words(dev, busy) == std::vector<uint32_t>(1024, 7));
        CHECK(words(dev, idle) == other); // a queued copy landed after the gate

        // A kept Recording's submission marks its buffers in use too.
        auto rec = dev.createRecorder();
        REQUIRE(rec.ok());
        REQUIRE(rec->fillBuffer(busy, 0, 4096, 8).ok());
        auto kept = dev.finishRecording(rec.value());
        REQUIRE(kept.ok());
        interop::VulkanSubmitSync sync;
        sync.waits = {{gate.semaphore, 2, VK_PIPELINE_STAGE_TRANSFER_BIT}};
        auto again = interop::submit(dev, kept.value(), sync);
        REQUIRE(again.ok());
        CHECK(dev.download(busy, 0, scratch.data(), 4096, 20'000'000ull).code() == StatusCode::Timeout);
        gate.signal(2);
        REQUIRE(dev.wait(again.value()).ok());
        CHECK(words(dev, busy) == std::vector<uint32_t>(1024, 8));
        INFO("validation layer messages (see stderr)");
        CHECK(dev.validationMessageCount() == 0);
    }
}

TEST_CASE("Readbacks land however completion is seen: wait, isComplete, an engine's semaphore then any "
          "Device call, and ~Device",
          "[frame_loop][gpu]") {
    Device dev = rt::freshDevice();
    Buffer source = makeBuffer(dev, 256);
    const std::vector<uint32_t> pattern(64, 0x0BADBEEFu);
    REQUIRE(dev.upload(source, 0, pattern.data(), 256).ok());
    auto readInto = [&](std::vector<uint32_t>& out, const interop::VulkanSubmitSync* sync) {
        out.assign(64, 0xA5A5A5A5u);
        auto rec = dev.createRecorder();
        REQUIRE(rec.ok());
        REQUIRE(rec->readback(source, 0, out.data(), 256).ok());
        auto t = sync ? interop::submit(dev, rec.value(), *sync) : dev.submit(rec.value());
        REQUIRE(t.ok());
        return t.value();
    };
    std::vector<uint32_t> a, b;
    Ticket ta = readInto(a, nullptr);
    REQUIRE(dev.wait(ta).ok());
    CHECK(a == pattern);
    Ticket tb = readInto(b, nullptr);
    while (!dev.isComplete(tb).value()) {
    }
    CHECK(b == pattern);

    vk::VulkanDevice* vkdev = vulkanOf(dev);
    if (vkdev && !vkdev->fenceTickets()) { // an engine that sees completion through its own semaphore
        Timeline done(vkdev);
        interop::VulkanSubmitSync sync;
        sync.signals = {{done.semaphore, 1}};
        std::vector<uint32_t> c;
        (void)readInto(c, &sync);
        VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
        const uint64_t one = 1;
        info.semaphoreCount = 1;
        info.pSemaphores = &done.semaphore;
        info.pValues = &one;
        REQUIRE(vkdev->table().vkWaitSemaphores(vkdev->handle(), &info, UINT64_MAX) == VK_SUCCESS);
        // ripple's own ticket may read as pending a moment longer: a call after it does delivers.
        for (int i = 0; i < 100000 && c != pattern; ++i) (void)dev.createBuffer(64);
        CHECK(c == pattern);
    }

    // ~Device delivers what completes while it waits.
    std::vector<uint32_t> last;
    {
        Device local = rt::freshDevice();
        Buffer s = makeBuffer(local, 256);
        REQUIRE(local.upload(s, 0, pattern.data(), 256).ok());
        last.assign(64, 0xA5A5A5A5u);
        auto rec = local.createRecorder();
        REQUIRE(rec.ok());
        REQUIRE(rec->readback(s, 0, last.data(), 256).ok());
        REQUIRE(local.submit(rec.value()).ok());
    }
    CHECK(last == pattern);
}

TEST_CASE("Destroying a Device logs the readbacks it drops: work recorded into an engine's command buffer "
          "and never completed",
          "[frame_loop][gpu][vulkan_sync]") {
    std::vector<std::string> warnings;
    std::vector<uint32_t> never(64, 0xA5A5A5A5u);
    {
        DeviceOptions options;
        options.log = [&](LogLevel level, const std::string& m) {
            if (level == LogLevel::Warning) warnings.push_back(m);
        };
        Device dev = rt::freshDevice(options);
        vk::VulkanDevice* vkdev = vulkanOf(dev);
        if (!vkdev) return;
        const VolkDeviceTable& t = vkdev->table();
        VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pci.queueFamilyIndex = vkdev->queueFamily();
        VkCommandPool pool = VK_NULL_HANDLE;
        REQUIRE(t.vkCreateCommandPool(vkdev->handle(), &pci, nullptr, &pool) == VK_SUCCESS);
        VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        cai.commandPool = pool;
        cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        cai.commandBufferCount = 1;
        VkCommandBuffer cmd = VK_NULL_HANDLE;
        REQUIRE(t.vkAllocateCommandBuffers(vkdev->handle(), &cai, &cmd) == VK_SUCCESS);
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        REQUIRE(t.vkBeginCommandBuffer(cmd, &begin) == VK_SUCCESS);
        Buffer s = makeBuffer(dev, 256);
        auto rec = interop::recordInto(dev, cmd);
        REQUIRE(rec.ok());
        REQUIRE(rec->readback(s, 0, never.data(), 256).ok());
        // Refused where it means nothing: its commands belong in the engine's command buffer.
        const Status viaDevice = dev.submit(rec.value()).status();
        CHECK(viaDevice.code() == StatusCode::InvalidArgument);
        CHECK(viaDevice.message().find("interop::recordInto") != std::string::npos);
        interop::VulkanSubmitSync sync;
        const Status viaInterop = interop::submit(dev, rec.value(), sync).status();
        CHECK(viaInterop.code() == StatusCode::InvalidArgument);
        CHECK(viaInterop.message().find("interop::recordInto") != std::string::npos);
        auto pending = interop::endRecording(dev, rec.value());
        REQUIRE(pending.ok());
        REQUIRE(t.vkEndCommandBuffer(cmd) == VK_SUCCESS);
        t.vkDestroyCommandPool(vkdev->handle(), pool, nullptr); // never submitted
    }
    CHECK(never == std::vector<uint32_t>(64, 0xA5A5A5A5u));
    bool named = false;
    for (const std::string& w : warnings)
        named = named || (w.find("1 readbacks dropped") != std::string::npos &&
                          w.find("interop::completeRecording") != std::string::npos);
    CHECK(named);
}

TEST_CASE("A dispatch's workgroups have a total bound: direct counts refused when recorded, GPU-written "
          "ones launch nothing and are reported",
          "[frame_loop][gpu][user_kernel_bound]") {
    DeviceOptions options;
    options.maxDispatchWorkgroups = 100;
    Device dev = rt::freshDevice(options);
    const KernelSource& source = test_kernels::advect_d2;
    auto kernel = dev.compile(KernelDesc{&source});
    if (!kernel && kernel.status().code() == StatusCode::Unsupported) return; // D3D12 without bytecode
    REQUIRE(kernel.ok());
    const uint32_t n = 1000;
    Buffer pos = makeBuffer(dev, 2 * n * 4), vel = makeBuffer(dev, 2 * n * 4),
           stats = makeBuffer(dev, 16 + n * 4), counts = makeBuffer(dev, 16);
    const std::vector<float> zeros(2 * n, 0.0f);
    REQUIRE(dev.upload(pos, 0, zeros.data(), zeros.size() * 4).ok());
    REQUIRE(dev.upload(vel, 0, zeros.data(), zeros.size() * 4).ok());
    struct {
        uint32_t count;
        float dt;
    } push{n, 0.5f};
    auto dispatch = [&](uint32_t x, uint32_t y, uint32_t z, bool indirect) {
        KernelDispatch d;
        d.GroupCount[0] = x;
        d.GroupCount[1] = y;
        d.GroupCount[2] = z;
        d.Bindings = {{&pos, 0, 0}, {&vel, 0, 0}, {&stats, 0, 0}};
        d.PushConstants = &push;
        d.PushConstantBytes = sizeof push;
        if (indirect) {
            const uint32_t w[4] = {x, y, z, 0};
            REQUIRE(dev.upload(counts, 0, w, 16).ok());
            d.IndirectBuffer = &counts;
        }
        return d;
    };
    auto touched = [&]() {
        std::vector<uint32_t> w = words(dev, stats);
        uint32_t t = 0;
        for (uint32_t i = 0; i < n; ++i) t += w[4 + i] == 1u;
        return t;
    };
    const std::vector<uint8_t> poison(16 + n * 4, 0xA5);
    struct Case {
        uint32_t x, y, z;
        bool indirect, runs;
    };
    const uint32_t big = 0xFFFFFFFFu;
    uint64_t refused = 0;
    for (const Case& c :
         {Case{10, 10, 1, false, true}, Case{101, 1, 1, false, false}, Case{10, 10, 2, false, false},
          Case{10, 10, 1, true, true}, Case{10, 10, 2, true, false}, Case{101, 1, 1, true, false},
          Case{big, big, big, true, false}, Case{65536, 65536, 1, true, false}, Case{0, 5, 5, true, true}}) {
        INFO(c.x << " x " << c.y << " x " << c.z << (c.indirect ? " indirect" : " direct"));
        REQUIRE(dev.upload(stats, 0, poison.data(), poison.size()).ok());
        auto rec = dev.createRecorder();
        REQUIRE(rec.ok());
        const Status recorded = rec->record(kernel.value(), dispatch(c.x, c.y, c.z, c.indirect));
        if (!c.indirect && !c.runs) {
            CHECK(recorded.code() == StatusCode::InvalidArgument);
            CHECK(recorded.message().find("maxDispatchWorkgroups allows 100") != std::string::npos);
            continue;
        }
        REQUIRE(recorded.ok());
        auto ticket = dev.submit(rec.value());
        REQUIRE(ticket.ok());
        const Status s = dev.wait(ticket.value());
        const bool launches = c.runs && c.x != 0;
        CHECK(touched() == (launches ? std::min(64 * c.x, n) : 0u));
        if (c.runs) {
            CHECK(s.ok());
        } else {
            ++refused;
            CHECK(s.code() == StatusCode::InvalidArgument);
            CHECK(s.message().find("launched nothing") != std::string::npos);
            auto reports = dev.reports(ticket.value());
            REQUIRE(reports.ok());
            CHECK(reports->at(0).status.code() == StatusCode::InvalidArgument);
        }
        CHECK(dev.refusedDispatchCount() == refused);
    }
    DeviceOptions none;
    none.maxDispatchWorkgroups = 0;
    CHECK(Device::create(none).status().message().find("maxDispatchWorkgroups") != std::string::npos);
    CHECK(Device().refusedDispatchCount() == 0);
}

TEST_CASE(
    "A Device keeps no copy of its pipeline-cache data, taken or refused, and a hostile profile name is "
    "cut in the message",
    "[frame_loop][gpu]") {
    std::vector<uint8_t> good;
    {
        Device dev = rt::freshDevice();
        auto data = dev.pipelineCacheData();
        REQUIRE(data.ok());
        good = data.value();
    }
    for (bool damaged : {false, true}) {
        INFO((damaged ? "a damaged 64 MiB blob" : "the device's own data"));
        DeviceOptions options;
        options.pipelineCacheData = damaged ? std::vector<uint8_t>(64u << 20, 0x5A) : good;
        options.log = [](LogLevel, const std::string&) {};
        Device dev = rt::freshDevice(options);
        CHECK(ripple::detail::impl(dev)->options.pipelineCacheData.capacity() == 0);
    }
    DeviceOptions hostile;
    hostile.profile = std::string(1u << 20, 'x');
    auto refused = Device::create(hostile);
    REQUIRE(!refused.ok());
    CHECK(refused.status().code() == StatusCode::InvalidArgument);
    CHECK(refused.status().message().size() <= Status::kMaxMessageBytes);
    CHECK(refused.status().message().find("is not a known profile") != std::string::npos);
    CHECK(refused.status().message().find("(1048576 bytes)") != std::string::npos);
}

TEST_CASE("Once wait() or isComplete() says a submission is complete, the engine's timeline values it "
          "signals read as reached: 1000 times, with and without a gate",
          "[frame_loop][gpu][vulkan_sync]") {
    Device& dev = rt::device();
    vk::VulkanDevice* vkdev = vulkanOf(dev);
    if (!vkdev || vkdev->fenceTickets()) return;
    Timeline gate(vkdev);
    // Several: a queue signals them one after another, which widens the window a reader could fall into.
    Timeline engine[8] = {Timeline(vkdev), Timeline(vkdev), Timeline(vkdev), Timeline(vkdev),
                          Timeline(vkdev), Timeline(vkdev), Timeline(vkdev), Timeline(vkdev)};
    Buffer target = makeBuffer(dev, 256);
    uint32_t behind = 0;
    for (uint64_t i = 1; i <= 1000; ++i) {
        const bool gated = i % 2 == 0;
        auto rec = dev.createRecorder();
        REQUIRE(rec.ok());
        REQUIRE(rec->fillBuffer(target, 0, 256, static_cast<uint32_t>(i)).ok());
        interop::VulkanSubmitSync sync;
        for (const Timeline& e : engine) sync.signals.push_back({e.semaphore, i});
        if (gated) sync.waits = {{gate.semaphore, i, VK_PIPELINE_STAGE_TRANSFER_BIT}};
        auto t = interop::submit(dev, rec.value(), sync);
        REQUIRE(t.ok());
        if (gated) gate.signal(i);
        if (i % 3 == 0) {
            while (!dev.isComplete(t.value()).value()) {
            }
        } else {
            REQUIRE(dev.wait(t.value()).ok());
        }
        for (const Timeline& e : engine) behind += e.value() < i;
    }
    CHECK(behind == 0);
    INFO("validation layer messages (see stderr)");
    CHECK(dev.validationMessageCount() == 0);
}
