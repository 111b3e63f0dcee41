// SPDX-License-Identifier: MIT
// Tickets on Vulkan 1.1 devices without timeline semaphores (many Android drivers): one fence per
// submission. Ticket N is complete once fence N, or any later one, is signalled: a fence's signal operation
// covers every batch submitted earlier on the queue (Vulkan spec, "Fence Signaling"). The timeline path is in
// device.cpp.
#include "vulkan/device.hpp"
#include "vulkan/test_seams.hpp"

#include <atomic>

namespace ripple::vk {

namespace {
std::atomic<bool> gFenceTicketsForTests{false};
} // namespace

void setFenceTicketsForTests(bool on) {
    gFenceTicketsForTests = on;
}
bool fenceTicketsForTests() {
    return gFenceTicketsForTests;
}

VulkanDevice::Fence::~Fence() {
    if (fence) device.table().vkDestroyFence(device.handle(), fence, nullptr);
}

Result<std::shared_ptr<VulkanDevice::Fence>> VulkanDevice::takeFence() {
    // A retired submission's fence may still be unsignalled: a later fence's signal is what retired it. Such
    // a fence is left for later: resetting one with a pending signal is invalid.
    for (size_t i = freeFences_.size(); i-- > 0;) {
        std::shared_ptr<Fence> f = freeFences_[i];
        const VkResult r = t_.vkGetFenceStatus(device_, f->fence);
        if (r == VK_NOT_READY) continue;
        freeFences_.erase(freeFences_.begin() + static_cast<std::ptrdiff_t>(i));
        if (r != VK_SUCCESS) return lost(check(r, "vkGetFenceStatus"));
        if (Status s = check(t_.vkResetFences(device_, 1, &f->fence), "vkResetFences"); !s) return lost(s);
        return f;
    }
    auto fence = std::make_shared<Fence>(Fence{*this});
    VkFenceCreateInfo info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (Status s = check(t_.vkCreateFence(device_, &info, nullptr, &fence->fence), "vkCreateFence"); !s)
        return s;
    return fence;
}

void VulkanDevice::keepFence(std::shared_ptr<Fence> fence) {
    // A waiter outside mutex_ (waitFence) still holds it: it goes when the waiter lets go. The list is
    // bounded by the submissions in flight at once; 64 covers a frame's worth.
    if (fence && fence.use_count() == 1 && freeFences_.size() < 64) freeFences_.push_back(std::move(fence));
}

Result<uint64_t> VulkanDevice::completedTicket() {
    if (!fenceTickets_) {
        uint64_t done = 0;
        if (Status s =
                check(t_.vkGetSemaphoreCounterValue(device_, timeline_, &done), "vkGetSemaphoreCounterValue");
            !s)
            return lost(s);
        return done;
    }
    // The newest signalled fence: the in-flight list is in ticket order.
    for (auto it = inFlight_.rbegin(); it != inFlight_.rend(); ++it) {
        if (it->ticket <= completed_) break;
        const VkResult r = t_.vkGetFenceStatus(device_, it->fence->fence);
        if (r == VK_SUCCESS) {
            completed_ = it->ticket;
            break;
        }
        if (r != VK_NOT_READY) return lost(check(r, "vkGetFenceStatus"));
    }
    return completed_;
}

Status VulkanDevice::waitFence(uint64_t ticket, uint64_t timeoutNs) {
    std::shared_ptr<Fence> fence;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const InFlight& f : inFlight_)
            if (f.ticket >= ticket) {
                fence = f.fence;
                break;
            }
    }
    VkResult r = injected(detail::FaultPoint::Wait);
    if (r == VK_SUCCESS && fence) r = t_.vkWaitForFences(device_, 1, &fence->fence, VK_TRUE, timeoutNs);
    return finishWait(r, ticket, timeoutNs, "vkWaitForFences");
}

} // namespace ripple::vk
