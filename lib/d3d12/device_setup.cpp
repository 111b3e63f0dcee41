// SPDX-License-Identifier: MIT
// The D3D12 device's life: creation on an adapter (or vkd3d), adoption of an engine's device and queue, the
// limits it offers ripple, and destruction. Buffers: buffers.cpp; pipelines and their cache: pipelines.cpp;
// command lists, submission and tickets: submission.cpp.
#define INITGUID // this translation unit defines the D3D12 interface IDs
#include "d3d12/device.hpp"
#include "d3d12/support.hpp"

#include <chrono>
#include <cstdio>
#include <thread>

namespace ripple::d3d12 {
namespace {

std::atomic<bool> gUseEmbeddedBytecode{true};

// What every D3D12 device offers ripple: the portable kernels, and shader model 5.1's compute limits.
void setPortableFeatures(AdapterFeatures& f) {
    f.maxStorageBufferRange = 1ull << 29; // raw views address up to 2^27 32-bit elements
    f.minStorageBufferOffsetAlignment = 16;
    f.timelineSemaphore = true; // tickets are fence values
    f.timestamps = true;
    // D3D12_CS_TGSM_REGISTER_COUNT words, D3D12_CS_THREAD_GROUP_MAX_THREADS_PER_GROUP and _MAX_X/Y/Z (not
    // in every d3d12.h, e.g. vkd3d's).
    f.maxComputeSharedMemorySize = 8192 * 4;
    f.maxComputeWorkGroupInvocations = 1024;
    f.maxComputeWorkGroupSize[0] = 1024;
    f.maxComputeWorkGroupSize[1] = 1024;
    f.maxComputeWorkGroupSize[2] = 64;
    f.maxPerStageDescriptorStorageBuffers = 8; // UAVs at resource binding tier 1, feature level 11.0
}

} // namespace

D3D12Buffer::~D3D12Buffer() {
    if (mapped && resource) resource->Unmap(0, nullptr);
    release(resource);
}

void D3D12Device::log(LogLevel level, const std::string& message) const {
    if (log_) return log_(level, message);
    if (level >= LogLevel::Warning) std::fprintf(stderr, "ripple d3d12: %s\n", message.c_str());
}

Result<std::unique_ptr<D3D12Device>> D3D12Device::create(const DeviceOptions& options) {
    auto dev = std::unique_ptr<D3D12Device>(new D3D12Device());
    dev->log_ = options.log;
    dev->compileHlslAtRunTime_ = options.compileHlslAtRunTime;
    dev->useEmbedded_ = gUseEmbeddedBytecode;
    IUnknown* adapter = nullptr;
    dev->adapter_.backend = Backend::D3D12;
#if RIPPLE_D3D12_WINDOWS
    IDXGIFactory1* factory = nullptr;
    if (FAILED(CreateDXGIFactory1(IID_IDXGIFactory1, reinterpret_cast<void**>(&factory))))
        return Status(StatusCode::NoDevice, "D3D12: CreateDXGIFactory1 failed");
    IDXGIAdapter1* chosen = nullptr;
    const UINT wanted = options.adapterIndex < 0 ? 0 : static_cast<UINT>(options.adapterIndex);
    if (factory->EnumAdapters1(wanted, &chosen) != S_OK) {
        factory->Release();
        return Status(StatusCode::NoDevice,
                      "D3D12: adapter index " + std::to_string(wanted) + " does not exist");
    }
    DXGI_ADAPTER_DESC1 desc;
    chosen->GetDesc1(&desc);
    char name[256];
    std::snprintf(name, sizeof name, "%ls", desc.Description);
    dev->adapter_.name = name;
    dev->adapter_.index = wanted;
    dev->adapter_.type = (desc.Flags & DXGI_ADAPTER_FLAG_SOFTWARE) ? AdapterType::Cpu : AdapterType::Discrete;
    adapter = chosen;
    factory->Release();
#else
    dev->adapter_.name = "vkd3d (D3D12 on Vulkan)";
    dev->adapter_.type = AdapterType::Other;
#endif
    HRESULT hr = D3D12CreateDevice(adapter, D3D_FEATURE_LEVEL_11_0, IID_ID3D12Device,
                                   reinterpret_cast<void**>(&dev->device_));
    if (adapter) adapter->Release();
    if (FAILED(hr)) return Status(StatusCode::NoDevice, "D3D12: D3D12CreateDevice failed; no D3D12 device");
    D3D12_COMMAND_QUEUE_DESC q{};
    q.Type = D3D12_COMMAND_LIST_TYPE_COMPUTE;
    if (FAILED(hr = dev->device_->CreateCommandQueue(&q, IID_ID3D12CommandQueue,
                                                     reinterpret_cast<void**>(&dev->queue_))))
        return failed(hr, "CreateCommandQueue");
    if (FAILED(hr = dev->device_->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_ID3D12Fence,
                                              reinterpret_cast<void**>(&dev->fence_))))
        return failed(hr, "CreateFence");
    // A second queue for uploads and downloads (buffers.cpp), with its fence and one command list.
    if (FAILED(hr = dev->device_->CreateCommandQueue(&q, IID_ID3D12CommandQueue,
                                                     reinterpret_cast<void**>(&dev->transferQueue_))) ||
        FAILED(hr = dev->device_->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_ID3D12Fence,
                                              reinterpret_cast<void**>(&dev->transferFence_))) ||
        FAILED(hr = dev->device_->CreateCommandAllocator(
                   D3D12_COMMAND_LIST_TYPE_COMPUTE, IID_ID3D12CommandAllocator,
                   reinterpret_cast<void**>(&dev->transferAllocator_))) ||
        FAILED(hr = dev->device_->CreateCommandList(
                   0, D3D12_COMMAND_LIST_TYPE_COMPUTE, dev->transferAllocator_, nullptr,
                   IID_ID3D12GraphicsCommandList, reinterpret_cast<void**>(&dev->transferList_))) ||
        FAILED(hr = dev->transferList_->Close()))
        return failed(hr, "the transfer queue");
    // The D3D12 path runs the portable kernels (shader model 5.1): no optional feature is claimed.
    setPortableFeatures(dev->adapter_.features);
    dev->loadCache(options.pipelineCacheData);
    return dev;
}

