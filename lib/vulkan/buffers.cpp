// SPDX-License-Identifier: MIT
// The Vulkan device's buffers: device-local (or host-visible) buffers from the allocator, buffers wrapped
// from an engine, labels, and uploads and downloads through a reused staging buffer in 32 MiB pieces.
#include "vulkan/device.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>

namespace ripple::vk {
namespace {

constexpr uint64_t kTransferTimeoutNs = 600ull * 1000 * 1000 * 1000;
constexpr uint64_t kStagingBytes = 32ull << 20; // upload/download pieces

} // namespace

VulkanBuffer::~VulkanBuffer() {
    if (!owned) return;
    if (buffer) table->vkDestroyBuffer(device, buffer, nullptr);
    if (allocator) allocator->release(allocation);
}

void VulkanDevice::setLabel(detail::BackendBuffer& buffer, const std::string& label) {
    if (auto name = instance_->fn().vkSetDebugUtilsObjectNameEXT) {
        VkDebugUtilsObjectNameInfoEXT n{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
        n.objectType = VK_OBJECT_TYPE_BUFFER;
        n.objectHandle = reinterpret_cast<uint64_t>(static_cast<VulkanBuffer&>(buffer).buffer);
        n.pObjectName = label.c_str();
        name(device_, &n);
    }
}

std::unique_ptr<detail::BackendBuffer> VulkanDevice::wrapBuffer(VkBuffer buffer, uint64_t size) {
    auto b = std::make_unique<VulkanBuffer>();
    b->device = device_;
    b->table = &t_;
    b->buffer = buffer;
    b->size = size;
    b->owned = false;
    return b;
}

Result<std::unique_ptr<VulkanBuffer>> VulkanDevice::makeBuffer(uint64_t size, bool hostVisible) {
    auto buf = std::make_unique<VulkanBuffer>();
    buf->device = device_;
    buf->table = &t_;
    buf->size = size;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    // UNIFORM: an operator's params buffer is a uniform buffer for the small-device variants
    // (kernels/kernel_info.hpp, KernelBinding::uniform).
    // INDIRECT: a user kernel's clamped group counts (KernelDispatch::IndirectBuffer).
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                 VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                 VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    if (Status s = check(t_.vkCreateBuffer(device_, &info, nullptr, &buf->buffer), "vkCreateBuffer"); !s)
        return s;
    VkMemoryRequirements req;
    t_.vkGetBufferMemoryRequirements(device_, buf->buffer, &req);
    const VkMemoryPropertyFlags want =
        hostVisible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                    : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < memory_.memoryTypeCount && type == UINT32_MAX; ++i)
        if ((req.memoryTypeBits & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & want) == want)
            type = i;
    for (uint32_t i = 0; i < memory_.memoryTypeCount && type == UINT32_MAX && !hostVisible; ++i)
        if (req.memoryTypeBits & (1u << i)) type = i; // no device-local type: any will do
    if (type == UINT32_MAX) return Status(StatusCode::OutOfMemory, "no suitable Vulkan memory type");
    if (Status s = check(injected(detail::FaultPoint::Allocation), "vkAllocateMemory"); !s) return lost(s);
    auto allocation = allocator_->allocate(req, type, hostVisible);
    if (!allocation) return lost(allocation.status());
    buf->allocator = allocator_.get();
    buf->allocation = allocation.value();
    buf->mapped = allocation.value().mapped;
    if (Status s = check(
            t_.vkBindBufferMemory(device_, buf->buffer, allocation.value().memory, allocation.value().offset),
            "vkBindBufferMemory");
        !s)
        return s;
    return buf;
}

Result<std::unique_ptr<detail::BackendBuffer>> VulkanDevice::createBuffer(uint64_t size, bool hostVisible) {
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    auto buf = makeBuffer(size, hostVisible);
    if (!buf) return buf.status();
    return std::unique_ptr<detail::BackendBuffer>(std::move(buf.value()));
}

Result<VulkanBuffer*> VulkanDevice::stagingBuffer() {
    if (!staging_) {
        auto b = makeBuffer(kStagingBytes, true);
        if (!b) return b.status();
        staging_ = std::move(b.value());
    }
    return staging_.get();
}

Status VulkanDevice::upload(detail::BackendBuffer& buffer, uint64_t offset, const void* data, uint64_t size) {
    std::lock_guard<std::mutex> lock(stagingMutex_);
    auto staging = stagingBuffer();
    if (!staging) return staging.status();
    for (uint64_t done = 0; done < size;) {
        const uint64_t piece = std::min(size - done, kStagingBytes);
        std::memcpy(staging.value()->mapped, static_cast<const char*>(data) + done, piece);
        auto list = beginCommands(0);
        if (!list) return list.status();
        list.value()->copy({staging.value(), 0, piece}, {&buffer, offset + done, piece});
        auto ticket = submit(std::move(list.value()));
        if (!ticket) return ticket.status();
        if (Status s = wait(ticket.value(), kTransferTimeoutNs); !s) return s;
        done += piece;
    }
    return {};
}

Status VulkanDevice::download(detail::BackendBuffer& buffer, uint64_t offset, void* data, uint64_t size) {
    std::lock_guard<std::mutex> lock(stagingMutex_);
    auto staging = stagingBuffer();
    if (!staging) return staging.status();
    for (uint64_t done = 0; done < size;) {
        const uint64_t piece = std::min(size - done, kStagingBytes);
        auto list = beginCommands(0);
        if (!list) return list.status();
        list.value()->copy({&buffer, offset + done, piece}, {staging.value(), 0, piece});
        list.value()->hostReadBarrier();
        auto ticket = submit(std::move(list.value()));
        if (!ticket) return ticket.status();
        if (Status s = wait(ticket.value(), kTransferTimeoutNs); !s) return s;
        std::memcpy(static_cast<char*>(data) + done, staging.value()->mapped, piece);
        done += piece;
    }
    return {};
}

} // namespace ripple::vk
