// SPDX-License-Identifier: MIT
// Device::execute's kept recordings (runtime/replay.hpp).
#include "runtime/replay.hpp"
#include "runtime/access.hpp"
#include "runtime/recorder_impl.hpp"

#include <algorithm>
#include <cstring>

namespace ripple::detail {
namespace {

// Zeroes the replay's status words for its next run (record() took them zeroed).
void clearStatus(const Replay& r) {
    for (const Submission::Op& op : r.ops)
        if (op.statusBuffer) std::memset(static_cast<char*>(op.statusBuffer->mapped) + op.statusOffset, 0, 4);
}

// Records `op` on `bindings` as record() does, into a kept command list; the replay takes the scratch and
// status memory the recording names.
Result<std::unique_ptr<Replay>> makeReplay(Device& device, const Operator& op,
                                           const std::vector<TensorBinding>& bindings) {
    auto recorder = device.createRecorder();
    if (!recorder) return recorder.status();
    if (Status s = recorder->record(op, bindings); !s) return s;
    RecorderImpl& r = *detail::impl(recorder.value());
    auto list = detail::impl(device)->backend->beginRecording();
    if (!list) return list.status();
    r.emit(*list.value(), false);
    auto commands = detail::impl(device)->backend->endRecording(std::move(list.value()));
    if (!commands) return commands.status();
    auto replay = std::make_unique<Replay>();
    replay->commands = std::move(commands.value());
    replay->ops = r.submission.ops;
    replay->scratch = std::move(r.submission.scratch);
    replay->zeroedScratch = std::move(r.submission.zeroedScratch);
    replay->statusChunks = std::move(r.submission.statusChunks);
    r.reset();
    return replay;
}

} // namespace

Status executeReplay(Device& device, const Operator& op, const std::vector<TensorBinding>& bindings,
                     bool& handled) {
    handled = false;
    const std::shared_ptr<DeviceImpl>& dev = detail::impl(device);
    if (!dev || !dev->options.reuseCommandBuffers || !detail::impl(op) || detail::impl(op)->device != dev ||
        !detail::impl(op)->replay)
        return {};
    OperatorImpl& o = *detail::impl(op);
    if (!checkBindings(*dev, o.plan, bindings)) return {}; // the usual path reports it
    std::vector<std::pair<uint64_t, uint64_t>> key(bindings.size());
    for (size_t i = 0; i < bindings.size(); ++i)
        key[i] = {bindings[i].Buffer && detail::impl(*bindings[i].Buffer)
                      ? detail::impl(*bindings[i].Buffer)->id
                      : 0,
                  bindings[i].Offset};

    ReplayCache& cache = *o.replay;
    std::unique_lock<std::mutex> lock(cache.mutex);
    if (cache.unsupported) return {};
    if (cache.busy) {
        if (!cache.pending) return {}; // another thread's replay is in flight
        auto done = dev->backend->isComplete(cache.pendingTicket);
        if (!done || !done.value()) return {};
        clearStatus(*cache.pending);
        cache.pending = nullptr;
        cache.busy = false;
    }
    std::vector<std::shared_ptr<void>> keepAlive{
        detail::impl(op)}; // until completion, as record() keeps them
    Replay* replay = nullptr;
    for (auto& r : cache.replays)
        if (r->key == key) replay = r.get();
    if (replay) { // ids are never reused, so the buffers are alive; checked all the same
        for (size_t i = 0; replay && i < key.size(); ++i) {
            if (!key[i].first) continue;
            std::shared_ptr<BufferImpl> b = replay->buffers[i].lock();
            if (b)
                keepAlive.push_back(std::move(b));
            else
                replay = nullptr;
        }
        keepAlive.resize(replay ? keepAlive.size() : 1);
    }
    if (!replay) {
        const uint64_t bytes = o.plan.scratchBytes + o.plan.zeroedScratchBytes;
        if (bytes > cache.maxScratchBytes) {
            cache.unsupported = true;
            return {};
        }
        // Room for it: the least recently used go (none is in flight: the cache is not busy).
        while (!cache.replays.empty() && (cache.replays.size() >= ReplayCache::kMaxReplays ||
                                          cache.scratchBytes + bytes > cache.maxScratchBytes)) {
            auto oldest =
                std::min_element(cache.replays.begin(), cache.replays.end(),
                                 [](const auto& a, const auto& b) { return a->lastUse < b->lastUse; });
            cache.scratchBytes -= o.plan.scratchBytes + o.plan.zeroedScratchBytes;
            // Its scratch goes back to the device's pools (zeroed scratch is zero again after a run), so
            // that the replay made next takes it instead of allocating: an operator over half the kept
            // scratch, run on two binding sets in turn, allocated 66 MB each execute() (H200 under
            // mobile-vk11, (4096,4096) K=256: 1835 us of host time for 183 us of GPU; bench/NOTES.md).
            {
                std::lock_guard<std::mutex> pools(dev->mutex);
                for (auto& b : (*oldest)->scratch) dev->scratchPool.emplace(b->size, std::move(b));
                for (auto& b : (*oldest)->zeroedScratch) dev->zeroedPool.emplace(b->size, std::move(b));
            }
            cache.replays.erase(oldest);
        }
        auto made = makeReplay(device, op, bindings);
        if (!made) { // a back-end that keeps no recordings: the usual path, now and later; else the error
            if (made.status().code() != StatusCode::Unsupported) {
                handled = true;
                return made.status();
            }
            cache.unsupported = true;
            return {};
        }
        made.value()->key = key;
        made.value()->buffers.resize(bindings.size());
        for (size_t i = 0; i < bindings.size(); ++i)
            if (key[i].first) {
                made.value()->buffers[i] = detail::impl(*bindings[i].Buffer);
                keepAlive.push_back(detail::impl(*bindings[i].Buffer));
            }
        cache.scratchBytes += bytes;
        replay = made.value().get();
        cache.replays.push_back(std::move(made.value()));
    }
    replay->lastUse = ++cache.uses;
    cache.busy = true;
    lock.unlock();

    handled = true;
    auto ticket = dev->backend->submitRecording(*replay->commands);
    if (!ticket) {
        lock.lock();
        cache.busy = false;
        return ticket.status();
    }
    Submission s;
    s.ops = replay->ops;
    s.keepAlive = std::move(keepAlive);
    dev->track(ticket.value(), std::move(s));
    for (const TensorBinding& b : bindings)
        if (b.Buffer && detail::impl(*b.Buffer)) stampBuffer(*detail::impl(*b.Buffer), ticket.value());
    Status result = device.wait(Ticket{ticket.value()});
    lock.lock();
    // Ok or IndexOutOfRange: the wait saw it complete; else ask (a timeout, a lost device).
    bool complete = result.ok() || result.code() == StatusCode::IndexOutOfRange;
    if (!complete) {
        auto done = dev->backend->isComplete(ticket.value());
        complete = done && done.value();
    }
    if (complete) {
        clearStatus(*replay);
        cache.busy = false;
    } else { // the wait failed (timeout, lost device): the next execute() frees it once it completes
        cache.pending = replay;
        cache.pendingTicket = ticket.value();
    }
    return result;
}

} // namespace ripple::detail