Result<std::unique_ptr<D3D12Device>> D3D12Device::adopt(ID3D12Device* device, ID3D12CommandQueue* queue,
                                                        std::function<void()> lockQueue,
                                                        std::function<void()> unlockQueue,
                                                        const DeviceOptions& options) {
    if (!device || !queue)
        return Status(StatusCode::InvalidArgument, "adoptD3D12Device: device and queue must both be set");
    auto dev = std::unique_ptr<D3D12Device>(new D3D12Device());
    dev->log_ = options.log;
    dev->compileHlslAtRunTime_ = options.compileHlslAtRunTime;
    dev->adapter_.backend = Backend::D3D12;
    dev->adapter_.name = "the engine's D3D12 device";
    dev->adapter_.type = AdapterType::Other;
    setPortableFeatures(dev->adapter_.features);
    device->AddRef();
    queue->AddRef();
    dev->device_ = device;
    dev->queue_ = queue;
    dev->lockQueue_ = std::move(lockQueue);
    dev->unlockQueue_ = std::move(unlockQueue);
    HRESULT hr = device->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_ID3D12Fence,
                                     reinterpret_cast<void**>(&dev->fence_));
    if (FAILED(hr)) return failed(hr, "CreateFence");
    dev->loadCache(options.pipelineCacheData);
    return dev;
}

std::unique_ptr<detail::BackendBuffer> D3D12Device::wrapResource(ID3D12Resource* resource, uint64_t size) {
    auto b = std::make_unique<D3D12Buffer>();
    resource->AddRef();
    b->resource = resource;
    b->size = size;
    D3D12_HEAP_PROPERTIES props{};
    D3D12_HEAP_FLAGS flags{};
    if (SUCCEEDED(resource->GetHeapProperties(&props, &flags))) b->heap = props.Type;
    return b;
}

D3D12Device::~D3D12Device() {
    if (fence_ && !inFlight_.empty()) (void)wait(inFlight_.back().first, UINT64_MAX);
    drainFence(); // also when lost: wait() then answers at once, and an injected loss leaves work running
    while (transferFence_ && transferFence_->GetCompletedValue() < transferValue_)
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    transferStage_.reset();
    release(transferList_);
    release(transferAllocator_);
    release(transferFence_);
    release(transferQueue_);
    for (auto& [t, slot] : inFlight_)
        if (!slot.kept) freeSlots_.push_back(slot); // a recording's comes back through returnKept
    for (ListSlot& s : freeSlots_) {
        release(s.list);
        release(s.allocator);
        release(s.heap);
        release(s.cpuHeap);
        release(s.queries);
        release(s.queryReadback);
    }
    for (ID3D12DescriptorHeap*& h : engineHeaps_) release(h);
    release(dispatchSignature_);
    for (auto& [name, p] : pipelines_) {
        release(p.state);
        release(p.root);
    }
    release(fence_);
    release(queue_);
    release(device_);
}

void setEmbeddedBytecodeForTesting(bool use) {
    gUseEmbeddedBytecode = use;
}

} // namespace ripple::d3d12

namespace ripple::detail {
Result<std::unique_ptr<BackendDevice>> createD3D12Device(const DeviceOptions& options) {
    auto d = d3d12::D3D12Device::create(options);
    if (!d) return d.status();
    return std::unique_ptr<BackendDevice>(std::move(d.value()));
}
} // namespace ripple::detail
