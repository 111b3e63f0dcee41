// SPDX-License-Identifier: MIT
// The D3D12 device's buffers: committed resources (default heap, or a mapped write-back custom heap for
// host-visible ones), and uploads and downloads through mapped staging buffers, on a queue of their own
// where ripple made the device.
#include "d3d12/device.hpp"
#include "d3d12/support.hpp"

#include <chrono>
#include <cstring>
#include <thread>

namespace ripple::d3d12 {

// Every allocation, a staging buffer's too, is where a test may make it fail (as the Vulkan back-end's).
Status D3D12Device::allocationFault(const char* what) {
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    if (StatusCode f = takeFault(detail::FaultPoint::Allocation); f != StatusCode::Ok) {
        if (f == StatusCode::DeviceLost) loseInjected();
        return injected(f, what);
    }
    return {};
}

Result<std::unique_ptr<detail::BackendBuffer>> D3D12Device::createBuffer(uint64_t size, bool hostVisible) {
    if (Status s = allocationFault("CreateCommittedResource"); !s) return s;
    auto b = std::make_unique<D3D12Buffer>();
    b->size = size;
    D3D12_HEAP_PROPERTIES heap{};
    if (hostVisible) { // mapped, and usable as a UAV (status words): a custom write-back heap
        heap.Type = D3D12_HEAP_TYPE_CUSTOM;
        heap.CPUPageProperty = D3D12_CPU_PAGE_PROPERTY_WRITE_BACK;
        heap.MemoryPoolPreference = D3D12_MEMORY_POOL_L0;
        b->heap = D3D12_HEAP_TYPE_CUSTOM;
    } else {
        heap.Type = D3D12_HEAP_TYPE_DEFAULT;
    }
    const D3D12_RESOURCE_DESC desc = bufferDesc(size, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS);
    HRESULT hr =
        device_->CreateCommittedResource(&heap, D3D12_HEAP_FLAG_NONE, &desc, D3D12_RESOURCE_STATE_COMMON,
                                         nullptr, IID_ID3D12Resource, reinterpret_cast<void**>(&b->resource));
    if (FAILED(hr)) return failed(hr, "CreateCommittedResource");
    if (hostVisible && FAILED(hr = b->resource->Map(0, nullptr, &b->mapped))) return failed(hr, "Map");
    return std::unique_ptr<detail::BackendBuffer>(std::move(b));
}

namespace {
// A staging buffer in an UPLOAD (GENERIC_READ) or READBACK (COPY_DEST) heap, mapped.
Result<std::unique_ptr<D3D12Buffer>> staging(ID3D12Device* device, uint64_t size, bool upload) {
    auto b = std::make_unique<D3D12Buffer>();
    b->size = size;
    b->heap = upload ? D3D12_HEAP_TYPE_UPLOAD : D3D12_HEAP_TYPE_READBACK;
    D3D12_HEAP_PROPERTIES heap{};
    heap.Type = b->heap;
    const D3D12_RESOURCE_DESC desc = bufferDesc(size, D3D12_RESOURCE_FLAG_NONE);
    HRESULT hr = device->CreateCommittedResource(
        &heap, D3D12_HEAP_FLAG_NONE, &desc,
        upload ? D3D12_RESOURCE_STATE_GENERIC_READ : D3D12_RESOURCE_STATE_COPY_DEST, nullptr,
        IID_ID3D12Resource, reinterpret_cast<void**>(&b->resource));
    if (FAILED(hr)) return failed(hr, "CreateCommittedResource (staging)");
    if (FAILED(hr = b->resource->Map(0, nullptr, &b->mapped))) return failed(hr, "Map (staging)");
    return b;
}
} // namespace

Status D3D12Device::transferCopy(std::unique_ptr<detail::BackendBuffer>& stage,
                                 const detail::BufferRange& source, const detail::BufferRange& destination,
                                 uint64_t timeoutNs) {
    const auto start = std::chrono::steady_clock::now();
    auto waitFor = [&](uint64_t value) { // polls, as wait() does
        while (transferFence_->GetCompletedValue() < value) {
            const auto spent = std::chrono::steady_clock::now() - start;
            if (static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(spent).count()) >=
                timeoutNs)
                return false;
            std::this_thread::sleep_for(std::chrono::microseconds(20));
        }
        return true;
    };
    if (!waitFor(transferValue_))
        return Status(StatusCode::Timeout, "the previous upload or download is still copying");
    transferStage_.reset();
    if (StatusCode f = takeFault(detail::FaultPoint::Submit); f != StatusCode::Ok) {
        if (f == StatusCode::DeviceLost) loseInjected();
        return injected(f, "ExecuteCommandLists (transfer)");
    }
    HRESULT hr = transferAllocator_->Reset();
    if (SUCCEEDED(hr)) hr = transferList_->Reset(transferAllocator_, nullptr);
    if (FAILED(hr)) return failed(hr, "Reset (transfer list)");
    // No barriers: a buffer in COMMON (where ripple's lists leave them) is promoted to a copy state on first
    // use and decays back once the list completes; staging stays in its heap's state.
    transferList_->CopyBufferRegion(static_cast<D3D12Buffer*>(destination.buffer)->resource,
                                    destination.offset, static_cast<D3D12Buffer*>(source.buffer)->resource,
                                    source.offset, source.size);
    if (FAILED(hr = transferList_->Close())) return failed(hr, "Close (transfer list)");
    ID3D12CommandList* lists[] = {transferList_};
    transferQueue_->ExecuteCommandLists(1, lists);
    if (FAILED(hr = transferQueue_->Signal(transferFence_, ++transferValue_))) return failed(hr, "Signal");
    if (!waitFor(transferValue_)) {
        transferStage_ = std::move(stage);
        return Status(StatusCode::Timeout, "the copy did not finish within " +
                                               std::to_string(timeoutNs / 1000000) + " ms; it goes on");
    }
    if (transferFence_->GetCompletedValue() == UINT64_MAX && device_->GetDeviceRemovedReason() != S_OK) {
        lost_ = true;
        return Status(StatusCode::DeviceLost, "the D3D12 device was removed");
    }
    return {};
}

