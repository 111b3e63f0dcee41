// SPDX-License-Identifier: MIT
// The Vulkan instance shared by ripple's devices: the loader opened through volk, the validation layer
// and debug messenger when asked for, and the physical devices ripple lists.
#include "vulkan/instance.hpp"

#include <cstdio>
#include <cstring>
#include <mutex>

namespace ripple::vk {

Status check(VkResult result, const char* what) {
    if (result == VK_SUCCESS) return {};
    StatusCode code = StatusCode::Internal;
    if (result == VK_ERROR_OUT_OF_HOST_MEMORY || result == VK_ERROR_OUT_OF_DEVICE_MEMORY)
        code = StatusCode::OutOfMemory;
    else if (result == VK_ERROR_DEVICE_LOST)
        code = StatusCode::DeviceLost;
    else if (result == VK_TIMEOUT)
        code = StatusCode::Timeout;
    return Status(code,
                  std::string(what) + " failed (VkResult " + std::to_string(static_cast<int>(result)) + ")");
}

namespace {

Status loadVulkan() {
    static std::once_flag once;
    static VkResult result = VK_ERROR_INITIALIZATION_FAILED;
    std::call_once(once, [] { result = volkInitialize(); });
    if (result != VK_SUCCESS)
        return Status(StatusCode::NoDevice,
                      "no Vulkan loader found (Debian: install libvulkan1 and a driver, e.g. "
                      "mesa-vulkan-drivers for lavapipe)");
    return {};
}

// The loader's Vulkan version, 1.1 or later; otherwise NoDevice saying which step failed. volk's
// volkGetInstanceVersion() reports 1.0 both for a 1.0 loader and for a vkEnumerateInstanceVersion that fails,
// which Wine's winevulkan does when its display driver (X11) cannot load: the loader is fine, no driver is.
Result<uint32_t> instanceVersion() {
    if (!vkEnumerateInstanceVersion)
        return Status(StatusCode::NoDevice, "the Vulkan loader is a Vulkan 1.0 one (it has no "
                                            "vkEnumerateInstanceVersion); ripple needs Vulkan 1.1");
    uint32_t version = 0;
    if (VkResult r = vkEnumerateInstanceVersion(&version); r != VK_SUCCESS)
        return Status(StatusCode::NoDevice,
                      "the Vulkan loader's vkEnumerateInstanceVersion failed (VkResult " +
                          std::to_string(static_cast<int>(r)) +
                          "): the loader is present but cannot reach a driver (under Wine: its Vulkan "
                          "goes through its display driver, which needs an X display, e.g. Xvfb)");
    if (version < VK_API_VERSION_1_1)
        return Status(StatusCode::NoDevice,
                      "the Vulkan loader reports Vulkan " + std::to_string(VK_API_VERSION_MAJOR(version)) +
                          "." + std::to_string(VK_API_VERSION_MINOR(version)) + "; ripple needs Vulkan 1.1");
    return version;
}

bool hasInstanceExtension(const char* name) {
    uint32_t count = 0;
    vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
    std::vector<VkExtensionProperties> exts(count);
    vkEnumerateInstanceExtensionProperties(nullptr, &count, exts.data());
    for (auto& e : exts)
        if (std::strcmp(e.extensionName, name) == 0) return true;
    return false;
}

bool hasLayer(const char* name) {
    uint32_t count = 0;
    vkEnumerateInstanceLayerProperties(&count, nullptr);
    std::vector<VkLayerProperties> layers(count);
    vkEnumerateInstanceLayerProperties(&count, layers.data());
    for (auto& l : layers)
        if (std::strcmp(l.layerName, name) == 0) return true;
    return false;
}

} // namespace

void Instance::log(LogLevel level, const std::string& message) const {
    if (log_) return log_(level, message);
    if (level >= LogLevel::Warning)
        std::fprintf(stderr, "ripple %s: %s\n", level == LogLevel::Error ? "error" : "warning",
                     message.c_str());
}

VKAPI_ATTR VkBool32 VKAPI_CALL Instance::onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                   void* self) {
    auto* instance = static_cast<Instance*>(self);
    LogLevel level = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT     ? LogLevel::Error
                     : severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT ? LogLevel::Warning
                                                                                   : LogLevel::Info;
    if (level >= LogLevel::Warning) instance->validationMessages_++;
    instance->log(level, std::string("validation: ") + (data && data->pMessage ? data->pMessage : ""));
    return VK_FALSE;
}

