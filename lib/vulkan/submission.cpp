// SPDX-License-Identifier: MIT
// The Vulkan device's command buffers and queue: pooled command buffers recycled once their ticket retires,
// engines' command buffers wrapped, submission with the engine's semaphores and queue-family transfers,
// kept command buffers for recordings, tickets (timeline values, or fences: fence_tickets.cpp), waits and
// timestamps, and injected faults.
#include "vulkan/device.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace ripple::vk {

std::unique_ptr<detail::BackendCommandList> VulkanDevice::wrapCommands(VkCommandBuffer commandBuffer) {
    CommandSlot slot;
    slot.cmd = commandBuffer; // no pool: the engine owns it
    auto list = std::make_unique<VulkanCommandList>(*this, slot);
    list->barrier(); // after the engine's earlier compute and transfer writes
    return list;
}

VkResult VulkanDevice::injected(detail::FaultPoint point) {
    const StatusCode code = takeFault(point);
    if (code == StatusCode::DeviceLost) {
        t_.vkDeviceWaitIdle(device_); // a lost GPU runs nothing more: what ripple then frees is not in use
        return VK_ERROR_DEVICE_LOST;
    }
    return code == StatusCode::OutOfMemory ? VK_ERROR_OUT_OF_DEVICE_MEMORY : VK_SUCCESS;
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
        auto taken = takeFence();
        if (!taken) {
            for (CommandSlot& t : transfers) recycleLocked(t);
            if (!kept) recycleLocked(slot);
            return taken.status();
        }
        fence = std::move(taken.value());
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
    inFlight_.push_back(
        {ticket, slot, kept, std::move(fence), std::move(transfers), sync && !sync->waits.empty()});
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
    const VkPipelineStageFlags top = VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                               bottom = VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
    t_.vkCmdPipelineBarrier(slot.cmd, acquire ? top : work, acquire ? work : bottom, 0, 0, nullptr,
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
        keepFence(std::move(inFlight_.front().fence));
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

Result<bool> VulkanDevice::isComplete(uint64_t ticket, bool poll) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    if (Status s =
            check(poll ? injected(detail::FaultPoint::Wait) : VK_SUCCESS, "vkGetSemaphoreCounterValue");
        !s)
        return lost(s);
    auto completed = completedTicket();
    if (!completed) return completed.status();
    const uint64_t done = completed.value();
    if (done >= ticket) {
        if (Status s = retire(); !s) return s;
    }
    return done >= ticket;
}

Result<bool> VulkanDevice::signalsReached(const std::vector<detail::ExternalSync::Signal>& signals) {
    for (const auto& s : signals) {
        if (!s.value) continue; // binary: unreadable
        VkSemaphore semaphore;
        std::memcpy(&semaphore, &s.handle, sizeof semaphore);
        uint64_t value = 0;
        if (Status st = check(t_.vkGetSemaphoreCounterValue(device_, semaphore, &value),
                              "vkGetSemaphoreCounterValue (the engine's semaphore)");
            !st)
            return lost(st);
        if (value < s.value) return false;
    }
    return true;
}

Status VulkanDevice::waitSignals(const std::vector<detail::ExternalSync::Signal>& signals,
                                 uint64_t timeoutNs) {
    std::vector<VkSemaphore> semaphores;
    std::vector<uint64_t> values;
    for (const auto& s : signals) {
        if (!s.value) continue;
        semaphores.emplace_back();
        std::memcpy(&semaphores.back(), &s.handle, sizeof(VkSemaphore));
        values.push_back(s.value);
    }
    if (semaphores.empty()) return {};
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO}; // all of them
    info.semaphoreCount = static_cast<uint32_t>(semaphores.size());
    info.pSemaphores = semaphores.data();
    info.pValues = values.data();
    const VkResult r = t_.vkWaitSemaphores(device_, &info, timeoutNs);
    if (r == VK_TIMEOUT)
        return Status(StatusCode::Timeout, "the engine's timeline semaphores the submission signals did not "
                                           "read as reached within " +
                                               std::to_string(timeoutNs / 1000000) + " ms");
    if (Status s = check(r, "vkWaitSemaphores (the engine's semaphores)"); !s) return lost(s);
    return {};
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
