// SPDX-License-Identifier: MIT
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
    uint32_t copies = 0; // copyBuffer, upload and readback
    uint32_t fills = 0;
    // Barriers the submission will have. Each command runs one level after the latest earlier command it
    // depends on (it reads bytes an earlier one wrote, or writes bytes an earlier one read or wrote), with
    // one barrier between levels: independent commands share levels and get no barrier between them.
    uint32_t barriers = 0;
};

struct RecorderOptions {
    // Records GPU timestamps so that Device::reports gives each operator's GPU time.
    bool timestamps = false;
};

// Records commands for one submission. Used by one thread at a time; several recorders of one device may
// record on several threads at once. Commands run in recording order wherever they touch the same bytes
// (read after write, write after read, write after write on overlapping ranges); independent commands may
// run together, in any order. Every buffer and operator recorded stays alive until
// the submission completes, even if the caller releases it.
class RIPPLE_API CommandRecorder {
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
    // Copies `size` bytes of host memory into the buffer when the submission runs; `data` is read now.
    Status upload(const Buffer& destination, uint64_t offset, const void* data, uint64_t size);
    // Copies `size` bytes of the buffer to host memory `data` when the submission runs; `data` is written
    // when Device::wait or isComplete first sees the ticket complete, and must stay valid until then.
    Status readback(const Buffer& source, uint64_t offset, void* data, uint64_t size);
    // Sets `size` bytes (a multiple of 4) from `offset` (a multiple of 4) to the 32-bit `value`.
    Status fillBuffer(const Buffer& destination, uint64_t offset, uint64_t size, uint32_t value);

    const RecorderStatistics& statistics() const;
    bool valid() const { return impl_ != nullptr; }

    std::unique_ptr<detail::RecorderImpl> impl_; // internal
};

// What one recorded operator did, once its submission completed.
struct OperatorReport {
    std::string label; // the label given to record(), or the operator's name
    Status status;     // Ok, or IndexOutOfRange when its index data was out of range
    // With RecorderOptions::timestamps: GPU time from the start of the level holding its first command to the
    // end of the level holding its last (levels: see RecorderStatistics::barriers).
    uint64_t gpuNanoseconds = 0;
    // With timestamps: the device clock (ns) at its first and last command; spans of a batch compare.
    uint64_t gpuBeginNanoseconds = 0, gpuEndNanoseconds = 0;
    // With timestamps: GPU nanoseconds of each level it spans, in order (for an operator recorded alone, one
    // entry per dispatch of its plan: where its time goes).
    std::vector<uint64_t> levelNanoseconds;
};

} // namespace ripple
