// SPDX-License-Identifier: MIT
/// @file
/// @brief Adapters, devices, compiled operators, and running them.
#pragma once

#include "ripple/buffer.hpp"
#include "ripple/export.hpp"
#include "ripple/operators.hpp"
#include "ripple/recorder.hpp"
#include "ripple/recording.hpp"
#include "ripple/status.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ripple {

/// The graphics API a device runs on.
enum class Backend : uint32_t {
    Vulkan, ///< Vulkan 1.1 or later, everywhere (the loader is opened at run time)
    D3D12,  ///< Direct3D 12: on Windows; on Linux only in builds with RIPPLE_D3D12=ON (vkd3d, for tests)
};
/// What kind of adapter it is, as the API reports it.
enum class AdapterType : uint32_t {
    Discrete,   ///< a discrete GPU
    Integrated, ///< an integrated GPU
    Virtual,    ///< a virtual GPU
    Cpu,        ///< a CPU implementation (lavapipe, WARP)
    Other,      ///< anything else
};
/// @return "Vulkan" or "D3D12". Never null.
RIPPLE_API const char* toString(Backend backend);
/// @return "discrete", "integrated", "virtual", "cpu" or "other". Never null.
RIPPLE_API const char* toString(AdapterType type);

/// What an adapter offers that ripple uses (Vulkan feature names; D3D12 devices report the portable set).
struct AdapterFeatures {
    bool int64 = false;        ///< shaderInt64
    bool int64Atomics = false; ///< shaderBufferInt64Atomics (needed by 64-bit scatters)
    bool storage8 = false;     ///< storageBuffer8BitAccess
    bool storage16 = false;    ///< storageBuffer16BitAccess
    bool int8 = false;         ///< shaderInt8
    bool int16 = false;        ///< shaderInt16
    bool float16 = false;      ///< shaderFloat16
    bool float64 = false;      ///< shaderFloat64 (FLOAT64 scatter reductions)
    /// shaderBufferFloat32AtomicAdd (VK_EXT_shader_atomic_float): FLOAT32 Add scatters by atomic add
    /// instead of compare-and-swap loops.
    bool float32AtomicAdd = false;
    /// shaderSignedZeroInfNanPreserveFloat32 (Vulkan 1.2 float controls, a property): 32-bit float
    /// comparisons keep IEEE rules for NaNs and infinities where a kernel asks. Floating-point TopK's
    /// sampled selection then compares values without testing each element's bits for NaN.
    bool signedZeroInfNanPreserveFloat32 = false;
    bool subgroups = false; ///< compute-stage subgroup basic, ballot, arithmetic and shuffle
    /// subgroupSizeControl and computeFullSubgroups (VK_EXT_subgroup_size_control): a pipeline may require
    /// that every subgroup of a workgroup is full. ripple's subgroup kernels rely on that (their scans and
    /// shuffles map invocations to lanes), so they run only where the device has both; elsewhere, as on
    /// a device that may launch partially filled subgroups without the request (Intel, lavapipe at
    /// LP_NATIVE_VECTOR_WIDTH 1024 or 2048), the portable variants run.
    bool fullSubgroups = false;
    bool pushDescriptors = false; ///< VK_KHR_push_descriptor
    /// timelineSemaphore (Vulkan 1.2 or VK_KHR_timeline_semaphore): tickets are timeline values; without
    /// it (many Vulkan 1.1 Android drivers) each submission signals a fence, with the same Ticket API.
    bool timelineSemaphore = false;
    /// hostQueryReset (Vulkan 1.2, or VK_EXT_host_query_reset on 1.1): ripple resets its timestamp
    /// queries on the host. Without it they are reset by a command in each submission, which on an H200
    /// made every dispatch of the submission 3-9 us slower.
    bool hostQueryReset = false;
    bool timestamps = false; ///< timestampComputeAndGraphics: per-operator GPU times
    /// shaderDeviceClock and shaderSubgroupClock (VK_KHR_shader_clock) and shaderSMBuiltins
    /// (VK_NV_shader_sm_builtins): what RecorderOptions::profile needs.
    bool profiling = false;
    float timestampPeriodNs = 0;  ///< nanoseconds per timestamp tick
    uint32_t subgroupSize = 0;    ///< invocations per subgroup (0 if unknown)
    uint32_t minSubgroupSize = 0; ///< VK_EXT_subgroup_size_control's minSubgroupSize (0 if unknown)
    uint32_t maxSubgroupSize = 0; ///< VK_EXT_subgroup_size_control's maxSubgroupSize (0 if unknown)
    /// Bytes of workgroup (shared) memory one compute workgroup may use (maxComputeSharedMemorySize;
    /// Vulkan's minimum is 16384, D3D12's 32768). Kernel variants that need more are not chosen.
    uint32_t maxComputeSharedMemorySize = 16384;
    /// Invocations one compute workgroup may have (maxComputeWorkGroupInvocations; Vulkan's minimum is 128,
    /// D3D12's 1024). Kernel variants with larger workgroups are not chosen.
    uint32_t maxComputeWorkGroupInvocations = 128;
    /// Workgroup size bounds in x, y and z (maxComputeWorkGroupSize; Vulkan's minimum is 128, 128, 64).
    uint32_t maxComputeWorkGroupSize[3] = {128, 128, 64};
    /// Storage buffers one compute shader may bind (maxPerStageDescriptorStorageBuffers; Vulkan's minimum is
    /// 4, D3D12's 8 UAVs at resource binding tier 1). Kernel variants with more bindings are not chosen.
    uint32_t maxPerStageDescriptorStorageBuffers = 4;
    uint64_t maxStorageBufferRange = 0; ///< bytes one tensor binding may span; larger tensors are refused
    uint64_t minStorageBufferOffsetAlignment = 0; ///< bytes; Device::bindingAlignment() is at least this
    /// Workgroups one dispatch may have in x, y and z (maxComputeWorkGroupCount; D3D12: 65535 each), the
    /// bound on KernelDispatch::GroupCount.
    uint32_t maxWorkgroupCount[3] = {65535, 65535, 65535};
};

