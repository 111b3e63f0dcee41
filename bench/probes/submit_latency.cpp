// SPDX-License-Identifier: MIT
// Where a submission's host latency goes on a Vulkan driver (issue 19), below ripple: raw Vulkan, one queue,
// a command buffer like ripple's (query reset, barrier, timestamp, a 64-byte fill, barrier, timestamp).
// For each way of learning completion (timeline semaphore wait or poll, fence wait or poll, a word the GPU
// writes into host-visible memory) it gives medians of: record, the vkQueueSubmit call, the wait, and,
// placed on the host clock by VK_EXT_calibrated_timestamps, the launch (submit call -> first GPU timestamp)
// and the tail (last GPU timestamp -> host sees completion). A probe for bench/NOTES.md, built by hand:
//   g++ -O2 -std=c++17 submit_latency.cpp -o submit_latency -lvulkan
#include <vulkan/vulkan.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#define CHECK(x)                                                                                             \
    do {                                                                                                     \
        VkResult r_ = (x);                                                                                   \
        if (r_ != VK_SUCCESS) {                                                                              \
            std::printf("%s failed: %d (line %d)\n", #x, r_, __LINE__);                                      \
            std::exit(1);                                                                                    \
        }                                                                                                    \
    } while (0)

static double nowUs() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static double med(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct Probe {
    VkInstance inst{};
    VkPhysicalDevice phys{};
    VkDevice dev{};
    VkQueue queue{};
    uint32_t family = 0;
    double periodNs = 1;
    bool calibrated = false;
    PFN_vkGetCalibratedTimestampsEXT getCalibrated{};
    VkSemaphore timeline{};
    uint64_t ticket = 0;
    VkFence fence{};
    VkCommandPool pool{};
    VkCommandBuffer cmd{};
    VkQueryPool queries{};
    VkBuffer work{}, flag{};
    VkDeviceMemory workMem{}, flagMem{};
    volatile uint32_t* flagWord = nullptr;
    bool startBarrier = true; // ripple orders each list after earlier work with one

    uint32_t memoryType(uint32_t bits, VkMemoryPropertyFlags want) {
        VkPhysicalDeviceMemoryProperties p;
        vkGetPhysicalDeviceMemoryProperties(phys, &p);
        for (uint32_t i = 0; i < p.memoryTypeCount; ++i)
            if ((bits & (1u << i)) && (p.memoryTypes[i].propertyFlags & want) == want) return i;
        std::printf("no memory type\n"), std::exit(1);
    }

    void buffer(VkDeviceSize size, VkMemoryPropertyFlags props, VkBuffer& b, VkDeviceMemory& m) {
        VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        bi.size = size;
        bi.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
        CHECK(vkCreateBuffer(dev, &bi, nullptr, &b));
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(dev, b, &req);
        VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        ai.allocationSize = req.size;
        ai.memoryTypeIndex = memoryType(req.memoryTypeBits, props);
        CHECK(vkAllocateMemory(dev, &ai, nullptr, &m));
        CHECK(vkBindBufferMemory(dev, b, m, 0));
    }

    void create() {
        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
        app.apiVersion = VK_API_VERSION_1_2;
        VkInstanceCreateInfo ii{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        ii.pApplicationInfo = &app;
        CHECK(vkCreateInstance(&ii, nullptr, &inst));
        uint32_t n = 0;
        vkEnumeratePhysicalDevices(inst, &n, nullptr);
        std::vector<VkPhysicalDevice> all(n);
        vkEnumeratePhysicalDevices(inst, &n, all.data());
        phys = all.at(0);
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(phys, &props);
        periodNs = props.limits.timestampPeriod;
        std::printf("device: %s, driver %u\n", props.deviceName, props.driverVersion);
        uint32_t qn = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(phys, &qn, nullptr);
        std::vector<VkQueueFamilyProperties> qf(qn);
        vkGetPhysicalDeviceQueueFamilyProperties(phys, &qn, qf.data());
        for (uint32_t i = 0; i < qn; ++i)
            std::printf("queue family %u: flags 0x%x, %u queues\n", i, qf[i].queueFlags, qf[i].queueCount);
        for (family = 0; family < qn; ++family)
            if (qf[family].queueFlags & VK_QUEUE_COMPUTE_BIT) break;
        if (const char* f = std::getenv("PROBE_FAMILY")) family = uint32_t(std::atoi(f));
        std::printf("using queue family %u\n", family);
        uint32_t en = 0;
        vkEnumerateDeviceExtensionProperties(phys, nullptr, &en, nullptr);
        std::vector<VkExtensionProperties> exts(en);
        vkEnumerateDeviceExtensionProperties(phys, nullptr, &en, exts.data());
        std::vector<const char*> want;
        for (auto& e : exts)
            if (!std::strcmp(e.extensionName, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME))
                want.push_back(VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME), calibrated = true;
        float prio = 1;
        VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        qi.queueFamilyIndex = family;
        qi.queueCount = 1;
        qi.pQueuePriorities = &prio;
        VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
        f12.timelineSemaphore = VK_TRUE;
        f12.hostQueryReset = VK_TRUE;
        VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f12};
        di.queueCreateInfoCount = 1;
        di.pQueueCreateInfos = &qi;
        di.enabledExtensionCount = uint32_t(want.size());
        di.ppEnabledExtensionNames = want.data();
        CHECK(vkCreateDevice(phys, &di, nullptr, &dev));
        vkGetDeviceQueue(dev, family, 0, &queue);
        if (calibrated)
            getCalibrated = reinterpret_cast<PFN_vkGetCalibratedTimestampsEXT>(
                vkGetDeviceProcAddr(dev, "vkGetCalibratedTimestampsEXT"));
        VkSemaphoreTypeCreateInfo ti{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
        ti.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
        VkSemaphoreCreateInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &ti};
        CHECK(vkCreateSemaphore(dev, &si, nullptr, &timeline));
        VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        CHECK(vkCreateFence(dev, &fi, nullptr, &fence));
        VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pi.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
        pi.queueFamilyIndex = family;
        CHECK(vkCreateCommandPool(dev, &pi, nullptr, &pool));
        VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ai.commandPool = pool;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        CHECK(vkAllocateCommandBuffers(dev, &ai, &cmd));
        VkQueryPoolCreateInfo qpi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qpi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qpi.queryCount = 2;
        CHECK(vkCreateQueryPool(dev, &qpi, nullptr, &queries));
        buffer(1 << 20, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, work, workMem);
        buffer(256, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, flag,
               flagMem);
        void* p = nullptr;
        CHECK(vkMapMemory(dev, flagMem, 0, VK_WHOLE_SIZE, 0, &p));
        flagWord = static_cast<volatile uint32_t*>(p);
        *flagWord = 0;
    }

    void barrier(VkAccessFlags dst) {
        VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
        b.dstAccessMask = dst;
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0,
                             1, &b, 0, nullptr, 0, nullptr);
    }

    // cmdReset: the query pool reset recorded in the command buffer (as ripple does) or on the host.
    // hostWord: the last command writes the ticket into host-visible memory.
    void record(bool cmdReset, bool hostWord, uint32_t value) {
        CHECK(vkResetCommandPool(dev, pool, 0));
        if (!cmdReset) vkResetQueryPool(dev, queries, 0, 2);
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        CHECK(vkBeginCommandBuffer(cmd, &bi));
        if (cmdReset) vkCmdResetQueryPool(cmd, queries, 0, 2);
        if (startBarrier)
            barrier(VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries, 0);
        vkCmdFillBuffer(cmd, work, 0, 64, value);
        barrier(VK_ACCESS_TRANSFER_WRITE_BIT);
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 1);
        if (hostWord) {
            vkCmdFillBuffer(cmd, flag, 0, 4, value);
            VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
            b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
            b.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
            vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &b, 0,
                                 nullptr, 0, nullptr);
        }
        CHECK(vkEndCommandBuffer(cmd));
    }

    // GPU timestamp (ns) -> host CLOCK_MONOTONIC (us), from one calibrated pair taken now.
    double offsetUs() {
        VkCalibratedTimestampInfoEXT info[2] = {{VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT},
                                                {VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT}};
        info[0].timeDomain = VK_TIME_DOMAIN_DEVICE_EXT;
        info[1].timeDomain = VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT;
        uint64_t ts[2], dev = 0;
        CHECK(getCalibrated(this->dev, 2, info, ts, &dev));
        return ts[1] / 1e3 - ts[0] * periodNs / 1e3;
    }
};

