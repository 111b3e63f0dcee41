// include/ripple/interop/vulkan.hpp: a ripple Device on an engine's Vulkan objects, its buffers, and
// recording into its command buffers.
#include "ripple/interop/vulkan.hpp"
#include "runtime/recorder_impl.hpp"
#include "vulkan/device.hpp"

namespace ripple::interop {

namespace {
vk::VulkanDevice* vulkanOf(Device& device) {
    return device.impl_ ? dynamic_cast<vk::VulkanDevice*>(device.impl_->backend.get()) : nullptr;
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
    auto backend = vk::VulkanDevice::adopt(h, options);
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
    Buffer b;
    b.impl_ = std::make_shared<detail::BufferImpl>();
    b.impl_->device = device.impl_;
    b.impl_->buffer = vkdev->wrapBuffer(buffer, size);
    return b;
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

Result<PendingWork> endRecording(Device& device, CommandRecorder& recorder) {
    if (!recorder.impl_ || !recorder.impl_->external || recorder.impl_->device != device.impl_)
        return Status(StatusCode::InvalidArgument,
                      "endRecording: the recorder was not made by interop::recordInto on this Device");
    detail::RecorderImpl& r = *recorder.impl_;
    r.emit(*r.list, false);
    r.list.reset();
    std::lock_guard<std::mutex> lock(device.impl_->mutex);
    const uint64_t id = device.impl_->nextExternal++;
    device.impl_->external[id] = std::move(r.submission);
    recorder.impl_.reset();
    return PendingWork{id};
}

Status completeRecording(Device& device, PendingWork work) {
    if (!device.impl_) return Status(StatusCode::InvalidArgument, "completeRecording: the Device is empty");
    std::vector<std::shared_ptr<void>> released;
    std::lock_guard<std::mutex> lock(device.impl_->mutex);
    auto it = device.impl_->external.find(work.id);
    if (it == device.impl_->external.end())
        return Status(StatusCode::InvalidArgument,
                      "completeRecording: unknown or already completed PendingWork");
    released = device.impl_->finishOne(it->second, {});
    Status first = it->second.first;
    device.impl_->external.erase(it);
    return first;
}

} // namespace ripple::interop
