// SPDX-License-Identifier: MIT
// First-fit sub-allocation in 64 MiB blocks with coalescing free lists (allocator.hpp says why). One empty
// block per memory type is kept for the next request; other empty blocks go back to the driver.
#include "vulkan/allocator.hpp"

namespace ripple::vk {

void MemoryAllocator::init(VkDevice device, const VolkDeviceTable* table, uint64_t blockBytes) {
    device_ = device;
    t_ = table;
    blockBytes_ = blockBytes;
}

MemoryAllocator::~MemoryAllocator() {
    for (auto& b : blocks_)
        if (b) freeMemory(b->memory, b->hostVisible);
}

Result<VkDeviceMemory> MemoryAllocator::allocateMemory(uint64_t size, uint32_t type, bool hostVisible,
                                                       void** mapped) {
    VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    info.allocationSize = size;
    info.memoryTypeIndex = type;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    if (Status s = check(t_->vkAllocateMemory(device_, &info, nullptr, &memory), "vkAllocateMemory"); !s)
        return s;
    ++stats_.vkAllocations;
    if (hostVisible) {
        if (Status s = check(t_->vkMapMemory(device_, memory, 0, VK_WHOLE_SIZE, 0, mapped), "vkMapMemory");
            !s) {
            t_->vkFreeMemory(device_, memory, nullptr);
            return Status(StatusCode::OutOfMemory, "vkMapMemory failed: " + s.message());
        }
    }
    return memory;
}

void MemoryAllocator::freeMemory(VkDeviceMemory memory, bool hostVisible) {
    if (hostVisible) t_->vkUnmapMemory(device_, memory);
    t_->vkFreeMemory(device_, memory, nullptr);
}

bool MemoryAllocator::carve(Block& b, uint64_t size, uint64_t alignment, uint64_t* offset) {
    for (auto it = b.free.begin(); it != b.free.end(); ++it) {
        const uint64_t start = (it->first + alignment - 1) / alignment * alignment;
        const uint64_t end = it->first + it->second;
        if (start > end || end - start < size) continue;
        const uint64_t before = start - it->first, after = end - (start + size);
        const uint64_t freeStart = it->first;
        b.free.erase(it);
        if (before) b.free.emplace(freeStart, before);
        if (after) b.free.emplace(start + size, after);
        *offset = start;
        return true;
    }
    return false;
}

Result<Allocation> MemoryAllocator::allocate(const VkMemoryRequirements& req, uint32_t type,
                                             bool hostVisible) {
    std::lock_guard<std::mutex> lock(mutex_);
    Allocation a;
    a.size = req.size;
    const uint64_t alignment = req.alignment ? req.alignment : 1;
    if (req.size > blockBytes_ / 2) {
        auto memory = allocateMemory(req.size, type, hostVisible, &a.mapped);
        if (!memory) return memory.status();
        a.memory = memory.value();
        ++stats_.dedicated;
        return a;
    }
    for (uint32_t i = 0; i < blocks_.size(); ++i) {
        Block* b = blocks_[i].get();
        if (!b || b->type != type || b->hostVisible != hostVisible) continue;
        if (carve(*b, req.size, alignment, &a.offset)) {
            a.memory = b->memory, a.block = i, ++b->live;
            if (b->mapped) a.mapped = static_cast<char*>(b->mapped) + a.offset;
            ++stats_.live, stats_.usedBytes += req.size;
            return a;
        }
    }
    auto block = std::make_unique<Block>();
    auto memory = allocateMemory(blockBytes_, type, hostVisible, &block->mapped);
    if (!memory) return memory.status();
    block->memory = memory.value();
    block->type = type;
    block->hostVisible = hostVisible;
    block->size = blockBytes_;
    block->free.emplace(0, blockBytes_);
    carve(*block, req.size, alignment, &a.offset); // offset 0: always fits
    block->live = 1;
    a.memory = block->memory;
    if (block->mapped) a.mapped = static_cast<char*>(block->mapped) + a.offset;
    uint32_t index = 0;
    while (index < blocks_.size() && blocks_[index]) ++index;
    if (index == blocks_.size()) blocks_.emplace_back();
    blocks_[index] = std::move(block);
    a.block = index;
    ++stats_.blocks, ++stats_.live, stats_.blockBytes += blockBytes_, stats_.usedBytes += req.size;
    return a;
}

void MemoryAllocator::release(const Allocation& a) {
    if (!a.memory) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (a.block == UINT32_MAX) {
        freeMemory(a.memory, a.mapped != nullptr);
        --stats_.dedicated;
        return;
    }
    Block& b = *blocks_[a.block];
    auto next = b.free.lower_bound(a.offset);
    uint64_t start = a.offset, size = a.size;
    if (next != b.free.begin()) { // merge with the free range before
        auto prev = std::prev(next);
        if (prev->first + prev->second == start)
            start = prev->first, size += prev->second, b.free.erase(prev);
    }
    if (next != b.free.end() && start + size == next->first) size += next->second, b.free.erase(next);
    b.free.emplace(start, size);
    --b.live, --stats_.live, stats_.usedBytes -= a.size;
    if (b.live) return;
    // An empty block: keep it if it is the only empty one of its kind, else give it back.
    for (uint32_t i = 0; i < blocks_.size(); ++i) {
        const Block* o = blocks_[i].get();
        if (i != a.block && o && !o->live && o->type == b.type && o->hostVisible == b.hostVisible) {
            freeMemory(b.memory, b.hostVisible);
            blocks_[a.block].reset();
            --stats_.blocks, stats_.blockBytes -= blockBytes_;
            return;
        }
    }
}

AllocatorStatistics MemoryAllocator::statistics() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
}

} // namespace ripple::vk