enum class Mode { SemWait, SemPoll, SemAndWordPoll, WordPollOnly, FenceWait, FencePoll, FreshFencePoll };

static const char* name(Mode m) {
    switch (m) {
    case Mode::SemWait:
        return "timeline signal, vkWaitSemaphores";
    case Mode::SemPoll:
        return "timeline signal, poll counter value";
    case Mode::SemAndWordPoll:
        return "timeline signal + host word, poll word";
    case Mode::WordPollOnly:
        return "no signal, host word, poll word";
    case Mode::FenceWait:
        return "fence, vkWaitForFences";
    case Mode::FencePoll:
        return "fence, poll vkGetFenceStatus";
    case Mode::FreshFencePoll:
        return "new fence per submit, poll, destroy";
    }
    return "";
}

static void run(Probe& p, Mode m, bool cmdReset) {
    std::vector<double> rec, sub, wait, total, launch, span, tail, create, destroy;
    const bool word = m == Mode::SemAndWordPoll || m == Mode::WordPollOnly;
    const bool sem = m == Mode::SemWait || m == Mode::SemPoll || m == Mode::SemAndWordPoll;
    for (int i = 0; i < 330; ++i) {
        const uint32_t value = uint32_t(++p.ticket);
        const double t0 = nowUs();
        p.record(cmdReset, word, value);
        const double t1 = nowUs();
        VkTimelineSemaphoreSubmitInfo ts{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
        ts.signalSemaphoreValueCount = 1;
        ts.pSignalSemaphoreValues = &p.ticket;
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO, sem ? &ts : nullptr};
        si.commandBufferCount = 1;
        si.pCommandBuffers = &p.cmd;
        si.signalSemaphoreCount = sem ? 1 : 0;
        si.pSignalSemaphores = &p.timeline;
        const bool useFence = m == Mode::FenceWait || m == Mode::FencePoll || m == Mode::FreshFencePoll;
        VkFence fence = p.fence;
        double tc = nowUs();
        if (m == Mode::FreshFencePoll) { // what ripple's fence tickets did until issue 58: a fence each
            VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
            CHECK(vkCreateFence(p.dev, &fi, nullptr, &fence));
        }
        create.push_back(nowUs() - tc);
        CHECK(vkQueueSubmit(p.queue, 1, &si, useFence ? fence : VK_NULL_HANDLE));
        const double t2 = nowUs();
        switch (m) {
        case Mode::SemWait: {
            VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
            wi.semaphoreCount = 1;
            wi.pSemaphores = &p.timeline;
            wi.pValues = &p.ticket;
            CHECK(vkWaitSemaphores(p.dev, &wi, UINT64_MAX));
            break;
        }
        case Mode::SemPoll: {
            uint64_t v = 0;
            while (v < p.ticket) CHECK(vkGetSemaphoreCounterValue(p.dev, p.timeline, &v));
            break;
        }
        case Mode::SemAndWordPoll:
        case Mode::WordPollOnly:
            while (*p.flagWord != value) std::atomic_thread_fence(std::memory_order_acquire);
            break;
        case Mode::FenceWait:
            CHECK(vkWaitForFences(p.dev, 1, &p.fence, VK_TRUE, UINT64_MAX));
            break;
        case Mode::FencePoll:
        case Mode::FreshFencePoll:
            while (vkGetFenceStatus(p.dev, fence) != VK_SUCCESS) {
            }
            break;
        }
        const double t3 = nowUs();
        tc = nowUs();
        if (m == Mode::FreshFencePoll)
            vkDestroyFence(p.dev, fence, nullptr);
        else if (useFence)
            CHECK(vkResetFences(p.dev, 1, &p.fence));
        destroy.push_back(nowUs() - tc);
        if (!sem) { // the queue must be idle before the pool is reset: word seen means the commands ran
            CHECK(vkQueueWaitIdle(p.queue));
        }
        uint64_t q[2];
        CHECK(vkGetQueryPoolResults(p.dev, p.queries, 0, 2, sizeof q, q, 8,
                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        if (i < 30) continue;
        rec.push_back(t1 - t0), sub.push_back(t2 - t1), wait.push_back(t3 - t2), total.push_back(t3 - t0);
        span.push_back((q[1] - q[0]) * p.periodNs / 1e3);
        if (p.calibrated) {
            const double off = p.offsetUs();
            launch.push_back(q[0] * p.periodNs / 1e3 + off - t1);
            tail.push_back(t3 - (q[1] * p.periodNs / 1e3 + off));
        }
    }
    std::printf(
        "%-40s %-10s %-11s record %5.1f submit %5.1f wait %6.1f total %6.1f | launch %6.1f span %5.1f "
        "tail %6.1f us\n",
        name(m), cmdReset ? "cmd-reset" : "host-reset", p.startBarrier ? "barrier" : "no-barrier", med(rec),
        med(sub), med(wait), med(total), med(launch), med(span), med(tail));
    std::printf("%-40s fence create %6.1f us, destroy or reset %6.1f us (submit above includes create)\n", "",
                med(create), med(destroy));
}

int main() {
    Probe p;
    p.create();
    if (!p.calibrated) std::printf("no VK_EXT_calibrated_timestamps: launch and tail not measured\n");
    for (int round = 0; round < 2; ++round) {
        for (Mode m : {Mode::SemWait, Mode::SemPoll, Mode::SemAndWordPoll, Mode::WordPollOnly,
                       Mode::FenceWait, Mode::FencePoll, Mode::FreshFencePoll})
            for (bool cmdReset : {true, false}) run(p, m, cmdReset);
        p.startBarrier = false;
        run(p, Mode::SemPoll, false);
        p.startBarrier = true;
    }
    return 0;
}
