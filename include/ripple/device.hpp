// SPDX-License-Identifier: MIT
// Adapters, devices, compiled operators and running them.
#pragma once

#include "ripple/buffer.hpp"
#include "ripple/operators.hpp"
#include "ripple/recorder.hpp"
#include "ripple/status.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ripple {

// Vulkan everywhere; D3D12 on Windows (and, for ripple's own tests, vkd3d on Linux) when built with it.
enum class Backend : uint32_t { Vulkan, D3D12 };
enum class AdapterType : uint32_t { Discrete, Integrated, Virtual, Cpu, Other };
RIPPLE_API const char* toString(Backend backend);
RIPPLE_API const char* toString(AdapterType type);

// What an adapter offers that ripple uses.
struct AdapterFeatures {
    bool int64 = false;             // shaderInt64
    bool int64Atomics = false;      // shaderBufferInt64Atomics (needed by 64-bit scatters)
    bool storage8 = false;          // storageBuffer8BitAccess
    bool storage16 = false;         // storageBuffer16BitAccess
    bool int8 = false;              // shaderInt8
    bool int16 = false;             // shaderInt16
    bool float16 = false;           // shaderFloat16
    bool float64 = false;           // shaderFloat64 (FLOAT64 scatter reductions)
    bool float32AtomicAdd = false;  // shaderBufferFloat32AtomicAdd (VK_EXT_shader_atomic_float): FLOAT32
                                    // ADD scatters by atomic add instead of compare-and-swap loops
    bool subgroups = false;         // compute-stage subgroup basic/ballot/arithmetic/shuffle
    bool pushDescriptors = false;   // VK_KHR_push_descriptor
    bool timelineSemaphore = false; // needed: tickets are timeline-semaphore values
    bool timestamps = false;        // timestampComputeAndGraphics: per-operator GPU times
    float timestampPeriodNs = 0;
    uint32_t subgroupSize = 0;
    uint64_t maxStorageBufferRange = 0; // bytes one tensor binding may span
    uint64_t minStorageBufferOffsetAlignment = 0;
};

struct AdapterInfo {
    uint32_t index = 0; // position in enumerateAdapters(), as used by DeviceOptions::adapterIndex
    std::string name;
    Backend backend = Backend::Vulkan;
    AdapterType type = AdapterType::Other;
    uint32_t apiVersion = 0; // VK_MAKE_API_VERSION packing
    uint32_t vendorId = 0, deviceId = 0;
    uint8_t pipelineCacheUUID[16] = {}; // pipeline caches are reused only on an adapter with the same UUID
    AdapterFeatures features;
};

enum class LogLevel : uint32_t { Debug, Info, Warning, Error };
// Receives ripple's messages and, with validation on, the Vulkan validation layer's. May be called from
// any thread that uses the device.
using LogCallback = std::function<void(LogLevel, const std::string&)>;

// Which kernel variants to use: Auto picks the fast ones (native 8/16/64-bit storage) where the device
// has the features; Portable forces the variants that need only 32-bit storage access.
enum class KernelPreference : uint32_t { Auto, Portable };

struct DeviceOptions {
    Backend backend = Backend::Vulkan;
    // Adapter index from enumerateAdapters(); -1 picks: the RIPPLE_DEVICE environment variable if set,
    // else the first discrete GPU, then integrated, then virtual, then CPU (lavapipe).
    int adapterIndex = -1;
    bool validation = false; // Khronos validation layer, messages to log (NoDevice if the layer is absent)
    LogCallback log;         // default: warnings and errors to stderr
    KernelPreference kernels = KernelPreference::Auto;
    // Bytes from an earlier Device::pipelineCacheData() to start the pipeline cache with, so pipelines
    // compile faster. Data from another adapter, driver version or a corrupt file is ignored, with a
    // warning to `log` (its header's vendor, device and pipelineCacheUUID must match the adapter's).
    std::vector<uint8_t> pipelineCacheData;
};

// Lists the adapters of a backend; NoDevice when the API's loader is missing.
RIPPLE_API Result<std::vector<AdapterInfo>> enumerateAdapters(Backend backend = Backend::Vulkan);

