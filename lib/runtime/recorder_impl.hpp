// The recorder's state, shared by the recorder and the interop entry points.
#pragma once

#include "ripple/device.hpp"
#include "runtime/objects.hpp"

#include <cstring>

namespace ripple::detail {

struct Access {
    const BackendBuffer* buffer;
    uint64_t begin, end;
    bool write;
};

// Accesses since the last barrier; a new command that conflicts with one of them needs a barrier first.
class HazardTracker {
  public:
    bool conflicts(const std::vector<Access>& next) const {
        for (const Access& a : next)
            for (const Access& b : pending_)
                if (a.buffer == b.buffer && (a.write || b.write) && a.begin < b.end && b.begin < a.end)
                    return true;
        return false;
    }
    void add(const std::vector<Access>& next) { pending_.insert(pending_.end(), next.begin(), next.end()); }
    void clear() { pending_.clear(); }

  private:
    std::vector<Access> pending_;
};

constexpr uint32_t kStatusSlotsPerChunk = 256;

struct RecorderImpl {
    std::shared_ptr<DeviceImpl> device;
    RecorderOptions options;
    std::unique_ptr<BackendCommandList> list;
    HazardTracker hazards;
    RecorderStatistics stats;
    Submission submission;
    uint32_t statusUsed = kStatusSlotsPerChunk; // slots used in the last chunk
    uint32_t timedOps = 0;
    bool external = false; // records into an engine's command buffer (interop::recordInto)

    Status begin() {
        if (list) return {};
        auto l = device->backend->beginCommands(options.timestamps ? 2 * options.maxTimedOperators : 0);
        if (!l) return l.status();
        list = std::move(l.value());
        return {};
    }
    // Records one command's accesses: a barrier first if it depends on what is pending.
    void order(const std::vector<Access>& accesses) {
        if (hazards.conflicts(accesses)) {
            list->barrier();
            hazards.clear();
            ++stats.barriers;
        }
        hazards.add(accesses);
    }
    uint64_t statusStride() const { return device->bindingAlignment; }
    Result<BufferRange> statusSlot() {
        if (statusUsed == kStatusSlotsPerChunk) {
            auto chunk = device->backend->createBuffer(kStatusSlotsPerChunk * statusStride(), true);
            if (!chunk) return chunk.status();
            std::memset(chunk.value()->mapped, 0, chunk.value()->size);
            submission.statusChunks.push_back(std::shared_ptr<BackendBuffer>(std::move(chunk.value())));
            statusUsed = 0;
        }
        BackendBuffer* b = submission.statusChunks.back().get();
        return BufferRange{b, statusStride() * statusUsed++, 4};
    }
};

} // namespace ripple::detail
