// SPDX-License-Identifier: MIT
/// @file
/// @brief Replayable recordings: a recorder's commands kept and submitted again every frame without
/// recording them again (Device::finishRecording, Device::submit(Recording&)).
#pragma once

#include "ripple/buffer.hpp"
#include "ripple/export.hpp"
#include "ripple/recorder.hpp"
#include "ripple/status.hpp"

#include <memory>

namespace ripple {

/// @cond RIPPLE_INTERNAL
namespace detail {
struct ImplAccess;
struct RecordingImpl;
}
/// @endcond

/// What a CommandRecorder recorded, kept for submitting many times: a Vulkan command buffer recorded
/// without ONE_TIME_SUBMIT, with the scratch and status memory its operators use. Make one with
/// Device::finishRecording and submit it with Device::submit(Recording&) once a frame; each submission has
/// its own Ticket, reports (IndexOutOfRange included) and, with RecorderOptions::timestamps, GPU times.
///
/// What a submission reads and writes:
/// - every command reads the buffers' contents at the time it runs, so an engine changes a frame's input by
///   writing the buffers (Device::upload, its own copies, another recording) before submitting;
/// - readbacks write their host memory again at each submission's completion (when Device::wait or
///   isComplete first sees it complete): that memory must stay valid as long as the recording is
///   submitted;
/// - uploads are refused (Device::finishRecording): their bytes were read when they were recorded.
///
/// Lifetimes: the recording keeps its operators and kernels alive, not the buffers it binds; a submission
/// keeps them until it completes. A buffer released before a submission makes that submission fail with
/// InvalidArgument (record again, or rebind() the buffer while it is alive). Destroying a recording while
/// a submission of it is in flight is allowed: its command buffer is freed once that submission completes.
///
/// Thread safety: a recording is used by one thread at a time (as a CommandRecorder); several recordings
/// of one device may be submitted from several threads. Every member is safe on an empty Recording
/// (default-constructed or moved from).
class RIPPLE_API Recording {
  public:
    /// An empty recording (valid() is false); Device::finishRecording makes a usable one.
    Recording();
    /// Takes `other`'s recording; `other` becomes empty.
    Recording(Recording&& other) noexcept;
    /// Releases this recording (as the destructor) and takes `other`'s.
    Recording& operator=(Recording&& other) noexcept;
    /// Frees the command buffer and the memory kept for it once no submission of it is in flight.
    ~Recording();

    /// @return what was recorded (CommandRecorder::statistics() before finishRecording); all 0 when empty.
    const RecorderStatistics& statistics() const;
    /// Replaces `from` by `to` in every command of the recording that binds `from`, for the submissions
    /// after this call. `to` must have `from`'s size. The commands are recorded again (the cost of
    /// recording them, once); nothing runs.
    /// @param from a buffer the recording binds
    /// @param to a valid buffer of the recording's device, of from's size
    /// @return InvalidArgument for an empty recording, an empty or foreign `to`, a `from` the recording does
    ///         not bind, another size, or a submission of the recording in flight; OutOfMemory, DeviceLost
    ///         from recording again (the recording is then empty).
    Status rebind(const Buffer& from, const Buffer& to);
    /// @return false when default-constructed, moved from, or emptied by a failed rebind().
    bool valid() const { return impl_ != nullptr; }

  private:
    /// @cond RIPPLE_INTERNAL
    friend struct detail::ImplAccess; // ripple's own code reaches the state (lib/runtime/access.hpp)
    std::unique_ptr<detail::RecordingImpl> impl_;
    /// @endcond
};

} // namespace ripple
