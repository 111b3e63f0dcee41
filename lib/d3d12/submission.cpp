// SPDX-License-Identifier: MIT
// The D3D12 device's command lists and queue: list slots (allocator, list, descriptor heaps, timestamp
// queries) recycled once the fence passes them, kept lists for recordings, engines' lists wrapped, execution
// with the engine's fences, and the fence values that are ripple's tickets.
#include "d3d12/device.hpp"
#include "d3d12/support.hpp"

#include <chrono>
#include <cstring>
#include <thread>

namespace ripple::d3d12 {
namespace {
constexpr uint32_t kDescriptorsPerList = 8192;
} // namespace

Status D3D12Device::makeDescriptorHeaps(ListSlot& slot) {
    D3D12_DESCRIPTOR_HEAP_DESC heap{};
    heap.Type = D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV;
    heap.NumDescriptors = kDescriptorsPerList;
    heap.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE;
    HRESULT hr =
        device_->CreateDescriptorHeap(&heap, IID_ID3D12DescriptorHeap, reinterpret_cast<void**>(&slot.heap));
    if (FAILED(hr)) return failed(hr, "CreateDescriptorHeap");
    heap.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_NONE;
    hr = device_->CreateDescriptorHeap(&heap, IID_ID3D12DescriptorHeap,
                                       reinterpret_cast<void**>(&slot.cpuHeap));
    if (FAILED(hr)) return failed(hr, "CreateDescriptorHeap (CPU)");
    return {};
}

Result<std::unique_ptr<detail::BackendCommandList>>
D3D12Device::wrapCommands(ID3D12GraphicsCommandList* list) {
    ListSlot slot;
    slot.list = list;
    if (Status s = makeDescriptorHeaps(slot); !s) return s;
    list->SetDescriptorHeaps(1, &slot.heap);
    return std::unique_ptr<detail::BackendCommandList>(std::make_unique<D3D12CommandList>(*this, slot, true));
}

void D3D12Device::keepHeap(ID3D12DescriptorHeap* heap) {
    std::lock_guard<std::mutex> lock(mutex_);
    engineHeaps_.push_back(heap);
}

void D3D12Device::keepShadows(std::vector<std::shared_ptr<D3D12Buffer>> shadows) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& s : shadows) engineShadows_.push_back(std::move(s));
}

std::vector<uint64_t> D3D12Device::timestamps(uint64_t ticket) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = timestamps_.find(ticket);
    if (it == timestamps_.end()) return {};
    std::vector<uint64_t> t = std::move(it->second);
    timestamps_.erase(it);
    return t;
}

Result<std::unique_ptr<detail::BackendCommandList>> D3D12Device::beginCommands(uint32_t timestampSlots) {
    ListSlot slot;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
        if (Status s = retire(); !s) return s;
        if (!freeSlots_.empty()) slot = freeSlots_.back(), freeSlots_.pop_back();
    }
    HRESULT hr;
    if (!slot.allocator) {
        if (FAILED(hr = device_->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE,
                                                        IID_ID3D12CommandAllocator,
                                                        reinterpret_cast<void**>(&slot.allocator))))
            return failed(hr, "CreateCommandAllocator");
        if (FAILED(hr = device_->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, slot.allocator,
                                                   nullptr, IID_ID3D12GraphicsCommandList,
                                                   reinterpret_cast<void**>(&slot.list))))
            return failed(hr, "CreateCommandList");
        if (Status s = makeDescriptorHeaps(slot); !s) return s;
    } else {
        slot.allocator->Reset();
        slot.list->Reset(slot.allocator, nullptr);
        slot.shadows.clear(); // the GPU has finished with the slot's last list
        slot.shadowUsed = 0;
    }
    if (timestampSlots > slot.querySlots) { // a query heap, and a readback buffer to resolve it into
        release(slot.queries);
        release(slot.queryReadback);
        slot.querySlots = 0;
        D3D12_QUERY_HEAP_DESC q{};
        q.Type = D3D12_QUERY_HEAP_TYPE_TIMESTAMP;
        q.Count = timestampSlots;
        if (FAILED(hr = device_->CreateQueryHeap(&q, IID_ID3D12QueryHeap,
                                                 reinterpret_cast<void**>(&slot.queries))))
            return failed(hr, "CreateQueryHeap");
        D3D12_HEAP_PROPERTIES heap{};
        heap.Type = D3D12_HEAP_TYPE_READBACK;
        const D3D12_RESOURCE_DESC desc = bufferDesc(uint64_t(timestampSlots) * 8, D3D12_RESOURCE_FLAG_NONE);
        if (FAILED(hr = device_->CreateCommittedResource(
                       &heap, D3D12_HEAP_FLAG_NONE, &desc, D3D12_RESOURCE_STATE_COPY_DEST, nullptr,
                       IID_ID3D12Resource, reinterpret_cast<void**>(&slot.queryReadback))))
            return failed(hr, "CreateCommittedResource (timestamps)");
        slot.querySlots = timestampSlots;
    }
    slot.queriesUsed = 0;
    slot.list->SetDescriptorHeaps(1, &slot.heap);
    return std::unique_ptr<detail::BackendCommandList>(std::make_unique<D3D12CommandList>(*this, slot));
}

