// SPDX-License-Identifier: MIT
// include/ripple/interop/vulkan.hpp: a ripple Device on an engine's Vulkan objects, its buffers, and
// recording into its command buffers.
#include "ripple/interop/vulkan.hpp"
#include "runtime/cache_blob.hpp"
#include "runtime/recorder_impl.hpp"
#include "vulkan/device.hpp"

namespace ripple::interop {

namespace {
vk::VulkanDevice* vulkanOf(Device& device) {
    // The backend's kind tells its class (ripple builds without RTTI).
    if (!device.impl_ || device.impl_->backend->adapter().backend != Backend::Vulkan) return nullptr;
    return static_cast<vk::VulkanDevice*>(device.impl_->backend.get());
}
} // namespace

Result<Device> adoptVulkanDevice(const VulkanDeviceDesc& desc, const DeviceOptions& options) {
    vk::AdoptedHandles h;
    h.instance = desc.instance;
    h.physicalDevice = desc.physicalDevice;
    h.device = desc.device;
    h.queue = desc.queue;
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
    return detail::makeBuffer(device.impl_, vkdev->wrapBuffer(buffer, size));
}

Result<CommandRecorder> recordInto(Device& device, VkCommandBuffer commandBuffer) {
    vk::VulkanDevice* vkdev = vulkanOf(device);
    if (!vkdev)
        return Status(StatusCode::InvalidArgument, "recordInto: the Device is empty or not a Vulkan one");
    if (!commandBuffer)
        return Status(StatusCode::InvalidArgument, "recordInto: commandBuffer is VK_NULL_HANDLE");
    CommandRecorder r;
    r.impl_ = std::make_unique<detail::RecorderImpl>();
    r.impl_->device = device.impl_;
    r.impl_->external = true;
    r.impl_->list = vkdev->wrapCommands(commandBuffer);
    return r;
}

} // namespace ripple::interop
