// The Vulkan backend: one device and compute queue, device-local buffers with staging copies, one
// pipeline per kernel variant, and command buffers that run a list of commands with a barrier between
// each pair.
#include "runtime/backend.hpp"
#include "vulkan/instance.hpp"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace ripple::vk {
namespace {

constexpr uint64_t kWaitTimeoutNs = 600ull * 1000 * 1000 * 1000; // a run that takes 10 minutes is lost

// volkLoadDeviceTable reads volk's global vkGetDeviceProcAddr; point it at this device's instance first,
// under a lock, so the table is right whatever other instances (ripple's or an engine's) exist.
void loadDeviceTable(const InstanceFunctions& fn, VkDevice device, VolkDeviceTable& table) {
    static std::mutex m;
    std::lock_guard<std::mutex> lock(m);
    PFN_vkGetDeviceProcAddr saved = vkGetDeviceProcAddr;
    vkGetDeviceProcAddr = fn.vkGetDeviceProcAddr;
    volkLoadDeviceTable(&table, device);
    vkGetDeviceProcAddr = saved;
}

class VulkanBuffer : public detail::BackendBuffer {
  public:
    VkDevice device = VK_NULL_HANDLE;
    const VolkDeviceTable* table = nullptr;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    void* mapped = nullptr; // host-visible buffers only
    ~VulkanBuffer() override {
        if (buffer) table->vkDestroyBuffer(device, buffer, nullptr);
        if (memory) table->vkFreeMemory(device, memory, nullptr);
    }
};

struct Pipeline {
    VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
};

class VulkanDevice : public detail::BackendDevice {
  public:
    ~VulkanDevice() override;
    static Result<std::unique_ptr<detail::BackendDevice>> create(const DeviceOptions& options);

    const AdapterInfo& adapter() const override { return adapter_; }
    uint32_t validationMessages() const override { return instance_->validationMessages(); }
    void log(LogLevel level, const std::string& message) const override { instance_->log(level, message); }
    Result<std::unique_ptr<detail::BackendBuffer>> createBuffer(uint64_t size) override;
    Status upload(detail::BackendBuffer& buffer, uint64_t offset, const void* data, uint64_t size) override;
    Status download(detail::BackendBuffer& buffer, uint64_t offset, void* data, uint64_t size) override;
    Status preparePipeline(const kernels::KernelInfo& kernel) override;
    Status run(const std::vector<detail::Command>& commands) override;

  private:
    Result<std::unique_ptr<VulkanBuffer>> makeBuffer(uint64_t size, bool hostVisible);
    Status submitAndWait(); // the recorded cmd_; caller holds mutex_
    Status lost(Status s) {
        if (s.code() == StatusCode::DeviceLost) lost_ = true;
        return s;
    }

