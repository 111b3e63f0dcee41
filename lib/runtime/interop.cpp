// SPDX-License-Identifier: MIT
// interop/recording.hpp: closing recordings made into engine command buffers, whatever the back-end.
#include "ripple/interop/recording.hpp"
#include "runtime/recorder_impl.hpp"

namespace ripple::interop {

Result<PendingWork> endRecording(Device& device, CommandRecorder& recorder) {
    if (!recorder.impl_ || !recorder.impl_->external || recorder.impl_->device != device.impl_)
        return Status(StatusCode::InvalidArgument,
                      "endRecording: the recorder was not made by interop::recordInto on this Device");
    detail::RecorderImpl& r = *recorder.impl_;
    r.emit(*r.list, false);
    r.list.reset();
    std::lock_guard<std::mutex> lock(device.impl_->mutex);
    const uint64_t id = device.impl_->nextExternal++;
    device.impl_->external[id] = std::move(r.submission);
    recorder.impl_.reset();
    return PendingWork{id};
}

Status completeRecording(Device& device, PendingWork work) {
    if (!device.impl_) return Status(StatusCode::InvalidArgument, "completeRecording: the Device is empty");
    std::vector<std::shared_ptr<void>> released;
    std::lock_guard<std::mutex> lock(device.impl_->mutex);
    auto it = device.impl_->external.find(work.id);
    if (it == device.impl_->external.end())
        return Status(StatusCode::InvalidArgument,
                      "completeRecording: unknown or already completed PendingWork");
    released = device.impl_->finishOne(it->second, {});
    Status first = it->second.first;
    device.impl_->external.erase(it);
    return first;
}

} // namespace ripple::interop
