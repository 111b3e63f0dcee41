// SPDX-License-Identifier: MIT
/// @file
/// @brief Batching: a CommandRecorder records operators, copies, uploads, readbacks and fills for one
/// submission; the device submits it and returns a Ticket to wait on or poll.
#pragma once

#include "ripple/buffer.hpp"
#include "ripple/export.hpp"
#include "ripple/kernel.hpp"
#include "ripple/status.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ripple {

class Operator;

/// @cond RIPPLE_INTERNAL
namespace detail {
struct ImplAccess;
struct RecorderImpl;
} // namespace detail
/// @endcond

/// A submission's place in its device's timeline (on Vulkan, a timeline-semaphore value, or on a device
/// without timeline semaphores the number of a submission that signals a fence; on D3D12, a fence value).
/// Returned by Device::submit; passed to Device::wait, isComplete and reports.
struct Ticket {
    uint64_t value = 0; ///< the timeline value; 0 is no ticket
};

/// What a recorder has recorded so far (CommandRecorder::statistics()).
struct RecorderStatistics {
    uint32_t operators = 0;  ///< operators recorded
    uint32_t dispatches = 0; ///< compute dispatches they need
    uint32_t copies = 0;     ///< copyBuffer, upload and readback commands
    uint32_t fills = 0;      ///< fillBuffer commands (and fills operators need)
    /// Barriers the submission will have. Each command runs one level after the latest earlier command it
    /// depends on (it reads bytes an earlier one wrote, or writes bytes an earlier one read or wrote), with
    /// one barrier between levels: independent commands share levels and get no barrier between them.
    uint32_t barriers = 0;
};

/// Options of Device::createRecorder.
struct RecorderOptions {
    /// Records GPU timestamps so that Device::reports gives each operator's GPU time (needs
    /// AdapterFeatures::timestamps; otherwise the times are 0).
    bool timestamps = false;
    /// Runs each dispatch's PROFILE permutation, which records per workgroup its SM and its start and end
    /// on the device's clock (OperatorReport::dispatches). Needs a build with RIPPLE_PROFILE_KERNELS and a
    /// device with AdapterFeatures::profiling; elsewhere the normal kernels run and the reports carry no
    /// dispatches. A tool for finding where kernel time goes (bench/ripple_profile.cpp, docs/PROFILING.md),
    /// not for production: each workgroup writes 64 bytes to host-visible memory.
    bool profile = false;
};

/// Records commands for one submission; Device::submit submits them and empties the recorder for reuse.
/// Commands run in recording order wherever they touch the same bytes (read after write, write after read,
/// write after write on overlapping ranges); independent commands may run together, in any order. Every
/// buffer and operator recorded stays alive until the submission completes, even if the caller releases
/// it. Each call validates its arguments and returns InvalidArgument naming the argument and the rule
/// (nothing is recorded then); on an empty recorder (default-constructed or moved from) every call returns
/// InvalidArgument.
///
/// Thread safety: a recorder is used by one thread at a time; several recorders of one device may record
/// on several threads at once.
class RIPPLE_API CommandRecorder {
  public:
    /// An empty recorder (valid() is false); get a usable one from Device::createRecorder.
    CommandRecorder();
    /// Takes `other`'s recording; `other` becomes empty.
    CommandRecorder(CommandRecorder&& other) noexcept;
    /// Drops this recorder's unsubmitted commands and takes `other`'s.
    CommandRecorder& operator=(CommandRecorder&& other) noexcept;
    /// Drops unsubmitted commands (nothing runs).
    ~CommandRecorder();