    std::unique_ptr<Instance> instance_;
    AdapterInfo adapter_;
    VkPhysicalDevice physical_ = VK_NULL_HANDLE;
    VkDevice device_ = VK_NULL_HANDLE;
    VolkDeviceTable t_{};
    VkQueue queue_ = VK_NULL_HANDLE;
    uint32_t queueFamily_ = 0;
    VkPhysicalDeviceMemoryProperties memory_{};
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkCommandBuffer cmd_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
    std::mutex mutex_; // guards cmd_, queue_ and pipelines_
    std::map<std::string, Pipeline> pipelines_;
    bool lost_ = false;
};

Result<std::unique_ptr<detail::BackendDevice>> VulkanDevice::create(const DeviceOptions& options) {
    auto inst = Instance::create(options.validation, options.log);
    if (!inst) return inst.status();
    auto dev = std::unique_ptr<VulkanDevice>(new VulkanDevice());
    dev->instance_ = std::move(inst.value());
    const auto& physical = dev->instance_->physicalDevices();
    if (physical.empty()) return Status(StatusCode::NoDevice, "no Vulkan 1.1 adapter found");

    int index = options.adapterIndex;
    if (index < 0) {
        if (const char* env = std::getenv("RIPPLE_DEVICE"); env && *env) {
            char* end = nullptr;
            long v = std::strtol(env, &end, 10);
            if (*end || v < 0)
                return Status(StatusCode::InvalidArgument,
                              std::string("RIPPLE_DEVICE (") + env + ") must be an adapter index");
            index = static_cast<int>(v);
        } else {
            // Discrete, then integrated, then virtual, then CPU.
            int best = 99;
            for (uint32_t i = 0; i < physical.size(); ++i) {
                int rank = static_cast<int>(dev->instance_->describe(i).type);
                if (rank < best) best = rank, index = static_cast<int>(i);
            }
        }
    }
    if (index < 0 || static_cast<size_t>(index) >= physical.size())
        return Status(StatusCode::NoDevice, "adapter index " + std::to_string(index) + " does not exist; " +
                                                std::to_string(physical.size()) + " Vulkan adapter(s) found");
    dev->physical_ = physical[index];
    dev->adapter_ = dev->instance_->describe(static_cast<uint32_t>(index));
    const AdapterFeatures& f = dev->adapter_.features;

    uint32_t familyCount = 0;
    const InstanceFunctions& fn = dev->instance_->fn();
    fn.vkGetPhysicalDeviceQueueFamilyProperties(dev->physical_, &familyCount, nullptr);
    std::vector<VkQueueFamilyProperties> families(familyCount);
    fn.vkGetPhysicalDeviceQueueFamilyProperties(dev->physical_, &familyCount, families.data());
    bool found = false;
    for (uint32_t i = 0; i < familyCount && !found; ++i)
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) dev->queueFamily_ = i, found = true;
    if (!found) return Status(StatusCode::NoDevice, dev->adapter_.name + " has no compute queue");

