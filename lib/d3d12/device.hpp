// SPDX-License-Identifier: MIT
// The D3D12 backend: a device and compute queue, committed buffers, root signatures and pipeline states
// derived from each kernel's reflection (root constants at b0, then one root SRV or UAV per binding),
// command lists with explicit buffer state tracking, and a fence whose values are the tickets. Its methods
// live in device_setup.cpp, buffers.cpp, pipelines.cpp and submission.cpp; the lists in command_list.cpp.
#pragma once

#include "d3d12/d3d12_api.hpp"
#include "runtime/backend.hpp"

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

namespace ripple::d3d12 {

class D3D12Buffer : public detail::BackendBuffer {
  public:
    ~D3D12Buffer() override;
    ID3D12Resource* resource = nullptr;
    D3D12_HEAP_TYPE heap = D3D12_HEAP_TYPE_DEFAULT;
};

// Benchmarks only (bench/d3d12_first_use.cpp): false makes every device made afterwards ignore the build's
// bytecode, as a build without an HLSL compiler would, so that run-time compilation can be timed beside it.
void setEmbeddedBytecodeForTesting(bool use);

struct Pipeline {
    ID3D12RootSignature* root = nullptr;
    ID3D12PipelineState* state = nullptr;
    uint32_t constants = 0; // 32-bit root constants at b0: the push constants, rounded up to 16 bytes
    uint32_t pushWords = 0; // the push constants' 32-bit words: what a dispatch sets
    uint32_t firstBinding =
        0; // the root parameter of the kernel's first binding (root SRV/UAV), then in order
};

struct ListSlot {
    ID3D12CommandAllocator* allocator = nullptr;
    ID3D12GraphicsCommandList* list = nullptr;
    ID3D12DescriptorHeap* heap = nullptr;    // shader visible, kDescriptorsPerList
    ID3D12DescriptorHeap* cpuHeap = nullptr; // the same views, CPU side (ClearUnorderedAccessViewUint)
    ID3D12QueryHeap* queries = nullptr;      // timestamps
    ID3D12Resource* queryReadback = nullptr; // resolved timestamps, mapped at retire
    uint32_t querySlots = 0, queriesUsed = 0;
    // Copies of ranges that a dispatch reads through an SRV while writing the same buffer through a UAV
    // (D3D12CommandList::dispatch): the last is filled from shadowUsed on; all are freed when the slot is
    // reused, after the GPU has finished with them.
    std::vector<std::shared_ptr<D3D12Buffer>> shadows;
    uint64_t shadowUsed = 0;
    bool kept = false; // a recording's (Device::finishRecording): back to the free slots when it is destroyed
};

class D3D12Device : public detail::BackendDevice {
  public:
    ~D3D12Device() override;
    static Result<std::unique_ptr<D3D12Device>> create(const DeviceOptions& options);
    // An engine's device and queue (references added, released with this device).
    static Result<std::unique_ptr<D3D12Device>> adopt(ID3D12Device* device, ID3D12CommandQueue* queue,
                                                      std::function<void()> lockQueue,
                                                      std::function<void()> unlockQueue,
                                                      const DeviceOptions& options);
    std::unique_ptr<detail::BackendBuffer> wrapResource(ID3D12Resource* resource, uint64_t size);
    // Commands recorded into an engine's open command list, with a descriptor heap of ripple's own.
    Result<std::unique_ptr<detail::BackendCommandList>> wrapCommands(ID3D12GraphicsCommandList* list);
    void keepHeap(ID3D12DescriptorHeap* heap); // an engine list's heap, until teardown
    void keepShadows(std::vector<std::shared_ptr<D3D12Buffer>> shadows); // an engine list's, until teardown

