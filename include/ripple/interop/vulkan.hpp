// SPDX-License-Identifier: MIT
/// @file
/// @brief Using ripple inside an engine's own Vulkan objects: its instance, device and queue, its buffers,
/// and its command buffers. The one public header that includes Vulkan; it works whether the engine links the
/// Vulkan loader or loads it with its own volk (ripple loads every function itself, through
/// getInstanceProcAddr, and never touches volk's or the loader's globals).
#pragma once

#include "ripple/device.hpp"
#include "ripple/interop/recording.hpp"

#include <vulkan/vulkan.h>

#include <functional>
#include <vector>

namespace ripple::interop {

/// The engine's objects. ripple creates nothing on the instance, enables nothing on the device and
/// destroys none of them; the engine keeps them alive until the ripple Device and everything made from it
/// are gone.
struct VulkanDeviceDesc {
    VkInstance instance = VK_NULL_HANDLE;             ///< the engine's instance (Vulkan 1.1 or later)
    VkPhysicalDevice physicalDevice = VK_NULL_HANDLE; ///< the physical device `device` was made on
    VkDevice device = VK_NULL_HANDLE;                 ///< the engine's device
    /// A queue with compute, of queueFamilyIndex. A queue of a compute-only family (no graphics), where
    /// the device has one, is what ripple takes for itself: on an H100 (NVIDIA 580) work submitted there
    /// starts 2.5 us sooner and multi-pass TopKs ran 2-22% faster than on the graphics family.
    VkQueue queue = VK_NULL_HANDLE;
    uint32_t queueFamilyIndex = 0; ///< the queue's family
    /// Optional: a second queue of queueFamilyIndex that only ripple submits to, for Device::upload and
    /// download where the host cannot map a buffer's memory (discrete GPUs). They then never queue behind
    /// ripple's submissions on `queue`, one waiting on the engine's semaphore included. Null: they go on
    /// `queue` (and return Timeout while such a submission holds them back).
    VkQueue transferQueue = VK_NULL_HANDLE;
    /// How ripple reaches the engine's Vulkan functions; null uses the system loader.
    PFN_vkGetInstanceProcAddr getInstanceProcAddr = nullptr;
    /// What the engine enabled when it created `device`. ripple uses these and nothing else, picking
    /// kernel variants to match: `timelineSemaphore` is required; the others only make kernels faster
    /// (64-bit scatters need int64 and int64Atomics; float32AtomicAdd needs VK_EXT_shader_atomic_float's
    /// shaderBufferFloat32AtomicAdd enabled; signedZeroInfNanPreserveFloat32, a property, needs the device
    /// created for Vulkan 1.2; hostQueryReset, enabled by Vulkan 1.2's feature or VK_EXT_host_query_reset,
    /// lets ripple reset its timestamp queries on the host instead of by a command in each submission).
    AdapterFeatures enabledFeatures;
    bool debugUtilsEnabled = false; ///< VK_EXT_debug_utils enabled on the instance: labels for RenderDoc
    /// Called around each vkQueueSubmit ripple makes on `queue` (Device::submit, execute, upload,
    /// download), so an engine that submits from several threads can share the queue. Optional.
    std::function<void()> lockQueue;
    std::function<void()> unlockQueue; ///< called after each of those vkQueueSubmit calls. Optional.
};

/// A ripple Device on the engine's objects. options.log and options.kernels apply; adapterIndex and
/// validation do not (the engine's instance decides about layers).
/// @return the device; InvalidArgument for null handles or a physicalDevice not of `instance`;
/// Unsupported without the timelineSemaphore feature enabled; NoDevice when getInstanceProcAddr is null and
/// no Vulkan loader is found; Internal.
RIPPLE_API Result<Device> adoptVulkanDevice(const VulkanDeviceDesc& desc, const DeviceOptions& options = {});

/// A ripple Buffer over [0, size) of the engine's VkBuffer, without copying. The buffer needs
/// VK_BUFFER_USAGE_STORAGE_BUFFER_BIT (and TRANSFER_SRC/DST for Device::upload/download and copies).
/// ripple never frees it; keep it alive until every submission that used it completed.
/// @param device a Device from adoptVulkanDevice
/// @param buffer the engine's VkBuffer
/// @param size bytes, at most the buffer's size
/// @return the buffer; InvalidArgument for an empty or non-Vulkan device, a null buffer or a size of 0.
RIPPLE_API Result<Buffer> wrapVulkanBuffer(Device& device, VkBuffer buffer, VkDeviceSize size);

/// A recorder that records into the engine's command buffer, which must be in the recording state and
/// belong to the adopted queue's family. ripple never begins, ends or submits it.
///
/// Barriers: ripple's first command is preceded by a memory barrier from COMPUTE_SHADER and TRANSFER
/// writes to COMPUTE_SHADER and TRANSFER reads and writes; inputs written by other stages (fragment,
/// attachments, host without a submit in between) need the engine's own barrier before ripple's commands.
/// After the last command ripple records a barrier from its writes to HOST reads only: an engine stage that
/// consumes ripple's outputs needs its own barrier from COMPUTE_SHADER | TRANSFER writes.
/// @param device a Device from adoptVulkanDevice
/// @param commandBuffer the engine's command buffer, in the recording state
/// @return the recorder; InvalidArgument for an empty or non-Vulkan device or a null command buffer.
RIPPLE_API Result<CommandRecorder> recordInto(Device& device, VkCommandBuffer commandBuffer);

/// The Vulkan objects a Device runs on (ripple's own, or the engine's it adopted), to create what the engine
/// shares with it: semaphores for submit() below, buffers for wrapVulkanBuffer. ripple owns its own
/// objects: never destroy them, and submit nothing to its queue (ripple does not lock it for you).
struct VulkanDeviceHandles {
    VkInstance instance = VK_NULL_HANDLE;             ///< the instance
    VkPhysicalDevice physicalDevice = VK_NULL_HANDLE; ///< the physical device
    VkDevice device = VK_NULL_HANDLE;                 ///< the device
    uint32_t queueFamilyIndex = 0;                    ///< the family of the queue ripple submits to
    /// Loads the device's functions (vkCreateSemaphore, ...) without linking a Vulkan loader.
    PFN_vkGetDeviceProcAddr getDeviceProcAddr = nullptr;
};

/// The objects `device` runs on. Thread safety: any thread; valid while the Device lives.
/// @return them; InvalidArgument for an empty or non-Vulkan device.
RIPPLE_API Result<VulkanDeviceHandles> vulkanHandles(Device& device);

/// One of the engine's semaphores that a submission waits on before its commands run.
struct VulkanSemaphoreWait {
    VkSemaphore semaphore = VK_NULL_HANDLE; ///< binary or timeline, of the adopted device
    uint64_t value = 0;                     ///< a timeline semaphore's value to wait for; 0 for a binary one
    /// The stages of ripple's commands that wait: its dispatches and copies.
    VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
};

/// One of the engine's semaphores that a submission signals once all its commands have completed.
struct VulkanSemaphoreSignal {
    VkSemaphore semaphore = VK_NULL_HANDLE; ///< binary or timeline, of the adopted device
    uint64_t value = 0;                     ///< a timeline semaphore's new value; 0 for a binary one
};

/// A buffer shared with a queue of another family and created VK_SHARING_MODE_EXCLUSIVE: its queue-family
/// ownership moves between that family and ripple's queue's (VulkanDeviceHandles::queueFamilyIndex). The
/// barrier covers [0, Buffer::size()) of the buffer's VkBuffer; the engine's matching barrier on its own
/// queue must name the same range and families.
struct VulkanOwnershipTransfer {
    const Buffer* buffer = nullptr; ///< a Buffer of the device (wrapVulkanBuffer, or ripple's own)
    uint32_t family = 0;            ///< the engine queue's family
};

/// What a submission waits on and signals besides ripple's own ticket.
struct VulkanSubmitSync {
    std::vector<VulkanSemaphoreWait> waits;     ///< waited on before the submission's commands run
    std::vector<VulkanSemaphoreSignal> signals; ///< signalled once they have all completed
    /// Acquired from their family before the commands (after the waits): the engine released each on its
    /// queue before signalling a semaphore in `waits`. A family equal to ripple's needs no transfer and
    /// records nothing.
    std::vector<VulkanOwnershipTransfer> acquires;
    /// Released to their family after the commands: the engine acquires each on its queue after waiting
    /// on a semaphore in `signals`.
    std::vector<VulkanOwnershipTransfer> releases;
};

/// Device::submit(CommandRecorder&) in one vkQueueSubmit with the engine's semaphores: the commands start
/// after `sync.waits` and signal `sync.signals` when done, so ripple's work on its queue (a compute queue:
/// adoptVulkanDevice) hands its results to the engine's graphics queue without a CPU wait. The ticket works
/// as Device::submit's. Memory: a semaphore wait orders the engine's earlier work before ripple's; for
/// buffers shared with a queue of another family, created VK_SHARING_MODE_EXCLUSIVE, name them in
/// `sync.acquires` and `sync.releases` (ripple records its half of each ownership transfer around the
/// commands; docs/FRAME_LOOP.md), or create them VK_SHARING_MODE_CONCURRENT.
/// @param device any Vulkan Device (adopted, or ripple's own: then the semaphores must be of its VkDevice)
/// @param recorder a recorder of `device` (not one from recordInto)
/// @param sync the semaphores; timeline values need a device with timeline semaphores
/// @return as Device::submit; InvalidArgument for a non-Vulkan device or a null semaphore or a wait with no
///         stages, or a transfer's Buffer empty, of another device, or its family not one of the
///         physical device's (naming the entry); Unsupported for a timeline value on a device without
///         timeline semaphores.
RIPPLE_API Result<Ticket> submit(Device& device, CommandRecorder& recorder, const VulkanSubmitSync& sync);
/// Device::submit(Recording&) with the engine's semaphores, as the overload above.
RIPPLE_API Result<Ticket> submit(Device& device, Recording& recording, const VulkanSubmitSync& sync);

} // namespace ripple::interop