Status D3D12Device::close(std::unique_ptr<detail::BackendCommandList> commands, ListSlot& slot) {
    auto& list = static_cast<D3D12CommandList&>(*commands);
    list.finish();
    Status recorded = list.status;
    slot = list.release();
    commands.reset();
    if (slot.queriesUsed)
        slot.list->ResolveQueryData(slot.queries, D3D12_QUERY_TYPE_TIMESTAMP, 0, slot.queriesUsed,
                                    slot.queryReadback, 0);
    HRESULT hr = slot.list->Close();
    if (!recorded.ok() || FAILED(hr)) {
        std::lock_guard<std::mutex> lock(mutex_);
        freeSlots_.push_back(slot);
        return recorded.ok() ? failed(hr, "Close") : recorded;
    }
    return {};
}

Result<uint64_t> D3D12Device::submit(std::unique_ptr<detail::BackendCommandList> commands,
                                     const detail::ExternalSync* sync) {
    ListSlot slot;
    if (Status s = close(std::move(commands), slot); !s) return s;
    return execute(slot, sync);
}

namespace {
// A closed list kept for executing again; its slot returns to the device's free ones when it is destroyed
// (runtime/recording.cpp destroys it only once no execution of it is in flight).
class D3D12Recording : public detail::BackendRecording {
  public:
    D3D12Recording(D3D12Device& device, ListSlot slot) : device_(device), slot_(slot) {}
    ~D3D12Recording() override { device_.returnKept(slot_); }
    ListSlot& slot() { return slot_; }

  private:
    D3D12Device& device_;
    ListSlot slot_;
};
} // namespace

Result<std::unique_ptr<detail::BackendCommandList>> D3D12Device::beginRecording(uint32_t timestampSlots) {
    return beginCommands(timestampSlots);
}

Result<std::unique_ptr<detail::BackendRecording>>
D3D12Device::endRecording(std::unique_ptr<detail::BackendCommandList> commands) {
    ListSlot slot;
    if (Status s = close(std::move(commands), slot); !s) return s;
    slot.kept = true;
    return std::unique_ptr<detail::BackendRecording>(std::make_unique<D3D12Recording>(*this, slot));
}

Result<uint64_t> D3D12Device::submitRecording(detail::BackendRecording& recording,
                                              const detail::ExternalSync* sync) {
    return execute(static_cast<D3D12Recording&>(recording).slot(), sync);
}

ID3D12CommandSignature* D3D12Device::dispatchSignature() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!dispatchSignature_) {
        D3D12_INDIRECT_ARGUMENT_DESC argument{};
        argument.Type = D3D12_INDIRECT_ARGUMENT_TYPE_DISPATCH;
        D3D12_COMMAND_SIGNATURE_DESC desc{};
        desc.ByteStride = sizeof(D3D12_DISPATCH_ARGUMENTS);
        desc.NumArgumentDescs = 1;
        desc.pArgumentDescs = &argument;
        if (FAILED(device_->CreateCommandSignature(&desc, nullptr, IID_ID3D12CommandSignature,
                                                   reinterpret_cast<void**>(&dispatchSignature_))))
            dispatchSignature_ = nullptr;
    }
    return dispatchSignature_;
}