    /// Records `op` on tensors bound in Operator::tensorNames() order, by the rules of Device::execute.
    /// @param op a valid operator of this recorder's device
    /// @param bindings one TensorBinding per tensor, in Operator::tensorNames() order
    /// @param label names the operator in RenderDoc (VK_EXT_debug_utils) and in Device::reports; empty:
    ///        the operator's name
    /// @return InvalidArgument for an empty operator, another device's operator, or a binding that breaks
    ///         Device::execute's rules.
    Status record(const Operator& op, const std::vector<TensorBinding>& bindings,
                  const std::string& label = {});
    /// Records one dispatch of a user kernel. The recorder orders it against everything recorded before by
    /// the bytes each binding reads or writes (KernelBindingInfo::Access), as it orders operators.
    /// @param kernel a valid kernel of this recorder's device
    /// @param dispatch group counts, one binding per KernelSource binding, the push constants, a label
    /// @return InvalidArgument naming the kernel and the binding for: a binding count other than the
    ///         kernel's, a missing or foreign Buffer, an Offset not a multiple of Device::bindingAlignment(),
    ///         a range outside its Buffer, a size not a multiple of 4 or below the binding's MinimumBytes,
    ///         push constants of another size, a group count of 0 or over the device's limit
    ///         (AdapterFeatures::maxWorkgroupCount).
    Status record(const Kernel& kernel, const KernelDispatch& dispatch);
    /// Copies `size` bytes from `source` to `destination`.
    /// @param source a buffer of this device
    /// @param sourceOffset byte offset in `source`, a multiple of 4
    /// @param destination a buffer of this device (may be `source`, the ranges not overlapping)
    /// @param destinationOffset byte offset in `destination`, a multiple of 4
    /// @param size bytes, a multiple of 4, within both buffers
    /// @return InvalidArgument naming the rule broken.
    Status copyBuffer(const Buffer& source, uint64_t sourceOffset, const Buffer& destination,
                      uint64_t destinationOffset, uint64_t size);
    /// Copies `size` bytes of host memory into `destination` at `offset` when the submission runs; `data` is
    /// read now (into a staging buffer), so it may be freed after the call.
    /// @param destination a buffer of this device
    /// @param offset byte offset in `destination`
    /// @param data host bytes to copy, not null when size > 0
    /// @param size bytes; the range must lie within `destination`
    /// @return InvalidArgument for a null `data`, or a range outside the buffer; OutOfMemory for staging.
    Status upload(const Buffer& destination, uint64_t offset, const void* data, uint64_t size);
    /// Copies `size` bytes of `source` at `offset` to host memory `data` when the submission runs. `data`
    /// must stay valid until the bytes land.
    /// @param source a buffer of this device
    /// @param offset byte offset in `source`
    /// @param data host memory receiving `size` bytes, not null when size > 0
    /// @param size bytes; the range must lie within `source`
    /// The bytes land in `data` when ripple sees the submission complete, on the thread that sees it:
    /// Device::wait or isComplete of its ticket or a later one, or, after an engine saw completion through
    /// its own semaphore or fence, the next call of Device::createBuffer, upload, download, compile,
    /// execute, createRecorder, submit or finishRecording. Read `data` only after one of those. ~Device
    /// delivers them once the work completes, and logs a warning for any it has to drop (a lost device,
    /// work recorded into an engine's command buffer and never completed with interop::completeRecording).
    /// @return InvalidArgument for a null `data`, or a range outside the buffer; OutOfMemory for staging.
    Status readback(const Buffer& source, uint64_t offset, void* data, uint64_t size);
    /// Sets `size` bytes of `destination` from `offset` to the 32-bit `value`, repeated.
    /// @param destination a buffer of this device
    /// @param offset byte offset, a multiple of 4
    /// @param size bytes, a multiple of 4, within the buffer
    /// @param value the 32-bit pattern written
    /// @return InvalidArgument naming the rule broken.
    Status fillBuffer(const Buffer& destination, uint64_t offset, uint64_t size, uint32_t value);

    /// @return counts of what has been recorded since the last submit (all 0 for an empty recorder).
    const RecorderStatistics& statistics() const;
    /// @return false when default-constructed or moved from.
    bool valid() const { return impl_ != nullptr; }

  private:
    /// @cond RIPPLE_INTERNAL
    friend struct detail::ImplAccess; // ripple's own code reaches the state (lib/runtime/access.hpp)
    std::unique_ptr<detail::RecorderImpl> impl_;
    /// @endcond
};

/// One workgroup of a profiled dispatch (RecorderOptions::profile). Times are the device's real-time clock
/// (shaderDeviceClock) in nanoseconds on NVIDIA; they compare within a submission.
struct WorkgroupProfile {
    uint32_t sm = 0;                  ///< the multiprocessor it ran on (gl_SMIDNV)
    uint64_t startNanoseconds = 0;    ///< at its entry; 0 if the workgroup wrote no record
    uint64_t endNanoseconds = 0;      ///< once every invocation of it had finished
    uint64_t markNanoseconds[4] = {}; ///< its RIPPLE_MARK(n) points (GLSL), 0 where not marked
    /// Its multiprocessor's clock cycles from entry to end (shaderSubgroupClock): divided by
    /// endNanoseconds - startNanoseconds, the clock the multiprocessor ran at, in GHz.
    uint64_t smCycles = 0;
};

/// A profiled dispatch of an operator (RecorderOptions::profile).
struct DispatchProfile {
    std::string kernel;                       ///< the kernel variant, e.g. "topk_tile.f32"
    uint32_t level = 0;                       ///< its level in the submission (RecorderStatistics::barriers)
    uint64_t levelBeginNanoseconds = 0;       ///< with timestamps: its level's start (the timestamp clock)
    std::vector<WorkgroupProfile> workgroups; ///< by workgroup number
};

/// What one recorded operator did, once its submission completed (Device::reports).
struct OperatorReport {
    std::string label; ///< the label given to CommandRecorder::record, or the operator's name
    Status status;     ///< Ok, or IndexOutOfRange when its index data was out of range
    /// With RecorderOptions::timestamps: GPU nanoseconds from the start of the level holding its first
    /// command to the end of the level holding its last (levels: RecorderStatistics::barriers).
    uint64_t gpuNanoseconds = 0;
    /// With timestamps: the device clock in nanoseconds at its first command; spans of one batch compare.
    uint64_t gpuBeginNanoseconds = 0;
    /// With timestamps: the device clock in nanoseconds at the end of its last command.
    uint64_t gpuEndNanoseconds = 0;
    /// With timestamps: GPU nanoseconds of each level it spans, in order (for an operator recorded alone,
    /// one entry per dispatch of its plan: where its time goes).
    std::vector<uint64_t> levelNanoseconds;
    /// With RecorderOptions::profile (where it applies): each dispatch it ran, in order.
    std::vector<DispatchProfile> dispatches;
};

} // namespace ripple
