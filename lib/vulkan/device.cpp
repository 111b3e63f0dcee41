// SPDX-License-Identifier: MIT
// The Vulkan backend: one device and compute queue, device-local buffers with staging copies, one
// pipeline per kernel variant, and command buffers that run a list of commands with a barrier between
// each pair.
#include "vulkan/device.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
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

Result<std::vector<uint8_t>> VulkanDevice::pipelineCacheData() {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t size = 0;
    if (Status s =
            check(t_.vkGetPipelineCacheData(device_, cache_, &size, nullptr), "vkGetPipelineCacheData");
        !s)
        return s;
    std::vector<uint8_t> data(size);
    if (Status s =
            check(t_.vkGetPipelineCacheData(device_, cache_, &size, data.data()), "vkGetPipelineCacheData");
        !s)
        return s;
    data.resize(size);
    return data;
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

std::unique_ptr<detail::BackendCommandList> VulkanDevice::wrapCommands(VkCommandBuffer commandBuffer) {
    CommandSlot slot;
    slot.cmd = commandBuffer; // no pool: the engine owns it
    auto list = std::make_unique<VulkanCommandList>(*this, slot);
    list->barrier(); // after the engine's earlier compute and transfer writes
    return list;
}

VulkanDevice::~VulkanDevice() {
    if (!device_) return;
    if (ownsDevice_)
        t_.vkDeviceWaitIdle(device_);
    else if (!inFlight_.empty())
        (void)wait(inFlight_.back().ticket, UINT64_MAX); // an engine's device: only ours
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& f : inFlight_) {
        if (!f.kept) freeSlots_.push_back(f.slot); // recordings go with their owners, before the device
        for (CommandSlot& t : f.transfers) freeSlots_.push_back(t);
    }
    inFlight_.clear();                             // and their fences
    for (CommandSlot& slot : freeSlots_) {
        for (VkDescriptorPool p : slot.descriptorPools) t_.vkDestroyDescriptorPool(device_, p, nullptr);
        if (slot.queries) t_.vkDestroyQueryPool(device_, slot.queries, nullptr);
        t_.vkDestroyCommandPool(device_, slot.pool, nullptr);
    }
    for (VkDescriptorPool p : enginePools_) t_.vkDestroyDescriptorPool(device_, p, nullptr);
    for (auto& [name, p] : pipelines_) {
        t_.vkDestroyPipeline(device_, p.pipeline, nullptr);
        t_.vkDestroyPipelineLayout(device_, p.layout, nullptr);
        t_.vkDestroyDescriptorSetLayout(device_, p.setLayout, nullptr);
    }
    if (timeline_) t_.vkDestroySemaphore(device_, timeline_, nullptr);
    if (cache_) t_.vkDestroyPipelineCache(device_, cache_, nullptr);
    staging_.reset();
    allocator_.reset(); // every buffer is gone: the DeviceImpl above outlives them
    if (ownsDevice_) t_.vkDestroyDevice(device_, nullptr);
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

VkResult VulkanDevice::injected(detail::FaultPoint point) {
    const StatusCode code = takeFault(point);
    if (code == StatusCode::DeviceLost) {
        t_.vkDeviceWaitIdle(device_); // a lost GPU runs nothing more: what ripple then frees is not in use
        return VK_ERROR_DEVICE_LOST;
    }
    return code == StatusCode::OutOfMemory ? VK_ERROR_OUT_OF_DEVICE_MEMORY : VK_SUCCESS;
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

Status VulkanDevice::preparePipeline(const kernels::KernelInfo& kernel) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pipelines_.count(kernel.name)) return {};
    Pipeline p;
    VkDescriptorSetLayoutBinding bindings[kernels::kMaxKernelBindings];
    for (uint32_t i = 0; i < kernel.bindingCount; ++i) {
        bindings[i] = {};
        bindings[i].binding = kernel.bindings[i].binding;
        bindings[i].descriptorType = kernel.bindings[i].uniform ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                                                : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        bindings[i].descriptorCount = 1;
        bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    if (adapter_.features.pushDescriptors)
        setInfo.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    setInfo.bindingCount = kernel.bindingCount;
    setInfo.pBindings = bindings;
    if (Status s = check(t_.vkCreateDescriptorSetLayout(device_, &setInfo, nullptr, &p.setLayout),
                         "vkCreateDescriptorSetLayout");
        !s)
        return s;
    VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, kernel.pushConstantBytes};
    VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layoutInfo.setLayoutCount = 1;
    layoutInfo.pSetLayouts = &p.setLayout;
    layoutInfo.pushConstantRangeCount = kernel.pushConstantBytes ? 1 : 0;
    layoutInfo.pPushConstantRanges = &push;
    if (Status s = check(t_.vkCreatePipelineLayout(device_, &layoutInfo, nullptr, &p.layout),
                         "vkCreatePipelineLayout");
        !s)
        return s;
    const kernels::RoundTripKernel* roundTrip =
        roundTrip_ ? kernels::findRoundTrip(*roundTrip_, kernel.name) : nullptr;
    std::vector<uint32_t> code;
    if (!kernels::unpackSpirv(roundTrip ? roundTrip->spirv : kernel.spirv, code))
        return Status(StatusCode::Internal,
                      std::string("the embedded SPIR-V of ") + kernel.name + " is corrupt");
    VkShaderModuleCreateInfo moduleInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    moduleInfo.codeSize = code.size() * 4;
    moduleInfo.pCode = code.data();
    VkShaderModule module = VK_NULL_HANDLE;
    if (Status s =
            check(t_.vkCreateShaderModule(device_, &moduleInfo, nullptr, &module), "vkCreateShaderModule");
        !s)
        return s;
    VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module;
    info.stage.pName = "main";
    if (kernel.features & kernels::FeatureFullSubgroups) // chosen only where the device has the feature
        info.stage.flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT_EXT;
    info.layout = p.layout;
    Status s = check(t_.vkCreateComputePipelines(device_, cache_, 1, &info, nullptr, &p.pipeline),
                     "vkCreateComputePipelines");
    t_.vkDestroyShaderModule(device_, module, nullptr);
    if (!s) return s;
    if (auto name = instance_->fn().vkSetDebugUtilsObjectNameEXT) { // kernel names show in RenderDoc
        VkDebugUtilsObjectNameInfoEXT n{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
        n.objectType = VK_OBJECT_TYPE_PIPELINE;
        n.objectHandle = reinterpret_cast<uint64_t>(p.pipeline);
        n.pObjectName = kernel.name;
        name(device_, &n);
    }
    pipelines_[kernel.name] = p;
    return {};
}

const Pipeline& VulkanDevice::pipeline(const kernels::KernelInfo& kernel) {
    std::lock_guard<std::mutex> lock(mutex_);
    return pipelines_.at(kernel.name);
}

Status VulkanDevice::makeCommandBuffer(CommandSlot& slot, VkCommandPoolCreateFlags flags) {
    VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    poolInfo.flags = flags;
    poolInfo.queueFamilyIndex = queueFamily_;
    if (Status s =
            check(t_.vkCreateCommandPool(device_, &poolInfo, nullptr, &slot.pool), "vkCreateCommandPool");
        !s)
        return s;
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = slot.pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    if (Status s = check(t_.vkAllocateCommandBuffers(device_, &alloc, &slot.cmd), "vkAllocateCommandBuffers");
        !s) {
        t_.vkDestroyCommandPool(device_, slot.pool, nullptr);
        slot.pool = VK_NULL_HANDLE;
        return s;
    }
    return {};
}

Result<std::unique_ptr<detail::BackendCommandList>> VulkanDevice::beginCommands(uint32_t timestampSlots) {
    CommandSlot slot;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
        if (Status s = retire(); !s) return s;
        for (size_t i = 0; i < freeSlots_.size(); ++i) {
            if (freeSlots_[i].querySlots >= timestampSlots) {
                slot = freeSlots_[i];
                freeSlots_.erase(freeSlots_.begin() + static_cast<long>(i));
                break;
            }
        }
    }
    if (!slot.pool) { // a pool per list: lists may be recorded on several threads at once
        if (Status s = makeCommandBuffer(slot, VK_COMMAND_POOL_CREATE_TRANSIENT_BIT); !s) return s;
        if (timestampSlots) {
            VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
            q.queryType = VK_QUERY_TYPE_TIMESTAMP;
            q.queryCount = timestampSlots;
            if (Status s =
                    check(t_.vkCreateQueryPool(device_, &q, nullptr, &slot.queries), "vkCreateQueryPool");
                !s) {
                t_.vkDestroyCommandPool(device_, slot.pool, nullptr);
                return s;
            }
            slot.querySlots = timestampSlots;
        }
    }
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    if (slot.queries && hostQueryReset_) t_.vkResetQueryPool(device_, slot.queries, 0, slot.querySlots);
    t_.vkBeginCommandBuffer(slot.cmd, &begin);
    if (slot.queries && !hostQueryReset_) t_.vkCmdResetQueryPool(slot.cmd, slot.queries, 0, slot.querySlots);
    auto list = std::make_unique<VulkanCommandList>(*this, slot);
    list->barrier(); // after everything submitted earlier on this queue
    return std::unique_ptr<detail::BackendCommandList>(std::move(list));
}

