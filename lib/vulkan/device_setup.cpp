// SPDX-License-Identifier: MIT
// Opening and closing the Vulkan backend's device: choosing the adapter and queue, enabling what ripple's
// kernels may use (VulkanDevice::create), taking over an engine's device (adopt), what both share
// (finishSetup), and destruction. Buffers: buffers.cpp; pipelines: pipelines.cpp; command buffers,
// submission and tickets: submission.cpp.
#include "vulkan/device.hpp"
#include "vulkan/profiles.hpp"
#include "vulkan/test_seams.hpp"

#include <cstdlib>
#include <cstring>
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

constexpr uint64_t kBlockBytes = 64ull << 20; // the allocator's shared blocks

} // namespace

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
    // An emulated profile narrows what is enabled below, as a device of that class would (profiles.hpp).
    if (Status s = applyProfileOption(options, dev->adapter_); !s) return s;
    if (fenceTicketsForTests()) dev->adapter_.features.timelineSemaphore = false;
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
    features.pNext = &s16;
    void** tail = &s16.pNext;
    if (f.timelineSemaphore) { // else tickets are fences (fence_tickets.cpp)
        *tail = &timeline, tail = &timeline.pNext;
        if (!v12) exts.push_back(VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
    }
    // Timestamp queries reset on the host, not by a command: the command delays the GPU's start by ~3 us,
    // and on an H200 made every dispatch after it 3-9 us slower (bench/NOTES.md, issue 58: the whole of
    // mali-valhall-panvk's 1.19x). On Vulkan 1.1 through VK_EXT_host_query_reset, where the driver has it.
    VkPhysicalDeviceHostQueryResetFeatures queryReset{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES};
    if (f.hostQueryReset) {
        queryReset.hostQueryReset = VK_TRUE;
        *tail = &queryReset, tail = &queryReset.pNext;
        if (!v12) exts.push_back(VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME);
        dev->hostQueryReset_ = true;
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

    // Full subgroups, which ripple's subgroup kernels request (AdapterFeatures::fullSubgroups).
    VkPhysicalDeviceSubgroupSizeControlFeaturesEXT sizeControl{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT};
    if (f.fullSubgroups) {
        sizeControl.subgroupSizeControl = VK_TRUE;
        sizeControl.computeFullSubgroups = VK_TRUE;
        *tail = &sizeControl, tail = &sizeControl.pNext;
        exts.push_back(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
    }

    VkPhysicalDeviceShaderClockFeaturesKHR clock{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
    VkPhysicalDeviceShaderSMBuiltinsFeaturesNV sm{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_FEATURES_NV};
    if (f.profiling) { // enabled where present: only the PROFILE kernels use them
        clock.shaderDeviceClock = VK_TRUE;
        clock.shaderSubgroupClock = VK_TRUE; // the SM's cycles beside the real-time clock
        sm.shaderSMBuiltins = VK_TRUE;
        *tail = &clock, tail = &clock.pNext;
        *tail = &sm, tail = &sm.pNext;
        exts.push_back(VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
        exts.push_back(VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
    }

    // DeviceOptions::transferQueue: a second queue of the family, where it has one, for uploads and
    // downloads (buffers.cpp), which then never queue behind ripple's submissions. Same family: buffers need
    // no ownership transfer. Not by default: while a device held one, every kernel of the particles frame
    // ran 2% slower on an H200 (NVIDIA 580; bench/NOTES.md, issue 57).
    const float priorities[2] = {1.0f, 1.0f};
    VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue.queueFamilyIndex = dev->queueFamily_;
    queue.queueCount = options.transferQueue && families[dev->queueFamily_].queueCount >= 2 ? 2 : 1;
    queue.pQueuePriorities = priorities;
    VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features};
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue;
    info.enabledExtensionCount = static_cast<uint32_t>(exts.size());
    info.ppEnabledExtensionNames = exts.data();
    if (Status s = check(fn.vkCreateDevice(dev->physical_, &info, nullptr, &dev->device_), "vkCreateDevice");
        !s)
        return s;
    if (Status s = dev->finishSetup(options.pipelineCacheData); !s) return s;
    if (queue.queueCount == 2)
        dev->t_.vkGetDeviceQueue(dev->device_, dev->queueFamily_, 1, &dev->transferQueue_);
    return std::unique_ptr<detail::BackendDevice>(std::move(dev));
}

Status VulkanDevice::finishSetup(const std::vector<uint8_t>& cacheData) {
    roundTrip_ = kernels::hlslRoundTrip();
    const InstanceFunctions& fn = instance_->fn();
    loadDeviceTable(fn, device_, t_);
    // A Vulkan 1.1 device has the extension's entry point only.
    if (!t_.vkResetQueryPool) t_.vkResetQueryPool = t_.vkResetQueryPoolEXT;
    if (!queue_) t_.vkGetDeviceQueue(device_, queueFamily_, 0, &queue_);
    fn.vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
    allocator_ = std::make_unique<MemoryAllocator>();
    allocator_->init(device_, &t_, kBlockBytes);
    fenceTickets_ = !adapter_.features.timelineSemaphore;
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    type.initialValue = 0;
    VkSemaphoreCreateInfo semInfo{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
    if (!fenceTickets_)
        if (Status s =
                check(t_.vkCreateSemaphore(device_, &semInfo, nullptr, &timeline_), "vkCreateSemaphore");
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
    if (Status s =
            check(t_.vkCreatePipelineCache(device_, &cacheInfo, nullptr, &cache_), "vkCreatePipelineCache");
        !s)
        return s;
    return probeFullSubgroups();
}

Result<std::unique_ptr<VulkanDevice>> VulkanDevice::adopt(const AdoptedHandles& h,
                                                          const DeviceOptions& options) {
    if (!h.instance || !h.physicalDevice || !h.device || !h.queue)
        return Status(StatusCode::InvalidArgument,
                      "adoptVulkanDevice: instance, physicalDevice, device and queue "
                      "must all be set");
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
    f.signedZeroInfNanPreserveFloat32 &= e.signedZeroInfNanPreserveFloat32;
    f.pushDescriptors &= e.pushDescriptors, f.subgroups &= e.subgroups;
    f.fullSubgroups &= e.fullSubgroups && f.subgroups;
    f.timelineSemaphore &= e.timelineSemaphore; // else tickets are fences
    f.hostQueryReset &= e.hostQueryReset;
    f.profiling &= e.profiling;
    if (Status s = applyProfileOption(options, dev->adapter_); !s) return s;
    dev->hostQueryReset_ = f.hostQueryReset;
    dev->device_ = h.device;
    dev->ownsDevice_ = false;
    dev->queue_ = h.queue;
    dev->transferQueue_ = h.transferQueue == h.queue ? VK_NULL_HANDLE : h.transferQueue;
    dev->queueFamily_ = h.queueFamilyIndex;
    dev->lockQueue_ = h.lockQueue;
    dev->unlockQueue_ = h.unlockQueue;
    if (Status s = dev->finishSetup(options.pipelineCacheData); !s) return s;
    return dev;
}

VulkanDevice::~VulkanDevice() {
    if (!device_) return;
    if (ownsDevice_)
        t_.vkDeviceWaitIdle(device_);
    else if (!inFlight_.empty())
        (void)wait(inFlight_.back().ticket, UINT64_MAX); // an engine's device: only ours
    if (transferPending_) t_.vkWaitForFences(device_, 1, &transferFence_, VK_TRUE, UINT64_MAX);
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& f : inFlight_) {
        if (!f.kept) freeSlots_.push_back(f.slot); // recordings go with their owners, before the device
        for (CommandSlot& t : f.transfers) freeSlots_.push_back(t);
    }
    inFlight_.clear(); // and their fences
    freeFences_.clear();
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
    if (transferFence_) t_.vkDestroyFence(device_, transferFence_, nullptr);
    if (transferSlot_.pool) t_.vkDestroyCommandPool(device_, transferSlot_.pool, nullptr);
    if (timeline_) t_.vkDestroySemaphore(device_, timeline_, nullptr);
    if (cache_) t_.vkDestroyPipelineCache(device_, cache_, nullptr);
    staging_.reset();
    allocator_.reset(); // every buffer is gone: the DeviceImpl above outlives them
    if (ownsDevice_) t_.vkDestroyDevice(device_, nullptr);
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