Status D3D12Device::stagedCopy(std::unique_ptr<detail::BackendBuffer>& stage,
                               const detail::BufferRange& source, const detail::BufferRange& destination,
                               uint64_t timeoutNs) {
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    if (transferQueue_) {
        std::lock_guard<std::mutex> lock(transferMutex_);
        return transferCopy(stage, source, destination, timeoutNs);
    }
    auto list = beginCommands(0);
    if (!list) return list.status();
    list.value()->copy(source, destination);
    auto ticket = submit(std::move(list.value()));
    if (!ticket) return ticket.status();
    Status s = wait(ticket.value(), timeoutNs);
    if (s.code() == StatusCode::Timeout) {
        std::lock_guard<std::mutex> lock(mutex_);
        abandoned_.emplace_back(ticket.value(), std::move(stage));
        return Status(StatusCode::Timeout,
                      "the copy is queued behind earlier submissions that have not completed (one waiting on "
                      "an engine's fence completes only once it is signalled); it runs after them");
    }
    return s;
}

Status D3D12Device::upload(detail::BackendBuffer& buffer, uint64_t offset, const void* data, uint64_t size,
                           uint64_t timeoutNs, uint64_t*) {
    if (size == 0) return {};
    if (Status s = allocationFault("CreateCommittedResource (staging)"); !s) return s;
    auto made = staging(device_, size, true);
    if (!made) return made.status();
    std::memcpy(made.value()->mapped, data, size);
    std::unique_ptr<detail::BackendBuffer> stage = std::move(made.value());
    detail::BackendBuffer* from = stage.get();
    return stagedCopy(stage, {from, 0, size}, {&buffer, offset, size}, timeoutNs);
}

Status D3D12Device::download(detail::BackendBuffer& buffer, uint64_t offset, void* data, uint64_t size,
                             uint64_t timeoutNs) {
    if (size == 0) return {};
    if (Status s = allocationFault("CreateCommittedResource (staging)"); !s) return s;
    auto made = staging(device_, size, false);
    if (!made) return made.status();
    std::unique_ptr<detail::BackendBuffer> stage = std::move(made.value());
    detail::BackendBuffer* to = stage.get();
    if (Status s = stagedCopy(stage, {&buffer, offset, size}, {to, 0, size}, timeoutNs); !s) return s;
    std::memcpy(data, to->mapped, size);
    return {};
}

void D3D12Device::setLabel(detail::BackendBuffer& buffer, const std::string& label) {
    std::wstring wide(label.begin(), label.end());
    static_cast<D3D12Buffer&>(buffer).resource->SetName(wide.c_str());
}

} // namespace ripple::d3d12
