// SPDX-License-Identifier: MIT
// Device::execute's kept recordings (DeviceOptions::reuseCommandBuffers). Recording an operator's passes
// into a command buffer costs the host more than submitting it (2-5 us a pass on the H100, NVIDIA 580;
// bench/NOTES.md "Issue 19, continued: kept recordings"). execute() keeps the command buffer it recorded
// for an operator and its bindings, with the scratch and status memory the recording names, and submits
// it again when the same bindings come back.
#pragma once

#include "runtime/objects.hpp"

#include <memory>
#include <mutex>

namespace ripple::detail {

// One kept recording: the operator on one set of bindings.
struct Replay {
    std::vector<std::pair<uint64_t, uint64_t>> key; // per binding: BufferImpl::id (0: none), Offset
    std::vector<std::weak_ptr<BufferImpl>> buffers; // the bound buffers, not kept alive by the cache
    std::unique_ptr<BackendRecording> commands;
    std::vector<Submission::Op> ops; // labels and status words, as record() made them
    std::vector<std::shared_ptr<BackendBuffer>> statusChunks;
    uint64_t lastUse = 0;
};

// An operator's kept recordings. At most one of its replays is in flight at a time, so all of them name
// the same scratch and zeroed scratch (zero again after each run): an operator keeps one plan's scratch
// however many binding sets it has. With a copy each, an operator over half of maxScratchBytes, run on two
// binding sets in turn, recorded again on every execute() (H200 under mobile-vk11, (4096,4096) K=256:
// 20-44 us of host time over the GPU's; bench/NOTES.md).
struct ReplayCache {
    static constexpr size_t kMaxReplays = 16; // binding sets per operator
    uint64_t maxScratchBytes = 64ull << 20;   // an operator's plan with more scratch keeps no recordings
    std::mutex mutex;                         // guards what follows
    std::vector<std::unique_ptr<BackendBuffer>> scratch, zeroedScratch; // named by every replay's commands
    bool unsupported = false;  // the back-end keeps no recordings, or the scratch is too large
    bool busy = false;         // a replay is in flight
    Replay* pending = nullptr; // in flight after its wait failed (timeout): freed once it completes
    uint64_t pendingTicket = 0;
    uint64_t uses = 0;
    std::vector<std::unique_ptr<Replay>> replays;
};

// Runs `op` on `bindings` through a kept recording, making it first if needed. `handled` false: the
// caller records as usual (replays off or unsupported, the operator busy on another thread, invalid
// bindings, which the usual path reports).
Status executeReplay(Device& device, const Operator& op, const std::vector<TensorBinding>& bindings,
                     bool& handled);

} // namespace ripple::detail