Result<uint64_t> VulkanDevice::submit(std::unique_ptr<detail::BackendCommandList> commands,
                                      const detail::ExternalSync* sync) {
    auto& list = static_cast<VulkanCommandList&>(*commands);
    Status recorded = list.status;
    CommandSlot slot = list.release();
    commands.reset();
    t_.vkEndCommandBuffer(slot.cmd);
    if (!recorded.ok()) {
        recycle(slot);
        return recorded;
    }
    return submitSlot(slot, false, sync);
}

Result<uint64_t> VulkanDevice::submitSlot(CommandSlot& slot, bool kept, const detail::ExternalSync* sync) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (lost_) {
        if (!kept) recycleLocked(slot);
        return Status(StatusCode::DeviceLost, "the device was lost");
    }
    const uint64_t ticket = nextTicket_;
    // A recording's queries, read when its last submission retired (it is not in flight:
    // runtime/recording.cpp).
    if (kept && slot.queries && hostQueryReset_)
        t_.vkResetQueryPool(device_, slot.queries, 0, slot.querySlots);
    // The engine's semaphores (interop/vulkan.hpp), beside the device's timeline signalled with the ticket.
    std::vector<VkSemaphore> waits, signals;
    std::vector<VkPipelineStageFlags> stages;
    std::vector<uint64_t> waitValues, signalValues;
    if (!fenceTickets_) {
        signals.push_back(timeline_);
        signalValues.push_back(ticket);
    }
    if (sync) {
        auto semaphore = [](uint64_t handle) {
            VkSemaphore s; // a pointer or a 64-bit integer, by platform
            std::memcpy(&s, &handle, sizeof s);
            return s;
        };
        for (const auto& w : sync->waits) {
            waits.push_back(semaphore(w.handle));
            waitValues.push_back(w.value);
            stages.push_back(static_cast<VkPipelineStageFlags>(w.stages));
        }
        for (const auto& s : sync->signals) {
            signals.push_back(semaphore(s.handle));
            signalValues.push_back(s.value);
        }
    }
    VkTimelineSemaphoreSubmitInfo timeline{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    timeline.waitSemaphoreValueCount = static_cast<uint32_t>(waitValues.size());
    timeline.pWaitSemaphoreValues = waitValues.data();
    timeline.signalSemaphoreValueCount = static_cast<uint32_t>(signalValues.size());
    timeline.pSignalSemaphoreValues = signalValues.data();
    // Queue-family ownership transfers: acquired before the commands, released after them.
    std::vector<CommandSlot> transfers;
    std::vector<VkCommandBuffer> buffers;
    for (bool acquire : {true, false}) {
        if (!acquire) buffers.push_back(slot.cmd);
        const auto* list = !sync ? nullptr : acquire ? &sync->acquires : &sync->releases;
        if (!list || list->empty()) continue;
        auto made = ownershipCommands(*list, acquire);
        if (!made) {
            for (CommandSlot& t : transfers) recycleLocked(t);
            if (!kept) recycleLocked(slot);
            return made.status();
        }
        transfers.push_back(made.value());
        buffers.push_back(made.value().cmd);
    }
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, fenceTickets_ ? nullptr : &timeline};
    submit.waitSemaphoreCount = static_cast<uint32_t>(waits.size());
    submit.pWaitSemaphores = waits.data();
    submit.pWaitDstStageMask = stages.data();
    submit.commandBufferCount = static_cast<uint32_t>(buffers.size());
    submit.pCommandBuffers = buffers.data();
    submit.signalSemaphoreCount = static_cast<uint32_t>(signals.size());
    submit.pSignalSemaphores = signals.data();
    std::shared_ptr<Fence> fence;
    VkResult submitted = injected(detail::FaultPoint::Submit);
    if (submitted == VK_SUCCESS && fenceTickets_) {
        fence = std::make_shared<Fence>(Fence{*this});
        VkFenceCreateInfo info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        submitted = t_.vkCreateFence(device_, &info, nullptr, &fence->fence);
    }
    if (submitted == VK_SUCCESS) {
        if (lockQueue_) lockQueue_(); // an engine's queue: it may be submitting from other threads
        submitted = t_.vkQueueSubmit(queue_, 1, &submit, fence ? fence->fence : VK_NULL_HANDLE);
        if (unlockQueue_) unlockQueue_();
    }
    if (Status s = check(submitted, "vkQueueSubmit"); !s) {
        for (CommandSlot& t : transfers) recycleLocked(t);
        if (!kept) recycleLocked(slot);
        return lost(s);
    }
    ++nextTicket_;
    inFlight_.push_back({ticket, slot, kept, std::move(fence), std::move(transfers)});
    return ticket;
}

