// SPDX-License-Identifier: MIT
// The interface between the runtime and a graphics API. Backends create buffers and pipelines from the
// kernel registry and record dispatches, fills and barriers; they know nothing of operators.
#pragma once

#include "kernels/kernel_info.hpp"
#include "ripple/device.hpp"

#include <atomic>
#include <memory>
#include <vector>

namespace ripple::detail {

class BackendBuffer {
  public:
    virtual ~BackendBuffer() = default;
    uint64_t size = 0;
    void* mapped = nullptr; // host-visible buffers only
};

struct BufferRange {
    BackendBuffer* buffer = nullptr;
    uint64_t offset = 0;
    uint64_t size = 0;
};

// One command buffer being recorded. Commands run in order only where barrier() separates them: the
// scheduler above decides where barriers go.
class BackendCommandList {
  public:
    virtual ~BackendCommandList() = default;
    // `push`: the kernel's pushConstantBytes / 4 words; `groups`: workgroups in x, y and z, or with
    // `indirect` three uint32 read there when the dispatch runs (written by an earlier command: the
    // dispatch makes those writes visible to its indirect read itself).
    virtual void dispatch(const kernels::KernelInfo& kernel, const std::vector<BufferRange>& bindings,
                          const uint32_t* push, const uint32_t groups[3],
                          const BufferRange* indirect = nullptr) = 0;
    virtual void fill(const BufferRange& range, uint32_t value) = 0;
    virtual void copy(const BufferRange& source, const BufferRange& destination) = 0; // same size
    virtual void barrier() = 0; // every earlier compute/transfer write before every later access
    virtual void beginLabel(const std::string& label) = 0; // debug-utils regions, when available
    virtual void endLabel() = 0;
    virtual void timestamp(uint32_t slot) = 0; // slot < the count given at creation
    virtual void hostReadBarrier() = 0;        // earlier writes visible to the host once the list completes
};

// A command list recorded once and submitted again and again (Device::execute's replays,
// runtime/replay.hpp). Destroyed only when none of its submissions is in flight.
class BackendRecording {
  public:
    virtual ~BackendRecording() = default;
};

// An engine's synchronisation objects that a submission waits on before it starts and signals when it
// completes (interop/vulkan.hpp's semaphores, interop/d3d12.hpp's fences), as the back-end's handles: a
// VkSemaphore or ID3D12Fence*, a timeline value (0 for a binary semaphore), Vulkan's wait stage mask.
struct ExternalSync {
    struct Wait {
        uint64_t handle = 0, value = 0, stages = 0;
    };
    struct Signal {
        uint64_t handle = 0, value = 0;
    };
    std::vector<Wait> waits;
    std::vector<Signal> signals;
    // Vulkan: queue-family ownership of buffers shared with a queue of another family, acquired before the
    // commands and released after them (whole buffers, [0, size)).
    struct Transfer {
        BackendBuffer* buffer = nullptr;
        uint32_t family = 0;
    };
    std::vector<Transfer> acquires, releases;
};

// Where a test may make the back-end fail (fault injection). Wait is the next wait or poll (isComplete):
// Device::wait polls before it blocks on a GPU, and there the work is often complete before the block.
enum class FaultPoint : uint32_t { Submit, Wait, Allocation };

class BackendDevice {
  public:
    virtual ~BackendDevice() = default;
    // Tests only (test/ops/test_faults.cpp): the next submit, wait or buffer allocation fails with `code`
    // (DeviceLost or OutOfMemory) as if the driver had returned it, and the back-end goes on as it would
    // after that driver result (lost for good, or usable after an out-of-memory).
    void injectFault(FaultPoint point, StatusCode code) { faults_[static_cast<uint32_t>(point)] = code; }
    virtual const AdapterInfo& adapter() const = 0;
    virtual uint32_t validationMessages() const = 0;
    virtual void log(LogLevel level, const std::string& message) const = 0;

