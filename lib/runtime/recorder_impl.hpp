// SPDX-License-Identifier: MIT
// The recorder's state, shared by the recorder and the interop entry points.
#pragma once

#include "ripple/device.hpp"
#include "runtime/objects.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <unordered_map>

namespace ripple::detail {

struct Access {
    const BackendBuffer* buffer;
    uint64_t begin, end;
    bool write;
};

// Places each command one level after the latest earlier command it conflicts with: it reads bytes an
// earlier command wrote, or writes bytes an earlier command read or wrote. Commands of one level never
// conflict, so each level runs with no barrier inside it and one barrier between levels. Independent work
// (the passes of unrelated operators) lands on the same levels instead of queueing behind each other's
// barriers, which are global on the GPU.
class LevelPlanner {
  public:
    uint32_t place(const std::vector<Access>& accesses) {
        uint32_t level = 0;
        for (const Access& a : accesses) {
            auto it = buffers_.find(a.buffer);
            if (it == buffers_.end()) continue;
            level = std::max(level, it->second.writes.after(a));             // RAW, WAW
            if (a.write) level = std::max(level, it->second.reads.after(a)); // WAR
        }
        for (const Access& a : accesses) {
            Touches& t = buffers_[a.buffer];
            (a.write ? t.writes : t.reads).add(a, level);
        }
        levels_ = std::max(levels_, level + 1);
        return level;
    }
    uint32_t levels() const { return levels_; }
    void clear() {
        buffers_.clear();
        levels_ = 0;
    }

  private:
    // Ranges of one buffer by start offset: a query visits only those that may overlap it.
    struct Ranges {
        std::multimap<uint64_t, std::pair<uint64_t, uint32_t>> byBegin; // begin -> (end, level)
        uint64_t longest = 0;
        // The lowest level after every range overlapping `a` (0 if none).
        uint32_t after(const Access& a) const {
            uint32_t level = 0;
            auto it = byBegin.lower_bound(a.begin >= longest ? a.begin - longest : 0);
            for (; it != byBegin.end() && it->first < a.end; ++it)
                if (it->second.first > a.begin) level = std::max(level, it->second.second + 1);
            return level;
        }
        void add(const Access& a, uint32_t level) {
            byBegin.emplace(a.begin, std::make_pair(a.end, level));
            longest = std::max(longest, a.end - a.begin);
        }
    };
    struct Touches {
        Ranges reads, writes;
    };
    std::unordered_map<const BackendBuffer*, Touches> buffers_;
    uint32_t levels_ = 0;
};

struct PendingCommand {
    enum class Kind { Dispatch, Fill, Copy } kind = Kind::Dispatch;
    const kernels::KernelInfo* kernel = nullptr;
    std::vector<BufferRange> ranges; // dispatch: by binding; copy: source, destination; fill: destination
    // Push constants: operators' paramsBase, arg, groupCount; users' kernels up to 128 bytes (Vulkan's
    // guaranteed maxPushConstantsSize).
    std::array<uint32_t, 32> push{};
    uint32_t groups[3] = {1, 1, 1};
    BufferRange indirect; // a dispatch's group counts on the GPU (buffer null: `groups`)
    uint32_t value = 0;   // fill
    uint32_t level = 0;
    int32_t op = -1; // index in the submission's ops, for its label
};

// Records `commands` into `out`: level by level, a barrier between levels, and with timestamps one at the
// start of each level and one at the end (levels + 1 slots). `ops` gives the labels.
inline void emitCommands(const std::vector<PendingCommand>& commands, uint32_t levels,
                         const std::vector<Submission::Op>& ops, BackendCommandList& out, bool timestamps) {
    std::vector<uint32_t> count(levels + 1, 0);
    for (const PendingCommand& c : commands) ++count[c.level + 1];
    for (uint32_t l = 1; l <= levels; ++l) count[l] += count[l - 1];
    std::vector<const PendingCommand*> order(commands.size());
    for (const PendingCommand& c : commands) order[count[c.level]++] = &c; // stable within a level
    uint32_t level = UINT32_MAX;
    for (const PendingCommand* c : order) {
        if (c->level != level) {
            if (level != UINT32_MAX) out.barrier();
            level = c->level;
            if (timestamps) out.timestamp(level);
        }
        const std::string* label = c->op >= 0 ? &ops[static_cast<size_t>(c->op)].label : nullptr;
        if (label) out.beginLabel(*label);
        switch (c->kind) {
        case PendingCommand::Kind::Dispatch:
            out.dispatch(*c->kernel, c->ranges, c->push.data(), c->groups,
                         c->indirect.buffer ? &c->indirect : nullptr);
            break;
        case PendingCommand::Kind::Fill:
            out.fill(c->ranges[0], c->value);
            break;
        case PendingCommand::Kind::Copy:
            out.copy(c->ranges[0], c->ranges[1]);
            break;
        }
        if (label) out.endLabel();
    }
    if (timestamps && levels) {
        out.barrier(); // the last timestamp after every command has finished
        out.timestamp(levels);
    }
    out.hostReadBarrier(); // status words are read on the host
}

constexpr uint32_t kStatusSlotsPerChunk = 256;

struct RecorderImpl {
    std::shared_ptr<DeviceImpl> device;
    RecorderOptions options;
    std::unique_ptr<BackendCommandList> list; // only for an engine's command buffer; else made at submit
    LevelPlanner planner;
    std::vector<PendingCommand> commands;
    RecorderStatistics stats;
    Submission submission;
    uint32_t statusUsed = kStatusSlotsPerChunk; // slots used in the last chunk
    bool external = false; // records into an engine's command buffer (interop::recordInto)
    uint32_t uploads = 0;  // upload() commands since the last submit (a Recording takes none)
    // The users' buffers recorded (also in submission.keepAlive): a Recording holds them weakly.
    std::vector<std::shared_ptr<BufferImpl>> bound;
    // Scratch that the next record() takes before the device's pools, where it is large enough: the
    // scratch an operator's kept recordings share (runtime/replay.hpp). Offered zeroed scratch is zero.
    std::unique_ptr<BackendBuffer> offeredScratch, offeredZeroedScratch;