Result<CommandSlot>
VulkanDevice::ownershipCommands(const std::vector<detail::ExternalSync::Transfer>& transfers, bool acquire) {
    CommandSlot slot;
    if (!freeSlots_.empty()) {
        slot = freeSlots_.back();
        freeSlots_.pop_back();
    } else if (Status s = makeCommandBuffer(slot, VK_COMMAND_POOL_CREATE_TRANSIENT_BIT); !s) {
        return s;
    }
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    t_.vkBeginCommandBuffer(slot.cmd, &begin);
    std::vector<VkBufferMemoryBarrier> barriers;
    for (const auto& t : transfers) {
        VkBufferMemoryBarrier b{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
        // Acquire: the engine's release made its writes available; ours become visible here. Release: our
        // writes are made available to the engine's acquire.
        const VkAccessFlags ours = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                   VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
        b.srcAccessMask = acquire ? 0 : VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
        b.dstAccessMask = acquire ? ours : 0;
        b.srcQueueFamilyIndex = acquire ? t.family : queueFamily_;
        b.dstQueueFamilyIndex = acquire ? queueFamily_ : t.family;
        b.buffer = static_cast<VulkanBuffer*>(t.buffer)->buffer;
        b.offset = 0;
        b.size = t.buffer->size;
        barriers.push_back(b);
    }
    const VkPipelineStageFlags work = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    t_.vkCmdPipelineBarrier(slot.cmd, acquire ? VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT : work,
                            acquire ? work : VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, nullptr,
                            static_cast<uint32_t>(barriers.size()), barriers.data(), 0, nullptr);
    if (Status s = check(t_.vkEndCommandBuffer(slot.cmd), "vkEndCommandBuffer"); !s) {
        recycleLocked(slot);
        return s;
    }
    return slot;
}

namespace {
// A kept command buffer and its pool, with the descriptor pools its sets came from (devices without push
// descriptors); they go with it.
class VulkanRecording : public detail::BackendRecording {
  public:
    VulkanRecording(VulkanDevice& device, CommandSlot slot) : device_(device), slot_(slot) {}
    ~VulkanRecording() override {
        if (slot_.queries) device_.table().vkDestroyQueryPool(device_.handle(), slot_.queries, nullptr);
        for (VkDescriptorPool p : slot_.descriptorPools)
            device_.table().vkDestroyDescriptorPool(device_.handle(), p, nullptr);
        device_.table().vkDestroyCommandPool(device_.handle(), slot_.pool, nullptr);
    }
    CommandSlot& slot() { return slot_; }

  private:
    VulkanDevice& device_;
    CommandSlot slot_;
};
} // namespace

Result<std::unique_ptr<detail::BackendCommandList>> VulkanDevice::beginRecording(uint32_t timestampSlots) {
    // Without push descriptors, the sets come from pools of the recording's own, destroyed with it.
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    CommandSlot slot;
    if (Status s = makeCommandBuffer(slot, 0); !s) return s;
    if (timestampSlots) {
        VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        q.queryType = VK_QUERY_TYPE_TIMESTAMP;
        q.queryCount = timestampSlots;
        if (Status s = check(t_.vkCreateQueryPool(device_, &q, nullptr, &slot.queries), "vkCreateQueryPool");
            !s) {
            t_.vkDestroyCommandPool(device_, slot.pool, nullptr);
            return s;
        }
        slot.querySlots = timestampSlots;
    }
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO}; // no ONE_TIME_SUBMIT
    t_.vkBeginCommandBuffer(slot.cmd, &begin);
    // Each submission needs the slots reset: on the host before it where the device allows (submitSlot), else
    // in the buffer, which costs the GPU a reset and a wait at every replay.
    if (slot.queries && !hostQueryReset_) t_.vkCmdResetQueryPool(slot.cmd, slot.queries, 0, slot.querySlots);
    auto list = std::make_unique<VulkanCommandList>(*this, slot);
    list->barrier(); // after everything submitted earlier on this queue, at each submission
    return std::unique_ptr<detail::BackendCommandList>(std::move(list));
}

