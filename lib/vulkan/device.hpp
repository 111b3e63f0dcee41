// SPDX-License-Identifier: MIT
// The Vulkan backend's device: one compute queue, device-local and host-visible buffers, one pipeline per
// kernel variant, command lists from a recycled set of command pools, and a timeline semaphore whose
// values are the tickets of submissions. Its methods live in device_setup.cpp, buffers.cpp, pipelines.cpp
// and submission.cpp; the lists in command_list.cpp.
#pragma once

#include "kernels/round_trip.hpp"
#include "runtime/backend.hpp"
#include "vulkan/allocator.hpp"
#include "vulkan/instance.hpp"

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <mutex>

namespace ripple::vk {

class VulkanDevice;

// An engine's Vulkan objects for ripple to use (see include/ripple/interop/vulkan.hpp).
struct AdoptedHandles {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physicalDevice = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    VkQueue transferQueue = VK_NULL_HANDLE; // optional, of the same family
    uint32_t queueFamilyIndex = 0;
    PFN_vkGetInstanceProcAddr getInstanceProcAddr = nullptr;
    AdapterFeatures enabled; // what the engine enabled; ripple uses nothing else
    bool debugUtils = false;
    std::function<void()> lockQueue, unlockQueue;
};

class VulkanBuffer : public detail::BackendBuffer {
  public:
    ~VulkanBuffer() override;
    VkDevice device = VK_NULL_HANDLE;
    const VolkDeviceTable* table = nullptr;
    VkBuffer buffer = VK_NULL_HANDLE;
    MemoryAllocator* allocator = nullptr; // where `allocation` goes back to
    Allocation allocation;
    bool owned = true;       // false for an engine's buffer
    bool hostCached = false; // `mapped` memory is HOST_CACHED: the host reads it at full speed
};

struct Pipeline {
    VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
};

// What a command list owns; recycled once its submission completes.
struct CommandSlot {
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    std::vector<VkDescriptorPool> descriptorPools; // only without push descriptors
    VkQueryPool queries = VK_NULL_HANDLE;
    uint32_t querySlots = 0;
};

class VulkanCommandList : public detail::BackendCommandList {
  public:
    VulkanCommandList(VulkanDevice& device, CommandSlot slot) : device_(device), slot_(slot) {}
    ~VulkanCommandList() override;
    void dispatch(const kernels::KernelInfo& kernel, const std::vector<detail::BufferRange>& bindings,
                  const uint32_t* push, const uint32_t groups[3],
                  const detail::BufferRange* indirect = nullptr) override;
    void fill(const detail::BufferRange& range, uint32_t value) override;
    void copy(const detail::BufferRange& source, const detail::BufferRange& destination) override;
    void barrier() override;
    void beginLabel(const std::string& label) override;
    void endLabel() override;
    void timestamp(uint32_t slot) override;
    void hostReadBarrier() override;

    CommandSlot release() {
        CommandSlot s = slot_;
        slot_ = {};
        return s;
    }
    Status status; // the first failure while recording

  private:
    VkDescriptorSet allocateSet(const Pipeline& p, const kernels::KernelInfo& kernel);
    VulkanDevice& device_;
    CommandSlot slot_;
};

class VulkanDevice : public detail::BackendDevice {
  public:
    ~VulkanDevice() override;
    static Result<std::unique_ptr<detail::BackendDevice>> create(const DeviceOptions& options);
    static Result<std::unique_ptr<VulkanDevice>> adopt(const AdoptedHandles& handles,
                                                       const DeviceOptions& options);
    std::unique_ptr<detail::BackendBuffer> wrapBuffer(VkBuffer buffer, uint64_t size);
    // Commands recorded into an engine's command buffer (already begun); the engine submits it.
    std::unique_ptr<detail::BackendCommandList> wrapCommands(VkCommandBuffer commandBuffer);
    // Tickets are fences (no timeline semaphores): an engine's timeline semaphores cannot be waited on.
    bool fenceTickets() const { return fenceTickets_; }
    // Uploads and downloads through staging have a queue of their own (buffers.cpp).
    bool transferQueue() const { return transferQueue_ != VK_NULL_HANDLE; }