    void keepBuffer(const std::shared_ptr<BufferImpl>& b) {
        submission.keepAlive.push_back(b);
        bound.push_back(b);
    }

    // Queues a command at its level; commands reach the command list at submit, level by level.
    void add(PendingCommand c, const std::vector<Access>& accesses) {
        c.level = planner.place(accesses);
        if (c.op >= 0) {
            Submission::Op& op = submission.ops[static_cast<size_t>(c.op)];
            op.firstLevel =
                op.firstLevel < 0 ? static_cast<int32_t>(c.level) : std::min<int32_t>(op.firstLevel, c.level);
            op.lastLevel = std::max<int32_t>(op.lastLevel, static_cast<int32_t>(c.level));
        }
        commands.push_back(std::move(c));
        stats.barriers = planner.levels() - 1;
    }
    // Records the queued commands into `out` (emitCommands) and clears them for the next recording.
    void emit(BackendCommandList& out, bool timestamps) {
        emitCommands(commands, planner.levels(), submission.ops, out, timestamps);
        commands.clear();
        planner.clear();
    }
    // Empty again for the next recording, after a submit (which took the submission) or a failed one.
    void reset() {
        submission = {};
        stats = {};
        uploads = 0;
        bound.clear();
        statusUsed = kStatusSlotsPerChunk;
    }
    uint64_t statusStride() const { return device->bindingAlignment; }
    // The PROFILE permutation of `k` (RecorderOptions::profile), its pipeline ready; nullptr where the build
    // has none or the device cannot run it.
    const kernels::KernelInfo* profileKernel(const kernels::KernelInfo& k) {
        if (!device->backend->adapter().features.profiling) return nullptr;
        const kernels::KernelInfo* p = kernels::findKernel(std::string(k.name) + ".profile");
        if (!p || !device->backend->preparePipeline(*p)) return nullptr;
        return p;
    }
    Result<BufferRange> statusSlot() {
        if (statusUsed == kStatusSlotsPerChunk) { // a zeroed chunk from the device's pool, or a new one
            std::shared_ptr<BackendBuffer> chunk;
            {
                std::lock_guard<std::mutex> lock(device->mutex);
                if (!device->statusPool.empty()) {
                    chunk = std::move(device->statusPool.back());
                    device->statusPool.pop_back();
                }
            }
            if (!chunk) {
                auto made = device->backend->createBuffer(kStatusSlotsPerChunk * statusStride(), true);
                if (!made) return made.status();
                std::memset(made.value()->mapped, 0, made.value()->size);
                chunk = std::move(made.value());
            }
            submission.statusChunks.push_back(std::move(chunk));
            statusUsed = 0;
        }
        BackendBuffer* b = submission.statusChunks.back().get();
        // Word 0: the flags (finishOne reads them); word 1: a scatter's GPU-side count (scatter_count.comp).
        return BufferRange{b, statusStride() * statusUsed++, 8};
    }
};

// Device::submit(CommandRecorder&) and submit(Recording&), also waiting on and signalling an engine's
// synchronisation objects (interop/vulkan.hpp, interop/d3d12.hpp); `sync` may be null.
Result<Ticket> submitRecorder(Device& device, CommandRecorder& recorder, const ExternalSync* sync);
Result<Ticket> submitRecording(Device& device, Recording& recording, const ExternalSync* sync);

} // namespace ripple::detail