/// One adapter, as enumerateAdapters() lists it.
struct AdapterInfo {
    uint32_t index = 0;                ///< position in enumerateAdapters(), for DeviceOptions::adapterIndex
    std::string name;                  ///< the driver's device name, e.g. "NVIDIA H100 80GB HBM3"
    Backend backend = Backend::Vulkan; ///< the API it was found through
    AdapterType type = AdapterType::Other; ///< discrete, integrated, ...
    uint32_t apiVersion = 0;               ///< API version, VK_MAKE_API_VERSION packing
    uint32_t vendorId = 0;                 ///< PCI vendor id (0x10DE NVIDIA, 0x1002 AMD, 0x8086 Intel, ...)
    uint32_t deviceId = 0;                 ///< PCI device id
    /// Pipeline caches are reused only on an adapter with the same UUID (DeviceOptions::pipelineCacheData).
    uint8_t pipelineCacheUUID[16] = {};
    AdapterFeatures features; ///< what it offers that ripple uses
};

/// Severity of a message to LogCallback.
enum class LogLevel : uint32_t {
    Debug,   ///< detail
    Info,    ///< progress
    Warning, ///< something was ignored or degraded (e.g. a pipeline cache for another adapter)
    Error,   ///< an operation failed (its Status says the same)
};
/// Receives ripple's messages and, with validation on, the Vulkan validation layer's. May be called from
/// any thread that uses the device, while ripple holds internal locks: it must not call back into ripple.
using LogCallback = std::function<void(LogLevel, const std::string&)>;

/// Which kernel variants to use.
enum class KernelPreference : uint32_t {
    Auto,     ///< the fast ones (native 8/16/64-bit storage, subgroups) where the device has the features
    Portable, ///< the variants that need only 32-bit storage access (the ones the D3D12 path runs)
};

