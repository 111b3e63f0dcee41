// Batching operators into one submission: a CommandRecorder records operators, copies and fills; the
// device submits it and returns a Ticket to wait on or poll.
#pragma once

#include "ripple/buffer.hpp"
#include "ripple/status.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ripple {

class Operator;

namespace detail {
struct RecorderImpl;
}

// A submission's place in the device's timeline (on Vulkan, a timeline-semaphore value). 0 is no ticket.
struct Ticket {
    uint64_t value = 0;
};

// What a recorder has recorded so far.
struct RecorderStatistics {
    uint32_t operators = 0;
    uint32_t dispatches = 0;
    uint32_t copies = 0;
    uint32_t fills = 0;
    // Barriers the recorder inserted because a command read or wrote a buffer range that an earlier command
    // wrote (or wrote one that an earlier command read): independent commands get none.
    uint32_t barriers = 0;
};

struct RecorderOptions {
    // Records GPU timestamps around each operator (up to maxTimedOperators of them); see Device::reports.
    bool timestamps = false;
    uint32_t maxTimedOperators = 1024;
};

// Records commands for one submission. Used by one thread at a time; several recorders of one device may
// record on several threads at once. Commands run in recording order wherever they touch the same bytes:
// the recorder inserts a barrier exactly where a command depends on an earlier one (read after write, write
// after read, write after write on overlapping ranges). Every buffer and operator recorded stays alive until
// the submission completes, even if the caller releases it.
class CommandRecorder {
  public:
    CommandRecorder();
    CommandRecorder(CommandRecorder&&) noexcept;
    CommandRecorder& operator=(CommandRecorder&&) noexcept;
    ~CommandRecorder();

    // Records `op` on tensors bound in Operator::tensorNames() order (the rules of Device::execute).
    // `label` names it in RenderDoc (VK_EXT_debug_utils) and in Device::reports.
    Status record(const Operator& op, const std::vector<TensorBinding>& bindings,
                  const std::string& label = {});
    // Copies `size` bytes (a multiple of 4) between buffers; offsets are multiples of 4.
    Status copyBuffer(const Buffer& source, uint64_t sourceOffset, const Buffer& destination,
                      uint64_t destinationOffset, uint64_t size);
    // Sets `size` bytes (a multiple of 4) from `offset` (a multiple of 4) to the 32-bit `value`.
    Status fillBuffer(const Buffer& destination, uint64_t offset, uint64_t size, uint32_t value);

    const RecorderStatistics& statistics() const;
    bool valid() const { return impl_ != nullptr; }

    std::unique_ptr<detail::RecorderImpl> impl_; // internal
};

// What one recorded operator did, once its submission completed.
struct OperatorReport {
    std::string label;           // the label given to record(), or the operator's name
    Status status;               // Ok, or IndexOutOfRange when its index data was out of range
    uint64_t gpuNanoseconds = 0; // with RecorderOptions::timestamps: GPU time from its first to last command
};

} // namespace ripple
