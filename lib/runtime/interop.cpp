// SPDX-License-Identifier: MIT
// interop/recording.hpp: closing recordings made into engine command buffers, whatever the back-end.
#include "ripple/interop/recording.hpp"
#include "runtime/access.hpp"
#include "runtime/recorder_impl.hpp"

namespace ripple::interop {

Result<PendingWork> endRecording(Device& device, CommandRecorder& recorder) {
    if (!detail::impl(recorder) || !detail::impl(recorder)->external ||
        detail::impl(recorder)->device != detail::impl(device))
        return Status(StatusCode::InvalidArgument,
                      "endRecording: the recorder was not made by interop::recordInto on this Device");
    detail::RecorderImpl& r = *detail::impl(recorder);
    r.emit(*r.list, false);
    r.list.reset();
    std::lock_guard<std::mutex> lock(detail::impl(device)->mutex);
    const uint64_t id = detail::impl(device)->nextExternal++;
    detail::impl(device)->external[id] = std::move(r.submission);
    detail::impl(recorder).reset();
    return PendingWork{id};
}

Status completeRecording(Device& device, PendingWork work) {
    if (!detail::impl(device))
        return Status(StatusCode::InvalidArgument, "completeRecording: the Device is empty");
    std::vector<std::shared_ptr<void>> released;
    std::lock_guard<std::mutex> lock(detail::impl(device)->mutex);
    auto it = detail::impl(device)->external.find(work.id);
    if (it == detail::impl(device)->external.end())
        return Status(StatusCode::InvalidArgument,
                      "completeRecording: unknown or already completed PendingWork");
    released = detail::impl(device)->finishOne(it->second, {});
    Status first = it->second.first;
    detail::impl(device)->external.erase(it);
    return first;
}

} // namespace ripple::interop
