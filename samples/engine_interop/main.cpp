// SPDX-License-Identifier: MIT
// engine_interop: a minimal "engine" that owns its Vulkan instance, device, queue, buffers and command
// buffer (linking the Vulkan loader directly), and runs ripple's TopK and ScatterND on DirectML's
// examples inside its own command buffer, which it submits itself, with its own kernel (offset.comp, built
// by ripple_add_kernels) recorded after the TopK on the values it wrote. Exits 0 when all results match.
// With --hlsl-round-trip the kernel runs as its D3D12 HLSL compiled back to SPIR-V.
#include <ripple/interop/vulkan.hpp>
#include <ripple/ripple.hpp>

#include "engine_interop_kernels.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

int failures = 0;
int validationMessages = 0;

#define VK(call)                                                                                             \
    do {                                                                                                     \
        VkResult r_ = (call);                                                                                \
        if (r_ != VK_SUCCESS) {                                                                              \
            std::fprintf(stderr, "engine: %s failed (%d)\n", #call, static_cast<int>(r_));                   \
            return 1;                                                                                        \
        }                                                                                                    \
    } while (0)

VKAPI_ATTR VkBool32 VKAPI_CALL onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                         VkDebugUtilsMessageTypeFlagsEXT,
                                         const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
    std::fprintf(stderr, "engine validation: %s\n", data->pMessage);
    ++validationMessages;
    return VK_FALSE;
}

struct EngineBuffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    void* mapped = nullptr;
    VkDeviceSize size = 0;
};

// Host-visible storage buffers: the engine writes inputs and reads results directly.
bool makeBuffer(VkPhysicalDevice pd, VkDevice dev, VkDeviceSize size, EngineBuffer& out) {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (vkCreateBuffer(dev, &info, nullptr, &out.buffer) != VK_SUCCESS) return false;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, out.buffer, &req);
    VkPhysicalDeviceMemoryProperties mem;
    vkGetPhysicalDeviceMemoryProperties(pd, &mem);
    const VkMemoryPropertyFlags want =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
        if ((req.memoryTypeBits & (1u << i)) && (mem.memoryTypes[i].propertyFlags & want) == want) {
            VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
            alloc.allocationSize = req.size;
            alloc.memoryTypeIndex = i;
            if (vkAllocateMemory(dev, &alloc, nullptr, &out.memory) != VK_SUCCESS) return false;
            vkBindBufferMemory(dev, out.buffer, out.memory, 0);
            vkMapMemory(dev, out.memory, 0, VK_WHOLE_SIZE, 0, &out.mapped);
            out.size = size;
            return true;
        }
    }
    return false;
}

template <class T> void expect(const char* what, const EngineBuffer& b, const std::vector<T>& want) {
    std::vector<T> got(want.size());
    std::memcpy(got.data(), b.mapped, want.size() * sizeof(T));
    bool same = got == want;
    std::printf("%s: %s\n", what, same ? "as DirectML's example" : "WRONG");
    failures += !same;
}

// One command buffer of the engine's on `pool`, begun; vkEndCommandBuffer and submit are the caller's.
bool beginCommands(VkDevice device, VkCommandPool pool, VkCommandBuffer& cmd) {
    VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cai.commandPool = pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    if (vkAllocateCommandBuffers(device, &cai, &cmd) != VK_SUCCESS) return false;
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    return vkBeginCommandBuffer(cmd, &begin) == VK_SUCCESS;
}