void D3D12Device::returnKept(ListSlot slot) {
    slot.kept = false;
    std::lock_guard<std::mutex> lock(mutex_);
    freeSlots_.push_back(slot);
}

Result<uint64_t> D3D12Device::execute(ListSlot& slot, const detail::ExternalSync* sync) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (lost_) {
        if (!slot.kept) freeSlots_.push_back(slot);
        return Status(StatusCode::DeviceLost, "the device was lost");
    }
    if (StatusCode f = takeFault(detail::FaultPoint::Submit); f != StatusCode::Ok) {
        if (!slot.kept) freeSlots_.push_back(slot);
        if (f == StatusCode::DeviceLost) loseInjected();
        return injected(f, "ExecuteCommandLists");
    }
    ID3D12CommandList* lists[] = {slot.list};
    auto fence = [](uint64_t handle) {
        return reinterpret_cast<ID3D12Fence*>(static_cast<uintptr_t>(handle));
    };
    HRESULT waited = S_OK, signalled = S_OK;
    if (lockQueue_) lockQueue_(); // an engine's queue: it may be submitting from other threads
    if (sync)
        for (const auto& w : sync->waits)
            if (SUCCEEDED(waited)) waited = queue_->Wait(fence(w.handle), w.value);
    if (SUCCEEDED(waited)) {
        queue_->ExecuteCommandLists(1, lists);
        if (sync)
            for (const auto& s : sync->signals)
                if (SUCCEEDED(signalled)) signalled = queue_->Signal(fence(s.handle), s.value);
    }
    if (unlockQueue_) unlockQueue_();
    if (FAILED(waited)) { // nothing was submitted
        if (!slot.kept) freeSlots_.push_back(slot);
        return failed(waited, "ID3D12CommandQueue::Wait (the engine's fences)");
    }
    if (FAILED(signalled)) lost_ = true; // the list runs, but the queue refused a signal: unusable now
    const uint64_t ticket = nextTicket_++;
    if (HRESULT hr = queue_->Signal(fence_, ticket); FAILED(hr)) return failed(hr, "Signal");
    lastSignalled_ = ticket;
    inFlight_.push_back({ticket, slot});
    if (FAILED(signalled)) return failed(signalled, "ID3D12CommandQueue::Signal (the engine's fences)");
    return ticket;
}

Status D3D12Device::retire() {
    const uint64_t done = fence_->GetCompletedValue();
    if (done == UINT64_MAX && device_->GetDeviceRemovedReason() != S_OK) {
        lost_ = true;
        return Status(StatusCode::DeviceLost, "the D3D12 device was removed");
    }
    // Complete only once retired: a ticket the fence passed after this read keeps its timestamps for the
    // next.
    retired_ = std::max(retired_, done);
    while (!abandoned_.empty() && abandoned_.front().first <= done) abandoned_.pop_front();
    while (!inFlight_.empty() && inFlight_.front().first <= done) {
        ListSlot& slot = inFlight_.front().second;
        if (slot.queriesUsed) {
            UINT64 frequency = 0;
            queue_->GetTimestampFrequency(&frequency);
            void* mapped = nullptr;
            D3D12_RANGE range{0, slot.queriesUsed * 8};
            if (frequency && SUCCEEDED(slot.queryReadback->Map(0, &range, &mapped))) {
                std::vector<uint64_t> ticks(slot.queriesUsed);
                std::memcpy(ticks.data(), mapped, ticks.size() * 8);
                D3D12_RANGE none{0, 0};
                slot.queryReadback->Unmap(0, &none);
                for (auto& t : ticks)
                    t = static_cast<uint64_t>(static_cast<double>(t) * 1e9 / static_cast<double>(frequency));
                timestamps_[inFlight_.front().first] = std::move(ticks);
                while (timestamps_.size() > 256) timestamps_.erase(timestamps_.begin());
            }
        }
        if (!slot.kept) freeSlots_.push_back(slot); // a recording keeps its own
        inFlight_.pop_front();
    }
    return {};
}

