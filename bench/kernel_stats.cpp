// SPDX-License-Identifier: MIT
// ripple-kernel-stats: what the driver's compiler made of each kernel variant (registers, shared memory,
// spills), through VK_KHR_pipeline_executable_properties. Occupancy questions in bench/NOTES.md start here.
//
//   ripple-kernel-stats DIR [NAME-PART...]   DIR: the build's kernels/spv; prints variants whose file name
//                                            contains a NAME-PART (all without one)
//
// A plain Vulkan program (the system loader, not libripple's private volk): one generic pipeline layout,
// eight storage buffers and 64 bytes of push constants, is compatible with every ripple kernel.
#include <vulkan/vulkan.h>

#include <algorithm>
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

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: ripple-kernel-stats SPV-DIR [NAME-PART...]\n");
        return 2;
    }
    const std::string dir = argv[1];
    std::vector<std::string> names;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d)) {
            const std::string f = e->d_name;
            if (f.size() < 5 || f.compare(f.size() - 4, 4, ".spv") != 0 ||
                f.find(".hlsl.") != std::string::npos || f.find(".strip.") != std::string::npos)
                continue; // the round trip's modules, and the stripped copies the library embeds
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

    // Every feature the device has, so that every variant's capabilities are enabled.
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR exec{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &exec};
    VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &f12};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f11};
    vkGetPhysicalDeviceFeatures2(gpu, &features);
    if (!exec.pipelineExecutableInfo) {
        std::fprintf(stderr, "ripple-kernel-stats: %s has no pipelineExecutableInfo\n", props.deviceName);
        return 1;
    }
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    const char* extensions[] = {VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME};
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features};
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &queue;
    dci.enabledExtensionCount = 1;
    dci.ppEnabledExtensionNames = extensions;
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

    for (const std::string& name : names) {
        const std::vector<uint32_t> words = readSpirv(dir + "/" + name);
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
        VkPipeline pipeline;
        if (!fail(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &pci, nullptr, &pipeline),
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
    vkDestroyPipelineLayout(device, layout, nullptr);
    vkDestroyDescriptorSetLayout(device, setLayout, nullptr);
    vkDestroyDevice(device, nullptr);
    vkDestroyInstance(instance, nullptr);
    return 0;
}
