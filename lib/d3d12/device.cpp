// SPDX-License-Identifier: MIT
#define INITGUID // this translation unit defines the D3D12 interface IDs
#include "d3d12/device.hpp"

#include "d3d12/hlsl_compiler.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

namespace ripple::d3d12 {
namespace {

constexpr uint32_t kDescriptorsPerList = 8192;
std::atomic<bool> gUseEmbeddedBytecode{true};

// An injected fault (BackendDevice::injectFault) as the Status the device would report for it. (Unlike the
// Vulkan back-end's, an injected loss does not wait for the GPU to go idle: the D3D12 tests inject none.)
Status injected(StatusCode code, const char* what) {
    return Status(code, std::string("D3D12: ") + what +
                            (code == StatusCode::DeviceLost ? " failed: the device was removed (injected)"
                                                            : " failed: out of memory (injected)"));
}

Status failed(HRESULT hr, const char* what) {
    char code[16];
    std::snprintf(code, sizeof code, "0x%08x", static_cast<unsigned>(hr));
    StatusCode c = hr == E_OUTOFMEMORY ? StatusCode::OutOfMemory : StatusCode::Internal;
    return Status(c, std::string("D3D12: ") + what + " failed (HRESULT " + code + ")");
}

// A buffer resource of `size` bytes.
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

D3D12_RESOURCE_DESC bufferDesc(uint64_t size, D3D12_RESOURCE_FLAGS flags) {
    D3D12_RESOURCE_DESC desc{};
    desc.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
    desc.Width = size;
    desc.Height = 1;
    desc.DepthOrArraySize = 1;
    desc.MipLevels = 1;
    desc.Format = DXGI_FORMAT_UNKNOWN;
    desc.SampleDesc.Count = 1;
    desc.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
    desc.Flags = flags;
    return desc;
}

template <class T> void release(T*& p) {
    if (p) p->Release();
    p = nullptr;
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

D3D12Device::~D3D12Device() {
    if (fence_ && !inFlight_.empty()) (void)wait(inFlight_.back().first, UINT64_MAX);
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

Result<std::unique_ptr<detail::BackendBuffer>> D3D12Device::createBuffer(uint64_t size, bool hostVisible) {
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    if (StatusCode f = takeFault(detail::FaultPoint::Allocation); f != StatusCode::Ok) {
        if (f == StatusCode::DeviceLost) lost_ = true;
        return injected(f, "CreateCommittedResource");
    }
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

Status D3D12Device::upload(detail::BackendBuffer& buffer, uint64_t offset, const void* data, uint64_t size) {
    if (size == 0) return {};
    auto stage = staging(device_, size, true);
    if (!stage) return stage.status();
    std::memcpy(stage.value()->mapped, data, size);
    auto list = beginCommands(0);
    if (!list) return list.status();
    list.value()->copy({stage.value().get(), 0, size}, {&buffer, offset, size});
    auto ticket = submit(std::move(list.value()));
    if (!ticket) return ticket.status();
    return wait(ticket.value(), UINT64_MAX);
}

Status D3D12Device::download(detail::BackendBuffer& buffer, uint64_t offset, void* data, uint64_t size) {
    if (size == 0) return {};
    auto stage = staging(device_, size, false);
    if (!stage) return stage.status();
    auto list = beginCommands(0);
    if (!list) return list.status();
    list.value()->copy({&buffer, offset, size}, {stage.value().get(), 0, size});
    auto ticket = submit(std::move(list.value()));
    if (!ticket) return ticket.status();
    if (Status s = wait(ticket.value(), UINT64_MAX); !s) return s;
    std::memcpy(data, stage.value()->mapped, size);
    return {};
}

void D3D12Device::setLabel(detail::BackendBuffer& buffer, const std::string& label) {
    std::wstring wide(label.begin(), label.end());
    static_cast<D3D12Buffer&>(buffer).resource->SetName(wide.c_str());
}

void D3D12Device::setBytecodeForTesting(const std::string& kernel, std::vector<uint8_t> dxbc) {
    std::lock_guard<std::mutex> lock(mutex_);
    testBytecode_[kernel] = std::move(dxbc);
}

// Cache data: "RPLD3D12", version 1, the adapter's name, then (name, bytecode) pairs; lengths are uint32.
namespace {
constexpr char kCacheMagic[8] = {'R', 'P', 'L', 'D', '3', 'D', '1', '2'};
void put32(std::vector<uint8_t>& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void putBytes(std::vector<uint8_t>& out, const void* p, size_t n) {
    put32(out, static_cast<uint32_t>(n));
    out.insert(out.end(), static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n);
}
struct Reader {
    const std::vector<uint8_t>& d;
    size_t at = 0;
    bool ok = true;
    uint32_t u32() {
        if (at + 4 > d.size()) return ok = false, 0;
        uint32_t v = d[at] | (d[at + 1] << 8) | (d[at + 2] << 16) | (uint32_t(d[at + 3]) << 24);
        at += 4;
        return v;
    }
    std::vector<uint8_t> bytes() {
        uint32_t n = u32();
        if (!ok || at + n > d.size()) return ok = false, std::vector<uint8_t>{};
        std::vector<uint8_t> v(d.begin() + static_cast<long>(at), d.begin() + static_cast<long>(at + n));
        at += n;
        return v;
    }
};
} // namespace

Result<std::vector<uint8_t>> D3D12Device::pipelineCacheData() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<uint8_t> out(kCacheMagic, kCacheMagic + 8);
    put32(out, 1);
    putBytes(out, adapter_.name.data(), adapter_.name.size());
    put32(out, static_cast<uint32_t>(bytecodeCache_.size()));
    for (auto& [name, code] : bytecodeCache_) {
        putBytes(out, name.data(), name.size());
        putBytes(out, code.data(), code.size());
    }
    return out;
}

void D3D12Device::loadCache(const std::vector<uint8_t>& data) {
    if (data.empty()) return;
    Reader r{data};
    bool ok = data.size() >= 8 && std::memcmp(data.data(), kCacheMagic, 8) == 0;
    r.at = 8;
    ok = ok && r.u32() == 1;
    std::vector<uint8_t> name = ok ? r.bytes() : std::vector<uint8_t>{};
    ok = ok && r.ok && std::string(name.begin(), name.end()) == adapter_.name;
    std::map<std::string, std::vector<uint8_t>> entries;
    for (uint32_t i = 0, n = ok ? r.u32() : 0; ok && i < n; ++i) {
        std::vector<uint8_t> key = r.bytes(), code = r.bytes();
        ok = r.ok;
        if (ok) entries[std::string(key.begin(), key.end())] = std::move(code);
    }
    if (!ok) {
        log(LogLevel::Warning, "DeviceOptions::pipelineCacheData is not D3D12 bytecode for " + adapter_.name +
                                   " (another adapter, back-end, or a corrupt file): ignored");
        return;
    }
    bytecodeCache_ = std::move(entries);
}

void setEmbeddedBytecodeForTesting(bool use) {
    gUseEmbeddedBytecode = use;
}

// Where a pipeline's bytecode comes from: a test's, the build's embedded DXBC (ripple's own variants, where
// the build had an HLSL compiler), the loaded cache, or D3DCompile at run time (users' kernels; ripple's own
// only with DeviceOptions::compileHlslAtRunTime). *cacheable: whether pipelineCacheData() should keep it (all
// but the embedded bytecode, which every process has).
Result<std::vector<uint8_t>> D3D12Device::bytecode(const kernels::KernelInfo& kernel, bool* cacheable) {
    *cacheable = true;
    if (auto it = testBytecode_.find(kernel.name); it != testBytecode_.end()) return it->second;
    if (kernel.dxbc.words && useEmbedded_) {
        *cacheable = false;
        std::vector<uint32_t> words;
        if (!kernels::unpackSpirv(kernel.dxbc, words))
            return Status(StatusCode::Internal, std::string("D3D12: the bytecode built into ripple for ") +
                                                    kernel.name + " is damaged");
        std::vector<uint8_t> out(words.size() * 4);
        std::memcpy(out.data(), words.data(), out.size());
        return out;
    }
    if (auto it = bytecodeCache_.find(kernel.name); it != bytecodeCache_.end()) return it->second;
    if (!kernel.hlsl)
        return Status(StatusCode::Unsupported,
                      std::string("D3D12: kernel ") + kernel.name + " has no HLSL form");
    const bool own = &kernel >= kernels::kKernels && &kernel < kernels::kKernels + kernels::kKernelCount;
    if (own && !compileHlslAtRunTime_)
        return Status(StatusCode::Unsupported,
                      std::string("D3D12: this ripple was built without D3D12 bytecode for ") + kernel.name +
                          " (its build host had no HLSL compiler; docs/D3D12.md), and "
                          "DeviceOptions::compileHlslAtRunTime is off");
    return compileHlsl(kernel.hlsl, kernel.name);
}

Status D3D12Device::preparePipeline(const kernels::KernelInfo& kernel) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pipelines_.count(kernel.name)) return {};
    bool cacheable = false;
    auto code = bytecode(kernel, &cacheable);
    if (!code) return code.status();
    if (cacheable) bytecodeCache_[kernel.name] = code.value(); // saved by pipelineCacheData()
    // Root signature from the reflection: root constants at b0, then one root descriptor per binding (SRV
    // tN or UAV uN of a structured buffer, set by its GPU address). Root descriptors, not a descriptor table:
    // no view to write per dispatch, no heap to fill, and Wine 8.0's vkd3d (1.6) rejects every descriptor
    // table on a Vulkan device without VK_EXT_descriptor_indexing, such as Debian 12's lavapipe
    // (docs/D3D12.md). ripple's kernels bound every access themselves; they never rely on a view's bounds.
    Pipeline p;
    // HLSL declares constant buffers in 16-byte registers, so the shader's b0 covers the push constants
    // rounded up to 16 bytes; a root signature with fewer constants than that does not match it (vkd3d's
    // SPIR-V then declares a push-constant block larger than the layout's range).
    p.pushWords = kernel.pushConstantBytes / 4;
    p.constants = (p.pushWords + 3) / 4 * 4;
    D3D12_ROOT_PARAMETER params[1 + kernels::kMaxKernelBindings]{};
    uint32_t count = 0;
    if (p.constants) {
        params[count].ParameterType = D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS;
        params[count].Constants.ShaderRegister = 0;
        params[count].Constants.RegisterSpace = 0;
        params[count].Constants.Num32BitValues = p.constants;
        params[count++].ShaderVisibility = D3D12_SHADER_VISIBILITY_ALL;
    }
    p.firstBinding = count;
    for (uint32_t i = 0; i < kernel.bindingCount; ++i) {
        params[count].ParameterType =
            kernel.bindings[i].readOnly ? D3D12_ROOT_PARAMETER_TYPE_SRV : D3D12_ROOT_PARAMETER_TYPE_UAV;
        params[count].Descriptor.ShaderRegister = kernel.bindings[i].binding;
        params[count].Descriptor.RegisterSpace = 0;
        params[count++].ShaderVisibility = D3D12_SHADER_VISIBILITY_ALL;
    }
    D3D12_ROOT_SIGNATURE_DESC rs{};
    rs.NumParameters = count;
    rs.pParameters = params;
    ID3DBlob* blob = nullptr;
    ID3DBlob* errors = nullptr;
    HRESULT hr = D3D12SerializeRootSignature(&rs, D3D_ROOT_SIGNATURE_VERSION_1_0, &blob, &errors);
    if (errors) errors->Release();
    if (FAILED(hr)) return failed(hr, "D3D12SerializeRootSignature");
    hr = device_->CreateRootSignature(0, blob->GetBufferPointer(), blob->GetBufferSize(),
                                      IID_ID3D12RootSignature, reinterpret_cast<void**>(&p.root));
    blob->Release();
    if (FAILED(hr)) return failed(hr, "CreateRootSignature");
    D3D12_COMPUTE_PIPELINE_STATE_DESC pso{};
    pso.pRootSignature = p.root;
    pso.CS.pShaderBytecode = code.value().data();
    pso.CS.BytecodeLength = code.value().size();
    if (FAILED(hr = device_->CreateComputePipelineState(&pso, IID_ID3D12PipelineState,
                                                        reinterpret_cast<void**>(&p.state)))) {
        release(p.root);
        return failed(hr, (std::string("CreateComputePipelineState for ") + kernel.name).c_str());
    }
    pipelines_[kernel.name] = p;
    return {};
}

const Pipeline& D3D12Device::pipeline(const kernels::KernelInfo& kernel) {
    std::lock_guard<std::mutex> lock(mutex_);
    return pipelines_.at(kernel.name);
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
        if (f == StatusCode::DeviceLost) lost_ = true;
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

Status D3D12Device::wait(uint64_t ticket, uint64_t timeoutNs) {
    if (StatusCode f = takeFault(detail::FaultPoint::Wait); f != StatusCode::Ok) {
        if (f == StatusCode::DeviceLost) lost_ = true;
        return injected(f, "wait");
    }
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
            if (Status s = retire(); !s) return s;
            if (retired_ >= ticket) return {};
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

Result<bool> D3D12Device::isComplete(uint64_t ticket) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    if (StatusCode f = takeFault(detail::FaultPoint::Wait); f != StatusCode::Ok) { // a poll, as wait()
        if (f == StatusCode::DeviceLost) lost_ = true;
        return injected(f, "isComplete");
    }
    if (Status s = retire(); !s) return s;
    return retired_ >= ticket;
}

void D3D12Device::recycle(ListSlot slot) {
    slot.list->Close();
    std::lock_guard<std::mutex> lock(mutex_);
    freeSlots_.push_back(slot);
}

} // namespace ripple::d3d12

namespace ripple::detail {
Result<std::unique_ptr<BackendDevice>> createD3D12Device(const DeviceOptions& options) {
    auto d = d3d12::D3D12Device::create(options);
    if (!d) return d.status();
    return std::unique_ptr<BackendDevice>(std::move(d.value()));
}
} // namespace ripple::detail
