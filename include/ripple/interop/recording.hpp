// SPDX-License-Identifier: MIT
// Closing a recording made into an engine's own command buffer or list (interop::recordInto, in
// interop/vulkan.hpp and interop/d3d12.hpp). Includes no graphics header.
#pragma once

#include "ripple/device.hpp"

namespace ripple::interop {

// Work recorded into an engine command buffer, waiting for the engine to tell ripple it completed.
struct PendingWork {
    uint64_t id = 0;
};
// Records what the recorder queued into the engine's command buffer and closes the recording (the recorder
// is empty again). Call before the engine ends its command buffer or list.
RIPPLE_API Result<PendingWork> endRecording(Device& device, CommandRecorder& recorder);
// Call once the engine knows its submission finished on the GPU (its fence or semaphore): releases what the
// recording held and returns the first operator error, e.g. IndexOutOfRange naming the operator.
RIPPLE_API Status completeRecording(Device& device, PendingWork work);

} // namespace ripple::interop