Result<std::unique_ptr<Instance>> Instance::create(bool validation, LogCallback log) {
    if (Status s = loadVulkan(); !s) return s;
    const char* layer = "VK_LAYER_KHRONOS_validation";
    if (validation && !hasLayer(layer))
        return Status(StatusCode::NoDevice, "validation was requested but VK_LAYER_KHRONOS_validation is not "
                                            "installed (Debian: vulkan-validationlayers)");
    auto inst = std::unique_ptr<Instance>(new Instance());
    inst->log_ = std::move(log);

    auto loaderVersion = instanceVersion();
    if (!loaderVersion) return loaderVersion.status();
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "ripple";
    app.pEngineName = "ripple";
    app.apiVersion = loaderVersion.value() >= VK_API_VERSION_1_2 ? VK_API_VERSION_1_2 : VK_API_VERSION_1_1;

    // debug_utils whenever present: labels and object names cost nothing and show in RenderDoc.
    std::vector<const char*> extensions;
    const bool debugUtils = validation || hasInstanceExtension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (debugUtils) extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (validation) extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    VkDebugUtilsMessengerCreateInfoEXT messenger{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    messenger.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                            VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                            VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messenger.pfnUserCallback = &Instance::onMessage;
    messenger.pUserData = inst.get();

    // With validation: the standard checks plus synchronization validation (missing or wrong barriers).
    VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = enables;
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    if (validation) {
        info.enabledLayerCount = 1;
        info.ppEnabledLayerNames = &layer;
        messenger.pNext = &features;
        info.pNext = &messenger; // also reports on instance creation and destruction
    }
    if (Status s = check(vkCreateInstance(&info, nullptr, &inst->instance_), "vkCreateInstance"); !s) {
        s = Status(StatusCode::NoDevice, s.message());
        return s;
    }
    inst->loadFunctions(vkGetInstanceProcAddr, debugUtils);
    if (validation && inst->fn_.vkCreateDebugUtilsMessengerEXT) {
        messenger.pNext = nullptr; // the validation features were for vkCreateInstance only
        inst->fn_.vkCreateDebugUtilsMessengerEXT(inst->instance_, &messenger, nullptr, &inst->messenger_);
    }
    inst->findPhysicalDevices();
    return inst;
}

Result<std::unique_ptr<Instance>> Instance::adopt(VkInstance instance, PFN_vkGetInstanceProcAddr gipa,
                                                  bool debugUtils, LogCallback log) {
    if (!gipa) {
        if (Status s = loadVulkan(); !s) return s;
        gipa = vkGetInstanceProcAddr;
    }
    auto inst = std::unique_ptr<Instance>(new Instance());
    inst->log_ = std::move(log);
    inst->instance_ = instance;
    inst->owned_ = false;
    inst->loadFunctions(gipa, debugUtils);
    inst->findPhysicalDevices();
    return inst;
}

void Instance::loadFunctions(PFN_vkGetInstanceProcAddr gipa, bool debugUtils) {
#define RIPPLE_LOAD(name) fn_.name = reinterpret_cast<PFN_##name>(gipa(instance_, #name));
    RIPPLE_INSTANCE_FUNCTIONS(RIPPLE_LOAD)
    RIPPLE_LOAD(vkCreateDebugUtilsMessengerEXT)
    RIPPLE_LOAD(vkDestroyDebugUtilsMessengerEXT)
    if (debugUtils) {
        RIPPLE_LOAD(vkCmdBeginDebugUtilsLabelEXT)
        RIPPLE_LOAD(vkCmdEndDebugUtilsLabelEXT)
        RIPPLE_LOAD(vkSetDebugUtilsObjectNameEXT)
    }
#undef RIPPLE_LOAD
}

void Instance::findPhysicalDevices() {
    uint32_t count = 0;
    fn_.vkEnumeratePhysicalDevices(instance_, &count, nullptr);
    std::vector<VkPhysicalDevice> all(count);
    fn_.vkEnumeratePhysicalDevices(instance_, &count, all.data());
    for (VkPhysicalDevice pd : all) {
        VkPhysicalDeviceProperties props;
        fn_.vkGetPhysicalDeviceProperties(pd, &props);
        if (props.apiVersion >= VK_API_VERSION_1_1) physical_.push_back(pd); // ripple needs Vulkan 1.1
    }
}

Instance::~Instance() {
    if (messenger_) fn_.vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
    if (instance_ && owned_) fn_.vkDestroyInstance(instance_, nullptr);
}

namespace {
bool hasExtension(const InstanceFunctions& fn, VkPhysicalDevice pd, const char* name) {
    uint32_t count = 0;
    fn.vkEnumerateDeviceExtensionProperties(pd, nullptr, &count, nullptr);
    std::vector<VkExtensionProperties> exts(count);
    fn.vkEnumerateDeviceExtensionProperties(pd, nullptr, &count, exts.data());
    for (auto& e : exts)
        if (std::strcmp(e.extensionName, name) == 0) return true;
    return false;
}
} // namespace

AdapterInfo Instance::describe(uint32_t index) const {
    VkPhysicalDevice pd = physical_[index];
    VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &subgroup};
    // Whether a pipeline may require full subgroups (ripple's instance is Vulkan 1.2, so the extension).
    const bool sizeControl = hasExtension(fn_, pd, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
    VkPhysicalDeviceSubgroupSizeControlPropertiesEXT sizes{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES_EXT};
    if (sizeControl) subgroup.pNext = &sizes;
    fn_.vkGetPhysicalDeviceProperties2(pd, &props);
    const bool v12 = props.properties.apiVersion >= VK_API_VERSION_1_2;
    // Float controls are core in Vulkan 1.2 (ripple's devices are created for it where the adapter has it);
    // on 1.1 the extension would have to be enabled, so kernels that need them are not used there.
    VkPhysicalDeviceFloatControlsProperties floatControls{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES};
    if (v12) {
        VkPhysicalDeviceProperties2 more{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &floatControls};
        fn_.vkGetPhysicalDeviceProperties2(pd, &more);
    }

    VkPhysicalDevice16BitStorageFeatures s16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    VkPhysicalDevice8BitStorageFeatures s8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
    VkPhysicalDeviceShaderFloat16Int8Features f16i8{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
    VkPhysicalDeviceShaderAtomicInt64Features a64{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &s16};
    void** tail = &s16.pNext;
    if (v12 || hasExtension(fn_, pd, VK_KHR_8BIT_STORAGE_EXTENSION_NAME)) *tail = &s8, tail = &s8.pNext;
    if (v12 || hasExtension(fn_, pd, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME))
        *tail = &f16i8, tail = &f16i8.pNext;
    if (v12 || hasExtension(fn_, pd, VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME))
        *tail = &a64, tail = &a64.pNext;
    VkPhysicalDeviceTimelineSemaphoreFeatures timeline{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
    if (v12 || hasExtension(fn_, pd, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME))
        *tail = &timeline, tail = &timeline.pNext;
    // Vulkan 1.2 requires hostQueryReset; 1.1 drivers offer it by extension (Mesa's panvk and PowerVR do).
    VkPhysicalDeviceHostQueryResetFeatures queryReset{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES};
    if (v12 || hasExtension(fn_, pd, VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME))
        *tail = &queryReset, tail = &queryReset.pNext;
    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomicFloat{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
    if (hasExtension(fn_, pd, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME))
        *tail = &atomicFloat, tail = &atomicFloat.pNext;
    // The profiler's clocks and SM numbers (RecorderOptions::profile).
    VkPhysicalDeviceShaderClockFeaturesKHR clock{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
    VkPhysicalDeviceShaderSMBuiltinsFeaturesNV sm{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_FEATURES_NV};
    const bool profiling = hasExtension(fn_, pd, VK_KHR_SHADER_CLOCK_EXTENSION_NAME) &&
                           hasExtension(fn_, pd, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
    if (profiling) {
        *tail = &clock, tail = &clock.pNext;
        *tail = &sm, tail = &sm.pNext;
    }
    VkPhysicalDeviceSubgroupSizeControlFeaturesEXT sizeFeatures{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT};
    if (sizeControl) *tail = &sizeFeatures, tail = &sizeFeatures.pNext;
    fn_.vkGetPhysicalDeviceFeatures2(pd, &features);

    AdapterInfo info;
    info.index = index;
    info.name = props.properties.deviceName;
    info.backend = Backend::Vulkan;
    switch (props.properties.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        info.type = AdapterType::Discrete;
        break;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        info.type = AdapterType::Integrated;
        break;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        info.type = AdapterType::Virtual;
        break;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        info.type = AdapterType::Cpu;
        break;
    default:
        info.type = AdapterType::Other;
        break;
    }
    info.apiVersion = props.properties.apiVersion;
    info.vendorId = props.properties.vendorID;
    info.deviceId = props.properties.deviceID;
    std::memcpy(info.pipelineCacheUUID, props.properties.pipelineCacheUUID, VK_UUID_SIZE);
    AdapterFeatures& f = info.features;
    f.int64 = features.features.shaderInt64;
    f.int16 = features.features.shaderInt16;
    f.storage16 = s16.storageBuffer16BitAccess;
    f.storage8 = s8.storageBuffer8BitAccess;
    f.int8 = f16i8.shaderInt8;
    f.float16 = f16i8.shaderFloat16;
    f.float64 = features.features.shaderFloat64;
    f.int64Atomics = a64.shaderBufferInt64Atomics;
    f.float32AtomicAdd = atomicFloat.shaderBufferFloat32AtomicAdd;
    f.signedZeroInfNanPreserveFloat32 = v12 && floatControls.shaderSignedZeroInfNanPreserveFloat32;
    const VkSubgroupFeatureFlags needed = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT |
                                          VK_SUBGROUP_FEATURE_ARITHMETIC_BIT |
                                          VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
    f.subgroups = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                  (subgroup.supportedOperations & needed) == needed;
    f.subgroupSize = subgroup.subgroupSize;
    f.fullSubgroups =
        f.subgroups && sizeControl && sizeFeatures.subgroupSizeControl && sizeFeatures.computeFullSubgroups;
    f.minSubgroupSize = sizeControl ? sizes.minSubgroupSize : subgroup.subgroupSize;
    f.maxSubgroupSize = sizeControl ? sizes.maxSubgroupSize : subgroup.subgroupSize;
    f.pushDescriptors = hasExtension(fn_, pd, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    f.timelineSemaphore = timeline.timelineSemaphore;
    f.hostQueryReset = queryReset.hostQueryReset;
    f.profiling = profiling && clock.shaderDeviceClock && clock.shaderSubgroupClock && sm.shaderSMBuiltins;
    f.timestampPeriodNs = props.properties.limits.timestampPeriod;
    f.timestamps = props.properties.limits.timestampComputeAndGraphics;
    f.maxStorageBufferRange = props.properties.limits.maxStorageBufferRange;
    f.minStorageBufferOffsetAlignment = props.properties.limits.minStorageBufferOffsetAlignment;
    const VkPhysicalDeviceLimits& limits = props.properties.limits;
    for (int i = 0; i < 3; ++i) {
        f.maxWorkgroupCount[i] = limits.maxComputeWorkGroupCount[i];
        f.maxComputeWorkGroupSize[i] = limits.maxComputeWorkGroupSize[i];
    }
    f.maxComputeSharedMemorySize = limits.maxComputeSharedMemorySize;
    f.maxComputeWorkGroupInvocations = limits.maxComputeWorkGroupInvocations;
    f.maxPerStageDescriptorStorageBuffers = limits.maxPerStageDescriptorStorageBuffers;
    return info;
}

} // namespace ripple::vk
