// SPDX-License-Identifier: MIT
// Replayable recordings (ripple/recording.hpp): a recorder's commands in a kept backend command list,
// submitted again and again. The commands are kept too, so that rebind() records them again on other
// buffers; the scratch and status memory they name stay with the recording.
#include "ripple/device.hpp"
#include "runtime/access.hpp"
#include "runtime/recorder_impl.hpp"

#include <cstring>
#include <set>

namespace ripple {
namespace detail {

// What a submission of the recording runs: shared with the submission in flight, so that a recording
// destroyed meanwhile frees its command list only once that completes (the device's finish releases it).
struct RecordingCore {
    std::unique_ptr<BackendRecording> commands;
    std::vector<std::unique_ptr<BackendBuffer>> scratch, zeroedScratch;
    std::vector<std::shared_ptr<BackendBuffer>> statusChunks;
};

struct RecordingImpl {
    std::shared_ptr<DeviceImpl> device;
    bool timestamps = false;
    std::shared_ptr<RecordingCore> core;
    std::vector<PendingCommand> commands; // as recorded, for rebind()
    uint32_t levels = 0;
    // Labels, status words (in core's chunks), levels: shared with the submissions in flight.
    std::shared_ptr<const std::vector<Submission::Op>> ops;
    std::vector<Submission::Readback> readbacks; // staging kept; host memory written per submission
    std::vector<std::shared_ptr<void>> keep;     // operators, kernels, readback staging
    struct Bound {
        uint64_t id;                      // BufferImpl::id
        std::weak_ptr<BufferImpl> buffer; // not kept alive by the recording
        BackendBuffer* raw;               // what the commands name
    };
    std::vector<Bound> bound; // one entry per buffer
    RecorderStatistics stats;
    uint64_t lastTicket = 0; // the latest submission's ticket, 0 before the first

    // Never waits: InvalidArgument while the latest submission is in flight; once it has completed, its
    // reports and readbacks are taken (the device's finish) and the status words zeroed for the next one.
    Status settle(const char* what) {
        if (!lastTicket) return {};
        auto done = device->backend->isComplete(lastTicket);
        if (!done) return done.status();
        if (!done.value())
            return Status(StatusCode::InvalidArgument,
                          std::string(what) + ": the Recording's last submission (ticket " +
                              std::to_string(lastTicket) + ") is still in flight; wait for it first");
        device->finish(lastTicket);
        for (const auto& chunk : core->statusChunks) std::memset(chunk->mapped, 0, chunk->size);
        lastTicket = 0;
        return {};
    }