    const AdapterInfo& adapter() const override { return adapter_; }
    uint32_t validationMessages() const override { return 0; }
    void log(LogLevel level, const std::string& message) const override;
    Result<std::unique_ptr<detail::BackendBuffer>> createBuffer(uint64_t size, bool hostVisible) override;
    // Through a staging buffer: on a second queue of ripple's own where ripple made the device (it waits
    // for no submission on queue_), else on queue_ behind everything submitted before (a submission waiting
    // on an engine's fence too). Timeout after `timeoutNs`, the copy still queued, its staging kept.
    Status upload(detail::BackendBuffer& buffer, uint64_t offset, const void* data, uint64_t size,
                  uint64_t timeoutNs, uint64_t* queuedTicket) override;
    Status download(detail::BackendBuffer& buffer, uint64_t offset, void* data, uint64_t size,
                    uint64_t timeoutNs) override;
    // The bytecode of every pipeline made, for DeviceOptions::pipelineCacheData next time (D3D12 has no
    // driver pipeline cache to share; the bytecode is what takes time to compile).
    Result<std::vector<uint8_t>> pipelineCacheData() override;
    void setLabel(detail::BackendBuffer& buffer, const std::string& label) override;
    Status preparePipeline(const kernels::KernelInfo& kernel) override;
    Result<std::unique_ptr<detail::BackendCommandList>> beginCommands(uint32_t timestampSlots) override;
    Result<uint64_t> submit(std::unique_ptr<detail::BackendCommandList> commands,
                            const detail::ExternalSync* sync = nullptr) override;
    // Kept recordings: a closed list executed again (D3D12 allows it once its last execution completed).
    Result<std::unique_ptr<detail::BackendCommandList>> beginRecording(uint32_t timestampSlots) override;
    Result<std::unique_ptr<detail::BackendRecording>>
    endRecording(std::unique_ptr<detail::BackendCommandList> commands) override;
    Result<uint64_t> submitRecording(detail::BackendRecording& recording,
                                     const detail::ExternalSync* sync = nullptr) override;
    void returnKept(ListSlot slot); // a destroyed recording's slot, none of its executions in flight
    Status wait(uint64_t ticket, uint64_t timeoutNs) override;
    Result<bool> isComplete(uint64_t ticket, bool poll = true) override;
    // The engine's fences are signalled before ripple's own, in queue order (execute()).
    Result<bool> signalsReached(const std::vector<detail::ExternalSync::Signal>& signals) override;
    Status waitSignals(const std::vector<detail::ExternalSync::Signal>& signals, uint64_t timeoutNs) override;
    std::vector<uint64_t> timestamps(uint64_t ticket) override;

    // Tests on Linux, where nothing compiles HLSL to DXBC: bytecode for a kernel, by name.
    void setBytecodeForTesting(const std::string& kernel, std::vector<uint8_t> dxbc);

    ID3D12Device* handle() const { return device_; }
    const Pipeline& pipeline(const kernels::KernelInfo& kernel);
    void recycle(ListSlot slot);
    // The command signature of one Dispatch's arguments (ExecuteIndirect), made once; null if that failed.
    ID3D12CommandSignature* dispatchSignature();

  private:
    Result<std::vector<uint8_t>> bytecode(const kernels::KernelInfo& kernel, bool* cacheable);
    Status retire(); // caller holds mutex_
    // Signals the last ticket again when the waiter's view of fence_ (`done`) has not moved for the stall's
    // pause (caller holds mutex_; `stall` is the waiter's: the value it saw, since when, the next pause).
    struct Stall {
        uint64_t seen = 0;
        std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now();
        std::chrono::milliseconds pause{10};
    };
    void resignalIfStalled(uint64_t done, Stall& stall);
    // Waits for the fence to pass every ticket signalled so far (a removed device's reads UINT64_MAX).
    void drainFence();
    // An injected DeviceLost (tests): lost from now on, after what was submitted has finished, as a lost GPU
    // runs nothing more; nothing ripple then frees is still in use (Vulkan waits for its device to be idle).
    void loseInjected();
    Status allocationFault(const char* what); // DeviceLost once lost, or an allocation's injected fault
    // Ends `commands` into its slot, closed (on failure the slot goes back to the free ones).
    Status close(std::unique_ptr<detail::BackendCommandList> commands, ListSlot& slot);
    // On the queue after `sync`'s waits, signalling its fences and then the next ticket.
    Result<uint64_t> execute(ListSlot& slot, const detail::ExternalSync* sync);