    // Enable what ripple's kernels may use, as present.
    const bool v12 = dev->adapter_.apiVersion >= VK_API_VERSION_1_2;
    std::vector<const char*> exts;
    if (f.pushDescriptors) exts.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.features.shaderInt64 = f.int64;
    features.features.shaderInt16 = f.int16;
    VkPhysicalDevice16BitStorageFeatures s16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    s16.storageBuffer16BitAccess = f.storage16;
    VkPhysicalDevice8BitStorageFeatures s8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
    s8.storageBuffer8BitAccess = f.storage8;
    VkPhysicalDeviceShaderFloat16Int8Features f16i8{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
    f16i8.shaderInt8 = f.int8;
    f16i8.shaderFloat16 = f.float16;
    VkPhysicalDeviceShaderAtomicInt64Features a64{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES};
    a64.shaderBufferInt64Atomics = f.int64Atomics;
    features.pNext = &s16;
    void** tail = &s16.pNext;
    if (f.storage8) {
        *tail = &s8, tail = &s8.pNext;
        if (!v12) exts.push_back(VK_KHR_8BIT_STORAGE_EXTENSION_NAME);
    }
    if (f.int8 || f.float16) {
        *tail = &f16i8, tail = &f16i8.pNext;
        if (!v12) exts.push_back(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
    }
    if (f.int64Atomics) {
        *tail = &a64, tail = &a64.pNext;
        if (!v12) exts.push_back(VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME);
    }

    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue.queueFamilyIndex = dev->queueFamily_;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features};
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue;
    info.enabledExtensionCount = static_cast<uint32_t>(exts.size());
    info.ppEnabledExtensionNames = exts.data();
    if (Status s = check(fn.vkCreateDevice(dev->physical_, &info, nullptr, &dev->device_), "vkCreateDevice");
        !s)
        return s;
    loadDeviceTable(fn, dev->device_, dev->t_);
    dev->t_.vkGetDeviceQueue(dev->device_, dev->queueFamily_, 0, &dev->queue_);
    fn.vkGetPhysicalDeviceMemoryProperties(dev->physical_, &dev->memory_);

    VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    poolInfo.queueFamilyIndex = dev->queueFamily_;
    if (Status s = check(dev->t_.vkCreateCommandPool(dev->device_, &poolInfo, nullptr, &dev->pool_),
                         "vkCreateCommandPool");
        !s)
        return s;
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = dev->pool_;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    if (Status s = check(dev->t_.vkAllocateCommandBuffers(dev->device_, &alloc, &dev->cmd_),
                         "vkAllocateCommandBuffers");
        !s)
        return s;
    VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (Status s =
            check(dev->t_.vkCreateFence(dev->device_, &fenceInfo, nullptr, &dev->fence_), "vkCreateFence");
        !s)
        return s;
    return std::unique_ptr<detail::BackendDevice>(std::move(dev));
}

VulkanDevice::~VulkanDevice() {
    if (!device_) return;
    t_.vkDeviceWaitIdle(device_);
    for (auto& [name, p] : pipelines_) {
        t_.vkDestroyPipeline(device_, p.pipeline, nullptr);
        t_.vkDestroyPipelineLayout(device_, p.layout, nullptr);
        t_.vkDestroyDescriptorSetLayout(device_, p.setLayout, nullptr);
    }
    if (fence_) t_.vkDestroyFence(device_, fence_, nullptr);
    if (pool_) t_.vkDestroyCommandPool(device_, pool_, nullptr);
    t_.vkDestroyDevice(device_, nullptr);
}

Result<std::unique_ptr<VulkanBuffer>> VulkanDevice::makeBuffer(uint64_t size, bool hostVisible) {
    auto buf = std::make_unique<VulkanBuffer>();
    buf->device = device_;
    buf->table = &t_;
    buf->size = size;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = hostVisible ? VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT
                             : VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                   VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    if (Status s = check(t_.vkCreateBuffer(device_, &info, nullptr, &buf->buffer), "vkCreateBuffer"); !s)
        return s;
    VkMemoryRequirements req;
    t_.vkGetBufferMemoryRequirements(device_, buf->buffer, &req);
    const VkMemoryPropertyFlags want =
        hostVisible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                    : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < memory_.memoryTypeCount && type == UINT32_MAX; ++i)
        if ((req.memoryTypeBits & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & want) == want)
            type = i;
    for (uint32_t i = 0; i < memory_.memoryTypeCount && type == UINT32_MAX && !hostVisible; ++i)
        if (req.memoryTypeBits & (1u << i)) type = i; // no device-local type: any will do
    if (type == UINT32_MAX) return Status(StatusCode::OutOfMemory, "no suitable Vulkan memory type");
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = type;
    if (Status s = check(t_.vkAllocateMemory(device_, &alloc, nullptr, &buf->memory), "vkAllocateMemory"); !s)
        return s;
    if (Status s = check(t_.vkBindBufferMemory(device_, buf->buffer, buf->memory, 0), "vkBindBufferMemory");
        !s)
        return s;
    if (hostVisible &&
        !check(t_.vkMapMemory(device_, buf->memory, 0, VK_WHOLE_SIZE, 0, &buf->mapped), "vkMapMemory").ok())
        return Status(StatusCode::OutOfMemory, "vkMapMemory failed");
    return buf;
}

Result<std::unique_ptr<detail::BackendBuffer>> VulkanDevice::createBuffer(uint64_t size) {
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    auto buf = makeBuffer(size, false);
    if (!buf) return buf.status();
    return std::unique_ptr<detail::BackendBuffer>(std::move(buf.value()));
}