/// Options of Device::create.
struct DeviceOptions {
    Backend backend = Backend::Vulkan; ///< the API
    /// Adapter index from enumerateAdapters(); -1 picks: the RIPPLE_DEVICE environment variable if set,
    /// else the first discrete GPU, then integrated, then virtual, then CPU (lavapipe).
    int adapterIndex = -1;
    /// Enables the Khronos validation layer and routes its messages to `log` (NoDevice if the layer is
    /// absent). Also turned on by RIPPLE_VALIDATION=1 in ripple-run.
    bool validation = false;
    LogCallback log; ///< where messages go; default: warnings and errors to stderr
    KernelPreference kernels = KernelPreference::Auto; ///< kernel variants to use
    /// Bytes from an earlier Device::pipelineCacheData() to start the pipeline cache with, so pipelines
    /// compile faster. ripple checks them before any reaches the driver: its own header (magic, version,
    /// backend, size and a hash of the data) must check out, then the backend's (Vulkan: vendor, device
    /// and pipelineCacheUUID must match the adapter's). Damaged data (a cache file cut short or corrupted
    /// on disk), data that is not ripple's, or another adapter's, is ignored with a warning to `log`.
    std::vector<uint8_t> pipelineCacheData;
    /// How long Device::wait (and execute) polls the ticket, in microseconds, before it blocks in the
    /// driver. Polling (the ticket's counter read; after the first millisecond, std::this_thread::yield
    /// between reads) returns within a few microseconds of completion but keeps the calling thread
    /// runnable; a blocked thread wakes tens of microseconds after the GPU finishes (22 us measured on an
    /// H100, NVIDIA 580 driver). 0 blocks at once; the default polls for 5 ms, longer than most operators
    /// run (CUDA's cudaDeviceScheduleAuto spins likewise when cores are free). A CPU adapter (lavapipe)
    /// never polls: its work runs on the host's cores, which polling would take from it.
    uint32_t waitPollMicroseconds = 5000;
    /// Device::execute keeps the command buffer it records for an operator and its bindings (up to 16
    /// binding sets per operator, LRU), with status memory and one copy of the operator's scratch that all
    /// of them share (an operator with over 64 MiB of scratch is recorded each time), and submits it again
    /// when the same Buffers and Offsets come back: recording costs the host 2-5 us per pass on an H100
    /// (NVIDIA 580), more than submitting. The memory is released with the Operator. Results and errors are
    /// the same either way. Needs VK_KHR_push_descriptor (else, and on D3D12, execute records each time).
    /// CommandRecorder never keeps.
    bool reuseCommandBuffers = true;
    /// Diagnostics: ripple sees a named GPU class's features and limits in place of the adapter's own,
    /// clamped to what the adapter has (features both have, the smaller limits), to try the kernel
    /// variants, plans and ticket path of that class on any machine. Vulkan only; empty (the default) uses
    /// the adapter as it is, unless the RIPPLE_DEVICE_PROFILE environment variable names one. Profiles (facts
    /// from Khronos' Vulkan-Profiles device data): vulkan-minimum, android-baseline-2022,
    /// apple-m1-moltenvk, intel-iris-xe, amd-rdna-wave64, amd-rdna-wave32, mobile-vk11 (Vulkan 1.1 without
    /// timeline semaphores, 64-bit integers or 16-bit storage). The subgroup size stays the adapter's.
    std::string profile;
    /// D3D12 only: what to do for one of ripple's own kernel variants that this build embeds no bytecode
    /// for (its build host had no HLSL compiler: ripple::d3d12BytecodeCompiler() is then empty). false (the
    /// default): compile() returns Unsupported naming the variant. true: its HLSL is compiled at first use
    /// with D3DCompile (shader model 5.1), which can take seconds a variant on a player's machine; the
    /// bytecode then goes into pipelineCacheData(). Users' kernels run the bytecode ripple_add_kernels built
    /// (KernelSource::PackedDxbc); one built without it is compiled at Device::compile whatever this says.
    /// Vulkan ignores it.
    bool compileHlslAtRunTime = false;
    /// The most workgroups (x * y * z) one dispatch of a user kernel may launch (KernelDispatch), at least
    /// 1. Direct group counts above it are refused when recorded (InvalidArgument); group counts an
    /// indirect dispatch reads on the GPU above it, or above the device's maxComputeWorkGroupCount in any
    /// dimension, launch nothing, and are reported (Device::reports, Device::refusedDispatchCount). The
    /// default, 4,194,304 (2^22: 65,536 workgroups of 64 times 64), keeps a runaway count far from a
    /// driver's timeout (2 s on Windows, after which the device is reset); raise it for larger grids.
    uint64_t maxDispatchWorkgroups = 1ull << 22;
    /// Vulkan: take a second queue of ripple's queue family, where the family has one, for upload() and
    /// download() of memory the host cannot map (discrete GPUs): a download then never waits behind a
    /// submission gated on an engine's semaphore (see Device::upload). Off by default: while a device held
    /// a second queue, every kernel of the particles sample ran about 2% slower on an NVIDIA H200 (driver
    /// 580), idle as the queue was. D3D12 takes a second queue of its own either way.
    bool transferQueue = false;
};