Result<std::unique_ptr<detail::BackendRecording>>
VulkanDevice::endRecording(std::unique_ptr<detail::BackendCommandList> commands) {
    auto& list = static_cast<VulkanCommandList&>(*commands);
    Status recorded = list.status;
    CommandSlot slot = list.release();
    commands.reset();
    t_.vkEndCommandBuffer(slot.cmd);
    auto recording = std::make_unique<VulkanRecording>(*this, slot); // destroys the pool on failure too
    if (!recorded.ok()) return recorded;
    return std::unique_ptr<detail::BackendRecording>(std::move(recording));
}

Result<uint64_t> VulkanDevice::submitRecording(detail::BackendRecording& recording,
                                               const detail::ExternalSync* sync) {
    return submitSlot(static_cast<VulkanRecording&>(recording).slot(), true, sync);
}

Status VulkanDevice::retire() {
    auto completed = completedTicket();
    if (!completed) return completed.status();
    const uint64_t done = completed.value();
    while (!inFlight_.empty() && inFlight_.front().ticket <= done) {
        CommandSlot slot = inFlight_.front().slot;
        const uint64_t ticket = inFlight_.front().ticket;
        const bool kept = inFlight_.front().kept;
        for (CommandSlot& t : inFlight_.front().transfers) recycleLocked(t);
        inFlight_.pop_front();
        if (slot.queries) { // read before a recording's next submission resets them
            std::vector<uint64_t> ticks(slot.querySlots);
            t_.vkGetQueryPoolResults(device_, slot.queries, 0, slot.querySlots, ticks.size() * 8,
                                     ticks.data(), 8, VK_QUERY_RESULT_64_BIT);
            for (auto& t : ticks)
                t = static_cast<uint64_t>(static_cast<double>(t) * adapter_.features.timestampPeriodNs);
            timestamps_[ticket] = std::move(ticks);
            while (timestamps_.size() > 256) timestamps_.erase(timestamps_.begin()); // unread ones age out
        }
        if (!kept) recycleLocked(slot); // a recording's owner keeps its command buffer
    }
    return {};
}