    const AdapterInfo& adapter() const override { return adapter_; }
    uint32_t validationMessages() const override { return instance_->validationMessages(); }
    void log(LogLevel level, const std::string& message) const override { instance_->log(level, message); }
    Result<std::unique_ptr<detail::BackendBuffer>> createBuffer(uint64_t size, bool hostVisible) override;
    Status upload(detail::BackendBuffer& buffer, uint64_t offset, const void* data, uint64_t size,
                  uint64_t timeoutNs, uint64_t* queuedTicket) override;
    Status download(detail::BackendBuffer& buffer, uint64_t offset, void* data, uint64_t size,
                    uint64_t timeoutNs) override;
    Status waitSignals(const std::vector<detail::ExternalSync::Signal>& signals, uint64_t timeoutNs) override;
    Result<bool> signalsReached(const std::vector<detail::ExternalSync::Signal>& signals) override;
    Status preparePipeline(const kernels::KernelInfo& kernel) override;
    Result<std::vector<uint8_t>> pipelineCacheData() override;
    MemoryCounts memoryCounts() const override {
        const AllocatorStatistics a = allocator_->statistics();
        return {a.blocks + a.dedicated, a.vkAllocations, a.freeRanges};
    }
    void setLabel(detail::BackendBuffer& buffer, const std::string& label) override;
    Result<std::unique_ptr<detail::BackendCommandList>> beginCommands(uint32_t timestampSlots) override;
    Result<uint64_t> submit(std::unique_ptr<detail::BackendCommandList> commands,
                            const detail::ExternalSync* sync = nullptr) override;
    Result<std::unique_ptr<detail::BackendCommandList>> beginRecording(uint32_t timestampSlots) override;
    Result<std::unique_ptr<detail::BackendRecording>>
    endRecording(std::unique_ptr<detail::BackendCommandList> commands) override;
    Result<uint64_t> submitRecording(detail::BackendRecording& recording,
                                     const detail::ExternalSync* sync = nullptr) override;
    Status wait(uint64_t ticket, uint64_t timeoutNs) override;
    Result<bool> isComplete(uint64_t ticket, bool poll = true) override;
    std::vector<uint64_t> timestamps(uint64_t ticket) override;

    // For interop::vulkanHandles.
    VkInstance instanceHandle() const { return instance_->handle(); }
    VkPhysicalDevice physical() const { return physical_; }
    uint32_t queueFamily() const { return queueFamily_; }
    // For VulkanCommandList.
    VkDevice handle() const { return device_; }
    const VolkDeviceTable& table() const { return t_; }
    const InstanceFunctions& instanceFunctions() const { return instance_->fn(); }
    const Pipeline& pipeline(const kernels::KernelInfo& kernel);
    void recycle(CommandSlot slot);
    void keepPools(const std::vector<VkDescriptorPool>& pools); // an engine command buffer's, until teardown

  private:
    Result<std::unique_ptr<VulkanBuffer>> makeBuffer(uint64_t size, bool hostVisible);
    // The kept staging buffer, made on first use; caller holds stagingMutex_.
    Result<VulkanBuffer*> stagingBuffer();
    // Upload and download of memory the host cannot map: one piece through staging_, on transferQueue_
    // where there is one, else on queue_ behind everything submitted before; caller holds stagingMutex_.
    Status stagedCopy(const detail::BufferRange& source, const detail::BufferRange& destination,
                      bool hostRead, uint64_t deadlineNs);
    // Waits for the staging buffer's last copy, if it may still run; caller holds stagingMutex_.
    Status settleStaging(uint64_t deadlineNs);
    // Without transferQueue_, while a submission gated on an engine's semaphore is in flight: the bytes
    // into a staging buffer of their own and the copy queued behind that submission, not waited for
    // (its ticket in *queuedTicket).
    Status deferredUpload(detail::BackendBuffer& buffer, uint64_t offset, const void* data, uint64_t size,
                          uint64_t* queuedTicket);
    bool gatedInFlight();                  // caller holds mutex_
    Status retire();                       // recycles the slots of completed submissions; caller holds mutex_
    void recycleLocked(CommandSlot& slot); // recycle() for a caller that holds mutex_
    // The device table, queue, memory properties, timeline semaphore and pipeline cache.
    Status finishSetup(const std::vector<uint8_t>& cacheData);
    // Where the adapter claims computeFullSubgroups, runs glsl/subgroup_probe.comp once and clears the
    // claim (so the portable kernels run) if the driver launched a partial subgroup (subgroup_probe.cpp).
    Status probeFullSubgroups();
    // The driver result an injected fault (BackendDevice::injectFault) at `point` stands for; VK_SUCCESS
    // when none is injected.
    VkResult injected(detail::FaultPoint point);
    Status lost(Status s) {
        if (s.code() == StatusCode::DeviceLost) lost_ = true;
        return s;
    }

    // A new command pool (`flags`) and one primary command buffer from it, into `slot`.
    Status makeCommandBuffer(CommandSlot& slot, VkCommandPoolCreateFlags flags);
    // Submits `slot`'s ended command buffer; a kept one (a recording) is not recycled when it completes.
    Result<uint64_t> submitSlot(CommandSlot& slot, bool kept, const detail::ExternalSync* sync);