namespace detail {
struct DeviceImpl;
struct OperatorImpl;
} // namespace detail

// An operator validated and planned once for one device, to run many times. Move-only.
class RIPPLE_API Operator {
  public:
    Operator() = default;
    Operator(Operator&&) noexcept;
    Operator& operator=(Operator&&) noexcept;
    ~Operator();

    // Names of the tensors to bind, in binding order, e.g. {"InputTensor", "OutputValueTensor", ...}.
    std::vector<std::string> tensorNames() const;
    bool valid() const { return impl_ != nullptr; } // false when default-constructed or moved from

    std::shared_ptr<detail::OperatorImpl> impl_; // internal
};

// A device on one adapter. Move-only; buffers and operators keep what they need of it alive.
// Thread safety: a device may be used from several threads; each call is serialized internally.
class RIPPLE_API Device {
  public:
    static Result<Device> create(const DeviceOptions& options = {});

    Device() = default;
    Device(Device&&) noexcept;
    Device& operator=(Device&&) noexcept;
    ~Device();

    const AdapterInfo& adapter() const;
    // Offsets of tensor bindings must be multiples of this (bytes): max(16, the device's
    // minStorageBufferOffsetAlignment). 16 is DirectML's DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT.
    uint64_t bindingAlignment() const;
    // The pipeline cache's bytes (Vulkan's VkPipelineCache data, with its header naming vendor, device and
    // pipelineCacheUUID), to save and pass back through DeviceOptions::pipelineCacheData next time.
    Result<std::vector<uint8_t>> pipelineCacheData() const;
    // Validation-layer messages of severity warning or error seen so far (0 unless validation is on).
    uint32_t validationMessageCount() const;

    // A device-local buffer of sizeInBytes (> 0). OutOfMemory or InvalidArgument on failure.
    Result<Buffer> createBuffer(uint64_t sizeInBytes);
    // Names a buffer for debuggers such as RenderDoc (VK_EXT_debug_utils; a no-op without it).
    Status setLabel(const Buffer& buffer, const std::string& label);
    // Copies bytes between host memory and a buffer, waiting until done.
    Status upload(Buffer& buffer, uint64_t offset, const void* data, uint64_t size);
    Status download(const Buffer& buffer, uint64_t offset, void* data, uint64_t size);

    // Validates a desc and plans its kernels. InvalidArgument names the tensor, field and rule broken;
    // Unsupported names the missing device feature or unimplemented option.
    Result<Operator> compile(const ScatterNDDesc& desc);
    Result<Operator> compile(const ScatterElementsDesc& desc);
    Result<Operator> compile(const TopKDesc& desc);

    // Runs an operator on tensors bound in Operator::tensorNames() order, and waits for it. Returns
    // IndexOutOfRange (after writing all valid updates) when index data was out of range. Outputs may not
    // overlap any other tensor of the operator, except a scatter's OutputTensor bound to exactly its packed
    // InputTensor's range (same Buffer and Offset): the scatter then runs in place, writing only the
    // updates (no copy). The same holds for CommandRecorder::record.
    Status execute(const Operator& op, const std::vector<TensorBinding>& bindings);

    // Batching: record any number of operators, submit once, wait on the ticket.
    Result<CommandRecorder> createRecorder(const RecorderOptions& options = {});
    // Submits what `recorder` recorded and empties it. The ticket completes when all of it has run.
    Result<Ticket> submit(CommandRecorder& recorder);
    // Waits for `ticket` up to `timeoutNs` nanoseconds: Timeout if it has not completed by then (the work
    // goes on; wait again), DeviceLost if the device was lost (and from every later call). Once complete,
    // returns the first non-Ok status among the submission's operators (e.g. IndexOutOfRange naming it).
    Status wait(Ticket ticket, uint64_t timeoutNs = 600'000'000'000ull);
    // Whether `ticket` has completed, without waiting.
    Result<bool> isComplete(Ticket ticket);
    // Per-operator results of a completed submission, in recording order. Kept for the last 256 submissions.
    Result<std::vector<OperatorReport>> reports(Ticket ticket);

    std::shared_ptr<detail::DeviceImpl> impl_; // internal
};

} // namespace ripple