/// Lists the adapters of a backend.
/// @return the adapters; NoDevice when the API's loader is missing; Unsupported for D3D12 in a build
/// without it; InvalidArgument for a value outside Backend. Thread safety: any thread.
RIPPLE_API Result<std::vector<AdapterInfo>> enumerateAdapters(Backend backend = Backend::Vulkan);

/// @cond RIPPLE_INTERNAL
namespace detail {
struct ImplAccess;
struct DeviceImpl;
struct OperatorImpl;
} // namespace detail
/// @endcond

/// An operator validated and planned once for one device (Device::compile), to run many times
/// (Device::execute, CommandRecorder::record). Move-only; it keeps its device alive. Thread safety: an
/// Operator may be recorded by several threads at once.
class RIPPLE_API Operator {
  public:
    /// An empty operator (valid() is false); running it is InvalidArgument.
    Operator() = default;
    /// Takes `other`'s plan; `other` becomes empty.
    Operator(Operator&& other) noexcept;
    /// Releases this operator (once no submission uses it) and takes `other`'s plan.
    Operator& operator=(Operator&& other) noexcept;
    /// Releases the operator's pipelines and parameters once no submission uses them.
    ~Operator();

    /// @return the names of the tensors to bind, in binding order, e.g. {"InputTensor",
    /// "OutputValueTensor", "OutputIndexTensor"} for TopK; empty for an empty operator.
    std::vector<std::string> tensorNames() const;
    /// @return false when default-constructed or moved from.
    bool valid() const { return impl_ != nullptr; }

  private:
    /// @cond RIPPLE_INTERNAL
    friend struct detail::ImplAccess; // ripple's own code reaches the state (lib/runtime/access.hpp)
    std::shared_ptr<detail::OperatorImpl> impl_;
    /// @endcond
};

/// A device on one adapter: buffers, compiled operators, and the queue they run on. Move-only; buffers and
/// operators keep what they need of it alive. Every member is safe on an empty Device (default-constructed
/// or moved from): calls that return a Status return InvalidArgument; adapter() returns an empty
/// AdapterInfo.
///
/// Thread safety: a Device may be used from several threads at once; each call is serialized internally
/// where it must be.
class RIPPLE_API Device {
  public:
    /// Creates a device on the adapter `options` picks.
    /// @return the device; InvalidArgument (a backend, kernels value outside its enum, adapterIndex below
    /// -1); NoDevice (no loader, no adapter, or adapterIndex out of range), Unsupported (the adapter lacks
    /// Vulkan 1.1; D3D12 in a build without it), OutOfMemory, Internal; InvalidArgument for an unknown
    /// profile.
    static Result<Device> create(const DeviceOptions& options = {});

    /// An empty device (see the class's note on empty devices).
    Device() = default;
    /// Takes `other`'s device; `other` becomes empty.
    Device(Device&& other) noexcept;
    /// Releases this device (as the destructor) and takes `other`'s.
    Device& operator=(Device&& other) noexcept;
    /// Waits for the work this Device submitted and releases what that work held; the device itself is
    /// freed once its last Buffer, Operator and CommandRecorder are gone too. Work recorded into an
    /// engine's command buffer (interop) is released as well: the engine must have completed it.
    ~Device();

    /// @return the adapter the device runs on (an empty AdapterInfo for an empty Device).
    const AdapterInfo& adapter() const;
    /// @return the alignment tensor binding offsets need, in bytes: max(16, the device's
    /// minStorageBufferOffsetAlignment); 16 is DirectML's DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT. 16 for an
    /// empty Device.
    uint64_t bindingAlignment() const;
    /// @return the pipeline cache's bytes, to save and pass back through DeviceOptions::pipelineCacheData
    /// next time: a 64-byte header of ripple's ("RPLCACHE", version, backend, size, a hash of the data,
    /// vendor, device and pipelineCacheUUID, checked when the data comes back), then the backend's data
    /// (Vulkan's VkPipelineCache data; on D3D12 the compiled bytecode and the adapter's name).
    Result<std::vector<uint8_t>> pipelineCacheData() const;
    /// @return the validation-layer messages of severity warning or error seen so far (0 unless
    /// DeviceOptions::validation is on, and for an empty Device).
    uint32_t validationMessageCount() const;

