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

// Records `op` on `bindings` as record() does, into a kept command list, naming the cache's scratch (made
// by the first recording); the replay takes the status memory the recording names.
Result<std::unique_ptr<Replay>> makeReplay(Device& device, const Operator& op,
                                           const std::vector<TensorBinding>& bindings, ReplayCache& cache) {
    auto recorder = device.createRecorder();
    if (!recorder) return recorder.status();
    RecorderImpl& r = *detail::impl(recorder.value());
    // One of each is offered; none is dropped here (the kept recordings may name them).
    if (!cache.scratch.empty()) {
        r.offeredScratch = std::move(cache.scratch.back());
        cache.scratch.pop_back();
    }
    if (!cache.zeroedScratch.empty()) {
        r.offeredZeroedScratch = std::move(cache.zeroedScratch.back());
        cache.zeroedScratch.pop_back();
    }
    Status recorded = recorder->record(op, bindings);
    // The scratch comes back to the cache whatever happened: taken by the recording, or still offered.
    auto takeBack = [&] {
        for (auto& b : r.submission.scratch) cache.scratch.push_back(std::move(b));
        for (auto& b : r.submission.zeroedScratch) cache.zeroedScratch.push_back(std::move(b));
        if (r.offeredScratch) cache.scratch.push_back(std::move(r.offeredScratch));
        if (r.offeredZeroedScratch) cache.zeroedScratch.push_back(std::move(r.offeredZeroedScratch));
        r.submission.scratch.clear();
        r.submission.zeroedScratch.clear();
    };
    if (!recorded) {
        takeBack();
        return recorded;
    }
    auto list = detail::impl(device)->backend->beginRecording();
    if (!list) {
        takeBack();
        return list.status();
    }
    r.emit(*list.value(), false);
    auto commands = detail::impl(device)->backend->endRecording(std::move(list.value()));
    takeBack();
    if (!commands) return commands.status();
    auto replay = std::make_unique<Replay>();
    replay->commands = std::move(commands.value());
    replay->ops = r.submission.ops;
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
        // Room for it: the least recently used goes (none is in flight: the cache is not busy). The
        // scratch stays with the cache.
        if (cache.replays.size() >= ReplayCache::kMaxReplays) {
            auto oldest =
                std::min_element(cache.replays.begin(), cache.replays.end(),
                                 [](const auto& a, const auto& b) { return a->lastUse < b->lastUse; });
            cache.replays.erase(oldest);
        }
        auto made = makeReplay(device, op, bindings, cache);
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