namespace {
void fullBarrier(const VolkDeviceTable& t, VkCommandBuffer cmd, VkPipelineStageFlags dstStage,
                 VkAccessFlags dstAccess) {
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask =
        VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT;
    barrier.dstAccessMask = dstAccess;
    t.vkCmdPipelineBarrier(cmd,
                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                               VK_PIPELINE_STAGE_HOST_BIT,
                           dstStage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}
constexpr VkAccessFlags kDeviceAccess = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                        VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
constexpr VkPipelineStageFlags kDeviceStages =
    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
} // namespace

Status VulkanDevice::submitAndWait() {
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd_;
    if (Status s = check(t_.vkQueueSubmit(queue_, 1, &submit, fence_), "vkQueueSubmit"); !s) return lost(s);
    Status waited =
        check(t_.vkWaitForFences(device_, 1, &fence_, VK_TRUE, kWaitTimeoutNs), "waiting for the GPU");
    if (!waited) return lost(waited);
    t_.vkResetFences(device_, 1, &fence_);
    return {};
}

Status VulkanDevice::upload(detail::BackendBuffer& buffer, uint64_t offset, const void* data, uint64_t size) {
    if (size == 0) return {};
    std::lock_guard<std::mutex> lock(mutex_);
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    auto staging = makeBuffer(size, true);
    if (!staging) return staging.status();
    std::memcpy(staging.value()->mapped, data, size);
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    t_.vkBeginCommandBuffer(cmd_, &begin);
    fullBarrier(t_, cmd_, kDeviceStages, kDeviceAccess);
    VkBufferCopy region{0, offset, size};
    t_.vkCmdCopyBuffer(cmd_, staging.value()->buffer, static_cast<VulkanBuffer&>(buffer).buffer, 1, &region);
    t_.vkEndCommandBuffer(cmd_);
    return submitAndWait();
}

Status VulkanDevice::download(detail::BackendBuffer& buffer, uint64_t offset, void* data, uint64_t size) {
    if (size == 0) return {};
    std::lock_guard<std::mutex> lock(mutex_);
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    auto staging = makeBuffer(size, true);
    if (!staging) return staging.status();
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    t_.vkBeginCommandBuffer(cmd_, &begin);
    fullBarrier(t_, cmd_, kDeviceStages, kDeviceAccess);
    VkBufferCopy region{offset, 0, size};
    t_.vkCmdCopyBuffer(cmd_, static_cast<VulkanBuffer&>(buffer).buffer, staging.value()->buffer, 1, &region);
    fullBarrier(t_, cmd_, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    t_.vkEndCommandBuffer(cmd_);
    if (Status s = submitAndWait(); !s) return s;
    std::memcpy(data, staging.value()->mapped, size);
    return {};
}

Status VulkanDevice::preparePipeline(const kernels::KernelInfo& kernel) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pipelines_.count(kernel.name)) return {};
    Pipeline p;
    VkDescriptorSetLayoutBinding bindings[kernels::kMaxKernelBindings];
    for (uint32_t i = 0; i < kernel.bindingCount; ++i) {
        bindings[i] = {};
        bindings[i].binding = kernel.bindings[i].binding;
        bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        bindings[i].descriptorCount = 1;
        bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    if (adapter_.features.pushDescriptors)
        setInfo.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    setInfo.bindingCount = kernel.bindingCount;
    setInfo.pBindings = bindings;
    if (Status s = check(t_.vkCreateDescriptorSetLayout(device_, &setInfo, nullptr, &p.setLayout),
                         "vkCreateDescriptorSetLayout");
        !s)
        return s;
    VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, kernel.pushConstantBytes};
    VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layoutInfo.setLayoutCount = 1;
    layoutInfo.pSetLayouts = &p.setLayout;
    layoutInfo.pushConstantRangeCount = kernel.pushConstantBytes ? 1 : 0;
    layoutInfo.pPushConstantRanges = &push;
    if (Status s = check(t_.vkCreatePipelineLayout(device_, &layoutInfo, nullptr, &p.layout),
                         "vkCreatePipelineLayout");
        !s)
        return s;
    VkShaderModuleCreateInfo moduleInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    moduleInfo.codeSize = kernel.spirvWords * 4;
    moduleInfo.pCode = kernel.spirv;
    VkShaderModule module = VK_NULL_HANDLE;
    if (Status s =
            check(t_.vkCreateShaderModule(device_, &moduleInfo, nullptr, &module), "vkCreateShaderModule");
        !s)
        return s;
    VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module;
    info.stage.pName = "main";
    info.layout = p.layout;
    Status s = check(t_.vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &info, nullptr, &p.pipeline),
                     "vkCreateComputePipelines");
    t_.vkDestroyShaderModule(device_, module, nullptr);
    if (!s) return s;
    pipelines_[kernel.name] = p;
    return {};
}