    // Records `commands` into a new kept list for core.
    Result<std::unique_ptr<BackendRecording>> recordKept() {
        auto list = device->backend->beginRecording(timestamps ? levels + 1 : 0);
        if (!list) return list.status();
        emitCommands(commands, levels, *ops, *list.value(), timestamps);
        return device->backend->endRecording(std::move(list.value()));
    }
};

} // namespace detail

Recording::Recording() = default;
Recording::Recording(Recording&&) noexcept = default;
Recording& Recording::operator=(Recording&&) noexcept = default;
Recording::~Recording() = default;

const RecorderStatistics& Recording::statistics() const {
    static const RecorderStatistics none;
    return impl_ ? impl_->stats : none;
}

Status Recording::rebind(const Buffer& from, const Buffer& to) {
    auto invalid = [](const std::string& m) { return Status(StatusCode::InvalidArgument, "rebind: " + m); };
    if (!impl_) return invalid("the Recording is empty");
    detail::RecordingImpl& r = *impl_;
    if (!detail::impl(from)) return invalid("`from` is an empty Buffer");
    if (!detail::impl(to) || detail::impl(to)->device != r.device)
        return invalid("`to` is empty or of another Device");
    if (to.size() != from.size())
        return invalid("`to` has " + std::to_string(to.size()) + " bytes, `from` " +
                       std::to_string(from.size()) + ": a rebound buffer keeps the size");
    detail::RecordingImpl::Bound* entry = nullptr;
    for (auto& b : r.bound) {
        if (b.id == detail::impl(from)->id) entry = &b;
        if (b.id == detail::impl(to)->id && detail::impl(to)->id != detail::impl(from)->id)
            return invalid("`to` is bound by the Recording already: its commands were ordered for two "
                           "buffers, not one");
    }
    if (!entry) return invalid("the Recording binds no such `from` buffer");
    if (detail::impl(to)->id == detail::impl(from)->id) return {};
    for (const auto& b : r.bound) // recording again names every buffer: all must be alive
        if (b.id != detail::impl(from)->id && b.buffer.expired())
            return invalid("another Buffer the Recording binds was released; record again");
    if (Status s = r.settle("rebind"); !s) return s;
    detail::BackendBuffer* was = entry->raw;
    detail::BackendBuffer* now = detail::impl(to)->buffer.get();
    for (detail::PendingCommand& c : r.commands)
        for (detail::BufferRange& range : c.ranges)
            if (range.buffer == was) range.buffer = now;
    *entry = {detail::impl(to)->id, detail::impl(to), now};
    auto kept = r.recordKept();
    if (!kept) { // the old list names `from`: the recording cannot be submitted as it is
        impl_.reset();
        return kept.status();
    }
    r.core->commands = std::move(kept.value());
    return {};
}

Result<Recording> Device::finishRecording(CommandRecorder& recorder) {
    auto invalid = [](const std::string& m) {
        return Status(StatusCode::InvalidArgument, "finishRecording: " + m);
    };
    if (!impl_) return invalid("the Device is empty");
    impl_->settle();
    if (!detail::impl(recorder) || detail::impl(recorder)->device != impl_)
        return invalid("the CommandRecorder is empty or from another Device");
    detail::RecorderImpl& r = *detail::impl(recorder);
    if (r.external) return invalid("the CommandRecorder records into an engine's command buffer");
    if (r.uploads)
        return invalid("the CommandRecorder holds " + std::to_string(r.uploads) +
                       " upload() command(s), whose bytes were read when recorded: upload before "
                       "submitting the Recording instead (Device::upload, or another recorder)");
    if (r.options.profile)
        return Status(StatusCode::Unsupported, "finishRecording: a RecorderOptions::profile recorder");
    auto made = std::make_unique<detail::RecordingImpl>();
    detail::RecordingImpl& m = *made;
    m.device = impl_;
    m.timestamps = r.options.timestamps;
    m.commands = r.commands;
    m.levels = r.planner.levels();
    m.ops = std::make_shared<const std::vector<detail::Submission::Op>>(r.submission.ops);
    auto kept = m.recordKept();
    if (!kept && kept.status().code() == StatusCode::Unsupported) // the recorder keeps its commands
        return Status(StatusCode::Unsupported,
                      std::string("finishRecording: the ") + toString(impl_->options.backend) +
                          " back-end keeps no recorded command lists yet; submit the recorder instead");
    if (!kept) { // discarded, as a failed submit discards them
        r.commands.clear();
        r.planner.clear();
        r.reset();
        return kept.status();
    }
    m.core = std::make_shared<detail::RecordingCore>();
    m.core->commands = std::move(kept.value());
    m.core->scratch = std::move(r.submission.scratch);
    m.core->zeroedScratch = std::move(r.submission.zeroedScratch);
    m.core->statusChunks = std::move(r.submission.statusChunks);
    m.readbacks = r.submission.readbacks;
    std::set<const void*> buffers;
    for (const auto& b : r.bound) {
        if (!buffers.insert(b.get()).second) continue;
        m.bound.push_back({b->id, b, b->buffer.get()});
    }
    std::set<const void*> held; // each operator once: a recorder holds one per record()
    for (auto& k : r.submission.keepAlive)
        if (!buffers.count(k.get()) && held.insert(k.get()).second) m.keep.push_back(std::move(k));
    m.stats = r.stats;
    r.commands.clear();
    r.planner.clear();
    r.reset();
    Recording recording;
    detail::impl(recording) = std::move(made);
    return recording;
}

Result<Ticket> Device::submit(Recording& recording) {
    return detail::submitRecording(*this, recording, nullptr);
}

Result<Ticket> detail::submitRecording(Device& device, Recording& recording, const ExternalSync* sync) {
    const std::shared_ptr<DeviceImpl>& dev = detail::impl(device);
    if (!dev || !detail::impl(recording) || detail::impl(recording)->device != dev)
        return Status(StatusCode::InvalidArgument,
                      "submit: the Device or the Recording is empty, or the Recording is of another Device");
    detail::RecordingImpl& r = *detail::impl(recording);
    if (Status s = r.settle("submit"); !s) return s;
    dev->settle();
    detail::Submission s;
    s.sharedOps = r.ops;
    s.readbacks = r.readbacks;
    s.keepAlive = r.keep;
    s.keepAlive.push_back(r.core);
    for (const auto& b : r.bound) {
        std::shared_ptr<detail::BufferImpl> live = b.buffer.lock();
        if (!live)
            return Status(StatusCode::InvalidArgument,
                          "submit: a Buffer the Recording binds was released; record again, or rebind() "
                          "buffers before releasing them");
        s.keepAlive.push_back(std::move(live));
    }
    if (sync) s.signals = sync->signals;
    auto ticket = dev->backend->submitRecording(*r.core->commands, sync);
    if (!ticket) return ticket.status();
    dev->track(ticket.value(), std::move(s));
    for (const auto& b : r.bound)
        if (auto live = b.buffer.lock()) detail::stampBuffer(*live, ticket.value());
    r.lastTicket = ticket.value();
    return Ticket{ticket.value()};
}

} // namespace ripple
