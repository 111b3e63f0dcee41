// SPDX-License-Identifier: MIT
// The Vulkan instance, loaded through ripple's private volk, and what ripple reads of each adapter.
#pragma once

#include "ripple/device.hpp"

#include <volk.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace ripple::vk {

Status check(VkResult result, const char* what); // VK_SUCCESS -> Ok; else a Status naming `what`

// The instance-level functions ripple calls, loaded per instance: volk's own globals hold one instance's
// pointers, which would be wrong for a second instance (or an engine's).
#define RIPPLE_INSTANCE_FUNCTIONS(X)                                                                         \
    X(vkDestroyInstance)                                                                                     \
    X(vkEnumeratePhysicalDevices)                                                                            \
    X(vkGetPhysicalDeviceProperties)                                                                         \
    X(vkGetPhysicalDeviceProperties2)                                                                        \
    X(vkGetPhysicalDeviceFeatures2)                                                                          \
    X(vkGetPhysicalDeviceQueueFamilyProperties)                                                              \
    X(vkGetPhysicalDeviceMemoryProperties)                                                                   \
    X(vkEnumerateDeviceExtensionProperties)                                                                  \
    X(vkCreateDevice)                                                                                        \
    X(vkGetDeviceProcAddr)
struct InstanceFunctions {
#define RIPPLE_DECLARE(name) PFN_##name name = nullptr;
    RIPPLE_INSTANCE_FUNCTIONS(RIPPLE_DECLARE)
#undef RIPPLE_DECLARE
    // VK_EXT_debug_utils, when the loader offers it (labels and names for RenderDoc), else null.
    PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT = nullptr;
    PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT = nullptr;
    PFN_vkCmdBeginDebugUtilsLabelEXT vkCmdBeginDebugUtilsLabelEXT = nullptr;
    PFN_vkCmdEndDebugUtilsLabelEXT vkCmdEndDebugUtilsLabelEXT = nullptr;
    PFN_vkSetDebugUtilsObjectNameEXT vkSetDebugUtilsObjectNameEXT = nullptr;
};

// Owns a VkInstance (and the validation messenger when asked for).
class Instance {
  public:
    static Result<std::unique_ptr<Instance>> create(bool validation, LogCallback log);
    // An engine's instance: ripple loads its functions through `getInstanceProcAddr` (null: the system
    // loader's) and never destroys it.
    static Result<std::unique_ptr<Instance>> adopt(VkInstance instance,
                                                   PFN_vkGetInstanceProcAddr getInstanceProcAddr,
                                                   bool debugUtils, LogCallback log);
    ~Instance();

    VkInstance handle() const { return instance_; }
    const InstanceFunctions& fn() const { return fn_; }
    const std::vector<VkPhysicalDevice>& physicalDevices() const { return physical_; }
    AdapterInfo describe(uint32_t index) const;
    uint32_t validationMessages() const { return validationMessages_.load(); }
    void log(LogLevel level, const std::string& message) const;

  private:
    static VKAPI_ATTR VkBool32 VKAPI_CALL onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                    VkDebugUtilsMessageTypeFlagsEXT types,
                                                    const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                    void* self);
    void loadFunctions(PFN_vkGetInstanceProcAddr gipa, bool debugUtils);
    void findPhysicalDevices();
    VkInstance instance_ = VK_NULL_HANDLE;
    bool owned_ = true;
    InstanceFunctions fn_;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    std::vector<VkPhysicalDevice> physical_;
    LogCallback log_;
    std::atomic<uint32_t> validationMessages_{0};
};

} // namespace ripple::vk
