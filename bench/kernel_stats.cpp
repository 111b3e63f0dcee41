// SPDX-License-Identifier: MIT
// ripple-kernel-stats: what the driver's compiler made of each kernel variant (registers, shared memory,
// spills), through VK_KHR_pipeline_executable_properties. Occupancy questions in bench/NOTES.md start here.
//
//   ripple-kernel-stats [--jit] DIR [NAME-PART...]   DIR: the build's kernels/spv; prints variants whose
//                                                    file name contains a NAME-PART (all without one)
//
// --jit: instead, the seconds each variant's pipeline took to create and then to run a dispatch of no
// workgroups. lavapipe compiles a kernel with LLVM at its first dispatch, not at pipeline creation, so the
// second figure is what a cold CI run pays per variant and configuration (run it with
// MESA_SHADER_CACHE_DISABLE=true; docs/TESTING.md, bench/NOTES.md issue 56).
//
// A plain Vulkan program (the system loader, not libripple's private volk): one generic pipeline layout,
// eight storage buffers and 64 bytes of push constants, is compatible with every ripple kernel.
#include "kernels/spirv_interface.hpp"

#include <vulkan/vulkan.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <string>
#include <vector>

namespace {

bool fail(VkResult r, const char* what) {
    if (r == VK_SUCCESS) return false;
    std::fprintf(stderr, "ripple-kernel-stats: %s failed (VkResult %d)\n", what, static_cast<int>(r));
    return true;
}

std::vector<uint32_t> readSpirv(const std::string& path) {
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    std::vector<uint32_t> words(static_cast<size_t>(f.tellg()) / 4);
    f.seekg(0);
    f.read(reinterpret_cast<char*>(words.data()), static_cast<std::streamsize>(words.size() * 4));
    return words;
}

// What the device can compile: a variant whose SPIR-V needs a feature the device lacks (libripple's own
// reading of its capabilities, kernels/spirv_interface.hpp) is skipped, not compiled (creating its pipeline
// is invalid usage; RADV aborts on a float atomic add it lacks).
struct FeatureName {
    uint32_t bit;
    const char* name;
};
constexpr FeatureName kFeatureNames[] = {
    {ripple::kernels::FeatureInt64, "shaderInt64"},
    {ripple::kernels::FeatureInt16, "shaderInt16"},
    {ripple::kernels::FeatureInt8, "shaderInt8"},
    {ripple::kernels::FeatureStorage8, "storageBuffer8BitAccess"},
    {ripple::kernels::FeatureStorage16, "storageBuffer16BitAccess"},
    {ripple::kernels::FeatureInt64Atomics, "shaderBufferInt64Atomics"},
    {ripple::kernels::FeatureSubgroupBasic, "subgroup basic, ballot, arithmetic and shuffle operations"},
    {ripple::kernels::FeatureFloat16, "shaderFloat16"},
    {ripple::kernels::FeatureFloat64, "shaderFloat64"},
    {ripple::kernels::FeatureFloat32AtomicAdd, "shaderBufferFloat32AtomicAdd"},
    {ripple::kernels::FeatureProfiling, "VK_KHR_shader_clock"},
    {ripple::kernels::FeatureFloat32NanPreserve, "shaderSignedZeroInfNanPreserveFloat32"},
};

std::string valueOf(const VkPipelineExecutableStatisticKHR& s) {
    switch (s.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
        return s.value.b32 ? "true" : "false";
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
        return std::to_string(s.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
        return std::to_string(s.value.u64);
    default:
        return std::to_string(s.value.f64);
    }
}

double seconds(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// --jit: one buffer behind all eight bindings, and a dispatch of no workgroups, submitted and waited for.
struct JitTimer {
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkDescriptorSet set = VK_NULL_HANDLE;
    VkCommandPool commandPool = VK_NULL_HANDLE;
    VkCommandBuffer commands = VK_NULL_HANDLE;

    bool init(VkDevice d, VkDescriptorSetLayout setLayout) {
        device = d;
        vkGetDeviceQueue(device, 0, 0, &queue);
        VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        bci.size = 65536;
        bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
        if (fail(vkCreateBuffer(device, &bci, nullptr, &buffer), "vkCreateBuffer")) return false;
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(device, buffer, &req);
        VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        mai.allocationSize = req.size;
        mai.memoryTypeIndex = static_cast<uint32_t>(__builtin_ctz(req.memoryTypeBits));
        if (fail(vkAllocateMemory(device, &mai, nullptr, &memory), "vkAllocateMemory") ||
            fail(vkBindBufferMemory(device, buffer, memory, 0), "vkBindBufferMemory"))
            return false;
        VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 8};
        VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        dpi.maxSets = 1;
        dpi.poolSizeCount = 1;
        dpi.pPoolSizes = &size;
        if (fail(vkCreateDescriptorPool(device, &dpi, nullptr, &pool), "vkCreateDescriptorPool"))
            return false;
        VkDescriptorSetAllocateInfo dsi{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        dsi.descriptorPool = pool;
        dsi.descriptorSetCount = 1;
        dsi.pSetLayouts = &setLayout;
        if (fail(vkAllocateDescriptorSets(device, &dsi, &set), "vkAllocateDescriptorSets")) return false;
        VkDescriptorBufferInfo whole{buffer, 0, VK_WHOLE_SIZE};
        VkWriteDescriptorSet writes[8];
        for (uint32_t b = 0; b < 8; ++b) {
            writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            writes[b].dstSet = set;
            writes[b].dstBinding = b;
            writes[b].descriptorCount = 1;
            writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            writes[b].pBufferInfo = &whole;
        }
        vkUpdateDescriptorSets(device, 8, writes, 0, nullptr);
        VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        cpi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        if (fail(vkCreateCommandPool(device, &cpi, nullptr, &commandPool), "vkCreateCommandPool"))
            return false;
        VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        cai.commandPool = commandPool;
        cai.commandBufferCount = 1;
        return !fail(vkAllocateCommandBuffers(device, &cai, &commands), "vkAllocateCommandBuffers");
    }
    double dispatchNothing(VkPipeline pipeline, VkPipelineLayout layout) {
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        vkBeginCommandBuffer(commands, &begin);
        vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
        vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
        const uint8_t zeros[64] = {};
        vkCmdPushConstants(commands, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 64, zeros);
        vkCmdDispatch(commands, 0, 0, 0);
        vkEndCommandBuffer(commands);
        VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        submit.commandBufferCount = 1;
        submit.pCommandBuffers = &commands;
        const auto start = std::chrono::steady_clock::now();
        if (fail(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE), "vkQueueSubmit") ||
            fail(vkQueueWaitIdle(queue), "vkQueueWaitIdle"))
            return -1;
        const double s = seconds(start);
        vkResetCommandBuffer(commands, 0);
        return s;
    }
    void destroy() {
        if (!device) return;
        vkDestroyCommandPool(device, commandPool, nullptr);
        vkDestroyDescriptorPool(device, pool, nullptr);
        vkDestroyBuffer(device, buffer, nullptr);
        vkFreeMemory(device, memory, nullptr);
    }
};

} // namespace

int main(int argc, char** argv) {
    const bool jit = argc > 1 && std::strcmp(argv[1], "--jit") == 0;
    if (jit) --argc, ++argv;
    if (argc < 2) {
        std::fprintf(stderr, "usage: ripple-kernel-stats [--jit] SPV-DIR [NAME-PART...]\n");
        return 2;
    }
    const std::string dir = argv[1];
    std::vector<std::string> names;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d)) {
            const std::string f = e->d_name;
            if (f.size() < 5 || f.compare(f.size() - 4, 4, ".spv") != 0 ||
                f.find(".hlsl.") != std::string::npos || f.find(".strip.") != std::string::npos ||
                f.find(".profile.") != std::string::npos)
                continue; // the round trip's modules, the stripped copies the library embeds, and the
                          // in-kernel clock's (RIPPLE_PROFILE_KERNELS: no user runs them, and Mesa 22.3's
                          // RADV null device crashes compiling them)
            bool wanted = argc == 2;
            for (int i = 2; i < argc; ++i) wanted = wanted || f.find(argv[i]) != std::string::npos;
            if (wanted) names.push_back(f);
        }
        closedir(d);
    }
    std::sort(names.begin(), names.end());

    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    VkInstance instance;
    if (fail(vkCreateInstance(&ici, nullptr, &instance), "vkCreateInstance")) return 1;
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(instance, &count, nullptr);
    std::vector<VkPhysicalDevice> gpus(count);
    vkEnumeratePhysicalDevices(instance, &count, gpus.data());
    if (gpus.empty()) return fail(VK_ERROR_INITIALIZATION_FAILED, "finding a device"), 1;
    VkPhysicalDevice gpu = gpus[0];
    for (VkPhysicalDevice g : gpus) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(g, &p);
        if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) gpu = g;
    }
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(gpu, &props);
    std::printf("device: %s\n", props.deviceName);

    // Every feature the device has, so that every variant's capabilities are enabled; the extensions'
    // feature structs are chained only where the device has the extension.
    uint32_t extensionCount = 0;
    vkEnumerateDeviceExtensionProperties(gpu, nullptr, &extensionCount, nullptr);
    std::vector<VkExtensionProperties> available(extensionCount);
    vkEnumerateDeviceExtensionProperties(gpu, nullptr, &extensionCount, available.data());
    auto hasExtension = [&](const char* name) {
        for (const auto& e : available)
            if (std::strcmp(e.extensionName, name) == 0) return true;
        return false;
    };
    std::vector<const char*> extensions;
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR exec{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomicFloat{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
    VkPhysicalDeviceShaderClockFeaturesKHR clock{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &f12};
    void** tail = &f12.pNext;
    auto chain = [&](const char* extension, void* features, void** next) {
        if (!hasExtension(extension)) return;
        extensions.push_back(extension);
        if (features) *tail = features, tail = next;
    };
    chain(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME, &exec, &exec.pNext);
    chain(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME, &atomicFloat, &atomicFloat.pNext);
    chain(VK_KHR_SHADER_CLOCK_EXTENSION_NAME, &clock, &clock.pNext);
    chain(VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME, nullptr, nullptr);
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f11};
    vkGetPhysicalDeviceFeatures2(gpu, &features);
    VkPhysicalDeviceFloatControlsProperties floatControls{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES};
    VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
                                                &floatControls};
    VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &subgroup};
    vkGetPhysicalDeviceProperties2(gpu, &props2);
    const VkSubgroupFeatureFlags subgroupNeeded =
        VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT |
        VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
    namespace k = ripple::kernels;
    const uint32_t supported =
        (features.features.shaderInt64 ? k::FeatureInt64 : 0) |
        (features.features.shaderInt16 ? k::FeatureInt16 : 0) | (f12.shaderInt8 ? k::FeatureInt8 : 0) |
        (f12.storageBuffer8BitAccess ? k::FeatureStorage8 : 0) |
        (f11.storageBuffer16BitAccess ? k::FeatureStorage16 : 0) |
        (f12.shaderBufferInt64Atomics ? k::FeatureInt64Atomics : 0) |
        ((subgroup.supportedOperations & subgroupNeeded) == subgroupNeeded ? k::FeatureSubgroupBasic : 0) |
        (f12.shaderFloat16 ? k::FeatureFloat16 : 0) |
        (features.features.shaderFloat64 ? k::FeatureFloat64 : 0) |
        (atomicFloat.shaderBufferFloat32AtomicAdd ? k::FeatureFloat32AtomicAdd : 0) |
        (clock.shaderSubgroupClock ? k::FeatureProfiling : 0) |
        (floatControls.shaderSignedZeroInfNanPreserveFloat32 ? k::FeatureFloat32NanPreserve : 0);
    if (!exec.pipelineExecutableInfo && !jit) {
        std::fprintf(stderr, "ripple-kernel-stats: %s has no pipelineExecutableInfo\n", props.deviceName);
        return 1;
    }
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features};
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &queue;
    dci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    dci.ppEnabledExtensionNames = extensions.data();
    VkDevice device;
    if (fail(vkCreateDevice(gpu, &dci, nullptr, &device), "vkCreateDevice")) return 1;
    auto getExecutables = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
        vkGetDeviceProcAddr(device, "vkGetPipelineExecutablePropertiesKHR"));
    auto getStatistics = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
        vkGetDeviceProcAddr(device, "vkGetPipelineExecutableStatisticsKHR"));

    VkDescriptorSetLayoutBinding bindings[8];
    for (uint32_t b = 0; b < 8; ++b)
        bindings[b] = {b, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo sli{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    sli.bindingCount = 8;
    sli.pBindings = bindings;
    VkDescriptorSetLayout setLayout;
    if (fail(vkCreateDescriptorSetLayout(device, &sli, nullptr, &setLayout), "vkCreateDescriptorSetLayout"))
        return 1;
    VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, 64};
    VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pli.setLayoutCount = 1;
    pli.pSetLayouts = &setLayout;
    pli.pushConstantRangeCount = 1;
    pli.pPushConstantRanges = &push;
    VkPipelineLayout layout;
    if (fail(vkCreatePipelineLayout(device, &pli, nullptr, &layout), "vkCreatePipelineLayout")) return 1;
    JitTimer timer;
    if (jit && !timer.init(device, setLayout)) return 1;
    double created = 0, ran = 0;

    for (const std::string& name : names) {
        const std::vector<uint32_t> words = readSpirv(dir + "/" + name);
        const ripple::kernels::SpirvInterface iface =
            ripple::kernels::readSpirvInterface(words.data(), words.size());
        const uint32_t missing = iface.features & ~supported;
        if (!iface.error.empty() || missing) {
            std::string why = iface.error;
            for (const FeatureName& f : kFeatureNames)
                if (missing & f.bit) why += std::string(why.empty() ? "the device lacks " : ", ") + f.name;
            std::printf("%s: skipped, %s\n", name.substr(0, name.size() - 4).c_str(), why.c_str());
            continue;
        }
        VkShaderModuleCreateInfo smi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
        smi.codeSize = words.size() * 4;
        smi.pCode = words.data();
        VkShaderModule module;
        if (fail(vkCreateShaderModule(device, &smi, nullptr, &module), name.c_str())) continue;
        VkComputePipelineCreateInfo pci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
        pci.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
        pci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
        pci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        pci.stage.module = module;
        pci.stage.pName = "main";
        pci.layout = layout;
        if (jit) pci.flags = 0;
        VkPipeline pipeline;
        const auto start = std::chrono::steady_clock::now();
        if (jit && !fail(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &pci, nullptr, &pipeline),
                         name.c_str())) {
            const double create = seconds(start), run = timer.dispatchNothing(pipeline, layout);
            created += create, ran += run;
            std::printf("%8.3f %8.3f %s\n", create, run, name.substr(0, name.size() - 4).c_str());
            std::fflush(stdout);
            vkDestroyPipeline(device, pipeline, nullptr);
        } else if (!jit &&
                   !fail(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &pci, nullptr, &pipeline),
                         name.c_str())) {
            VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
            info.pipeline = pipeline;
            uint32_t executables = 0;
            getExecutables(device, &info, &executables, nullptr);
            std::string line = name.substr(0, name.size() - 4) + ":";
            for (uint32_t e = 0; e < executables; ++e) {
                VkPipelineExecutableInfoKHR ei{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
                ei.pipeline = pipeline;
                ei.executableIndex = e;
                uint32_t n = 0;
                getStatistics(device, &ei, &n, nullptr);
                std::vector<VkPipelineExecutableStatisticKHR> stats(
                    n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
                getStatistics(device, &ei, &n, stats.data());
                for (const auto& s : stats) line += std::string(" ") + s.name + "=" + valueOf(s) + ";";
            }
            std::printf("%s\n", line.c_str());
            vkDestroyPipeline(device, pipeline, nullptr);
        }
        vkDestroyShaderModule(device, module, nullptr);
    }
    if (jit)
        std::printf("%8.3f %8.3f all %zu variants (create, first dispatch: seconds)\n", created, ran,
                    names.size());
    timer.destroy();
    vkDestroyPipelineLayout(device, layout, nullptr);
    vkDestroyDescriptorSetLayout(device, setLayout, nullptr);
    vkDestroyDevice(device, nullptr);
    vkDestroyInstance(instance, nullptr);
    return 0;
}
