// SPDX-License-Identifier: MIT
/// @file
/// @brief Closing a recording made into an engine's own command buffer or list (interop::recordInto, in
/// interop/vulkan.hpp and interop/d3d12.hpp). Includes no graphics header.
#pragma once

#include "ripple/device.hpp"

namespace ripple::interop {

/// Work recorded into an engine command buffer, waiting for the engine to tell ripple it completed.
struct PendingWork {
    uint64_t id = 0; ///< ripple's number for the recording; 0 is none
};
/// Records what the recorder queued into the engine's command buffer and closes the recording (the recorder
/// is empty again). Call before the engine ends its command buffer or list. Thread safety: the recorder's
/// thread.
/// @param device the Device the recorder was made from (interop::recordInto)
/// @param recorder a recorder from interop::recordInto
/// @return the pending work to pass to completeRecording; InvalidArgument for an empty device or a recorder
/// that does not record into an engine command buffer.
RIPPLE_API Result<PendingWork> endRecording(Device& device, CommandRecorder& recorder);
/// Call once the engine knows its submission finished on the GPU (its fence or semaphore): releases what the
/// recording held and returns the first operator error, e.g. IndexOutOfRange naming the operator.
/// @param device the Device of the recording
/// @param work what endRecording returned; each is completed once
/// @return Ok, the first operator error, or InvalidArgument for unknown work.
RIPPLE_API Status completeRecording(Device& device, PendingWork work);

} // namespace ripple::interop