    // Tickets on a device without timeline semaphores (Vulkan 1.1 without VK_KHR_timeline_semaphore): one
    // fence per submission. A fence's signal covers everything submitted earlier on the queue, so the newest
    // signalled one gives the completed ticket. Shared with waiters, which wait outside mutex_: destroyed
    // only when neither the in-flight list nor a waiter holds it.
    struct Fence {
        VulkanDevice& device;
        VkFence fence = VK_NULL_HANDLE;
        ~Fence();
    };
    struct InFlight {
        uint64_t ticket;
        CommandSlot slot;
        bool kept;
        std::shared_ptr<Fence> fence;         // fence tickets only
        std::vector<CommandSlot> transfers{}; // ownership barriers around `slot` (ExternalSync::Transfer)
        bool gated = false;                   // waits on an engine's semaphore (ExternalSync::waits)
        std::unique_ptr<detail::BackendBuffer> staging{}; // a deferred upload's bytes, until it ran
    };
    // A one-time command buffer of queue-family ownership barriers (acquire: from each transfer's family to
    // ours; else release: ours to theirs); caller holds mutex_.
    Result<CommandSlot> ownershipCommands(const std::vector<detail::ExternalSync::Transfer>& transfers,
                                          bool acquire);
    // The newest completed ticket (timeline value or newest signalled fence); caller holds mutex_.
    Result<uint64_t> completedTicket();
    // Fence tickets: waits for `ticket` (fence_tickets.cpp); wait() for timeline ones.
    Status waitFence(uint64_t ticket, uint64_t timeoutNs);
    // Fence tickets: an unsignalled fence for the next submission, a retired one reset where one is free
    // (creating and destroying a fence a submission cost NVIDIA's driver about 250 us each way: bench/
    // NOTES.md, issue 58); caller holds mutex_.
    Result<std::shared_ptr<Fence>> takeFence();
    // Fence tickets: a retired submission's fence back to the free list, unless a waiter still holds it.
    void keepFence(std::shared_ptr<Fence> fence);
    // After a wait's driver call: Timeout, a lost device, or the completed submissions retired.
    Status finishWait(VkResult r, uint64_t ticket, uint64_t timeoutNs, const char* what);

    std::unique_ptr<Instance> instance_;
    AdapterInfo adapter_;
    VkPhysicalDevice physical_ = VK_NULL_HANDLE;
    VkDevice device_ = VK_NULL_HANDLE;
    VolkDeviceTable t_{};
    VkQueue queue_ = VK_NULL_HANDLE;
    uint32_t queueFamily_ = 0;
    bool hostQueryReset_ = false; // hostQueryReset enabled (1.2, or the 1.1 extension): vkResetQueryPool
    VkPhysicalDeviceMemoryProperties memory_{};
    VkSemaphore timeline_ = VK_NULL_HANDLE; // the tickets' timeline, unless fenceTickets_
    bool fenceTickets_ = false;             // no timeline semaphores: tickets are fences (InFlight::fence)
    uint64_t completed_ = 0;                // fence tickets: the newest known complete
    VkPipelineCache cache_ = VK_NULL_HANDLE;
    uint64_t nextTicket_ = 1;
    std::mutex mutex_; // guards the queue, the slot lists, tickets and pipelines_
    std::deque<InFlight> inFlight_;
    std::vector<CommandSlot> freeSlots_;
    std::vector<std::shared_ptr<Fence>> freeFences_;       // fence tickets: retired ones, reset when taken
    std::map<uint64_t, std::vector<uint64_t>> timestamps_; // completed tickets' times, until read
    std::map<std::string, Pipeline> pipelines_;
    std::atomic<bool> lost_{false}; // set from any thread that sees VK_ERROR_DEVICE_LOST
    bool ownsDevice_ = true;
    // Tests only: pipelines from each kernel's HLSL round trip (kernels/round_trip.hpp), or nullptr.
    const kernels::RoundTripTable* roundTrip_ = nullptr;
    std::vector<VkDescriptorPool> enginePools_;
    std::function<void()> lockQueue_, unlockQueue_;
    std::unique_ptr<MemoryAllocator> allocator_; // reset before the device is destroyed
    // Device::upload and download copy through one kept host-visible buffer, in pieces of its size.
    std::mutex stagingMutex_; // guards what follows
    std::unique_ptr<VulkanBuffer> staging_;
    // A second queue of queueFamily_ (DeviceOptions::transferQueue, VulkanDeviceDesc::transferQueue): its
    // copies wait for no submission on queue_ (one gated on an engine's semaphore included). One at a time.
    VkQueue transferQueue_ = VK_NULL_HANDLE;
    CommandSlot transferSlot_;
    VkFence transferFence_ = VK_NULL_HANDLE;
    bool transferPending_ = false; // transferFence_ not yet seen signalled
    uint64_t stagingTicket_ = 0;   // without transferQueue_: the ticket of staging_'s last copy on queue_
};

} // namespace ripple::vk
