// SPDX-License-Identifier: MIT
/// @file
/// @brief Using ripple inside an engine's own D3D12 objects: its device and compute-capable queue, its
/// buffers, and its command lists. Include after the engine's D3D12 headers (the Windows SDK's d3d12.h, or
/// MinGW's); this header declares only what it needs.
#pragma once

#include "ripple/device.hpp"
#include "ripple/interop/recording.hpp"

#include <functional>
#include <vector>

struct ID3D12Device;
struct ID3D12CommandQueue;
struct ID3D12Resource;
struct ID3D12GraphicsCommandList;
struct ID3D12Fence;

namespace ripple::interop {

/// A ripple Device on the engine's ID3D12Device and a DIRECT or COMPUTE queue of it (for ripple's own
/// submissions: Device::submit, execute, upload, download). ripple adds references and releases them with
/// the Device. lockQueue/unlockQueue, when set, are called around ripple's ExecuteCommandLists.
struct D3D12DeviceDesc {
    ID3D12Device* device = nullptr;      ///< the engine's device (ripple adds a reference)
    ID3D12CommandQueue* queue = nullptr; ///< a DIRECT or COMPUTE queue of `device` (ripple adds a reference)
    std::function<void()> lockQueue;     ///< optional: called before each ExecuteCommandLists ripple makes
    std::function<void()> unlockQueue;   ///< optional: called after it
};
/// @return the device; InvalidArgument for a null device or queue; Internal when a D3D12 call fails;
/// Unsupported in a build without the D3D12 back-end.
RIPPLE_API Result<Device> adoptD3D12Device(const D3D12DeviceDesc& desc, const DeviceOptions& options = {});

/// A ripple Buffer over [0, size) of the engine's buffer resource, without copying. It must allow
/// unordered access and be in D3D12_RESOURCE_STATE_COMMON whenever ripple's commands start; ripple returns
/// it to COMMON when its commands end.
/// @param device a Device from adoptD3D12Device
/// @param resource the engine's buffer resource (ripple adds a reference)
/// @param size bytes, at most the resource's width
/// @return the buffer; InvalidArgument for an empty or non-D3D12 device, a null resource or a bad size.
RIPPLE_API Result<Buffer> wrapD3D12Resource(Device& device, ID3D12Resource* resource, uint64_t size);

/// A recorder that records into the engine's open command list (COMPUTE or DIRECT type). ripple sets its own
/// descriptor heap, root signatures and pipeline states on it; the engine re-sets its own afterwards.
/// Barriers: ripple transitions the buffers it uses from COMMON and back, and separates its dependent
/// commands with UAV barriers. The engine orders its own earlier writes to those buffers (they must be back
/// in COMMON). Close it with endRecording and completeRecording (interop/recording.hpp).
/// @param device a Device from adoptD3D12Device
/// @param commandList the engine's open command list
/// @return the recorder; InvalidArgument for an empty or non-D3D12 device or a null command list.
RIPPLE_API Result<CommandRecorder> recordInto(Device& device, ID3D12GraphicsCommandList* commandList);

/// One of the engine's fences and a value: a submission's queue waits until the fence reaches it
/// (ID3D12CommandQueue::Wait), or sets it when the submission's commands are done (Signal).
struct D3D12FenceValue {
    ID3D12Fence* fence = nullptr; ///< a fence of the adopted device
    uint64_t value = 0;           ///< the value waited for, or set
};

/// What a submission waits on and signals besides ripple's own ticket.
struct D3D12SubmitSync {
    std::vector<D3D12FenceValue> waits;   ///< waited for (ID3D12CommandQueue::Wait) before the commands
    std::vector<D3D12FenceValue> signals; ///< set (ID3D12CommandQueue::Signal) after them
};

/// Device::submit(CommandRecorder&) with the engine's fences: ripple's queue waits for `sync.waits` before
/// the commands and signals `sync.signals` after them, so ripple's work on a compute queue hands its results
/// to the engine's direct queue without a CPU wait. The ticket works as Device::submit's.
/// @param device a D3D12 Device
/// @param recorder a recorder of `device` (not one from recordInto)
/// @param sync the fences and values
/// @return as Device::submit; InvalidArgument for a non-D3D12 device or a null fence (naming the entry);
///         Internal when the queue refuses a Wait (nothing was submitted).
RIPPLE_API Result<Ticket> submit(Device& device, CommandRecorder& recorder, const D3D12SubmitSync& sync);
/// Device::submit(Recording&) with the engine's fences, as the overload above.
RIPPLE_API Result<Ticket> submit(Device& device, Recording& recording, const D3D12SubmitSync& sync);

} // namespace ripple::interop