    AdapterInfo adapter_;
    LogCallback log_;
    bool compileHlslAtRunTime_ = false; // DeviceOptions::compileHlslAtRunTime
    bool useEmbedded_ = true;           // setEmbeddedBytecodeForTesting()
    ID3D12Device* device_ = nullptr;
    ID3D12CommandQueue* queue_ = nullptr;
    ID3D12Fence* fence_ = nullptr;
    uint64_t nextTicket_ = 1;
    std::atomic<uint64_t> lastSignalled_{0}; // the last ticket the queue was asked to signal
    uint64_t retired_ = 0; // the fence value retire() last handled: wait() and isComplete() answer from it
    std::mutex mutex_;
    std::map<std::string, Pipeline> pipelines_;
    std::map<std::string, std::vector<uint8_t>> testBytecode_;
    std::map<std::string, std::vector<uint8_t>> bytecodeCache_; // loaded from, and saved to, cache data
    void loadCache(const std::vector<uint8_t>& data);
    std::deque<std::pair<uint64_t, ListSlot>> inFlight_;
    // Staging of uploads and downloads that timed out, until their copy's ticket retires.
    std::deque<std::pair<uint64_t, std::unique_ptr<detail::BackendBuffer>>> abandoned_;
    // Submits a copy between staging and a buffer and waits; on Timeout, `stage` is kept until it ran.
    Status stagedCopy(std::unique_ptr<detail::BackendBuffer>& stage, const detail::BufferRange& source,
                      const detail::BufferRange& destination, uint64_t timeoutNs);
    // The same on transferQueue_; caller holds transferMutex_.
    Status transferCopy(std::unique_ptr<detail::BackendBuffer>& stage, const detail::BufferRange& source,
                        const detail::BufferRange& destination, uint64_t timeoutNs);
    // Uploads and downloads, one at a time (created devices only: an engine's device has its queue alone).
    std::mutex transferMutex_; // guards what follows
    ID3D12CommandQueue* transferQueue_ = nullptr;
    ID3D12CommandAllocator* transferAllocator_ = nullptr;
    ID3D12GraphicsCommandList* transferList_ = nullptr;
    ID3D12Fence* transferFence_ = nullptr;
    uint64_t transferValue_ = 0;                           // the last value signalled on transferFence_
    std::unique_ptr<detail::BackendBuffer> transferStage_; // a timed-out copy's staging, until it ran
    std::vector<ListSlot> freeSlots_;
    std::atomic<bool> lost_{false};
    std::function<void()> lockQueue_, unlockQueue_;
    std::map<uint64_t, std::vector<uint64_t>> timestamps_; // completed tickets' times (ns), until read
    Status makeDescriptorHeaps(ListSlot& slot);
    std::vector<ID3D12DescriptorHeap*> engineHeaps_;
    ID3D12CommandSignature* dispatchSignature_ = nullptr;
    std::vector<std::shared_ptr<D3D12Buffer>> engineShadows_;
};

class D3D12CommandList : public detail::BackendCommandList {
  public:
    D3D12CommandList(D3D12Device& device, ListSlot slot, bool external = false)
        : device_(device), slot_(slot), external_(external) {}
    ~D3D12CommandList() override;
    void dispatch(const kernels::KernelInfo& kernel, const std::vector<detail::BufferRange>& bindings,
                  const uint32_t* push, const uint32_t groups[3],
                  const detail::BufferRange* indirect = nullptr) override;
    void fill(const detail::BufferRange& range, uint32_t value) override;
    void copy(const detail::BufferRange& source, const detail::BufferRange& destination) override;
    void barrier() override;
    void beginLabel(const std::string&) override {}
    void endLabel() override {}
    void timestamp(uint32_t slot) override;
    void hostReadBarrier() override {} // a fence wait makes readback-heap writes visible
    // Every buffer back to COMMON, where the next command list finds it.
    void finish();
    ListSlot release() {
        ListSlot s = slot_;
        slot_ = {};
        return s;
    }
    Status status;

  private:
    void transition(D3D12Buffer* buffer, D3D12_RESOURCE_STATES state);
    // A copy of `range` in the slot's shadow buffer, to be read through an SRV.
    Result<detail::BufferRange> shadow(const detail::BufferRange& range);
    D3D12Device& device_;
    ListSlot slot_;
    bool external_ = false; // an engine's command list: never closed or submitted by ripple
    uint32_t descriptorsUsed_ = 0;
    std::map<D3D12Buffer*, D3D12_RESOURCE_STATES> states_; // this list's view; absent = COMMON
};

} // namespace ripple::d3d12