// vkd3d 1.2 (Debian 12's, under the d3d12-real tests) can leave a fence below a value the queue has passed:
// its fence worker sets the fence to each Vulkan fence's value as it finds that one signalled, so two found
// out of order leave the older value, and with nothing more submitted the fence stays there (a test waited
// for its last ticket until CI's limit, about once in 150 runs under load; issue 59). So a wait that sees
// no progress signals the last ticket again; that signal's completion sets the fence right. The pause
// doubles each time (10, 20, 40 ms...): a long GPU workload costs a Signal now and then at most.
void D3D12Device::resignalIfStalled(uint64_t done, Stall& stall) {
    const auto now = std::chrono::steady_clock::now();
    if (done != stall.seen) {
        stall = Stall{done, now, std::chrono::milliseconds(10)};
        return;
    }
    if (now - stall.since < stall.pause) return;
    if (lockQueue_) lockQueue_();
    (void)queue_->Signal(fence_, lastSignalled_.load()); // the same value again: D3D12 allows it
    if (unlockQueue_) unlockQueue_();
    stall.since = now;
    stall.pause *= 2;
}

Status D3D12Device::wait(uint64_t ticket, uint64_t timeoutNs) {
    if (StatusCode f = takeFault(detail::FaultPoint::Wait); f != StatusCode::Ok) {
        if (f == StatusCode::DeviceLost) loseInjected();
        return injected(f, "wait");
    }
    const auto start = std::chrono::steady_clock::now();
    Stall stall;
    for (;;) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
            if (Status s = retire(); !s) return s;
            if (retired_ >= ticket) return {};
            resignalIfStalled(retired_, stall);
        }
        const auto waited = std::chrono::steady_clock::now() - start;
        if (static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count()) >=
            timeoutNs)
            return Status(StatusCode::Timeout, "ticket " + std::to_string(ticket) +
                                                   " did not complete within " +
                                                   std::to_string(timeoutNs / 1000000) + " ms");
        std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
}

Result<bool> D3D12Device::isComplete(uint64_t ticket, bool poll) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    if (StatusCode f = poll ? takeFault(detail::FaultPoint::Wait) : StatusCode::Ok; f != StatusCode::Ok) {
        if (f == StatusCode::DeviceLost) loseInjected();
        return injected(f, "isComplete");
    }
    if (Status s = retire(); !s) return s;
    return retired_ >= ticket;
}

Result<bool> D3D12Device::signalsReached(const std::vector<detail::ExternalSync::Signal>& signals) {
    for (const auto& s : signals)
        if (reinterpret_cast<ID3D12Fence*>(static_cast<uintptr_t>(s.handle))->GetCompletedValue() < s.value)
            return false;
    return true;
}

Status D3D12Device::waitSignals(const std::vector<detail::ExternalSync::Signal>& signals,
                                uint64_t timeoutNs) {
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        auto reached = signalsReached(signals);
        if (!reached || reached.value()) return reached.status();
        const auto waited = std::chrono::steady_clock::now() - start;
        if (static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count()) >=
            timeoutNs)
            return Status(StatusCode::Timeout, "the engine's fences the submission signals did not reach "
                                               "their values within " +
                                                   std::to_string(timeoutNs / 1000000) + " ms");
        std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
}

void D3D12Device::drainFence() {
    const uint64_t last = lastSignalled_.load();
    while (fence_ && fence_->GetCompletedValue() < last)
        std::this_thread::sleep_for(std::chrono::microseconds(50));
}

void D3D12Device::loseInjected() {
    lost_ = true;
    drainFence();
}

void D3D12Device::recycle(ListSlot slot) {
    slot.list->Close();
    std::lock_guard<std::mutex> lock(mutex_);
    freeSlots_.push_back(slot);
}

} // namespace ripple::d3d12
