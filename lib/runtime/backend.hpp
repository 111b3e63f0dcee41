// The interface between the runtime and a graphics API. Backends create buffers and pipelines from the
// kernel registry and record dispatches, fills and barriers; they know nothing of operators.
#pragma once

#include "kernels/kernel_info.hpp"
#include "ripple/device.hpp"

#include <memory>
#include <vector>

namespace ripple::detail {

class BackendBuffer {
  public:
    virtual ~BackendBuffer() = default;
    uint64_t size = 0;
};

struct BufferRange {
    BackendBuffer* buffer = nullptr;
    uint64_t offset = 0;
    uint64_t size = 0;
};

struct Command {
    enum class Kind { Dispatch, Fill } kind = Kind::Dispatch;
    // Dispatch
    const kernels::KernelInfo* kernel = nullptr;
    std::vector<BufferRange> bindings; // index = binding number
    uint32_t push[2] = {0, 0};         // paramsBase, arg
    uint32_t groups = 1;
    // Fill: `fill` set to `fillValue` words
    BufferRange fill;
    uint32_t fillValue = 0;
};

class BackendDevice {
  public:
    virtual ~BackendDevice() = default;
    virtual const AdapterInfo& adapter() const = 0;
    virtual uint32_t validationMessages() const = 0;
    virtual void log(LogLevel level, const std::string& message) const = 0;

    virtual Result<std::unique_ptr<BackendBuffer>> createBuffer(uint64_t size) = 0;
    virtual Status upload(BackendBuffer& buffer, uint64_t offset, const void* data, uint64_t size) = 0;
    virtual Status download(BackendBuffer& buffer, uint64_t offset, void* data, uint64_t size) = 0;
    // Creates the kernel's pipeline once; later calls return at once.
    virtual Status preparePipeline(const kernels::KernelInfo& kernel) = 0;
    // Records the commands in order, each depending on the one before, submits them and waits.
    virtual Status run(const std::vector<Command>& commands) = 0;
};

Result<std::vector<AdapterInfo>> vulkanEnumerateAdapters();
Result<std::unique_ptr<BackendDevice>> createVulkanDevice(const DeviceOptions& options);

} // namespace ripple::detail