void VulkanDevice::recycleLocked(CommandSlot& slot) {
    // The pool is reset, not the buffer: it was made without RESET_COMMAND_BUFFER, so vkBeginCommandBuffer
    // needs the buffer back in the initial state (also after a submission that failed).
    t_.vkResetCommandPool(device_, slot.pool, 0);
    for (VkDescriptorPool p : slot.descriptorPools) t_.vkResetDescriptorPool(device_, p, 0);
    freeSlots_.push_back(slot);
}

Status VulkanDevice::wait(uint64_t ticket, uint64_t timeoutNs) {
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    if (fenceTickets_) return waitFence(ticket, timeoutNs);
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.semaphoreCount = 1;
    info.pSemaphores = &timeline_;
    info.pValues = &ticket;
    VkResult r = injected(detail::FaultPoint::Wait);
    if (r == VK_SUCCESS) r = t_.vkWaitSemaphores(device_, &info, timeoutNs);
    return finishWait(r, ticket, timeoutNs, "vkWaitSemaphores");
}

Status VulkanDevice::finishWait(VkResult r, uint64_t ticket, uint64_t timeoutNs, const char* what) {
    if (r == VK_TIMEOUT)
        return Status(StatusCode::Timeout, "ticket " + std::to_string(ticket) + " did not complete within " +
                                               std::to_string(timeoutNs / 1000000) + " ms");
    std::lock_guard<std::mutex> lock(mutex_);
    if (Status s = check(r, what); !s) return lost(s);
    return retire();
}

Result<bool> VulkanDevice::isComplete(uint64_t ticket) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    if (Status s = check(injected(detail::FaultPoint::Wait), "vkGetSemaphoreCounterValue"); !s)
        return lost(s);
    auto completed = completedTicket();
    if (!completed) return completed.status();
    const uint64_t done = completed.value();
    if (done >= ticket) {
        if (Status s = retire(); !s) return s;
    }
    return done >= ticket;
}

std::vector<uint64_t> VulkanDevice::timestamps(uint64_t ticket) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = timestamps_.find(ticket);
    if (it == timestamps_.end()) return {};
    std::vector<uint64_t> t = std::move(it->second);
    timestamps_.erase(it);
    return t;
}

void VulkanDevice::keepPools(const std::vector<VkDescriptorPool>& pools) {
    std::lock_guard<std::mutex> lock(mutex_);
    enginePools_.insert(enginePools_.end(), pools.begin(), pools.end());
}

void VulkanDevice::recycle(CommandSlot slot) {
    std::lock_guard<std::mutex> lock(mutex_);
    recycleLocked(slot);
}

} // namespace ripple::vk