Status VulkanDevice::run(const std::vector<detail::Command>& commands) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    VkDescriptorPool pool = VK_NULL_HANDLE;
    if (!adapter_.features.pushDescriptors) {
        uint32_t sets = 0, buffers = 0;
        for (auto& c : commands)
            if (c.kind == detail::Command::Kind::Dispatch) ++sets, buffers += c.kernel->bindingCount;
        VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, buffers ? buffers : 1};
        VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        info.maxSets = sets ? sets : 1;
        info.poolSizeCount = 1;
        info.pPoolSizes = &size;
        if (Status s =
                check(t_.vkCreateDescriptorPool(device_, &info, nullptr, &pool), "vkCreateDescriptorPool");
            !s)
            return s;
    }
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    t_.vkBeginCommandBuffer(cmd_, &begin);
    Status status;
    for (const detail::Command& c : commands) {
        fullBarrier(t_, cmd_, kDeviceStages, kDeviceAccess); // every command depends on the ones before
        if (c.kind == detail::Command::Kind::Fill) {
            t_.vkCmdFillBuffer(cmd_, static_cast<VulkanBuffer*>(c.fill.buffer)->buffer, c.fill.offset,
                               c.fill.size, c.fillValue);
            continue;
        }
        const Pipeline& p = pipelines_.at(c.kernel->name);
        VkDescriptorBufferInfo infos[kernels::kMaxKernelBindings];
        VkWriteDescriptorSet writes[kernels::kMaxKernelBindings];
        for (uint32_t i = 0; i < c.kernel->bindingCount; ++i) {
            const detail::BufferRange& r = c.bindings[c.kernel->bindings[i].binding];
            infos[i] = {static_cast<VulkanBuffer*>(r.buffer)->buffer, r.offset, r.size};
            writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            writes[i].dstBinding = c.kernel->bindings[i].binding;
            writes[i].descriptorCount = 1;
            writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            writes[i].pBufferInfo = &infos[i];
        }
        t_.vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
        if (pool == VK_NULL_HANDLE) {
            t_.vkCmdPushDescriptorSetKHR(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0,
                                         c.kernel->bindingCount, writes);
        } else {
            VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
            alloc.descriptorPool = pool;
            alloc.descriptorSetCount = 1;
            alloc.pSetLayouts = &p.setLayout;
            VkDescriptorSet set;
            if (!(status =
                      check(t_.vkAllocateDescriptorSets(device_, &alloc, &set), "vkAllocateDescriptorSets")))
                break;
            for (uint32_t i = 0; i < c.kernel->bindingCount; ++i) writes[i].dstSet = set;
            t_.vkUpdateDescriptorSets(device_, c.kernel->bindingCount, writes, 0, nullptr);
            t_.vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &set, 0,
                                       nullptr);
        }
        if (c.kernel->pushConstantBytes)
            t_.vkCmdPushConstants(cmd_, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, c.kernel->pushConstantBytes,
                                  c.push);
        t_.vkCmdDispatch(cmd_, c.groups, 1, 1);
    }
    t_.vkEndCommandBuffer(cmd_);
    if (status) status = submitAndWait();
    if (pool) t_.vkDestroyDescriptorPool(device_, pool, nullptr);
    return status;
}

} // namespace
} // namespace ripple::vk

namespace ripple::detail {

Result<std::unique_ptr<BackendDevice>> createVulkanDevice(const DeviceOptions& options) {
    return vk::VulkanDevice::create(options);
}

Result<std::vector<AdapterInfo>> vulkanEnumerateAdapters() {
    auto inst = vk::Instance::create(false, nullptr);
    if (!inst) return inst.status();
    std::vector<AdapterInfo> out;
    for (uint32_t i = 0; i < inst.value()->physicalDevices().size(); ++i)
        out.push_back(inst.value()->describe(i));
    return out;
}

} // namespace ripple::detail
