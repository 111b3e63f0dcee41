// SPDX-License-Identifier: MIT
// The Vulkan backend: one device and compute queue, device-local buffers with staging copies, one
// pipeline per kernel variant, and command buffers that run a list of commands with a barrier between
// each pair.
#include "vulkan/device.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace ripple::vk {
namespace {

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

constexpr uint64_t kTransferTimeoutNs = 600ull * 1000 * 1000 * 1000;
constexpr uint64_t kBlockBytes = 64ull << 20;   // the allocator's shared blocks
constexpr uint64_t kStagingBytes = 32ull << 20; // upload/download pieces

} // namespace

VulkanBuffer::~VulkanBuffer() {
    if (!owned) return;
    if (buffer) table->vkDestroyBuffer(device, buffer, nullptr);
    if (allocator) allocator->release(allocation);
}

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
    // A compute queue without graphics where there is one (with timestamps): on the H100 (driver 580) work
    // submitted there starts 2.5 us sooner than on the graphics family (bench/NOTES.md, "Launch latency").
    int family = -1;
    for (uint32_t i = 0; i < familyCount && family < 0; ++i)
        if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
            !(families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) && families[i].timestampValidBits > 0)
            family = static_cast<int>(i);
    for (uint32_t i = 0; i < familyCount && family < 0; ++i)
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) family = static_cast<int>(i);
    if (family < 0) return Status(StatusCode::NoDevice, dev->adapter_.name + " has no compute queue");
    dev->queueFamily_ = static_cast<uint32_t>(family);

    if (!f.timelineSemaphore)
        return Status(StatusCode::NoDevice, dev->adapter_.name +
                                                " lacks timelineSemaphore (Vulkan 1.2), which ripple's "
                                                "tickets need");
    // Enable what ripple's kernels may use, as present.
    const bool v12 = dev->adapter_.apiVersion >= VK_API_VERSION_1_2;
    std::vector<const char*> exts;
    if (f.pushDescriptors) exts.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.features.shaderInt64 = f.int64;
    features.features.shaderInt16 = f.int16;
    features.features.shaderFloat64 = f.float64;
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
    VkPhysicalDeviceTimelineSemaphoreFeatures timeline{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
    timeline.timelineSemaphore = VK_TRUE;
    if (!v12) exts.push_back(VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
    features.pNext = &timeline;
    timeline.pNext = &s16;
    void** tail = &s16.pNext;
    // Timestamp queries reset on the host, not by a command: the command delays the GPU's start by ~3 us.
    VkPhysicalDeviceHostQueryResetFeatures queryReset{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES};
    if (v12) {
        VkPhysicalDeviceHostQueryResetFeatures supported{
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES};
        VkPhysicalDeviceFeatures2 query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &supported};
        fn.vkGetPhysicalDeviceFeatures2(dev->physical_, &query);
        if (supported.hostQueryReset) {
            queryReset.hostQueryReset = VK_TRUE;
            *tail = &queryReset, tail = &queryReset.pNext;
            dev->hostQueryReset_ = true;
        }
    }
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
    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT af{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
    af.shaderBufferFloat32AtomicAdd = f.float32AtomicAdd;
    if (f.float32AtomicAdd) {
        *tail = &af, tail = &af.pNext;
        exts.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
    }

    VkPhysicalDeviceShaderClockFeaturesKHR clock{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
    VkPhysicalDeviceShaderSMBuiltinsFeaturesNV sm{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_FEATURES_NV};
    if (f.profiling) { // enabled where present: only the PROFILE kernels use them
        clock.shaderDeviceClock = VK_TRUE;
        sm.shaderSMBuiltins = VK_TRUE;
        *tail = &clock, tail = &clock.pNext;
        *tail = &sm, tail = &sm.pNext;
        exts.push_back(VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
        exts.push_back(VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
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
    if (Status s = dev->finishSetup(options.pipelineCacheData); !s) return s;
    return std::unique_ptr<detail::BackendDevice>(std::move(dev));
}

Status VulkanDevice::finishSetup(const std::vector<uint8_t>& cacheData) {
    roundTrip_ = kernels::hlslRoundTrip();
    const InstanceFunctions& fn = instance_->fn();
    loadDeviceTable(fn, device_, t_);
    if (!queue_) t_.vkGetDeviceQueue(device_, queueFamily_, 0, &queue_);
    fn.vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
    allocator_ = std::make_unique<MemoryAllocator>();
    allocator_->init(device_, &t_, kBlockBytes);
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    type.initialValue = 0;
    VkSemaphoreCreateInfo semInfo{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
    if (Status s = check(t_.vkCreateSemaphore(device_, &semInfo, nullptr, &timeline_), "vkCreateSemaphore");
        !s)
        return s;

    // Reuse cache data only if its header names this adapter (drivers may not check it themselves).
    VkPipelineCacheCreateInfo cacheInfo{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    if (!cacheData.empty()) {
        VkPipelineCacheHeaderVersionOne header{};
        bool matches = cacheData.size() >= sizeof header;
        if (matches) {
            std::memcpy(&header, cacheData.data(), sizeof header);
            matches = header.headerVersion == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
                      header.vendorID == adapter_.vendorId && header.deviceID == adapter_.deviceId &&
                      std::memcmp(header.pipelineCacheUUID, adapter_.pipelineCacheUUID, VK_UUID_SIZE) == 0;
        }
        if (matches) {
            cacheInfo.initialDataSize = cacheData.size();
            cacheInfo.pInitialData = cacheData.data();
        } else {
            log(LogLevel::Warning,
                "DeviceOptions::pipelineCacheData is for another adapter or driver (its header's "
                "vendor, device or pipelineCacheUUID differ from " +
                    adapter_.name + "'s): ignored");
        }
    }
    return check(t_.vkCreatePipelineCache(device_, &cacheInfo, nullptr, &cache_), "vkCreatePipelineCache");
}

void VulkanDevice::setLabel(detail::BackendBuffer& buffer, const std::string& label) {
    if (auto name = instance_->fn().vkSetDebugUtilsObjectNameEXT) {
        VkDebugUtilsObjectNameInfoEXT n{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
        n.objectType = VK_OBJECT_TYPE_BUFFER;
        n.objectHandle = reinterpret_cast<uint64_t>(static_cast<VulkanBuffer&>(buffer).buffer);
        n.pObjectName = label.c_str();
        name(device_, &n);
    }
}

Result<std::vector<uint8_t>> VulkanDevice::pipelineCacheData() {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t size = 0;
    if (Status s =
            check(t_.vkGetPipelineCacheData(device_, cache_, &size, nullptr), "vkGetPipelineCacheData");
        !s)
        return s;
    std::vector<uint8_t> data(size);
    if (Status s =
            check(t_.vkGetPipelineCacheData(device_, cache_, &size, data.data()), "vkGetPipelineCacheData");
        !s)
        return s;
    data.resize(size);
    return data;
}

Result<std::unique_ptr<VulkanDevice>> VulkanDevice::adopt(const AdoptedHandles& h,
                                                          const DeviceOptions& options) {
    if (!h.instance || !h.physicalDevice || !h.device || !h.queue)
        return Status(StatusCode::InvalidArgument,
                      "adoptVulkanDevice: instance, physicalDevice, device and queue "
                      "must all be set");
    if (!h.enabled.timelineSemaphore)
        return Status(StatusCode::Unsupported,
                      "adoptVulkanDevice: ripple's tickets need the timelineSemaphore "
                      "feature enabled on the device");
    auto inst = Instance::adopt(h.instance, h.getInstanceProcAddr, h.debugUtils, options.log);
    if (!inst) return inst.status();
    auto dev = std::unique_ptr<VulkanDevice>(new VulkanDevice());
    dev->instance_ = std::move(inst.value());
    const auto& physical = dev->instance_->physicalDevices();
    auto it = std::find(physical.begin(), physical.end(), h.physicalDevice);
    if (it == physical.end())
        return Status(StatusCode::InvalidArgument,
                      "adoptVulkanDevice: physicalDevice is not a Vulkan 1.1 device of "
                      "instance");
    dev->physical_ = h.physicalDevice;
    dev->adapter_ = dev->instance_->describe(static_cast<uint32_t>(it - physical.begin()));
    // Use only what the engine enabled, whatever the hardware offers.
    AdapterFeatures& f = dev->adapter_.features;
    const AdapterFeatures& e = h.enabled;
    f.int64 &= e.int64, f.int16 &= e.int16, f.int8 &= e.int8, f.float16 &= e.float16;
    f.float64 &= e.float64;
    f.storage8 &= e.storage8, f.storage16 &= e.storage16, f.int64Atomics &= e.int64Atomics;
    f.float32AtomicAdd &= e.float32AtomicAdd;
    f.pushDescriptors &= e.pushDescriptors, f.subgroups &= e.subgroups;
    f.profiling &= e.profiling;
    dev->device_ = h.device;
    dev->ownsDevice_ = false;
    dev->queue_ = h.queue;
    dev->queueFamily_ = h.queueFamilyIndex;
    dev->lockQueue_ = h.lockQueue;
    dev->unlockQueue_ = h.unlockQueue;
    if (Status s = dev->finishSetup(options.pipelineCacheData); !s) return s;
    return dev;
}

std::unique_ptr<detail::BackendBuffer> VulkanDevice::wrapBuffer(VkBuffer buffer, uint64_t size) {
    auto b = std::make_unique<VulkanBuffer>();
    b->device = device_;
    b->table = &t_;
    b->buffer = buffer;
    b->size = size;
    b->owned = false;
    return b;
}

std::unique_ptr<detail::BackendCommandList> VulkanDevice::wrapCommands(VkCommandBuffer commandBuffer) {
    CommandSlot slot;
    slot.cmd = commandBuffer; // no pool: the engine owns it
    auto list = std::make_unique<VulkanCommandList>(*this, slot);
    list->barrier(); // after the engine's earlier compute and transfer writes
    return list;
}

VulkanDevice::~VulkanDevice() {
    if (!device_) return;
    if (ownsDevice_)
        t_.vkDeviceWaitIdle(device_);
    else if (!inFlight_.empty())
        (void)wait(inFlight_.back().ticket, UINT64_MAX); // an engine's device: only ours
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& f : inFlight_) freeSlots_.push_back(f.slot);
    for (CommandSlot& slot : freeSlots_) {
        for (VkDescriptorPool p : slot.descriptorPools) t_.vkDestroyDescriptorPool(device_, p, nullptr);
        if (slot.queries) t_.vkDestroyQueryPool(device_, slot.queries, nullptr);
        t_.vkDestroyCommandPool(device_, slot.pool, nullptr);
    }
    for (VkDescriptorPool p : enginePools_) t_.vkDestroyDescriptorPool(device_, p, nullptr);
    for (auto& [name, p] : pipelines_) {
        t_.vkDestroyPipeline(device_, p.pipeline, nullptr);
        t_.vkDestroyPipelineLayout(device_, p.layout, nullptr);
        t_.vkDestroyDescriptorSetLayout(device_, p.setLayout, nullptr);
    }
    if (timeline_) t_.vkDestroySemaphore(device_, timeline_, nullptr);
    if (cache_) t_.vkDestroyPipelineCache(device_, cache_, nullptr);
    staging_.reset();
    allocator_.reset(); // every buffer is gone: the DeviceImpl above outlives them
    if (ownsDevice_) t_.vkDestroyDevice(device_, nullptr);
}

Result<std::unique_ptr<VulkanBuffer>> VulkanDevice::makeBuffer(uint64_t size, bool hostVisible) {
    auto buf = std::make_unique<VulkanBuffer>();
    buf->device = device_;
    buf->table = &t_;
    buf->size = size;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
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
    if (Status s = check(injected(detail::FaultPoint::Allocation), "vkAllocateMemory"); !s) return lost(s);
    auto allocation = allocator_->allocate(req, type, hostVisible);
    if (!allocation) return lost(allocation.status());
    buf->allocator = allocator_.get();
    buf->allocation = allocation.value();
    buf->mapped = allocation.value().mapped;
    if (Status s = check(
            t_.vkBindBufferMemory(device_, buf->buffer, allocation.value().memory, allocation.value().offset),
            "vkBindBufferMemory");
        !s)
        return s;
    return buf;
}

VkResult VulkanDevice::injected(detail::FaultPoint point) {
    const StatusCode code = takeFault(point);
    if (code == StatusCode::DeviceLost) {
        t_.vkDeviceWaitIdle(device_); // a lost GPU runs nothing more: what ripple then frees is not in use
        return VK_ERROR_DEVICE_LOST;
    }
    return code == StatusCode::OutOfMemory ? VK_ERROR_OUT_OF_DEVICE_MEMORY : VK_SUCCESS;
}

Result<std::unique_ptr<detail::BackendBuffer>> VulkanDevice::createBuffer(uint64_t size, bool hostVisible) {
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    auto buf = makeBuffer(size, hostVisible);
    if (!buf) return buf.status();
    return std::unique_ptr<detail::BackendBuffer>(std::move(buf.value()));
}

Result<VulkanBuffer*> VulkanDevice::stagingBuffer() {
    if (!staging_) {
        auto b = makeBuffer(kStagingBytes, true);
        if (!b) return b.status();
        staging_ = std::move(b.value());
    }
    return staging_.get();
}

Status VulkanDevice::upload(detail::BackendBuffer& buffer, uint64_t offset, const void* data, uint64_t size) {
    std::lock_guard<std::mutex> lock(stagingMutex_);
    auto staging = stagingBuffer();
    if (!staging) return staging.status();
    for (uint64_t done = 0; done < size;) {
        const uint64_t piece = std::min(size - done, kStagingBytes);
        std::memcpy(staging.value()->mapped, static_cast<const char*>(data) + done, piece);
        auto list = beginCommands(0);
        if (!list) return list.status();
        list.value()->copy({staging.value(), 0, piece}, {&buffer, offset + done, piece});
        auto ticket = submit(std::move(list.value()));
        if (!ticket) return ticket.status();
        if (Status s = wait(ticket.value(), kTransferTimeoutNs); !s) return s;
        done += piece;
    }
    return {};
}

Status VulkanDevice::download(detail::BackendBuffer& buffer, uint64_t offset, void* data, uint64_t size) {
    std::lock_guard<std::mutex> lock(stagingMutex_);
    auto staging = stagingBuffer();
    if (!staging) return staging.status();
    for (uint64_t done = 0; done < size;) {
        const uint64_t piece = std::min(size - done, kStagingBytes);
        auto list = beginCommands(0);
        if (!list) return list.status();
        list.value()->copy({&buffer, offset + done, piece}, {staging.value(), 0, piece});
        list.value()->hostReadBarrier();
        auto ticket = submit(std::move(list.value()));
        if (!ticket) return ticket.status();
        if (Status s = wait(ticket.value(), kTransferTimeoutNs); !s) return s;
        std::memcpy(static_cast<char*>(data) + done, staging.value()->mapped, piece);
        done += piece;
    }
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
    const kernels::RoundTripKernel* roundTrip =
        roundTrip_ ? kernels::findRoundTrip(*roundTrip_, kernel.name) : nullptr;
    std::vector<uint32_t> code;
    if (!kernels::unpackSpirv(roundTrip ? roundTrip->spirv : kernel.spirv, code))
        return Status(StatusCode::Internal,
                      std::string("the embedded SPIR-V of ") + kernel.name + " is corrupt");
    VkShaderModuleCreateInfo moduleInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    moduleInfo.codeSize = code.size() * 4;
    moduleInfo.pCode = code.data();
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
    Status s = check(t_.vkCreateComputePipelines(device_, cache_, 1, &info, nullptr, &p.pipeline),
                     "vkCreateComputePipelines");
    t_.vkDestroyShaderModule(device_, module, nullptr);
    if (!s) return s;
    if (auto name = instance_->fn().vkSetDebugUtilsObjectNameEXT) { // kernel names show in RenderDoc
        VkDebugUtilsObjectNameInfoEXT n{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
        n.objectType = VK_OBJECT_TYPE_PIPELINE;
        n.objectHandle = reinterpret_cast<uint64_t>(p.pipeline);
        n.pObjectName = kernel.name;
        name(device_, &n);
    }
    pipelines_[kernel.name] = p;
    return {};
}

const Pipeline& VulkanDevice::pipeline(const kernels::KernelInfo& kernel) {
    std::lock_guard<std::mutex> lock(mutex_);
    return pipelines_.at(kernel.name);
}

Result<std::unique_ptr<detail::BackendCommandList>> VulkanDevice::beginCommands(uint32_t timestampSlots) {
    CommandSlot slot;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
        if (Status s = retire(); !s) return s;
        for (size_t i = 0; i < freeSlots_.size(); ++i) {
            if (freeSlots_[i].querySlots >= timestampSlots) {
                slot = freeSlots_[i];
                freeSlots_.erase(freeSlots_.begin() + static_cast<long>(i));
                break;
            }
        }
    }
    if (!slot.pool) { // a pool per list: lists may be recorded on several threads at once
        VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        poolInfo.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
        poolInfo.queueFamilyIndex = queueFamily_;
        if (Status s =
                check(t_.vkCreateCommandPool(device_, &poolInfo, nullptr, &slot.pool), "vkCreateCommandPool");
            !s)
            return s;
        VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        alloc.commandPool = slot.pool;
        alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        alloc.commandBufferCount = 1;
        if (Status s =
                check(t_.vkAllocateCommandBuffers(device_, &alloc, &slot.cmd), "vkAllocateCommandBuffers");
            !s) {
            t_.vkDestroyCommandPool(device_, slot.pool, nullptr);
            return s;
        }
        if (timestampSlots) {
            VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
            q.queryType = VK_QUERY_TYPE_TIMESTAMP;
            q.queryCount = timestampSlots;
            if (Status s =
                    check(t_.vkCreateQueryPool(device_, &q, nullptr, &slot.queries), "vkCreateQueryPool");
                !s) {
                t_.vkDestroyCommandPool(device_, slot.pool, nullptr);
                return s;
            }
            slot.querySlots = timestampSlots;
        }
    }
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    if (slot.queries && hostQueryReset_) t_.vkResetQueryPool(device_, slot.queries, 0, slot.querySlots);
    t_.vkBeginCommandBuffer(slot.cmd, &begin);
    if (slot.queries && !hostQueryReset_) t_.vkCmdResetQueryPool(slot.cmd, slot.queries, 0, slot.querySlots);
    auto list = std::make_unique<VulkanCommandList>(*this, slot);
    list->barrier(); // after everything submitted earlier on this queue
    return std::unique_ptr<detail::BackendCommandList>(std::move(list));
}

Result<uint64_t> VulkanDevice::submit(std::unique_ptr<detail::BackendCommandList> commands) {
    auto& list = static_cast<VulkanCommandList&>(*commands);
    Status recorded = list.status;
    CommandSlot slot = list.release();
    commands.reset();
    t_.vkEndCommandBuffer(slot.cmd);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!recorded.ok() || lost_) {
        recycleLocked(slot);
        if (!recorded.ok()) return recorded;
        return Status(StatusCode::DeviceLost, "the device was lost");
    }
    const uint64_t ticket = nextTicket_;
    VkTimelineSemaphoreSubmitInfo timeline{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    timeline.signalSemaphoreValueCount = 1;
    timeline.pSignalSemaphoreValues = &ticket;
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, &timeline};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &slot.cmd;
    submit.signalSemaphoreCount = 1;
    submit.pSignalSemaphores = &timeline_;
    VkResult submitted = injected(detail::FaultPoint::Submit);
    if (submitted == VK_SUCCESS) {
        if (lockQueue_) lockQueue_(); // an engine's queue: it may be submitting from other threads
        submitted = t_.vkQueueSubmit(queue_, 1, &submit, VK_NULL_HANDLE);
        if (unlockQueue_) unlockQueue_();
    }
    if (Status s = check(submitted, "vkQueueSubmit"); !s) {
        recycleLocked(slot);
        return lost(s);
    }
    ++nextTicket_;
    inFlight_.push_back({ticket, slot});
    return ticket;
}

Status VulkanDevice::retire() {
    uint64_t done = 0;
    if (Status s =
            check(t_.vkGetSemaphoreCounterValue(device_, timeline_, &done), "vkGetSemaphoreCounterValue");
        !s)
        return lost(s);
    while (!inFlight_.empty() && inFlight_.front().ticket <= done) {
        CommandSlot slot = inFlight_.front().slot;
        const uint64_t ticket = inFlight_.front().ticket;
        inFlight_.pop_front();
        if (slot.queries) {
            std::vector<uint64_t> ticks(slot.querySlots);
            t_.vkGetQueryPoolResults(device_, slot.queries, 0, slot.querySlots, ticks.size() * 8,
                                     ticks.data(), 8, VK_QUERY_RESULT_64_BIT);
            for (auto& t : ticks)
                t = static_cast<uint64_t>(static_cast<double>(t) * adapter_.features.timestampPeriodNs);
            timestamps_[ticket] = std::move(ticks);
            while (timestamps_.size() > 256) timestamps_.erase(timestamps_.begin()); // unread ones age out
        }
        recycleLocked(slot);
    }
    return {};
}

void VulkanDevice::recycleLocked(CommandSlot& slot) {
    // The pool is reset, not the buffer: it was made without RESET_COMMAND_BUFFER, so vkBeginCommandBuffer
    // needs the buffer back in the initial state (also after a submission that failed).
    t_.vkResetCommandPool(device_, slot.pool, 0);
    for (VkDescriptorPool p : slot.descriptorPools) t_.vkResetDescriptorPool(device_, p, 0);
    freeSlots_.push_back(slot);
}

Status VulkanDevice::wait(uint64_t ticket, uint64_t timeoutNs) {
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.semaphoreCount = 1;
    info.pSemaphores = &timeline_;
    info.pValues = &ticket;
    VkResult r = injected(detail::FaultPoint::Wait);
    if (r == VK_SUCCESS) r = t_.vkWaitSemaphores(device_, &info, timeoutNs);
    if (r == VK_TIMEOUT)
        return Status(StatusCode::Timeout, "ticket " + std::to_string(ticket) + " did not complete within " +
                                               std::to_string(timeoutNs / 1000000) + " ms");
    std::lock_guard<std::mutex> lock(mutex_);
    if (Status s = check(r, "vkWaitSemaphores"); !s) return lost(s);
    return retire();
}

Result<bool> VulkanDevice::isComplete(uint64_t ticket) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (lost_) return Status(StatusCode::DeviceLost, "the device was lost");
    uint64_t done = 0;
    if (Status s =
            check(t_.vkGetSemaphoreCounterValue(device_, timeline_, &done), "vkGetSemaphoreCounterValue");
        !s)
        return lost(s);
    if (done >= ticket) {
        if (Status s = retire(); !s) return s;
    }
    return done >= ticket;
}

std::vector<uint64_t> VulkanDevice::timestamps(uint64_t ticket) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = timestamps_.find(ticket);
    if (it == timestamps_.end()) return {};
    std::vector<uint64_t> t = std::move(it->second);
    timestamps_.erase(it);
    return t;
}

void VulkanDevice::keepPools(const std::vector<VkDescriptorPool>& pools) {
    std::lock_guard<std::mutex> lock(mutex_);
    enginePools_.insert(enginePools_.end(), pools.begin(), pools.end());
}

void VulkanDevice::recycle(CommandSlot slot) {
    std::lock_guard<std::mutex> lock(mutex_);
    recycleLocked(slot);
}

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
