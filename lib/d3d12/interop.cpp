// SPDX-License-Identifier: MIT
// include/ripple/interop/d3d12.hpp: a ripple Device on an engine's D3D12 device and queue, its buffers, and
// recording into its command lists.
#include "d3d12/device.hpp" // first: d3d12_api.hpp's switches precede the D3D12 headers
#include "ripple/interop/d3d12.hpp"
#include "runtime/access.hpp"
#include "runtime/cache_blob.hpp"
#include "runtime/recorder_impl.hpp"

namespace ripple::interop {

namespace {
d3d12::D3D12Device* d3d12Of(Device& device) {
    // The backend's kind tells its class (ripple builds without RTTI).
    if (!detail::impl(device) || detail::impl(device)->backend->adapter().backend != Backend::D3D12)
        return nullptr;
    return static_cast<d3d12::D3D12Device*>(detail::impl(device)->backend.get());
}
} // namespace

Result<Device> adoptD3D12Device(const D3D12DeviceDesc& desc, const DeviceOptions& options) {
    auto backend = d3d12::D3D12Device::adopt(desc.device, desc.queue, desc.lockQueue, desc.unlockQueue,
                                             detail::withCheckedCacheData(options, Backend::D3D12));
    if (!backend) return backend.status();
    return detail::makeDevice(std::move(backend.value()), options);
}

Result<Buffer> wrapD3D12Resource(Device& device, ID3D12Resource* resource, uint64_t size) {
    d3d12::D3D12Device* dev = d3d12Of(device);
    if (!dev)
        return Status(StatusCode::InvalidArgument,
                      "wrapD3D12Resource: the Device is empty or not a D3D12 one");
    if (!resource || size == 0)
        return Status(StatusCode::InvalidArgument,
                      "wrapD3D12Resource: resource must be set and size above 0");
    return detail::makeBuffer(detail::impl(device), dev->wrapResource(resource, size));
}

Result<CommandRecorder> recordInto(Device& device, ID3D12GraphicsCommandList* commandList) {
    d3d12::D3D12Device* dev = d3d12Of(device);
    if (!dev)
        return Status(StatusCode::InvalidArgument, "recordInto: the Device is empty or not a D3D12 one");
    if (!commandList) return Status(StatusCode::InvalidArgument, "recordInto: commandList is null");
    auto list = dev->wrapCommands(commandList);
    if (!list) return list.status();
    CommandRecorder r;
    detail::impl(r) = std::make_unique<detail::RecorderImpl>();
    detail::impl(r)->device = detail::impl(device);
    detail::impl(r)->external = true;
    detail::impl(r)->list = std::move(list.value());
    return r;
}

namespace {
// `sync` as the back-end's handles, checked entry by entry.
Result<detail::ExternalSync> externalSync(Device& device, const D3D12SubmitSync& sync) {
    if (!d3d12Of(device))
        return Status(StatusCode::InvalidArgument, "submit: the Device is empty or not a D3D12 one");
    detail::ExternalSync out;
    for (const auto* list : {&sync.waits, &sync.signals}) {
        const char* name = list == &sync.waits ? "waits" : "signals";
        for (size_t i = 0; i < list->size(); ++i) {
            const D3D12FenceValue& f = (*list)[i];
            if (!f.fence)
                return Status(StatusCode::InvalidArgument, "submit: sync." + std::string(name) + "[" +
                                                               std::to_string(i) + "].fence is null");
            const uint64_t handle = reinterpret_cast<uintptr_t>(f.fence);
            if (list == &sync.waits)
                out.waits.push_back({handle, f.value, 0});
            else
                out.signals.push_back({handle, f.value});
        }
    }
    return out;
}
} // namespace

Result<Ticket> submit(Device& device, CommandRecorder& recorder, const D3D12SubmitSync& sync) {
    auto external = externalSync(device, sync);
    if (!external) return external.status();
    return detail::submitRecorder(device, recorder, &external.value());
}

Result<Ticket> submit(Device& device, Recording& recording, const D3D12SubmitSync& sync) {
    auto external = externalSync(device, sync);
    if (!external) return external.status();
    return detail::submitRecording(device, recording, &external.value());
}

} // namespace ripple::interop
