// SPDX-License-Identifier: MIT
// Submissions in flight until they complete: tracking what they use, turning status words into reports,
// delivering readbacks (however completion was seen), and Device::wait, isComplete and reports.
#include "ripple/device.hpp"
#include "runtime/access.hpp"
#include "runtime/objects.hpp"

#include <chrono>
#include <cstring>
#include <thread>

namespace ripple {
namespace detail {
std::vector<std::shared_ptr<void>> DeviceImpl::finishOne(Submission& s, const std::vector<uint64_t>& times) {
    for (const Submission::Op& op : s.allOps()) {
        OperatorReport r;
        r.label = op.label;
        uint32_t flags = 0;
        if (op.statusBuffer)
            std::memcpy(&flags, static_cast<char*>(op.statusBuffer->mapped) + op.statusOffset, 4);
        if (flags & 16u) ++refusedDispatches;
        if (flags & 4u) // glsl/scatter_count.comp (out-of-range indices, below, take precedence)
            r.status = Status(StatusCode::InvalidArgument,
                              op.label + ": CountTensor's count exceeds the update rows the operator has; it "
                                         "was clamped to them, and all of them were applied");
        if (flags & 8u) // glsl/topk_count_mask.comp
            r.status = Status(StatusCode::InvalidArgument,
                              op.label + ": CountTensor's count exceeds InputTensor.Sizes[Axis]; it was "
                                         "clamped to it, and every element was present");
        if (flags & 1u)
            r.status =
                Status(StatusCode::IndexOutOfRange,
                       op.label + ": IndicesTensor holds values outside [-size, size) of the dimension they "
                                  "index; those updates were dropped, all others written");
        if (flags & 16u) // glsl/dispatch_clamp.comp
            r.status = Status(StatusCode::InvalidArgument,
                              op.label + ": the group counts read from IndirectBuffer exceed the device's "
                                         "maxComputeWorkGroupCount or DeviceOptions::maxDispatchWorkgroups "
                                         "in total; the dispatch launched nothing");
        if (op.firstLevel >= 0 && static_cast<size_t>(op.lastLevel + 1) < times.size()) {
            r.gpuBeginNanoseconds = times[static_cast<size_t>(op.firstLevel)];
            r.gpuEndNanoseconds = times[static_cast<size_t>(op.lastLevel + 1)];
            r.gpuNanoseconds = r.gpuEndNanoseconds - r.gpuBeginNanoseconds;
            for (int32_t l = op.firstLevel; l <= op.lastLevel; ++l)
                r.levelNanoseconds.push_back(times[static_cast<size_t>(l + 1)] -
                                             times[static_cast<size_t>(l)]);
        }
        for (const Submission::Op::Profiled& p : op.profiled) {
            DispatchProfile d;
            d.kernel = p.kernel;
            d.level = p.level;
            if (p.level < times.size()) d.levelBeginNanoseconds = times[p.level];
            const uint32_t* w = static_cast<const uint32_t*>(p.records->mapped);
            auto at = [&](uint32_t g, uint32_t word) { // a 64-bit clock, low word first
                return uint64_t(w[g * 16 + word]) | uint64_t(w[g * 16 + word + 1]) << 32;
            };
            d.workgroups.resize(p.groups);
            for (uint32_t g = 0; g < p.groups; ++g) {
                if (w[g * 16 + 1] != 1) continue; // no record: start stays 0
                WorkgroupProfile& wg = d.workgroups[g];
                wg.sm = w[g * 16];
                wg.startNanoseconds = at(g, 2);
                wg.endNanoseconds = at(g, 4);
                for (uint32_t m = 0; m < 4; ++m) wg.markNanoseconds[m] = at(g, 6 + 2 * m);
                wg.smCycles = at(g, 14);
            }
            r.dispatches.push_back(std::move(d));
        }
        if (s.first.ok() && !r.status.ok()) s.first = r.status;
        s.reports.push_back(std::move(r));
    }
    for (const Submission::Readback& r : s.readbacks) std::memcpy(r.destination, r.staging->mapped, r.size);
    s.readbacks.clear();
    if (s.countedReadbacks) --readbackSubmissions;
    s.countedReadbacks = false;

    for (auto& b : s.scratch) scratchPool.emplace(b->size, std::move(b));
    s.scratch.clear();
    for (auto& b : s.zeroedScratch) zeroedPool.emplace(b->size, std::move(b));
    s.zeroedScratch.clear();
    for (auto& c : s.statusChunks) { // zeroed again for the next recordings; a few are kept
        if (statusPool.size() >= 16) break;
        std::memset(c->mapped, 0, c->size);
        statusPool.push_back(std::move(c));
    }
    s.statusChunks.clear();
    s.finished = true;
    std::vector<std::shared_ptr<void>> released;
    released.swap(s.keepAlive);
    return released;
}

void DeviceImpl::finish(uint64_t ticket) {
    std::vector<std::shared_ptr<void>> released; // destroyed after the lock is dropped
    std::lock_guard<std::mutex> lock(mutex);
    for (auto t = unfinished.begin(); t != unfinished.end() && *t <= ticket; t = unfinished.erase(t)) {
        auto it = submissions.find(*t);
        if (it == submissions.end()) continue;
        auto r = finishOne(it->second, backend->timestamps(*t));
        released.insert(released.end(), r.begin(), r.end());
        ++finishedCount;
    }
    // Keep the reports of the last 256 finished submissions (the oldest come first).
    for (auto it = submissions.begin(); finishedCount > 256 && it != submissions.end();) {
        if (it->second.finished) {
            it = submissions.erase(it);
            --finishedCount;
        } else {
            ++it;
        }
    }
}

void DeviceImpl::settle() {
    if (readbackSubmissions.load(std::memory_order_relaxed) == 0) return;
    std::vector<uint64_t> tickets;
    {
        std::lock_guard<std::mutex> lock(mutex);
        for (uint64_t t : unfinished) {
            auto it = submissions.find(t);
            if (it != submissions.end() && it->second.countedReadbacks) tickets.push_back(t);
        }
    }
    uint64_t last = 0;
    for (uint64_t t : tickets) { // in ticket order: the first incomplete one ends the walk
        auto done = backend->isComplete(t, false);
        if (!done || !done.value()) break;
        last = t;
    }
    if (last) finish(last);
}

Status DeviceImpl::waitForBuffer(const char* what, const BufferImpl& buffer, uint64_t timeoutNs,
                                 uint64_t* leftNs) {
    *leftNs = timeoutNs;
    const uint64_t ticket = buffer.lastTicket.load();
    if (!ticket) return {};
    auto done = backend->isComplete(ticket);
    if (!done) return done.status();
    if (!done.value()) {
        const auto start = std::chrono::steady_clock::now();
        if (Status s = backend->wait(ticket, timeoutNs); !s) {
            if (s.code() != StatusCode::Timeout) return s;
            return Status(StatusCode::Timeout,
                          std::string(what) + ": the Buffer is in use by ticket " + std::to_string(ticket) +
                              ", which did not complete within " + std::to_string(timeoutNs / 1000000) +
                              " ms (a submission that waits on an engine's semaphore or fence completes only "
                              "after it is signalled)");
        }
        const uint64_t spent =
            static_cast<uint64_t>(std::chrono::nanoseconds(std::chrono::steady_clock::now() - start).count());
        *leftNs = timeoutNs > spent ? timeoutNs - spent : 0;
    }
    finish(ticket);
    return {};
}

void DeviceImpl::track(uint64_t ticket, Submission submission) {
    if (!submission.readbacks.empty()) {
        submission.countedReadbacks = true;
        ++readbackSubmissions;
    }
    std::lock_guard<std::mutex> lock(mutex);
    submissions[ticket] = std::move(submission);
    unfinished.insert(ticket);
    lastTicket = std::max(lastTicket, ticket);
}

} // namespace detail

// A ticket this device never returned from submit (0, a made-up value, a later one) is refused at once
// rather than waited on until the timeout.
static Status checkTicket(const char* what, const std::shared_ptr<detail::DeviceImpl>& device,
                          Ticket ticket) {
    if (!device) return Status(StatusCode::InvalidArgument, std::string(what) + ": the Device is empty");
    std::lock_guard<std::mutex> lock(device->mutex);
    if (ticket.value == 0 || ticket.value > device->lastTicket)
        return Status(StatusCode::InvalidArgument, std::string(what) + ": ticket " +
                                                       std::to_string(ticket.value) +
                                                       " was never issued by this Device's submit");
    return {};
}

Status Device::wait(Ticket ticket, uint64_t timeoutNs) {
    if (Status s = checkTicket("wait", impl_, ticket); !s) return s;
    // Poll first: a thread blocked in the driver wakes tens of microseconds after completion.
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    // Not on a CPU adapter (lavapipe): its work runs on the host's cores, which polling would take from it.
    const bool cpu = impl_->backend->adapter().type == AdapterType::Cpu;
    const uint64_t pollNs =
        cpu ? 0 : std::min<uint64_t>(impl_->options.waitPollMicroseconds * 1000ull, timeoutNs);
    bool complete = false;
    for (;;) {
        const auto polled = static_cast<uint64_t>(std::chrono::nanoseconds(clock::now() - start).count());
        if (polled >= pollNs) break;
        auto done = impl_->backend->isComplete(ticket.value); // retires the submission once complete
        if (!done) return done.status();
        if ((complete = done.value())) break;
        // Spin for the first millisecond (most operators end within it), then leave the core to others
        // between polls: a yield can keep the thread off its core well past the GPU's completion (0-25 us
        // late on the H100 for 300-800 us operators that passed a 200 us spin, bench/NOTES.md "Issue 19,
        // continued: kept recordings").
        if (polled > 1000000) std::this_thread::yield();
    }
    const uint64_t spent = static_cast<uint64_t>(std::chrono::nanoseconds(clock::now() - start).count());
    if (!complete) {
        if (Status s = impl_->backend->wait(ticket.value, timeoutNs > spent ? timeoutNs - spent : 0); !s)
            return s;
    }
    impl_->finish(ticket.value);
    std::vector<detail::ExternalSync::Signal> signals;
    Status first;
    {
        std::lock_guard<std::mutex> lock(impl_->mutex);
        auto it = impl_->submissions.find(ticket.value);
        if (it != impl_->submissions.end()) {
            signals = it->second.signals;
            first = it->second.first;
        }
    }
    // The engine's timeline values too: within one submission, Vulkan orders no signal before another.
    if (!signals.empty()) {
        const uint64_t spent = static_cast<uint64_t>(std::chrono::nanoseconds(clock::now() - start).count());
        if (Status s = impl_->backend->waitSignals(signals, timeoutNs > spent ? timeoutNs - spent : 0); !s)
            return s;
    }
    return first;
}

Result<bool> Device::isComplete(Ticket ticket) {
    if (Status s = checkTicket("isComplete", impl_, ticket); !s) return s;
    auto done = impl_->backend->isComplete(ticket.value);
    if (!done) return done.status();
    if (!done.value()) return false;
    impl_->finish(ticket.value);
    std::vector<detail::ExternalSync::Signal> signals;
    {
        std::lock_guard<std::mutex> lock(impl_->mutex);
        auto it = impl_->submissions.find(ticket.value);
        if (it != impl_->submissions.end()) signals = it->second.signals;
    }
    if (signals.empty()) return true;
    return impl_->backend->signalsReached(signals);
}

Result<std::vector<OperatorReport>> Device::reports(Ticket ticket) {
    auto done = isComplete(ticket);
    if (!done) return done.status();
    if (!done.value())
        return Status(StatusCode::InvalidArgument, "reports: the ticket has not completed yet");
    std::lock_guard<std::mutex> lock(impl_->mutex);
    auto it = impl_->submissions.find(ticket.value);
    if (it == impl_->submissions.end())
        return Status(StatusCode::InvalidArgument, "reports: ticket " + std::to_string(ticket.value) +
                                                       " is unknown or older than the last 256 submissions");
    return it->second.reports;
}

} // namespace ripple
