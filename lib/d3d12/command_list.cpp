// SPDX-License-Identifier: MIT
// Recording D3D12 commands: root constants and root SRV/UAV descriptors per dispatch, typed views in the
// list's heaps for fills, explicit buffer state transitions (every buffer starts and ends a list in COMMON),
// global UAV barriers.
#include "d3d12/device.hpp"

#include <algorithm>

namespace ripple::d3d12 {

D3D12CommandList::~D3D12CommandList() {
    if (external_) { // the engine's list: leave its buffers in COMMON, keep our heap until teardown
        finish();
        device_.keepHeap(slot_.heap);
        device_.keepHeap(slot_.cpuHeap);
        device_.keepShadows(std::move(slot_.shadows));
        return;
    }
    if (slot_.list) device_.recycle(slot_); // dropped without submitting
}

void D3D12CommandList::transition(D3D12Buffer* buffer, D3D12_RESOURCE_STATES state) {
    if (buffer->heap == D3D12_HEAP_TYPE_UPLOAD || buffer->heap == D3D12_HEAP_TYPE_READBACK)
        return; // fixed states
    auto it = states_.find(buffer);
    const D3D12_RESOURCE_STATES now = it == states_.end() ? D3D12_RESOURCE_STATE_COMMON : it->second;
    if (now == state) return;
    D3D12_RESOURCE_BARRIER b{};
    b.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
    b.Transition.pResource = buffer->resource;
    b.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
    b.Transition.StateBefore = now;
    b.Transition.StateAfter = state;
    slot_.list->ResourceBarrier(1, &b);
    states_[buffer] = state;
}

Result<detail::BufferRange> D3D12CommandList::shadow(const detail::BufferRange& range) {
    auto* source = static_cast<D3D12Buffer*>(range.buffer);
    uint64_t at = (slot_.shadowUsed + 255) / 256 * 256;
    D3D12Buffer* into = slot_.shadows.empty() ? nullptr : slot_.shadows.back().get();
    if (!into || at > into->size || range.size > into->size - at) { // a larger one; the full one stays alive
        const uint64_t bytes = std::max<uint64_t>(range.size, into ? into->size * 2 : 64 * 1024);
        auto made = device_.createBuffer(bytes, false);
        if (!made) return made.status();
        slot_.shadows.emplace_back(static_cast<D3D12Buffer*>(made.value().release()));
        into = slot_.shadows.back().get();
        at = 0;
    }
    transition(source, D3D12_RESOURCE_STATE_COPY_SOURCE);
    transition(into, D3D12_RESOURCE_STATE_COPY_DEST);
    slot_.list->CopyBufferRegion(into->resource, at, source->resource, range.offset, range.size);
    slot_.shadowUsed = at + range.size;
    return detail::BufferRange{into, at, range.size};
}

void D3D12CommandList::barrier() {
    D3D12_RESOURCE_BARRIER b{};
    b.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV;
    b.UAV.pResource = nullptr; // every UAV access before, every one after
    slot_.list->ResourceBarrier(1, &b);
}

void D3D12CommandList::dispatch(const kernels::KernelInfo& kernel,
                                const std::vector<detail::BufferRange>& bindings, const uint32_t* push,
                                const uint32_t groups[3], const detail::BufferRange* indirect) {
    if (!status.ok()) return;
    const Pipeline& p = device_.pipeline(kernel);
    // D3D12 holds a buffer in one state: a range read through an SRV of a buffer that this dispatch also
    // writes through a UAV (ranges of one scratch buffer, as the deterministic scatter's sort binds them) is
    // read from a copy, made here, before any binding.
    detail::BufferRange ranges[kernels::kMaxKernelBindings];
    for (uint32_t i = 0; i < kernel.bindingCount; ++i) ranges[i] = bindings[kernel.bindings[i].binding];
    for (uint32_t i = 0; i < kernel.bindingCount; ++i) {
        if (!kernel.bindings[i].readOnly || ranges[i].size == 0) continue;
        bool written = false;
        for (uint32_t j = 0; j < kernel.bindingCount; ++j)
            written |= !kernel.bindings[j].readOnly && ranges[j].buffer == ranges[i].buffer;
        if (!written) continue;
        auto copy = shadow(ranges[i]);
        if (!copy) {
            status = copy.status();
            return;
        }
        ranges[i] = copy.value();
    }
    for (uint32_t i = 0; i < kernel.bindingCount; ++i) {
        auto* buffer = static_cast<D3D12Buffer*>(ranges[i].buffer);
        transition(buffer, kernel.bindings[i].readOnly ? D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE
                                                       : D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    }
    slot_.list->SetComputeRootSignature(p.root);
    slot_.list->SetPipelineState(p.state);
    if (p.constants) slot_.list->SetComputeRoot32BitConstants(0, p.pushWords, push, 0);
    // Root descriptors (the pipeline's root signature): each binding by its range's GPU address. The
    // kernels index 4-byte elements from there and never read a view's size.
    for (uint32_t i = 0; i < kernel.bindingCount; ++i) {
        auto* buffer = static_cast<D3D12Buffer*>(ranges[i].buffer);
        const D3D12_GPU_VIRTUAL_ADDRESS at = buffer->resource->GetGPUVirtualAddress() + ranges[i].offset;
        if (kernel.bindings[i].readOnly)
            slot_.list->SetComputeRootShaderResourceView(p.firstBinding + i, at);
        else
            slot_.list->SetComputeRootUnorderedAccessView(p.firstBinding + i, at);
    }
    if (indirect) {
        ID3D12CommandSignature* signature = device_.dispatchSignature();
        if (!signature) {
            status = Status(StatusCode::Internal, "D3D12: CreateCommandSignature (indirect dispatch) failed");
            return;
        }
        auto* args = static_cast<D3D12Buffer*>(indirect->buffer);
        transition(args, D3D12_RESOURCE_STATE_INDIRECT_ARGUMENT);
        slot_.list->ExecuteIndirect(signature, 1, args->resource, indirect->offset, nullptr, 0);
    } else {
        slot_.list->Dispatch(groups[0], groups[1], groups[2]);
    }
}

void D3D12CommandList::fill(const detail::BufferRange& range, uint32_t value) {
    if (!status.ok()) return;
    if (descriptorsUsed_ + 1 > 8192) {
        status = Status(StatusCode::Unsupported, "D3D12: more than 8192 bindings in one submission");
        return;
    }
    // ClearUnorderedAccessViewUint takes a typed view twice: in the bound heap and in a CPU-only heap.
    auto* buffer = static_cast<D3D12Buffer*>(range.buffer);
    transition(buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    ID3D12Device* dev = device_.handle();
    const UINT step = dev->GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    D3D12_CPU_DESCRIPTOR_HANDLE shaderCpu = slot_.heap->GetCPUDescriptorHandleForHeapStart();
    D3D12_GPU_DESCRIPTOR_HANDLE gpu = slot_.heap->GetGPUDescriptorHandleForHeapStart();
    D3D12_CPU_DESCRIPTOR_HANDLE cpu = slot_.cpuHeap->GetCPUDescriptorHandleForHeapStart();
    shaderCpu.ptr += static_cast<SIZE_T>(descriptorsUsed_) * step;
    cpu.ptr += static_cast<SIZE_T>(descriptorsUsed_) * step;
    gpu.ptr += static_cast<UINT64>(descriptorsUsed_) * step;
    ++descriptorsUsed_;
    D3D12_UNORDERED_ACCESS_VIEW_DESC v{};
    v.Format = DXGI_FORMAT_R32_UINT;
    v.ViewDimension = D3D12_UAV_DIMENSION_BUFFER;
    v.Buffer.FirstElement = range.offset / 4;
    v.Buffer.NumElements = static_cast<UINT>(range.size / 4);
    dev->CreateUnorderedAccessView(buffer->resource, nullptr, &v, shaderCpu);
    dev->CreateUnorderedAccessView(buffer->resource, nullptr, &v, cpu);
    const UINT values[4] = {value, value, value, value};
    slot_.list->ClearUnorderedAccessViewUint(gpu, cpu, buffer->resource, values, 0, nullptr);
}

void D3D12CommandList::timestamp(uint32_t slot) {
    if (slot >= slot_.querySlots) return;
    slot_.list->EndQuery(slot_.queries, D3D12_QUERY_TYPE_TIMESTAMP, slot);
    slot_.queriesUsed = std::max(slot_.queriesUsed, slot + 1);
}

void D3D12CommandList::copy(const detail::BufferRange& source, const detail::BufferRange& destination) {
    auto* src = static_cast<D3D12Buffer*>(source.buffer);
    auto* dst = static_cast<D3D12Buffer*>(destination.buffer);
    transition(src, D3D12_RESOURCE_STATE_COPY_SOURCE);
    transition(dst, D3D12_RESOURCE_STATE_COPY_DEST);
    slot_.list->CopyBufferRegion(dst->resource, destination.offset, src->resource, source.offset,
                                 source.size);
}

void D3D12CommandList::finish() {
    for (auto& [buffer, state] : states_)
        if (state != D3D12_RESOURCE_STATE_COMMON) transition(buffer, D3D12_RESOURCE_STATE_COMMON);
    states_.clear();
}

} // namespace ripple::d3d12