    /// Creates a device-local buffer.
    /// @param sizeInBytes bytes, greater than 0
    /// @return the buffer; InvalidArgument for 0 bytes or an empty Device; OutOfMemory when the device
    /// cannot allocate it.
    Result<Buffer> createBuffer(uint64_t sizeInBytes);
    /// Names `buffer` for debuggers such as RenderDoc (VK_EXT_debug_utils; a no-op without it).
    /// @return InvalidArgument for an empty buffer or one of another Device.
    Status setLabel(const Buffer& buffer, const std::string& label);
    /// Copies `size` bytes from host memory `data` into `buffer` at byte `offset`, and waits until done.
    ///
    /// What it waits for: the submissions of this Device that use `buffer` (it is written only once they
    /// have completed), never others, gated on an engine's semaphore or not. Where the host can map the
    /// buffer's memory (lavapipe, most integrated and mobile GPUs) it copies on the host. Else it copies
    /// through staging: on a second queue where ripple has one (DeviceOptions::transferQueue,
    /// interop::VulkanDeviceDesc::transferQueue, D3D12); otherwise on ripple's queue, where, while a
    /// submission waiting on an engine's semaphore or fence is in flight, the copy is queued behind it and
    /// not waited for: it lands before any later submission runs, and the buffer counts as in use until
    /// then. Work recorded into an engine's command buffer (interop::recordInto) is the engine's to
    /// complete first.
    /// @param buffer a buffer of this Device
    /// @param offset byte offset into `buffer`
    /// @param data host bytes to copy, not null when size > 0
    /// @param size bytes; offset + size within the buffer
    /// @param timeoutNs nanoseconds to wait at most (default: 10 minutes)
    /// @return InvalidArgument (empty or foreign buffer, range outside it, null `data` with size > 0),
    /// Timeout (naming what it waited for), OutOfMemory (staging), DeviceLost.
    /// Thread safety: any thread.
    Status upload(Buffer& buffer, uint64_t offset, const void* data, uint64_t size,
                  uint64_t timeoutNs = 600'000'000'000ull);
    /// Copies `size` bytes of `buffer` from byte `offset` into host memory `data`, and waits until done.
    /// Waits as upload() does (the host reads mapped memory only where it is cached), except that a copy
    /// through staging on ripple's own queue cannot be left queued: behind a gated submission it returns
    /// Timeout after `timeoutNs`.
    /// @param buffer a buffer of this Device
    /// @param offset byte offset into `buffer`
    /// @param data host memory receiving `size` bytes, not null when size > 0
    /// @param size bytes; offset + size within the buffer
    /// @param timeoutNs nanoseconds to wait at most (default: 10 minutes)
    /// @return as upload().
    Status download(const Buffer& buffer, uint64_t offset, void* data, uint64_t size,
                    uint64_t timeoutNs = 600'000'000'000ull);
    /// @return how many indirect dispatches launched nothing because the group counts they read broke
    /// DeviceOptions::maxDispatchWorkgroups or maxComputeWorkGroupCount, counted as their submissions'
    /// reports are made (wait, isComplete); 0 for an empty Device. Thread safety: any thread.
    uint64_t refusedDispatchCount() const;

    /// Validates a ScatterND desc and plans its kernels for this device.
    /// @return the operator; InvalidArgument naming the tensor, field and rule broken; Unsupported naming
    /// the missing device feature (e.g. 64-bit scatters without shaderBufferInt64Atomics).
    Result<Operator> compile(const ScatterNDDesc& desc);
    /// Validates a ScatterElements desc and plans its kernels. @return as compile(const ScatterNDDesc&).
    Result<Operator> compile(const ScatterElementsDesc& desc);
    /// Validates a TopK desc and plans its kernels. @return as compile(const ScatterNDDesc&).
    Result<Operator> compile(const TopKDesc& desc);
    /// Makes a user kernel (ripple_add_kernels) runnable on this device: its pipeline, created once.
    /// @return the kernel; InvalidArgument for a null Source or a malformed one (over 8 bindings, push
    ///         constants over 128 bytes or not a multiple of 4); Unsupported naming the features the kernel
    ///         needs and the device lacks, or, on D3D12, a kernel built without its HLSL; what pipeline
    ///         creation returns (e.g. OutOfMemory). Thread safety: any thread.
    Result<Kernel> compile(const KernelDesc& desc);

    /// Runs an operator and waits for it: one submission of one operator.
    ///
    /// Outputs may not overlap any other tensor of the operator, except a scatter's OutputTensor bound to
    /// exactly its packed InputTensor's range (same Buffer and Offset): the scatter then runs in place,
    /// writing only the updates (no copy). The same rules hold for CommandRecorder::record.
    /// @param op a valid operator of this device
    /// @param bindings one per tensor, in Operator::tensorNames() order (TensorBinding's rules)
    /// @return Ok; InvalidArgument (bindings); IndexOutOfRange after writing every valid update, when index
    /// data was out of range; DeviceLost; OutOfMemory.
    Status execute(const Operator& op, const std::vector<TensorBinding>& bindings);

    /// Creates a recorder for batching many operators, copies and fills into one submission.
    /// @return the recorder; InvalidArgument for an empty Device.
    Result<CommandRecorder> createRecorder(const RecorderOptions& options = {});
    /// Submits what `recorder` recorded, in one command buffer, and empties it for reuse.
    /// @return the ticket that completes when all of it has run; InvalidArgument for an empty recorder or
    /// one of another device; DeviceLost (then from every later call that reaches the GPU); OutOfMemory
    /// (the device stays usable). When the submission itself fails, the recording is discarded.
    Result<Ticket> submit(CommandRecorder& recorder);
    /// Turns what `recorder` recorded into a Recording, submitted any number of times by
    /// submit(Recording&) without recording again; the recorder is emptied for reuse. The recording takes
    /// the recorder's scratch and status memory for its life.
    /// @return the recording; InvalidArgument for an empty recorder or one of another Device, one that
    ///         records into an engine's command buffer, or one holding upload() commands (their bytes were
    ///         read when recorded; upload before submitting instead: the recorder keeps its commands then);
    ///         Unsupported for a RecorderOptions::profile recorder, or a back-end that keeps no command
    ///         buffers (D3D12 for now); DeviceLost, OutOfMemory (the recording is then discarded).
    Result<Recording> finishRecording(CommandRecorder& recorder);
    /// Submits `recording` once more: the same commands on the buffers' contents of now, ordered after
    /// everything submitted before.
    /// @return its ticket (its reports and readbacks as for a recorder's submission); InvalidArgument for
    ///         an empty recording or one of another Device, while its previous submission is still in flight
    ///         (wait for that ticket first), or when a buffer it binds was released; DeviceLost.
    Result<Ticket> submit(Recording& recording);
    /// Waits for `ticket` up to `timeoutNs` nanoseconds (default: 10 minutes): polls for up to
    /// DeviceOptions::waitPollMicroseconds, then blocks. A submission made with an engine's timeline
    /// semaphores or D3D12 fences to signal (interop::submit) is complete only once each of them reads as
    /// reached on the host too (a queue orders no signal of one submission before another); a binary
    /// semaphore cannot be read from the host and is not waited for. Delivers the readbacks of every
    /// submission completed up to `ticket`.
    /// @return once complete, the first non-Ok status among the submission's operators (e.g.
    /// IndexOutOfRange naming it), else Ok; Timeout if it has not completed by then (the work goes on: wait
    /// again); DeviceLost if the device was lost (and from every later call); InvalidArgument at once for a
    /// ticket this Device's submit never returned (0, or later than the latest).
    Status wait(Ticket ticket, uint64_t timeoutNs = 600'000'000'000ull);
    /// @return whether `ticket` has completed (as wait() counts completion), without waiting, delivering
    /// the readbacks of what completed; DeviceLost; InvalidArgument for a ticket never issued, as wait().
    Result<bool> isComplete(Ticket ticket);
    /// @return each operator's report of a completed submission, in recording order; InvalidArgument if the
    /// ticket is unknown, not complete, or older than the last 256 submissions (which are kept).
    Result<std::vector<OperatorReport>> reports(Ticket ticket);

  private:
    /// @cond RIPPLE_INTERNAL
    friend struct detail::ImplAccess; // ripple's own code reaches the state (lib/runtime/access.hpp)
    std::shared_ptr<detail::DeviceImpl> impl_;
    /// @endcond
};

} // namespace ripple