// A buffer barrier: a plain one when the families are the same, else one half of an ownership transfer.
VkBufferMemoryBarrier bufferBarrier(const EngineBuffer& b, VkAccessFlags src, VkAccessFlags dst,
                                    uint32_t from, uint32_t to) {
    VkBufferMemoryBarrier m{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    m.srcAccessMask = src;
    m.dstAccessMask = dst;
    m.srcQueueFamilyIndex = from == to ? VK_QUEUE_FAMILY_IGNORED : from;
    m.dstQueueFamilyIndex = from == to ? VK_QUEUE_FAMILY_IGNORED : to;
    m.buffer = b.buffer;
    m.offset = 0;
    m.size = b.size;
    return m;
}

// The engine's graphics queue produces a TopK input, ripple's TopK runs on its own (compute) queue, and the
// graphics queue consumes the result: one timeline semaphore orders the three submissions, with no CPU
// wait between them. Buffers are VK_SHARING_MODE_EXCLUSIVE: where the two queues are of different
// families, each buffer's ownership is released by one queue and acquired by the other (ripple's halves
// through VulkanSubmitSync::acquires and ::releases).
int twoQueues(VkPhysicalDevice pd, VkDevice device, VkQueue graphics, uint32_t graphicsFamily,
              uint32_t rippleFamily, ripple::Device& rdev, const ripple::Operator& topk) {
    auto createSemaphore =
        reinterpret_cast<PFN_vkCreateSemaphore>(vkGetDeviceProcAddr(device, "vkCreateSemaphore"));
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
    VkSemaphore timeline;
    VK(createSemaphore(device, &sci, nullptr, &timeline));
    EngineBuffer in, vals, idx, readVals, readIdx;
    for (auto [b, size] : {std::pair{&in, 48}, {&vals, 24}, {&idx, 24}, {&readVals, 24}, {&readIdx, 24}})
        if (!makeBuffer(pd, device, size, *b)) return std::fprintf(stderr, "engine: buffer failed\n"), 1;
    std::vector<ripple::Buffer> wrapped;
    for (EngineBuffer* b : {&in, &vals, &idx})
        wrapped.push_back(std::move(ripple::interop::wrapVulkanBuffer(rdev, b->buffer, b->size).value()));
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.queueFamilyIndex = graphicsFamily;
    VkCommandPool pool;
    VK(vkCreateCommandPool(device, &pci, nullptr, &pool));
    const uint32_t g = graphicsFamily, r = rippleFamily;

    // 1. The graphics queue writes the input (DirectML's TopK example, another row order), releases it.
    VkCommandBuffer produce, consume;
    if (!beginCommands(device, pool, produce)) return std::fprintf(stderr, "engine: command buffer\n"), 1;
    const float xv[] = {4, 5, 6, 7, 0, 1, 10, 11, 3, 2, 9, 8};
    vkCmdUpdateBuffer(produce, in.buffer, 0, sizeof xv, xv);
    VkBufferMemoryBarrier release = bufferBarrier(in, VK_ACCESS_TRANSFER_WRITE_BIT, 0, g, r);
    vkCmdPipelineBarrier(produce, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0,
                         nullptr, 1, &release, 0, nullptr);
    VK(vkEndCommandBuffer(produce));
    const uint64_t produced = 1, computed = 2;
    VkTimelineSemaphoreSubmitInfo tsi{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    tsi.signalSemaphoreValueCount = 1;
    tsi.pSignalSemaphoreValues = &produced;
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, &tsi};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &produce;
    submit.signalSemaphoreCount = 1;
    submit.pSignalSemaphores = &timeline;
    VK(vkQueueSubmit(graphics, 1, &submit, VK_NULL_HANDLE));

    // 2. ripple, on its queue: waits for the input, acquires it, runs the TopK, releases the outputs.
    auto rec = rdev.createRecorder();
    if (!rec || !rec->record(topk, {{&wrapped[0], 0}, {&wrapped[1], 0}, {&wrapped[2], 0}}, "topk"))
        return std::fprintf(stderr, "engine: record failed\n"), 1;
    ripple::interop::VulkanSubmitSync sync;
    sync.waits.push_back(
        {timeline, produced, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT});
    sync.signals.push_back({timeline, computed});
    sync.acquires.push_back({&wrapped[0], g});
    sync.releases = {{&wrapped[1], g}, {&wrapped[2], g}};
    auto ticket = ripple::interop::submit(rdev, rec.value(), sync);
    if (!ticket) return std::fprintf(stderr, "engine: %s\n", ticket.status().message().c_str()), 1;

    // 3. The graphics queue waits for ripple, acquires the outputs and copies them for the host.
    if (!beginCommands(device, pool, consume)) return std::fprintf(stderr, "engine: command buffer\n"), 1;
    VkBufferMemoryBarrier acquire[] = {bufferBarrier(vals, 0, VK_ACCESS_TRANSFER_READ_BIT, r, g),
                                       bufferBarrier(idx, 0, VK_ACCESS_TRANSFER_READ_BIT, r, g)};
    if (g == r) // one family: plain barriers after ripple's compute writes
        for (auto& a : acquire) a.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    vkCmdPipelineBarrier(consume, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 2, acquire, 0, nullptr);
    const VkBufferCopy whole{0, 0, 24};
    vkCmdCopyBuffer(consume, vals.buffer, readVals.buffer, 1, &whole);
    vkCmdCopyBuffer(consume, idx.buffer, readIdx.buffer, 1, &whole);
    VkBufferMemoryBarrier host[] = {
        bufferBarrier(readVals, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT, g, g),
        bufferBarrier(readIdx, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT, g, g)};
    vkCmdPipelineBarrier(consume, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr,
                         2, host, 0, nullptr);
    VK(vkEndCommandBuffer(consume));
    const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkTimelineSemaphoreSubmitInfo tsi2{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    tsi2.waitSemaphoreValueCount = 1;
    tsi2.pWaitSemaphoreValues = &computed;
    VkSubmitInfo submit2{VK_STRUCTURE_TYPE_SUBMIT_INFO, &tsi2};
    submit2.waitSemaphoreCount = 1;
    submit2.pWaitSemaphores = &timeline;
    submit2.pWaitDstStageMask = &waitStage;
    submit2.commandBufferCount = 1;
    submit2.pCommandBuffers = &consume;
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    VK(vkCreateFence(device, &fci, nullptr, &fence));
    VK(vkQueueSubmit(graphics, 1, &submit2, fence));
    VK(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX));
    if (ripple::Status s = rdev.wait(ticket.value()); !s)
        std::fprintf(stderr, "engine: %s\n", s.message().c_str()), ++failures;
    std::printf("graphics queue (family %u) and ripple's queue (family %u%s): ", g, r,
                g == r ? ", one family: no ownership transfer" : ", ownership transferred both ways");
    expect("TopK through the graphics queue, values", readVals, std::vector<float>{7, 6, 11, 10, 9, 8});
    expect("TopK through the graphics queue, indices", readIdx, std::vector<uint32_t>{3, 2, 3, 2, 2, 3});

    vkDestroyFence(device, fence, nullptr);
    vkDestroyCommandPool(device, pool, nullptr);
    wrapped.clear();
    for (EngineBuffer* b : {&in, &vals, &idx, &readVals, &readIdx}) {
        vkDestroyBuffer(device, b->buffer, nullptr);
        vkFreeMemory(device, b->memory, nullptr);
    }
    vkDestroySemaphore(device, timeline, nullptr);
    return 0;
}

// The engine's frame loop on one thread: ripple's work submitted gated on the engine's semaphore, the next
// frame's data uploaded while it waits, then the gate opened. Device::upload waits only for work that uses
// its buffer, so this completes: the upload returns at once where the host can map the memory or ripple
// has a transfer queue (VulkanDeviceDesc::transferQueue); otherwise it returns Timeout after its deadline,
// its copy queued behind the gate, and lands once the gate opens. Never a deadlock.
int sameThreadGate(VkDevice device, ripple::Device& rdev) {
    auto createSemaphore =
        reinterpret_cast<PFN_vkCreateSemaphore>(vkGetDeviceProcAddr(device, "vkCreateSemaphore"));
    auto signalSemaphore =
        reinterpret_cast<PFN_vkSignalSemaphore>(vkGetDeviceProcAddr(device, "vkSignalSemaphore"));
    auto counterValue = reinterpret_cast<PFN_vkGetSemaphoreCounterValue>(
        vkGetDeviceProcAddr(device, "vkGetSemaphoreCounterValue"));
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
    VkSemaphore gate;
    VK(createSemaphore(device, &sci, nullptr, &gate));
    auto work = rdev.createBuffer(4096), next = rdev.createBuffer(4096);
    if (!work || !next) return std::fprintf(stderr, "engine: ripple buffers failed\n"), 1;
    auto rec = rdev.createRecorder();
    if (!rec || !rec->fillBuffer(work.value(), 0, 4096, 7))
        return std::fprintf(stderr, "engine: record\n"), 1;
    ripple::interop::VulkanSubmitSync sync; // runs once the engine opens the gate (1), then signals 2
    sync.waits.push_back({gate, 1, VK_PIPELINE_STAGE_TRANSFER_BIT});
    sync.signals.push_back({gate, 2});
    auto ticket = ripple::interop::submit(rdev, rec.value(), sync);
    if (!ticket) return std::fprintf(stderr, "engine: %s\n", ticket.status().message().c_str()), 1;

    const std::vector<uint32_t> frame(1024, 42);
    const ripple::Status up =
        rdev.upload(next.value(), 0, frame.data(), 4096, 500'000'000ull); // 0.5 s at most
    if (up.ok())
        std::printf("same-thread gate: the upload returned while ripple's work waited on the gate\n");
    else if (up.code() == ripple::StatusCode::Timeout)
        std::printf("same-thread gate: the upload timed out behind the gate (%s)\n", up.message().c_str());
    else
        std::fprintf(stderr, "engine: %s\n", up.message().c_str()), ++failures;

    const VkSemaphoreSignalInfo open{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, nullptr, gate, 1};
    VK(signalSemaphore(device, &open));
    if (ripple::Status s = rdev.wait(ticket.value()); !s)
        std::fprintf(stderr, "engine: %s\n", s.message().c_str()), ++failures;
    uint64_t value = 0; // wait() returned: the engine's value ripple signals reads as reached
    VK(counterValue(device, gate, &value));
    std::vector<uint32_t> gotWork(1024), gotNext(1024);
    const bool read = rdev.download(work.value(), 0, gotWork.data(), 4096).ok() &&
                      rdev.download(next.value(), 0, gotNext.data(), 4096).ok();
    const bool same = read && value == 2 && gotWork == std::vector<uint32_t>(1024, 7) && gotNext == frame;
    std::printf("same-thread gate: %s\n", same ? "the gated work and the upload both landed" : "WRONG");
    failures += !same;
    work = ripple::Status(ripple::StatusCode::Internal, "released");
    next = ripple::Status(ripple::StatusCode::Internal, "released");
    vkDestroySemaphore(device, gate, nullptr);
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    // --no-timeline: an engine on a Vulkan 1.1 driver without timeline semaphores (ripple's tickets are
    // then fences).
    const bool hlslRoundTrip = argc == 2 && std::strcmp(argv[1], "--hlsl-round-trip") == 0;
    const bool timeline = !(argc == 2 && std::strcmp(argv[1], "--no-timeline") == 0);
    if (argc > 2 || (argc == 2 && !hlslRoundTrip && timeline))
        return std::fprintf(stderr, "usage: engine_interop [--hlsl-round-trip | --no-timeline]\n"), 2;
    // --- The engine's own Vulkan setup (with validation, synchronization validation included, when the
    // layer is installed).
    uint32_t layerCount = 0;
    vkEnumerateInstanceLayerProperties(&layerCount, nullptr);
    std::vector<VkLayerProperties> layers(layerCount);
    vkEnumerateInstanceLayerProperties(&layerCount, layers.data());
    bool validation = false;
    for (auto& l : layers) validation |= std::strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0;
    const char* layer = "VK_LAYER_KHRONOS_validation";
    const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    ici.enabledLayerCount = validation ? 1 : 0;
    ici.ppEnabledLayerNames = &layer;
    ici.enabledExtensionCount = validation ? 1 : 0;
    ici.ppEnabledExtensionNames = &ext;
    VkValidationFeatureEnableEXT syncValidation = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = &syncValidation;
    if (validation) ici.pNext = &features;
    VkInstance instance;
    VK(vkCreateInstance(&ici, nullptr, &instance));
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    if (validation) {
        VkDebugUtilsMessengerCreateInfoEXT m{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
        m.messageSeverity =
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
        m.messageType =
            VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
        m.pfnUserCallback = onMessage;
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
        VK(create(instance, &m, nullptr, &messenger));
    }
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(instance, &count, nullptr);
    if (count == 0) return std::fprintf(stderr, "engine: no Vulkan device\n"), 1;
    std::vector<VkPhysicalDevice> pds(count);
    vkEnumeratePhysicalDevices(instance, &count, pds.data());
    VkPhysicalDevice pd = pds[0];
    uint32_t familyCount = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &familyCount, nullptr);
    std::vector<VkQueueFamilyProperties> families(familyCount);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &familyCount, families.data());
    // The engine's graphics queue, and ripple's: an async compute family where the device has one (as
    // engines run compute beside rendering), else a second queue of the graphics family, else the same queue.
    uint32_t graphicsFamily = 0;
    while (graphicsFamily < familyCount && !(families[graphicsFamily].queueFlags & VK_QUEUE_GRAPHICS_BIT))
        ++graphicsFamily;
    if (graphicsFamily == familyCount) graphicsFamily = 0;
    uint32_t family = 0; // ripple's
    while (family < familyCount && (!(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT) ||
                                    (families[family].queueFlags & VK_QUEUE_GRAPHICS_BIT)))
        ++family;
    if (family == familyCount) family = graphicsFamily;
    const bool twoInOne = family == graphicsFamily && families[family].queueCount >= 2;
    // And, where the family has one more, a queue for ripple's uploads and downloads alone.
    const uint32_t rippleQueues =
        twoInOne ? std::min(families[family].queueCount, 3u) - 1
                 : std::min(families[family].queueCount, family == graphicsFamily ? 1u : 2u);
    // The engine enables what it wants: here timeline semaphores (unless --no-timeline) and nothing else, so
    // ripple has to use its portable kernels.
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    v12.timelineSemaphore = timeline ? VK_TRUE : VK_FALSE;
    const float priorities[] = {1, 1};
    VkDeviceQueueCreateInfo qci[2] = {{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO},
                                      {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO}};
    qci[0].queueFamilyIndex = graphicsFamily;
    qci[0].queueCount = twoInOne ? 1 + rippleQueues : 1;
    qci[0].pQueuePriorities = priorities;
    qci[1].queueFamilyIndex = family;
    qci[1].queueCount = rippleQueues;
    qci[1].pQueuePriorities = priorities;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &v12};
    dci.queueCreateInfoCount = family == graphicsFamily ? 1 : 2;
    dci.pQueueCreateInfos = qci;
    VkDevice device;
    VK(vkCreateDevice(pd, &dci, nullptr, &device));
    VkQueue queue, graphicsQueue; // ripple's, the engine's
    vkGetDeviceQueue(device, family, twoInOne ? 1 : 0, &queue);
    VkQueue transferQueue = VK_NULL_HANDLE; // ripple's uploads and downloads, where there is one more
    if (rippleQueues == 2) vkGetDeviceQueue(device, family, twoInOne ? 2 : 1, &transferQueue);
    vkGetDeviceQueue(device, graphicsFamily, 0, &graphicsQueue);

    int status = 0;
    {
        // --- ripple on the engine's objects.
        ripple::interop::VulkanDeviceDesc desc;
        desc.instance = instance;
        desc.physicalDevice = pd;
        desc.device = device;
        desc.queue = queue;
        desc.queueFamilyIndex = family;
        desc.transferQueue = transferQueue;
        desc.getInstanceProcAddr = vkGetInstanceProcAddr;
        desc.enabledFeatures.timelineSemaphore = timeline;
        desc.debugUtilsEnabled = validation;
        auto rdev = ripple::interop::adoptVulkanDevice(desc);
        if (!rdev) return std::fprintf(stderr, "engine: %s\n", rdev.status().message().c_str()), 1;
        std::printf("ripple adopted the engine's device: %s\n", rdev->adapter().name.c_str());

        ripple::TopKDesc topk; // DML_TOP_K1_OPERATOR_DESC example 1
        topk.InputTensor = {ripple::DataType::Float32, {1, 1, 3, 4}, {}};
        topk.OutputValueTensor = {ripple::DataType::Float32, {1, 1, 3, 2}, {}};
        topk.OutputIndexTensor = {ripple::DataType::UInt32, {1, 1, 3, 2}, {}};
        topk.Axis = 3;
        topk.K = 2;
        ripple::ScatterNDDesc nd; // DML_SCATTER_ND_OPERATOR_DESC example, right-aligned to 2 dims
        nd.InputTensor = nd.OutputTensor = {ripple::DataType::Float32, {1, 8}, {}};
        nd.IndicesTensor = {ripple::DataType::UInt32, {4, 1}, {}};
        nd.UpdatesTensor = {ripple::DataType::Float32, {1, 4}, {}};
        nd.InputDimensionCount = 1;
        nd.IndicesDimensionCount = 2;
        auto topkOp = rdev->compile(topk);
        auto ndOp = rdev->compile(nd);
        auto offset = rdev->compile(ripple::KernelDesc{
            hlslRoundTrip ? &engine_shaders::hlsl_round_trip::offset : &engine_shaders::offset});
        if (!topkOp || !ndOp || !offset) return std::fprintf(stderr, "engine: compile failed\n"), 1;

        EngineBuffer x, vals, idx, in, ind, upd, out;
        for (auto [b, size] :
             {std::pair{&x, 48}, {&vals, 24}, {&idx, 24}, {&in, 32}, {&ind, 16}, {&upd, 16}, {&out, 32}})
            if (!makeBuffer(pd, device, size, *b)) return std::fprintf(stderr, "engine: buffer failed\n"), 1;
        const float xv[] = {0, 1, 10, 11, 3, 2, 9, 8, 4, 5, 6, 7};
        const float inv[] = {1, 2, 3, 4, 5, 6, 7, 8}, updv[] = {9, 10, 11, 12};
        const uint32_t indv[] = {4, 3, 1, 7};
        std::memcpy(x.mapped, xv, 48), std::memcpy(in.mapped, inv, 32), std::memcpy(upd.mapped, updv, 16);
        std::memcpy(ind.mapped, indv, 16);
        std::vector<ripple::Buffer> wrapped;
        for (EngineBuffer* b : {&x, &vals, &idx, &in, &ind, &upd, &out})
            wrapped.push_back(
                std::move(ripple::interop::wrapVulkanBuffer(rdev.value(), b->buffer, b->size).value()));

        // --- The engine's frame: its command buffer, ripple's operators inside, its submit and fence.
        VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pci.queueFamilyIndex = family;
        VkCommandPool pool;
        VK(vkCreateCommandPool(device, &pci, nullptr, &pool));
        VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        cai.commandPool = pool;
        cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        cai.commandBufferCount = 1;
        VkCommandBuffer cmd;
        VK(vkAllocateCommandBuffers(device, &cai, &cmd));
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        VK(vkBeginCommandBuffer(cmd, &begin));
        auto rec = ripple::interop::recordInto(rdev.value(), cmd);
        ripple::Status s1 =
            rec->record(topkOp.value(), {{&wrapped[0], 0}, {&wrapped[1], 0}, {&wrapped[2], 0}}, "topk");
        ripple::Status s2 =
            rec->record(ndOp.value(),
                        {{&wrapped[3], 0}, {&wrapped[4], 0}, {&wrapped[5], 0}, {&wrapped[6], 0}}, "scatter");
        struct {
            uint32_t count;
            float amount;
        } push{6, 100.0f};
        ripple::KernelDispatch d; // after the TopK: it reads and writes the values the TopK wrote
        d.Bindings = {{&wrapped[1], 0, 0}};
        d.PushConstants = &push;
        d.PushConstantBytes = sizeof push;
        d.Label = "offset";
        ripple::Status s3 = rec->record(offset.value(), d);
        if (!s1 || !s2 || !s3)
            return std::fprintf(stderr, "engine: record failed: %s%s%s\n", s1.message().c_str(),
                                s2.message().c_str(), s3.message().c_str()),
                   1;
        std::printf("recorded 2 operators and the engine's kernel with %u barriers\n",
                    rec->statistics().barriers);
        auto pending = ripple::interop::endRecording(rdev.value(), rec.value());
        VK(vkEndCommandBuffer(cmd));
        VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        VkFence fence;
        VK(vkCreateFence(device, &fci, nullptr, &fence));
        VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        submit.commandBufferCount = 1;
        submit.pCommandBuffers = &cmd;
        VK(vkQueueSubmit(queue, 1, &submit, fence));
        VK(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX));
        ripple::Status done = ripple::interop::completeRecording(rdev.value(), pending.value());
        if (!done) std::fprintf(stderr, "engine: %s\n", done.message().c_str()), ++failures;

        expect("TopK values + 100 (the engine's kernel)", vals,
               std::vector<float>{111, 110, 109, 108, 107, 106});
        expect("TopK indices", idx, std::vector<uint32_t>{3, 2, 2, 3, 3, 2});
        expect("ScatterND output", out, std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12});
        if (timeline) { // the engine's semaphores need timeline semaphores here
            status |=
                twoQueues(pd, device, graphicsQueue, graphicsFamily, family, rdev.value(), topkOp.value());
            status |= sameThreadGate(device, rdev.value());
        }

        vkDestroyFence(device, fence, nullptr);
        vkDestroyCommandPool(device, pool, nullptr);
        wrapped.clear();
        topkOp = ripple::Status(ripple::StatusCode::Internal, "released");
        offset = ripple::Status(ripple::StatusCode::Internal, "released");
        ndOp = ripple::Status(ripple::StatusCode::Internal, "released");
        rdev = ripple::Status(ripple::StatusCode::Internal,
                              "released"); // ripple's device goes before the engine's
        for (EngineBuffer* b : {&x, &vals, &idx, &in, &ind, &upd, &out}) {
            vkDestroyBuffer(device, b->buffer, nullptr);
            vkFreeMemory(device, b->memory, nullptr);
        }
    }
    vkDestroyDevice(device, nullptr);
    if (messenger) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
        destroy(instance, messenger, nullptr);
    }
    vkDestroyInstance(instance, nullptr);
    if (validationMessages) std::printf("%d validation message(s)\n", validationMessages), ++failures;
    std::printf("%s\n", failures ? "FAILED" : "engine_interop: ok");
    return failures ? 1 : status;
}
