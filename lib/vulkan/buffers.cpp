// SPDX-License-Identifier: MIT
// The Vulkan device's buffers: device-local (or host-visible) buffers from the allocator, buffers wrapped
// from an engine, labels, and uploads and downloads: a memcpy where the memory is mapped (lavapipe, most
// integrated and mobile GPUs), else through a reused staging buffer in 32 MiB pieces, on a queue of their
// own where the device has one. Without one, an upload behind a submission gated on an engine's semaphore
// is queued and not waited for, so that it never waits for other submissions.
#include "vulkan/device.hpp"

#include "vulkan/test_seams.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>

namespace ripple::vk {
namespace {

constexpr uint64_t kStagingBytes = 32ull << 20; // upload/download pieces
std::atomic<bool> gMappedTransfers{true};

uint64_t nowNs() {
    return static_cast<uint64_t>(
        std::chrono::nanoseconds(std::chrono::steady_clock::now().time_since_epoch()).count());
}
uint64_t deadlineAfter(uint64_t timeoutNs) {
    const uint64_t now = nowNs();
    return timeoutNs > UINT64_MAX - now ? UINT64_MAX : now + timeoutNs;
}
uint64_t leftUntil(uint64_t deadlineNs) {
    const uint64_t now = nowNs();
    return deadlineNs == UINT64_MAX ? UINT64_MAX : deadlineNs > now ? deadlineNs - now : 0;
}

} // namespace

void setMappedTransfersForTests(bool on) {
    gMappedTransfers = on;
}

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
    // Device-local memory the host can map too (lavapipe, integrated and mobile GPUs) is mapped: upload
    // and download then copy on the host and wait for no queue.
    const VkMemoryPropertyFlags flags = memory_.memoryTypes[type].propertyFlags;
    const VkMemoryPropertyFlags coherent =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const bool map = hostVisible || ((flags & coherent) == coherent && gMappedTransfers);
    buf->hostCached = map && (flags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    auto allocation = allocator_->allocate(req, type, map);
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

Status VulkanDevice::settleStaging(uint64_t deadlineNs) {
    if (transferPending_) {
        VkResult r = t_.vkWaitForFences(device_, 1, &transferFence_, VK_TRUE, leftUntil(deadlineNs));
        if (r == VK_TIMEOUT)
            return Status(StatusCode::Timeout, "the previous upload or download is still copying");
        if (Status s = check(r, "vkWaitForFences"); !s) return lost(s);
        transferPending_ = false;
    }
    if (stagingTicket_) {
        if (Status s = wait(stagingTicket_, leftUntil(deadlineNs)); !s) {
            if (s.code() != StatusCode::Timeout) return s;
            return Status(StatusCode::Timeout, "an earlier upload or download is still queued behind "
                                               "submissions that have not completed");
        }
        stagingTicket_ = 0;
    }
    return {};
}

Status VulkanDevice::stagedCopy(const detail::BufferRange& source, const detail::BufferRange& destination,
                                bool hostRead, uint64_t deadlineNs) {
    if (Status s = settleStaging(deadlineNs); !s) return s;
    if (!transferQueue_) { // behind everything submitted to queue_ before (a gated submission too)
        auto list = beginCommands(0);
        if (!list) return list.status();
        list.value()->copy(source, destination);
        if (hostRead) list.value()->hostReadBarrier();
        auto ticket = submit(std::move(list.value()));
        if (!ticket) return ticket.status();
        stagingTicket_ = ticket.value();
        Status s = wait(ticket.value(), leftUntil(deadlineNs));
        if (s.code() == StatusCode::Timeout)
            return Status(
                StatusCode::Timeout,
                "the copy is queued behind earlier submissions that have not completed (one waiting "
                "on an engine's semaphore completes only once it is signalled); it runs after them");
        if (s) stagingTicket_ = 0;
        return s;
    }
    if (!transferSlot_.pool) {
        if (Status s = makeCommandBuffer(transferSlot_, VK_COMMAND_POOL_CREATE_TRANSIENT_BIT); !s) return s;
        VkFenceCreateInfo info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        if (Status s = check(t_.vkCreateFence(device_, &info, nullptr, &transferFence_), "vkCreateFence"); !s)
            return s;
    }
    t_.vkResetCommandPool(device_, transferSlot_.pool, 0);
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    t_.vkBeginCommandBuffer(transferSlot_.cmd, &begin);
    VulkanCommandList list(*this, transferSlot_);
    list.copy(source, destination);
    if (hostRead) list.hostReadBarrier();
    (void)list.release(); // the slot stays transferSlot_
    if (Status s = check(t_.vkEndCommandBuffer(transferSlot_.cmd), "vkEndCommandBuffer"); !s) return s;
    if (Status s = check(t_.vkResetFences(device_, 1, &transferFence_), "vkResetFences"); !s) return s;
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &transferSlot_.cmd;
    VkResult r = injected(detail::FaultPoint::Submit);
    if (r == VK_SUCCESS) r = t_.vkQueueSubmit(transferQueue_, 1, &submit, transferFence_);
    if (Status s = check(r, "vkQueueSubmit"); !s) return lost(s);
    transferPending_ = true;
    return settleStaging(deadlineNs);
}

bool VulkanDevice::gatedInFlight() {
    if (!retire().ok()) return false;
    for (const InFlight& f : inFlight_)
        if (f.gated) return true;
    return false;
}

Status VulkanDevice::deferredUpload(detail::BackendBuffer& buffer, uint64_t offset, const void* data,
                                    uint64_t size, uint64_t* queuedTicket) {
    auto staging = createBuffer(size, true);
    if (!staging) return staging.status();
    std::memcpy(staging.value()->mapped, data, size);
    auto list = beginCommands(0);
    if (!list) return list.status();
    list.value()->copy({staging.value().get(), 0, size}, {&buffer, offset, size});
    auto ticket = submit(std::move(list.value()));
    if (!ticket) return ticket.status();
    std::lock_guard<std::mutex> lock(mutex_);
    for (InFlight& f : inFlight_) // kept with the copy's submission, freed when it retires (if it has run
        if (f.ticket == ticket.value()) f.staging = std::move(staging.value()); // already, freed here)
    *queuedTicket = ticket.value();
    return {};
}

Status VulkanDevice::upload(detail::BackendBuffer& buffer, uint64_t offset, const void* data, uint64_t size,
                            uint64_t timeoutNs, uint64_t* queuedTicket) {
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    if (buffer.mapped) { // the runtime waited for the work that uses the buffer; coherent memory
        std::memcpy(static_cast<char*>(buffer.mapped) + offset, data, size);
        return {};
    }
    if (!transferQueue_ && queuedTicket) {
        bool gated = false;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            gated = gatedInFlight();
        }
        if (gated) return deferredUpload(buffer, offset, data, size, queuedTicket);
    }
    const uint64_t deadline = deadlineAfter(timeoutNs);
    std::lock_guard<std::mutex> lock(stagingMutex_);
    auto staging = stagingBuffer();
    if (!staging) return staging.status();
    for (uint64_t done = 0; done < size;) {
        const uint64_t piece = std::min(size - done, kStagingBytes);
        if (Status s = settleStaging(deadline); !s) return s; // staging_ is free to write
        std::memcpy(staging.value()->mapped, static_cast<const char*>(data) + done, piece);
        if (Status s =
                stagedCopy({staging.value(), 0, piece}, {&buffer, offset + done, piece}, false, deadline);
            !s)
            return s;
        done += piece;
    }
    return {};
}

Status VulkanDevice::download(detail::BackendBuffer& buffer, uint64_t offset, void* data, uint64_t size,
                              uint64_t timeoutNs) {
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    // Every submission of ripple's ends with a barrier to host reads (emitCommands): the memory is current.
    if (buffer.mapped && static_cast<VulkanBuffer&>(buffer).hostCached) {
        std::memcpy(data, static_cast<const char*>(buffer.mapped) + offset, size);
        return {};
    }
    const uint64_t deadline = deadlineAfter(timeoutNs);
    std::lock_guard<std::mutex> lock(stagingMutex_);
    auto staging = stagingBuffer();
    if (!staging) return staging.status();
    for (uint64_t done = 0; done < size;) {
        const uint64_t piece = std::min(size - done, kStagingBytes);
        if (Status s =
                stagedCopy({&buffer, offset + done, piece}, {staging.value(), 0, piece}, true, deadline);
            !s)
            return s;
        std::memcpy(static_cast<char*>(data) + done, staging.value()->mapped, piece);
        done += piece;
    }
    return {};
}

} // namespace ripple::vk
