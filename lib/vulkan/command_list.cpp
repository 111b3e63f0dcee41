// SPDX-License-Identifier: MIT
// Recording into one command buffer: dispatches with push descriptors (or sets from the list's own pools),
// fills, copies, barriers, debug labels and timestamps.
#include "vulkan/device.hpp"

namespace ripple::vk {
namespace {
constexpr VkAccessFlags kDeviceAccess = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                        VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
constexpr VkPipelineStageFlags kDeviceStages =
    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
constexpr uint32_t kSetsPerPool = 64;
} // namespace

VulkanCommandList::~VulkanCommandList() {
    if (!slot_.pool) { // submitted, or an engine's command buffer
        if (!slot_.descriptorPools.empty()) device_.keepPools(slot_.descriptorPools);
        return;
    }
    device_.table().vkEndCommandBuffer(slot_.cmd);
    device_.recycle(slot_); // dropped without submitting
}

void VulkanCommandList::barrier() {
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    // No HOST source stage: host writes before vkQueueSubmit are visible to the device by the submission
    // itself. Including it cost about 1.5 us per barrier on the H100 (bench/NOTES.md, TopK v8).
    b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = kDeviceAccess;
    device_.table().vkCmdPipelineBarrier(slot_.cmd, kDeviceStages, kDeviceStages, 0, 1, &b, 0, nullptr, 0,
                                         nullptr);
}

void VulkanCommandList::hostReadBarrier() {
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    device_.table().vkCmdPipelineBarrier(slot_.cmd, kDeviceStages, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &b, 0,
                                         nullptr, 0, nullptr);
}

void VulkanCommandList::fill(const detail::BufferRange& r, uint32_t value) {
    device_.table().vkCmdFillBuffer(slot_.cmd, static_cast<VulkanBuffer*>(r.buffer)->buffer, r.offset, r.size,
                                    value);
}

void VulkanCommandList::copy(const detail::BufferRange& source, const detail::BufferRange& destination) {
    VkBufferCopy region{source.offset, destination.offset, source.size};
    device_.table().vkCmdCopyBuffer(slot_.cmd, static_cast<VulkanBuffer*>(source.buffer)->buffer,
                                    static_cast<VulkanBuffer*>(destination.buffer)->buffer, 1, &region);
}

// An engine command buffer's descriptor pools have no completion to be reset at: they are kept until the
// device goes. (Push descriptors, on every current desktop driver, need none.)
VkDescriptorSet VulkanCommandList::allocateSet(const Pipeline& p, const kernels::KernelInfo& kernel) {
    const auto& t = device_.table();
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &p.setLayout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    if (!slot_.descriptorPools.empty()) {
        alloc.descriptorPool = slot_.descriptorPools.back();
        if (t.vkAllocateDescriptorSets(device_.handle(), &alloc, &set) == VK_SUCCESS) return set;
    }
    // The pools are reset when the list's submission completes, so sets are never freed one by one.
    const VkDescriptorPoolSize sizes[] = {
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * kernels::kMaxKernelBindings},
        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, kSetsPerPool}}; // the small-device variants' params
    VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.maxSets = kSetsPerPool;
    info.poolSizeCount = 2;
    info.pPoolSizes = sizes;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    if (Status s = check(t.vkCreateDescriptorPool(device_.handle(), &info, nullptr, &pool),
                         "vkCreateDescriptorPool");
        !s) {
        status = s;
        return VK_NULL_HANDLE;
    }
    slot_.descriptorPools.push_back(pool);
    alloc.descriptorPool = pool;
    if (Status s =
            check(t.vkAllocateDescriptorSets(device_.handle(), &alloc, &set), "vkAllocateDescriptorSets");
        !s)
        status = s;
    (void)kernel;
    return set;
}

void VulkanCommandList::dispatch(const kernels::KernelInfo& kernel,
                                 const std::vector<detail::BufferRange>& bindings, const uint32_t* push,
                                 const uint32_t groups[3], const detail::BufferRange* indirect) {
    if (!status.ok()) return;
    const auto& t = device_.table();
    const Pipeline& p = device_.pipeline(kernel);
    VkDescriptorBufferInfo infos[kernels::kMaxKernelBindings];
    VkWriteDescriptorSet writes[kernels::kMaxKernelBindings];
    for (uint32_t i = 0; i < kernel.bindingCount; ++i) {
        const detail::BufferRange& r = bindings[kernel.bindings[i].binding];
        infos[i] = {static_cast<VulkanBuffer*>(r.buffer)->buffer, r.offset, r.size};
        writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[i].dstBinding = kernel.bindings[i].binding;
        writes[i].descriptorCount = 1;
        writes[i].descriptorType = kernel.bindings[i].uniform ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                                              : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[i].pBufferInfo = &infos[i];
    }
    t.vkCmdBindPipeline(slot_.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
    if (device_.adapter().features.pushDescriptors) {
        t.vkCmdPushDescriptorSetKHR(slot_.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0,
                                    kernel.bindingCount, writes);
    } else {
        VkDescriptorSet set = allocateSet(p, kernel);
        if (!set) return;
        for (uint32_t i = 0; i < kernel.bindingCount; ++i) writes[i].dstSet = set;
        t.vkUpdateDescriptorSets(device_.handle(), kernel.bindingCount, writes, 0, nullptr);
        t.vkCmdBindDescriptorSets(slot_.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &set, 0,
                                  nullptr);
    }
    if (kernel.pushConstantBytes)
        t.vkCmdPushConstants(slot_.cmd, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, kernel.pushConstantBytes,
                             push);
    if (indirect) {
        // The level barrier before this dispatch covers shader reads, not the indirect read of its counts
        // (kept out of every barrier: a wider one cost the H100 per barrier, bench/NOTES.md).
        VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
        b.dstAccessMask = VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
        t.vkCmdPipelineBarrier(slot_.cmd, kDeviceStages, VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, 0, 1, &b, 0,
                               nullptr, 0, nullptr);
        t.vkCmdDispatchIndirect(slot_.cmd, static_cast<VulkanBuffer*>(indirect->buffer)->buffer,
                                indirect->offset);
    } else {
        t.vkCmdDispatch(slot_.cmd, groups[0], groups[1], groups[2]);
    }
}

void VulkanCommandList::beginLabel(const std::string& label) {
    if (auto begin = device_.instanceFunctions().vkCmdBeginDebugUtilsLabelEXT) {
        VkDebugUtilsLabelEXT l{VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
        l.pLabelName = label.c_str();
        begin(slot_.cmd, &l);
    }
}

void VulkanCommandList::endLabel() {
    if (auto end = device_.instanceFunctions().vkCmdEndDebugUtilsLabelEXT) end(slot_.cmd);
}

void VulkanCommandList::timestamp(uint32_t slot) {
    if (slot < slot_.querySlots)
        device_.table().vkCmdWriteTimestamp(slot_.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, slot_.queries,
                                            slot);
}

} // namespace ripple::vk
