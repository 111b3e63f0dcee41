// SPDX-License-Identifier: MIT
// The Vulkan device's pipelines: one compute pipeline per kernel variant (its descriptor-set and pipeline
// layouts from the reflection, push descriptors where the device has them), through the pipeline cache whose
// data pipelineCacheData() returns.
#include "vulkan/device.hpp"

#include <cstring>
#include <mutex>

namespace ripple::vk {

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

Status VulkanDevice::preparePipeline(const kernels::KernelInfo& kernel) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pipelines_.count(kernel.name)) return {};
    Pipeline p;
    VkDescriptorSetLayoutBinding bindings[kernels::kMaxKernelBindings];
    for (uint32_t i = 0; i < kernel.bindingCount; ++i) {
        bindings[i] = {};
        bindings[i].binding = kernel.bindings[i].binding;
        bindings[i].descriptorType = kernel.bindings[i].uniform ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                                                : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
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
    if (kernel.features & kernels::FeatureFullSubgroups) // chosen only where the device has the feature
        info.stage.flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT_EXT;
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

} // namespace ripple::vk
