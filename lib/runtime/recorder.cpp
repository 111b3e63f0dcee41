// SPDX-License-Identifier: MIT
// CommandRecorder: records operators dispatch by dispatch into a backend command list, inserting a barrier
// only where a command touches bytes an earlier one wrote (or writes bytes an earlier one read), and
// Device::submit (what happens after: completion.cpp).
#include "core/shape.hpp"
#include "ripple/device.hpp"
#include "runtime/access.hpp"
#include "runtime/recorder_impl.hpp"

#include <cstring>

namespace ripple {
namespace detail {

Result<std::unique_ptr<BackendBuffer>>
DeviceImpl::acquireScratch(uint64_t bytes, std::multimap<uint64_t, std::unique_ptr<BackendBuffer>>& pool,
                           bool* created) {
    {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = pool.lower_bound(bytes);
        if (it != pool.end() && it->first <= 2 * bytes) { // reuse, but not a far larger one
            auto b = std::move(it->second);
            pool.erase(it);
            return b;
        }
    }
    if (created) *created = true;
    return backend->createBuffer(bytes);
}

} // namespace detail

CommandRecorder::CommandRecorder() = default;
CommandRecorder::CommandRecorder(CommandRecorder&&) noexcept = default;
CommandRecorder& CommandRecorder::operator=(CommandRecorder&&) noexcept = default;
CommandRecorder::~CommandRecorder() = default;

const RecorderStatistics& CommandRecorder::statistics() const {
    static const RecorderStatistics none;
    return impl_ ? impl_->stats : none;
}

Status CommandRecorder::record(const Operator& op, const std::vector<TensorBinding>& bindings,
                               const std::string& label) {
    if (!impl_) return Status(StatusCode::InvalidArgument, "record: the CommandRecorder is empty");
    detail::RecorderImpl& r = *impl_;
    if (!detail::impl(op) || detail::impl(op)->device != r.device)
        return Status(StatusCode::InvalidArgument,
                      "record: the Operator is empty or was compiled for another Device");
    const detail::OperatorImpl& o = *detail::impl(op);
    const core::Plan& plan = o.plan;
    auto sizes = detail::checkBindings(*r.device, plan, bindings);
    if (!sizes) return sizes.status();
    detail::Submission::Op entry;
    entry.label = label.empty() ? plan.op : label;
    r.stats.operators++;
    const int32_t opIndex = static_cast<int32_t>(r.submission.ops.size());
    if (plan.dispatches.empty()) { // empty tensors or K = 0: nothing to run, but it is reported
        r.submission.ops.push_back(entry);
        return {};
    }
    // Scratch offered to this recorder (runtime/replay.cpp) stays offered until the end: a record() that
    // fails on the way leaves it with its owner, whose kept recordings name it.
    std::unique_ptr<detail::BackendBuffer> scratch;
    detail::BackendBuffer* scratchBuffer = nullptr;
    if (plan.scratchBytes && r.offeredScratch && r.offeredScratch->size >= plan.scratchBytes) {
        scratchBuffer = r.offeredScratch.get();
    } else if (plan.scratchBytes) {
        auto sc = r.device->acquireScratch(plan.scratchBytes, r.device->scratchPool);
        if (!sc) return sc.status();
        scratch = std::move(sc.value());
        scratchBuffer = scratch.get();
    }
    std::unique_ptr<detail::BackendBuffer> zeroed;
    detail::BackendBuffer* zeroedBuffer = nullptr;
    bool zeroFirst = false;
    if (plan.zeroedScratchBytes && r.offeredZeroedScratch &&
        r.offeredZeroedScratch->size >= plan.zeroedScratchBytes) {
        zeroedBuffer = r.offeredZeroedScratch.get();
    } else if (plan.zeroedScratchBytes) {
        bool created = false;
        auto sc = r.device->acquireScratch(plan.zeroedScratchBytes, r.device->zeroedPool, &created);
        if (!sc) return sc.status();
        zeroed = std::move(sc.value());
        zeroedBuffer = zeroed.get();
        zeroFirst = created;
    }
    detail::BufferRange status;
    if (plan.usesStatus) {
        auto slot = r.statusSlot();
        if (!slot) return slot.status();
        status = slot.value();
        entry.statusBuffer = status.buffer;
        entry.statusOffset = status.offset;
    }
    r.submission.ops.push_back(entry);
    if (zeroFirst) { // a new zeroed-scratch buffer is cleared once, here; the plan's kernels leave it zero
        detail::PendingCommand c;
        c.kind = detail::PendingCommand::Kind::Fill;
        c.ranges = {{zeroedBuffer, 0, zeroedBuffer->size}};
        c.op = opIndex;
        r.add(std::move(c), {{zeroedBuffer, 0, zeroedBuffer->size, true}});
    }
    // In place (the first output bound to the plan's in-place input, checked above): skip its copy; some
    // passes run only one way (plan.hpp).
    const bool inPlace = plan.inPlaceInput >= 0 && sizes.value()[plan.firstOutput] &&
                         detail::impl(*bindings[plan.firstOutput].Buffer) ==
                             detail::impl(*bindings[plan.inPlaceInput].Buffer) &&
                         bindings[plan.firstOutput].Offset == bindings[plan.inPlaceInput].Offset;
    for (size_t i = 0; i < plan.dispatches.size(); ++i) {
        const core::PlanDispatch& d = plan.dispatches[i];
        if (inPlace ? d.skipInPlace : d.onlyInPlace) continue;
        const kernels::KernelInfo& k = *o.kernels[i];
        detail::PendingCommand c;
        c.kernel = &k;
        c.push[0] = d.paramsBase;
        c.push[1] = d.arg;
        c.push[2] = d.groups;
        c.groups[0] = d.groups;
        c.op = opIndex;
        c.ranges.reserve(d.bindings.size());
        for (const core::PlanBinding& pb : d.bindings) {
            switch (pb.kind) {
            case core::BindingKind::Params:
                c.ranges.push_back({o.params.get(), 0, o.params->size});
                break;
            case core::BindingKind::Tensor:
                // An empty tensor (ScatterND's q = 0 indices) is never read and may be unbound: the params
                // buffer stands in, so the descriptor is valid all the same.
                if (sizes.value()[pb.tensor] == 0) {
                    c.ranges.push_back({o.params.get(), 0, o.params->size});
                    break;
                }
                c.ranges.push_back({detail::impl(*bindings[pb.tensor].Buffer)->buffer.get(),
                                    bindings[pb.tensor].Offset, sizes.value()[pb.tensor]});
                break;
            case core::BindingKind::Scratch:
                c.ranges.push_back({scratchBuffer, pb.offset, pb.size});
                break;
            case core::BindingKind::ZeroedScratch:
                c.ranges.push_back({zeroedBuffer, pb.offset, pb.size});
                break;
            case core::BindingKind::Status:
                c.ranges.push_back(status);
                break;
            }
        }
        const kernels::KernelInfo* profiled = r.options.profile ? r.profileKernel(k) : nullptr;
        std::shared_ptr<detail::BackendBuffer> records;
        if (profiled) { // binding 7: 16 words per workgroup (glsl/include/ripple/profile.glsl)
            auto b = r.device->backend->createBuffer(uint64_t(d.groups) * 64, true);
            if (!b) return b.status();
            std::memset(b.value()->mapped, 0, b.value()->size);
            records = std::move(b.value());
            c.ranges.resize(8, c.ranges[0]);
            c.ranges[7] = {records.get(), 0, records->size};
            c.kernel = profiled;
        }
        std::vector<detail::Access> accesses;
        accesses.reserve(k.bindingCount);
        for (uint32_t b = 0; b < k.bindingCount; ++b) {
            const detail::BufferRange& range = c.ranges[k.bindings[b].binding];
            accesses.push_back(
                {range.buffer, range.offset, range.offset + range.size, !k.bindings[b].readOnly});
        }
        r.add(std::move(c), accesses);
        r.stats.dispatches++;
        if (records)
            r.submission.ops[static_cast<size_t>(opIndex)].profiled.push_back(
                {profiled->name, r.commands.back().level, d.groups, std::move(records)});
    }
    r.submission.keepAlive.push_back(detail::impl(op));
    for (const TensorBinding& b : bindings)
        if (b.Buffer && detail::impl(*b.Buffer)) r.keepBuffer(detail::impl(*b.Buffer));
    if (!scratch && scratchBuffer) scratch = std::move(r.offeredScratch);
    if (!zeroed && zeroedBuffer) zeroed = std::move(r.offeredZeroedScratch);
    if (scratch) r.submission.scratch.push_back(std::move(scratch));
    if (zeroed) r.submission.zeroedScratch.push_back(std::move(zeroed));
    return {};
}

namespace {
Status checkRange(const char* what, const Buffer& b, const std::shared_ptr<detail::DeviceImpl>& device,
                  uint64_t offset, uint64_t size) {
    if (!b.valid() || detail::impl(b)->device != device)
        return Status(StatusCode::InvalidArgument,
                      std::string(what) + ": the Buffer is empty or belongs to another Device");
    if (offset % 4 || size % 4)
        return Status(StatusCode::InvalidArgument, std::string(what) + ": offset (" + std::to_string(offset) +
                                                       ") and size (" + std::to_string(size) +
                                                       ") must be multiples of 4");
    if (offset > b.size() || size > b.size() - offset)
        return Status(StatusCode::InvalidArgument, std::string(what) + ": offset (" + std::to_string(offset) +
                                                       ") + size (" + std::to_string(size) +
                                                       ") exceeds the Buffer (" + std::to_string(b.size()) +
                                                       " bytes)");
    return {};
}
} // namespace

Status CommandRecorder::copyBuffer(const Buffer& source, uint64_t sourceOffset, const Buffer& destination,
                                   uint64_t destinationOffset, uint64_t size) {
    if (!impl_) return Status(StatusCode::InvalidArgument, "copyBuffer: the CommandRecorder is empty");
    if (Status s = checkRange("copyBuffer source", source, impl_->device, sourceOffset, size); !s) return s;
    if (Status s = checkRange("copyBuffer destination", destination, impl_->device, destinationOffset, size);
        !s)
        return s;
    if (detail::impl(source) == detail::impl(destination) && sourceOffset < destinationOffset + size &&
        destinationOffset < sourceOffset + size)
        return Status(StatusCode::InvalidArgument, "copyBuffer: the source and destination ranges overlap");
    if (size == 0) return {};
    detail::BufferRange src{detail::impl(source)->buffer.get(), sourceOffset, size};
    detail::BufferRange dst{detail::impl(destination)->buffer.get(), destinationOffset, size};
    detail::PendingCommand c;
    c.kind = detail::PendingCommand::Kind::Copy;
    c.ranges = {src, dst};
    impl_->add(std::move(c), {{src.buffer, src.offset, src.offset + size, false},
                              {dst.buffer, dst.offset, dst.offset + size, true}});
    impl_->stats.copies++;
    impl_->keepBuffer(detail::impl(source));
    impl_->keepBuffer(detail::impl(destination));
    return {};
}

Status CommandRecorder::upload(const Buffer& destination, uint64_t offset, const void* data, uint64_t size) {
    if (!impl_) return Status(StatusCode::InvalidArgument, "upload: the CommandRecorder is empty");
    if (Status s = checkRange("upload", destination, impl_->device, offset, size); !s) return s;
    if (size == 0) return {};
    if (!data) return Status(StatusCode::InvalidArgument, "upload: data is null");
    auto staging = impl_->device->backend->createBuffer(size, true);
    if (!staging) return staging.status();
    std::memcpy(staging.value()->mapped, data, size);
    std::shared_ptr<detail::BackendBuffer> stage(std::move(staging.value()));
    detail::BufferRange src{stage.get(), 0, size}, dst{detail::impl(destination)->buffer.get(), offset, size};
    detail::PendingCommand c;
    c.kind = detail::PendingCommand::Kind::Copy;
    c.ranges = {src, dst};
    impl_->add(std::move(c), {{src.buffer, 0, size, false}, {dst.buffer, offset, offset + size, true}});
    impl_->stats.copies++;
    impl_->uploads++;
    impl_->submission.keepAlive.push_back(stage);
    impl_->keepBuffer(detail::impl(destination));
    return {};
}

Status CommandRecorder::readback(const Buffer& source, uint64_t offset, void* data, uint64_t size) {
    if (!impl_) return Status(StatusCode::InvalidArgument, "readback: the CommandRecorder is empty");
    if (Status s = checkRange("readback", source, impl_->device, offset, size); !s) return s;
    if (size == 0) return {};
    if (!data) return Status(StatusCode::InvalidArgument, "readback: data is null");
    auto staging = impl_->device->backend->createBuffer(size, true);
    if (!staging) return staging.status();
    std::shared_ptr<detail::BackendBuffer> stage(std::move(staging.value()));
    detail::BufferRange src{detail::impl(source)->buffer.get(), offset, size}, dst{stage.get(), 0, size};
    detail::PendingCommand c;
    c.kind = detail::PendingCommand::Kind::Copy;
    c.ranges = {src, dst};
    impl_->add(std::move(c), {{src.buffer, offset, offset + size, false}, {dst.buffer, 0, size, true}});
    impl_->stats.copies++;
    impl_->submission.readbacks.push_back({stage, data, size});
    impl_->keepBuffer(detail::impl(source));
    return {};
}

Status CommandRecorder::fillBuffer(const Buffer& destination, uint64_t offset, uint64_t size,
                                   uint32_t value) {
    if (!impl_) return Status(StatusCode::InvalidArgument, "fillBuffer: the CommandRecorder is empty");
    if (Status s = checkRange("fillBuffer", destination, impl_->device, offset, size); !s) return s;
    if (size == 0) return {};
    detail::BufferRange dst{detail::impl(destination)->buffer.get(), offset, size};
    detail::PendingCommand c;
    c.kind = detail::PendingCommand::Kind::Fill;
    c.ranges = {dst};
    c.value = value;
    impl_->add(std::move(c), {{dst.buffer, offset, offset + size, true}});
    impl_->stats.fills++;
    impl_->keepBuffer(detail::impl(destination));
    return {};
}

Result<CommandRecorder> Device::createRecorder(const RecorderOptions& options) {
    if (!impl_) return Status(StatusCode::InvalidArgument, "createRecorder: the Device is empty");
    impl_->settle();
    if (options.timestamps && !adapter().features.timestamps)
        return Status(StatusCode::Unsupported,
                      "createRecorder: " + adapter().name + " has no compute timestamps");
    CommandRecorder r;
    detail::impl(r) = std::make_unique<detail::RecorderImpl>();
    detail::impl(r)->device = impl_;
    detail::impl(r)->options = options;
    return r;
}

Result<Ticket> Device::submit(CommandRecorder& recorder) {
    return detail::submitRecorder(*this, recorder, nullptr);
}

Result<Ticket> detail::submitRecorder(Device& device, CommandRecorder& recorder, const ExternalSync* sync) {
    const std::shared_ptr<DeviceImpl>& impl_ = detail::impl(device);
    if (!detail::impl(recorder) || !impl_ || detail::impl(recorder)->device != impl_)
        return Status(StatusCode::InvalidArgument,
                      "submit: the CommandRecorder is empty or from another Device");
    detail::RecorderImpl& r = *detail::impl(recorder);
    if (r.external)
        return Status(
            StatusCode::InvalidArgument,
            "submit: the CommandRecorder records into an engine's command buffer (interop::recordInto); "
            "close it with interop::endRecording and submit that command buffer yourself");
    impl_->settle();
    const bool timed = r.options.timestamps;
    auto list = impl_->backend->beginCommands(timed ? r.planner.levels() + 1 : 0);
    if (!list) return list.status();
    r.emit(*list.value(), timed);
    auto ticket = impl_->backend->submit(std::move(list.value()), sync); // an empty recording gets a ticket
    if (!ticket) { // its commands went into the list that failed: the recording is discarded, nothing runs
        r.reset();
        return ticket.status();
    }
    for (const auto& b : r.bound) detail::stampBuffer(*b, ticket.value());
    if (sync) r.submission.signals = sync->signals;
    impl_->track(ticket.value(), std::move(r.submission));
    r.reset();
    return Ticket{ticket.value()};
}

} // namespace ripple