    // hostVisible: mapped, coherent memory that kernels may also bind (status words, staging).
    virtual Result<std::unique_ptr<BackendBuffer>> createBuffer(uint64_t size, bool hostVisible = false) = 0;
    // Copies between the host and a buffer that no submission in flight uses (the runtime waited for
    // those), waiting for no other submission where the back-end can: Timeout once `timeoutNs` passes. An
    // upload may instead queue its copy without waiting: *queuedTicket is then the ticket it completes with
    // (the buffer is in use until then), else left alone; with queuedTicket null it always waits.
    virtual Status upload(BackendBuffer& buffer, uint64_t offset, const void* data, uint64_t size,
                          uint64_t timeoutNs, uint64_t* queuedTicket) = 0;
    virtual Status download(BackendBuffer& buffer, uint64_t offset, void* data, uint64_t size,
                            uint64_t timeoutNs) = 0;
    virtual Result<std::vector<uint8_t>> pipelineCacheData() = 0;
    // Driver memory allocations live now, and how many were ever made (tests: sub-allocation).
    struct MemoryCounts {
        uint64_t live = 0, made = 0;
        uint64_t freeRanges = 0; // free ranges inside shared blocks: the sub-allocator's fragmentation
    };
    virtual MemoryCounts memoryCounts() const { return {}; }
    virtual void setLabel(BackendBuffer& buffer, const std::string& label) = 0;
    // Creates the kernel's pipeline once; later calls return at once.
    virtual Status preparePipeline(const kernels::KernelInfo& kernel) = 0;

    // A command list ordered after everything submitted before it, with `timestampSlots` query slots.
    virtual Result<std::unique_ptr<BackendCommandList>> beginCommands(uint32_t timestampSlots) = 0;
    // Submits; returns the ticket (a timeline value) that completes with it. `sync`: the engine's objects
    // it waits on and signals besides.
    virtual Result<uint64_t> submit(std::unique_ptr<BackendCommandList> commands,
                                    const ExternalSync* sync = nullptr) = 0;
    // Kept recordings: begin one (ordered after everything submitted before each of its submissions; with
    // `timestampSlots` query slots, reset by each submission and read as a submitted list's are), end it,
    // submit it (never while an earlier submission of it is in flight). Unsupported where the back-end
    // cannot keep one (then the runtime records each time).
    virtual Result<std::unique_ptr<BackendCommandList>> beginRecording(uint32_t timestampSlots = 0) {
        (void)timestampSlots;
        return Status(StatusCode::Unsupported, "kept recordings");
    }
    virtual Result<std::unique_ptr<BackendRecording>> endRecording(std::unique_ptr<BackendCommandList>) {
        return Status(StatusCode::Unsupported, "kept recordings");
    }
    virtual Result<uint64_t> submitRecording(BackendRecording&, const ExternalSync* = nullptr) {
        return Status(StatusCode::Unsupported, "kept recordings");
    }
    // Waits until `ticket` completes or `timeoutNs` passes (Timeout); DeviceLost if the device was lost.
    virtual Status wait(uint64_t ticket, uint64_t timeoutNs) = 0;
    // `poll`: a caller's poll, where a test's injected Wait fault applies; false for the runtime's own
    // look at completed work (DeviceImpl::settle).
    virtual Result<bool> isComplete(uint64_t ticket, bool poll = true) = 0;
    // An engine's timeline semaphores or fences that a completed submission signalled (ExternalSync's
    // signals; a binary semaphore, value 0, cannot be read and is skipped): whether each reads as reached on
    // the host, and a wait until they do (Timeout). A queue's signals within one submission are unordered.
    virtual Result<bool> signalsReached(const std::vector<ExternalSync::Signal>& signals) = 0;
    virtual Status waitSignals(const std::vector<ExternalSync::Signal>& signals, uint64_t timeoutNs) = 0;
    // After `ticket` completed: its command list's timestamps in nanoseconds (empty if it had none).
    virtual std::vector<uint64_t> timestamps(uint64_t ticket) = 0;

  protected:
    // The fault injected at `point`, once (Ok when none).
    StatusCode takeFault(FaultPoint point) {
        return faults_[static_cast<uint32_t>(point)].exchange(StatusCode::Ok);
    }

  private:
    std::atomic<StatusCode> faults_[3] = {StatusCode::Ok, StatusCode::Ok, StatusCode::Ok};
};

Result<std::vector<AdapterInfo>> vulkanEnumerateAdapters();
// Built with RIPPLE_D3D12 only; otherwise Device::create reports D3D12 as Unsupported.
Result<std::unique_ptr<BackendDevice>> createD3D12Device(const DeviceOptions& options);
Result<std::unique_ptr<BackendDevice>> createVulkanDevice(const DeviceOptions& options);

} // namespace ripple::detail
