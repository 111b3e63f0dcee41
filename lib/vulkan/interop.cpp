// SPDX-License-Identifier: MIT
// include/ripple/interop/vulkan.hpp: a ripple Device on an engine's Vulkan objects, its buffers, and
// recording into its command buffers.
#include "ripple/interop/vulkan.hpp"
#include "runtime/access.hpp"
#include "runtime/cache_blob.hpp"
#include "runtime/objects.hpp"
#include "runtime/recorder_impl.hpp"
#include "vulkan/device.hpp"

#include <cstring>

namespace ripple::interop {

namespace {
vk::VulkanDevice* vulkanOf(Device& device) {
    // The backend's kind tells its class (ripple builds without RTTI).
    if (!detail::impl(device) || detail::impl(device)->backend->adapter().backend != Backend::Vulkan)
        return nullptr;
    return static_cast<vk::VulkanDevice*>(detail::impl(device)->backend.get());
}
} // namespace

Result<Device> adoptVulkanDevice(const VulkanDeviceDesc& desc, const DeviceOptions& options) {
    vk::AdoptedHandles h;
    h.instance = desc.instance;
    h.physicalDevice = desc.physicalDevice;
    h.device = desc.device;
    h.queue = desc.queue;
    h.transferQueue = desc.transferQueue;
    h.queueFamilyIndex = desc.queueFamilyIndex;
    h.getInstanceProcAddr = desc.getInstanceProcAddr;
    h.enabled = desc.enabledFeatures;
    h.debugUtils = desc.debugUtilsEnabled;
    h.lockQueue = desc.lockQueue;
    h.unlockQueue = desc.unlockQueue;
    auto backend = vk::VulkanDevice::adopt(h, detail::withCheckedCacheData(options, Backend::Vulkan));
    if (!backend) return backend.status();
    return detail::makeDevice(std::move(backend.value()), options);
}

Result<Buffer> wrapVulkanBuffer(Device& device, VkBuffer buffer, VkDeviceSize size) {
    vk::VulkanDevice* vkdev = vulkanOf(device);
    if (!vkdev)
        return Status(StatusCode::InvalidArgument,
                      "wrapVulkanBuffer: the Device is empty or not a Vulkan one");
    if (!buffer || size == 0)
        return Status(StatusCode::InvalidArgument,
                      "wrapVulkanBuffer: buffer must be a VkBuffer and size above 0");
    return detail::makeBuffer(detail::impl(device), vkdev->wrapBuffer(buffer, size));
}

Result<VulkanDeviceHandles> vulkanHandles(Device& device) {
    vk::VulkanDevice* vkdev = vulkanOf(device);
    if (!vkdev)
        return Status(StatusCode::InvalidArgument, "vulkanHandles: the Device is empty or not a Vulkan one");
    VulkanDeviceHandles h;
    h.instance = vkdev->instanceHandle();
    h.physicalDevice = vkdev->physical();
    h.device = vkdev->handle();
    h.queueFamilyIndex = vkdev->queueFamily();
    h.getDeviceProcAddr = vkdev->instanceFunctions().vkGetDeviceProcAddr;
    return h;
}

Result<CommandRecorder> recordInto(Device& device, VkCommandBuffer commandBuffer) {
    vk::VulkanDevice* vkdev = vulkanOf(device);
    if (!vkdev)
        return Status(StatusCode::InvalidArgument, "recordInto: the Device is empty or not a Vulkan one");
    if (!commandBuffer)
        return Status(StatusCode::InvalidArgument, "recordInto: commandBuffer is VK_NULL_HANDLE");
    CommandRecorder r;
    detail::impl(r) = std::make_unique<detail::RecorderImpl>();
    detail::impl(r)->device = detail::impl(device);
    detail::impl(r)->external = true;
    detail::impl(r)->list = vkdev->wrapCommands(commandBuffer);
    return r;
}

namespace {
// `sync` as the back-end's handles, checked entry by entry.
Result<detail::ExternalSync> externalSync(Device& device, const VulkanSubmitSync& sync) {
    vk::VulkanDevice* vkdev = vulkanOf(device);
    if (!vkdev) return Status(StatusCode::InvalidArgument, "submit: the Device is empty or not a Vulkan one");
    auto handle = [](VkSemaphore s) {
        uint64_t h = 0; // a pointer or a 64-bit integer, by platform
        std::memcpy(&h, &s, sizeof s);
        return h;
    };
    auto check = [&](const char* list, size_t i, VkSemaphore s, uint64_t value) -> Status {
        const std::string entry = "submit: sync." + std::string(list) + "[" + std::to_string(i) + "]";
        if (s == VK_NULL_HANDLE)
            return Status(StatusCode::InvalidArgument, entry + ".semaphore is VK_NULL_HANDLE");
        if (value && vkdev->fenceTickets())
            return Status(StatusCode::Unsupported,
                          entry + ".value is a timeline value, and the device has no timeline semaphores");
        return {};
    };
    detail::ExternalSync out;
    for (size_t i = 0; i < sync.waits.size(); ++i) {
        const VulkanSemaphoreWait& w = sync.waits[i];
        if (Status s = check("waits", i, w.semaphore, w.value); !s) return s;
        if (!w.stages)
            return Status(StatusCode::InvalidArgument, "submit: sync.waits[" + std::to_string(i) +
                                                           "].stages is 0: name the stages that wait");
        out.waits.push_back({handle(w.semaphore), w.value, w.stages});
    }
    for (size_t i = 0; i < sync.signals.size(); ++i) {
        const VulkanSemaphoreSignal& sg = sync.signals[i];
        if (Status s = check("signals", i, sg.semaphore, sg.value); !s) return s;
        out.signals.push_back({handle(sg.semaphore), sg.value});
    }
    uint32_t families = 0;
    vkdev->instanceFunctions().vkGetPhysicalDeviceQueueFamilyProperties(vkdev->physical(), &families,
                                                                        nullptr);
    for (const auto* list : {&sync.acquires, &sync.releases}) {
        const std::string name = list == &sync.acquires ? "acquires" : "releases";
        for (size_t i = 0; i < list->size(); ++i) {
            const VulkanOwnershipTransfer& t = (*list)[i];
            const std::string entry = "submit: sync." + name + "[" + std::to_string(i) + "]";
            if (!t.buffer || !t.buffer->valid() ||
                detail::impl(*t.buffer)->device.get() != detail::impl(device).get())
                return Status(StatusCode::InvalidArgument, entry + ".buffer is empty or of another Device");
            if (t.family >= families)
                return Status(StatusCode::InvalidArgument,
                              entry + ".family (" + std::to_string(t.family) + ") is not one of the " +
                                  std::to_string(families) + " queue families of the physical device");
            if (t.family == vkdev->queueFamily()) continue; // the same family: no transfer
            (list == &sync.acquires ? out.acquires : out.releases)
                .push_back({detail::impl(*t.buffer)->buffer.get(), t.family});
        }
    }
    return out;
}
} // namespace

Result<Ticket> submit(Device& device, CommandRecorder& recorder, const VulkanSubmitSync& sync) {
    auto external = externalSync(device, sync);
    if (!external) return external.status();
    return detail::submitRecorder(device, recorder, &external.value());
}

Result<Ticket> submit(Device& device, Recording& recording, const VulkanSubmitSync& sync) {
    auto external = externalSync(device, sync);
    if (!external) return external.status();
    return detail::submitRecording(device, recording, &external.value());
}

} // namespace ripple::interop
