// SPDX-License-Identifier: MIT
// The public Device, Buffer and Operator: validation and planning by core, kernels chosen for the device,
// commands run by the backend, GPU-found errors turned into a Status.
#include "core/planners.hpp"
#include "core/shape.hpp"
#include "kernels/round_trip.hpp"
#include "runtime/access.hpp"
#include "runtime/cache_blob.hpp"
#include "runtime/objects.hpp"
#include "runtime/replay.hpp"

#include <algorithm>
#include <atomic>

namespace ripple {

namespace {

template <class Desc>
Result<Operator> compileWith(const std::shared_ptr<detail::DeviceImpl>& dev, const Desc& desc,
                             Result<core::Plan> (*planner)(const Desc&, const core::PlanLimits&)) {
    if (!dev)
        return Status(StatusCode::InvalidArgument,
                      "compile: the Device is empty (moved from or never created)");
    dev->settle();
    core::PlanLimits limits;
    limits.maxStorageBufferRange = dev->backend->adapter().features.maxStorageBufferRange;
    limits.floatAtomicAdd = dev->backend->adapter().features.float32AtomicAdd &&
                            dev->options.kernels != KernelPreference::Portable && !dev->roundTrip;
    Result<core::Plan> plan = planner(desc, limits);
    if (!plan) return plan.status();
    auto impl = std::make_shared<detail::OperatorImpl>();
    impl->device = dev;
    impl->plan = std::move(plan.value());
    impl->replay = std::make_shared<detail::ReplayCache>();
    bool overLimit = false;
    auto choose = [&]() -> Status {
        impl->kernels.clear();
        for (const core::PlanDispatch& d : impl->plan.dispatches) {
            auto k = detail::chooseKernel(d, *dev, impl->plan.op, &overLimit);
            if (!k) return k.status();
            impl->kernels.push_back(k.value());
        }
        return {};
    };
    if (Status s = choose(); !s) {
        // A strategy with a kernel beyond the device's limits: planned again with the strategies that have
        // small-device variants (PlanLimits::smallKernels); where they fit, they run.
        if (s.code() != StatusCode::Unsupported || !overLimit) return s;
        limits.smallKernels = true;
        Result<core::Plan> tiles = planner(desc, limits);
        auto names = [](const core::Plan& p) { // a plan whose small forms may run counts as another
            std::vector<std::string> out;
            for (const core::PlanDispatch& d : p.dispatches)
                out.push_back(d.kernel + (d.smallForm ? "" : "*"));
            return out;
        };
        if (!tiles || names(tiles.value()) == names(impl->plan)) return s; // nothing else to try
        impl->plan = std::move(tiles.value());
        // Refused again: the small-device strategy's reason stands (a missing feature, which every strategy
        // needs, rather than the limit that only the first one exceeded).
        if (Status again = choose(); !again) return again;
    }
    for (const kernels::KernelInfo* k : impl->kernels)
        if (Status s = dev->backend->preparePipeline(*k); !s) return s;
    // A small-device variant reads params as a uniform buffer of exactly kUniformParamsBytes
    // (glsl/include/ripple/common.glsl): the buffer is that size, zero past the plan's words.
    bool uniformParams = false;
    for (const kernels::KernelInfo* k : impl->kernels)
        for (uint32_t b = 0; b < k->bindingCount; ++b)
            uniformParams = uniformParams || k->bindings[b].uniform;
    if (!impl->plan.params.empty() || uniformParams) {
        std::vector<uint32_t> words = impl->plan.params;
        if (uniformParams) {
            if (words.size() * 4 > kernels::kUniformParamsBytes)
                return Status(StatusCode::Unsupported,
                              std::string(impl->plan.op) + ": the plan's " +
                                  std::to_string(words.size() * 4) + " bytes of params exceed the " +
                                  std::to_string(kernels::kUniformParamsBytes) +
                                  "-byte uniform block of the small-device kernels that " +
                                  dev->backend->adapter().name + "'s limits need");
            words.resize(kernels::kUniformParamsBytes / 4, 0u);
        }
        auto params = dev->backend->createBuffer(words.size() * 4);
        if (!params) return params.status();
        impl->params = std::move(params.value());
        // Waited for (no queuedTicket): nothing would keep the Operator's params alive for a queued copy.
        if (Status s =
                dev->backend->upload(*impl->params, 0, words.data(), impl->params->size, UINT64_MAX, nullptr);
            !s)
            return s;
    }
    Operator op;
    detail::impl(op) = std::move(impl);
    return op;
}

bool overlaps(const TensorBinding& a, uint64_t aSize, const TensorBinding& b, uint64_t bSize) {
    return detail::impl(*a.Buffer) == detail::impl(*b.Buffer) && a.Offset < b.Offset + bSize &&
           b.Offset < a.Offset + aSize;
}

} // namespace

Buffer::Buffer(Buffer&&) noexcept = default;
Buffer& Buffer::operator=(Buffer&&) noexcept = default;
Buffer::~Buffer() = default;
uint64_t Buffer::size() const {
    return impl_ ? impl_->buffer->size : 0;
}

Operator::Operator(Operator&&) noexcept = default;
Operator& Operator::operator=(Operator&&) noexcept = default;
Operator::~Operator() = default;
std::vector<std::string> Operator::tensorNames() const {
    return impl_ ? impl_->plan.tensorNames : std::vector<std::string>{};
}

// Work in flight holds its buffers and operators, and they hold the DeviceImpl: without this, a Device
// released before its last wait would never be freed (a reference cycle). Waits for everything submitted
// (a lost device completes nothing, so it is not waited on again) and drops what the submissions hold.
// Work recorded into an engine's command buffers is released too: the engine must have completed it.
static void retire(std::shared_ptr<detail::DeviceImpl>& impl) {
    if (!impl) return;
    uint64_t last = 0;
    {
        std::lock_guard<std::mutex> lock(impl->mutex);
        last = impl->lastTicket;
    }
    // Readbacks land with their submissions; those that cannot are named in the log.
    const Status waited = last ? impl->backend->wait(last, UINT64_MAX) : Status();
    if (last && waited.ok()) impl->finish(last);
    std::map<uint64_t, detail::Submission> submissions, external; // destroyed after the lock is dropped
    {
        std::lock_guard<std::mutex> lock(impl->mutex);
        size_t lost = 0, engine = 0;
        for (auto& [t, s] : impl->submissions) lost += s.finished ? 0 : s.readbacks.size();
        for (auto& [id, s] : impl->external) engine += s.readbacks.size();
        if (lost)
            impl->backend->log(LogLevel::Warning,
                               "~Device: " + std::to_string(lost) +
                                   " readbacks dropped: their submissions never completed (" +
                                   waited.message() + ")");
        if (engine)
            impl->backend->log(
                LogLevel::Warning,
                "~Device: " + std::to_string(engine) +
                    " readbacks dropped: work recorded into an engine's command buffer was never "
                    "completed with interop::completeRecording");
        submissions.swap(impl->submissions);
        external.swap(impl->external);
        impl->unfinished.clear();
        impl->finishedCount = 0;
    }
    submissions.clear();
    external.clear();
    impl.reset();
}

Device::Device(Device&&) noexcept = default;
Device& Device::operator=(Device&& other) noexcept {
    if (this != &other) {
        retire(impl_);
        impl_ = std::move(detail::impl(other));
    }
    return *this;
}
Device::~Device() {
    retire(impl_);
}

const char* toString(Backend backend) {
    return backend == Backend::D3D12 ? "D3D12" : "Vulkan";
}
const char* toString(AdapterType type) {
    switch (type) {
    case AdapterType::Discrete:
        return "discrete";
    case AdapterType::Integrated:
        return "integrated";
    case AdapterType::Virtual:
        return "virtual";
    case AdapterType::Cpu:
        return "cpu";
    default:
        return "other";
    }
}

Result<std::vector<AdapterInfo>> enumerateAdapters(Backend backend) {
    if (backend != Backend::Vulkan && backend != Backend::D3D12)
        return Status(StatusCode::InvalidArgument, "enumerateAdapters: backend (" +
                                                       std::to_string(static_cast<uint32_t>(backend)) +
                                                       ") is not a Backend");
    if (backend == Backend::D3D12) {
#if defined(RIPPLE_HAS_D3D12)
        auto d = detail::createD3D12Device({});
        if (!d) return d.status();
        return std::vector<AdapterInfo>{d.value()->adapter()};
#else
        return Status(StatusCode::Unsupported, "enumerateAdapters: this ripple was built without D3D12");
#endif
    }
    return detail::vulkanEnumerateAdapters();
}

Buffer detail::makeBuffer(const std::shared_ptr<DeviceImpl>& device, std::unique_ptr<BackendBuffer> buffer) {
    Buffer b;
    detail::impl(b) = std::make_shared<BufferImpl>();
    detail::impl(b)->device = device;
    detail::impl(b)->buffer = std::move(buffer);
    static std::atomic<uint64_t> nextId{1};
    detail::impl(b)->id = nextId++;
    return b;
}

Device detail::makeDevice(std::unique_ptr<BackendDevice> backend, const DeviceOptions& options) {
    auto impl = std::make_shared<DeviceImpl>();
    impl->backend = std::move(backend);
    impl->options = options;
    // The cache data went to the back-end: a Device does not keep a copy for its life (a 64 MiB blob cost
    // 68 MiB of RSS), whether the data was taken or refused.
    std::vector<uint8_t>().swap(impl->options.pipelineCacheData);
    if (impl->backend->adapter().backend == Backend::Vulkan) impl->roundTrip = kernels::hlslRoundTrip();
    impl->bindingAlignment =
        std::max<uint64_t>(16, impl->backend->adapter().features.minStorageBufferOffsetAlignment);
    Device device;
    detail::impl(device) = std::move(impl);
    return device;
}

Result<Device> Device::create(const DeviceOptions& options) {
    if (options.backend != Backend::Vulkan && options.backend != Backend::D3D12)
        return Status(StatusCode::InvalidArgument,
                      "Device::create: DeviceOptions::backend (" +
                          std::to_string(static_cast<uint32_t>(options.backend)) + ") is not a Backend");
    if (options.adapterIndex < -1)
        return Status(StatusCode::InvalidArgument, "Device::create: DeviceOptions::adapterIndex (" +
                                                       std::to_string(options.adapterIndex) +
                                                       ") must be -1 (pick one) or an adapter index");
    if (options.maxDispatchWorkgroups == 0)
        return Status(StatusCode::InvalidArgument,
                      "Device::create: DeviceOptions::maxDispatchWorkgroups must be at least 1");
    if (options.kernels != KernelPreference::Auto && options.kernels != KernelPreference::Portable)
        return Status(StatusCode::InvalidArgument,
                      "Device::create: DeviceOptions::kernels is not a KernelPreference");
    // Only cache data that checks out reaches a driver (runtime/cache_blob.hpp).
    const DeviceOptions checked = detail::withCheckedCacheData(options, options.backend);
    if (options.backend == Backend::D3D12) {
#if defined(RIPPLE_HAS_D3D12)
        auto backend = detail::createD3D12Device(checked);
        if (!backend) return backend.status();
        return detail::makeDevice(std::move(backend.value()), options);
#else
        return Status(StatusCode::Unsupported,
                      "Device::create: this ripple was built without D3D12 (RIPPLE_D3D12)");
#endif
    }
    auto backend = detail::createVulkanDevice(checked);
    if (!backend) return backend.status();
    return detail::makeDevice(std::move(backend.value()), options);
}

const AdapterInfo& Device::adapter() const {
    static const AdapterInfo none; // an empty Device's: no name, no features
    return impl_ ? impl_->backend->adapter() : none;
}
uint64_t Device::bindingAlignment() const {
    return impl_ ? impl_->bindingAlignment : 16;
}
Result<std::vector<uint8_t>> Device::pipelineCacheData() const {
    if (!impl_) return Status(StatusCode::InvalidArgument, "pipelineCacheData: the Device is empty");
    auto data = impl_->backend->pipelineCacheData();
    if (!data) return data.status();
    return detail::wrapCacheData(data.value(), impl_->backend->adapter());
}
uint32_t Device::validationMessageCount() const {
    return impl_ ? impl_->backend->validationMessages() : 0;
}

Result<Buffer> Device::createBuffer(uint64_t sizeInBytes) {
    if (!impl_)
        return Status(StatusCode::InvalidArgument,
                      "createBuffer: the Device is empty (moved from or never created)");
    if (sizeInBytes == 0)
        return Status(StatusCode::InvalidArgument, "createBuffer: sizeInBytes must be greater than 0");
    impl_->settle();
    auto b = impl_->backend->createBuffer(sizeInBytes);
    if (!b) return b.status();
    return detail::makeBuffer(impl_, std::move(b.value()));
}

static Status checkTransfer(const char* what, const Buffer& buffer, uint64_t offset, uint64_t size,
                            const std::shared_ptr<detail::DeviceImpl>& device) {
    if (!buffer.valid() || detail::impl(buffer)->device != device)
        return Status(StatusCode::InvalidArgument,
                      std::string(what) + ": buffer is empty or belongs to another Device");
    if (offset > buffer.size() || size > buffer.size() - offset)
        return Status(StatusCode::InvalidArgument, std::string(what) + ": offset (" + std::to_string(offset) +
                                                       ") + size (" + std::to_string(size) +
                                                       ") exceeds the buffer (" +
                                                       std::to_string(buffer.size()) + " bytes)");
    return {};
}

Status Device::setLabel(const Buffer& buffer, const std::string& label) {
    if (!buffer.valid() || detail::impl(buffer)->device != impl_)
        return Status(StatusCode::InvalidArgument,
                      "setLabel: the Buffer is empty or belongs to another Device");
    impl_->backend->setLabel(*detail::impl(buffer)->buffer, label);
    return {};
}

// Waits only for the submissions that use the buffer (DeviceImpl::waitForBuffer), never for others.
Status Device::upload(Buffer& buffer, uint64_t offset, const void* data, uint64_t size, uint64_t timeoutNs) {
    if (Status s = checkTransfer("upload", buffer, offset, size, impl_); !s) return s;
    if (size > 0 && !data) return Status(StatusCode::InvalidArgument, "upload: data is null");
    impl_->settle();
    uint64_t left = 0;
    if (Status s = impl_->waitForBuffer("upload", *detail::impl(buffer), timeoutNs, &left); !s) return s;
    if (size == 0) return {};
    uint64_t queued = 0;
    Status s = impl_->backend->upload(*detail::impl(buffer)->buffer, offset, data, size, left, &queued);
    if (queued) { // a copy queued behind a gated submission: it holds the buffer, as a submission does
        detail::Submission copy;
        copy.keepAlive.push_back(detail::impl(buffer));
        impl_->track(queued, std::move(copy));
        detail::stampBuffer(*detail::impl(buffer), queued); // later transfers wait for the copy
    }
    return s;
}

Status Device::download(const Buffer& buffer, uint64_t offset, void* data, uint64_t size,
                        uint64_t timeoutNs) {
    if (Status s = checkTransfer("download", buffer, offset, size, impl_); !s) return s;
    if (size > 0 && !data) return Status(StatusCode::InvalidArgument, "download: data is null");
    impl_->settle();
    uint64_t left = 0;
    if (Status s = impl_->waitForBuffer("download", *detail::impl(buffer), timeoutNs, &left); !s) return s;
    if (size == 0) return {};
    return impl_->backend->download(*detail::impl(buffer)->buffer, offset, data, size, left);
}

uint64_t Device::refusedDispatchCount() const {
    return impl_ ? impl_->refusedDispatches.load() : 0;
}

Result<Operator> Device::compile(const ScatterNDDesc& desc) {
    return compileWith(impl_, desc, &core::planScatterND);
}
Result<Operator> Device::compile(const ScatterElementsDesc& desc) {
    return compileWith(impl_, desc, &core::planScatterElements);
}
Result<Operator> Device::compile(const TopKDesc& desc) {
    return compileWith(impl_, desc, &core::planTopK);
}

namespace detail {

Result<std::vector<uint64_t>> checkBindings(const DeviceImpl& device, const core::Plan& plan,
                                            const std::vector<TensorBinding>& bindings) {
    const char* name = plan.op;
    if (bindings.size() != plan.tensors.size()) {
        std::string names;
        for (auto& n : plan.tensorNames) names += (names.empty() ? "" : ", ") + n;
        return core::invalid(name, std::to_string(bindings.size()) + " tensor bindings given; " +
                                       std::to_string(plan.tensors.size()) + " are needed (" + names + ")");
    }
    std::vector<uint64_t> sizes(bindings.size());
    for (size_t i = 0; i < bindings.size(); ++i) {
        sizes[i] = calcBufferTensorSize(plan.tensors[i]);
        const TensorBinding& b = bindings[i];
        const std::string& t = plan.tensorNames[i];
        if (sizes[i] == 0) continue; // an empty tensor needs no memory
        if (!b.Buffer || !b.Buffer->valid() || detail::impl(*b.Buffer)->device.get() != &device)
            return core::invalid(name, t + " binding has no Buffer, or one from another Device");
        if (b.Offset % device.bindingAlignment)
            return core::invalid(name, t + " binding Offset (" + std::to_string(b.Offset) +
                                           ") must be a multiple of Device::bindingAlignment() (" +
                                           std::to_string(device.bindingAlignment) + ")");
        if (b.Offset > b.Buffer->size() || sizes[i] > b.Buffer->size() - b.Offset)
            return core::invalid(name, t + " binding (offset " + std::to_string(b.Offset) + " + " +
                                           std::to_string(sizes[i]) + " bytes) exceeds its Buffer (" +
                                           std::to_string(b.Buffer->size()) + " bytes)");
    }
    for (size_t w = plan.firstOutput; w < std::min<size_t>(plan.outputsEnd, bindings.size()); ++w)
        for (size_t i = 0; i < bindings.size(); ++i) {
            if (i == w || !sizes[w] || !sizes[i] || !overlaps(bindings[w], sizes[w], bindings[i], sizes[i]))
                continue;
            if (w == plan.firstOutput && static_cast<int32_t>(i) == plan.inPlaceInput &&
                bindings[w].Offset == bindings[i].Offset)
                continue; // in place: the same range
            std::string hint;
            if (w == plan.firstOutput && static_cast<int32_t>(i) == plan.inPlaceInput)
                hint = " (to run in place, bind it to exactly " + plan.tensorNames[i] + "'s range)";
            else if (w == plan.firstOutput && plan.notInPlaceBecause)
                hint = std::string(" (") + plan.notInPlaceBecause + ")";
            return core::invalid(name, plan.tensorNames[w] + " overlaps " + plan.tensorNames[i] +
                                           "; outputs may not alias other tensors" + hint);
        }
    return sizes;
}

} // namespace detail

Status Device::execute(const Operator& op, const std::vector<TensorBinding>& bindings) {
    if (impl_) impl_->settle();
    bool replayed = false;
    Status s = detail::executeReplay(*this, op, bindings, replayed);
    if (replayed) return s;
    auto recorder = createRecorder();
    if (!recorder) return recorder.status();
    if (Status s = recorder->record(op, bindings); !s) return s;
    auto ticket = submit(recorder.value());
    if (!ticket) return ticket.status();
    return wait(ticket.value());
}

} // namespace ripple
