// SPDX-License-Identifier: MIT
// Sub-allocation of buffer memory from large blocks. A vkAllocateMemory per buffer costs tens to hundreds
// of microseconds on some drivers (more for host-visible memory, which is pinned and mapped), and drivers
// cap live allocations at maxMemoryAllocationCount (4096 on many): buffers up to half a block share
// blocks; larger ones get their own allocation. Host-visible blocks are mapped once, for their lifetime.
#pragma once

#include "vulkan/instance.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

namespace ripple::vk {

struct Allocation {
    VkDeviceMemory memory = VK_NULL_HANDLE;
    uint64_t offset = 0;
    uint64_t size = 0;
    void* mapped = nullptr;      // host-visible memory only: the allocation's first byte
    uint32_t block = UINT32_MAX; // UINT32_MAX: a dedicated allocation
};

struct AllocatorStatistics {
    uint32_t blocks = 0;        // vkAllocateMemory blocks shared by sub-allocations
    uint32_t dedicated = 0;     // allocations of their own
    uint32_t live = 0;          // sub-allocations in use
    uint64_t blockBytes = 0;    // bytes in blocks
    uint64_t usedBytes = 0;     // bytes of blocks in use (with alignment padding)
    uint64_t freeRanges = 0;    // free ranges in blocks: fragmentation (each allocation costs O(log) of it)
    uint64_t vkAllocations = 0; // vkAllocateMemory calls so far
};

class MemoryAllocator {
  public:
    // blockBytes: the size of shared blocks; a request over half of it gets a dedicated allocation.
    void init(VkDevice device, const VolkDeviceTable* table, uint64_t blockBytes);
    ~MemoryAllocator();
    // Memory for `req` from memory type `type`; mapped when `hostVisible`. The driver's error on failure.
    Result<Allocation> allocate(const VkMemoryRequirements& req, uint32_t type, bool hostVisible);
    // Returns an allocation's bytes. Thread safety: any thread.
    void release(const Allocation& a);
    AllocatorStatistics statistics() const;

  private:
    struct Block {
        VkDeviceMemory memory = VK_NULL_HANDLE;
        uint32_t type = 0;
        bool hostVisible = false;
        uint64_t size = 0;
        void* mapped = nullptr;
        std::map<uint64_t, uint64_t> free;              // offset -> size, coalesced
        std::set<std::pair<uint64_t, uint64_t>> bySize; // (size, offset) of the same ranges: best fit
        uint32_t live = 0;
    };
    Result<VkDeviceMemory> allocateMemory(uint64_t size, uint32_t type, bool hostVisible, void** mapped);
    void freeMemory(VkDeviceMemory memory, bool hostVisible);
    bool carve(Block& b, uint64_t size, uint64_t alignment, uint64_t* offset);
    void addFree(Block& b, uint64_t offset, uint64_t size);
    void eraseFree(Block& b, std::map<uint64_t, uint64_t>::iterator range);

    VkDevice device_ = VK_NULL_HANDLE;
    const VolkDeviceTable* t_ = nullptr;
    uint64_t blockBytes_ = 64ull << 20;
    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<Block>> blocks_; // null where a block was freed (indices stay valid)
    AllocatorStatistics stats_;
};

} // namespace ripple::vk
