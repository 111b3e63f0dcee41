// SPDX-License-Identifier: MIT
/// @file
/// @brief Device memory that tensors live in, and how a tensor is bound to it.
#pragma once

#include "ripple/export.hpp"

#include <cstdint>
#include <memory>

namespace ripple {

/// @cond RIPPLE_INTERNAL
namespace detail {
struct ImplAccess;
struct BufferImpl;
}
/// @endcond

/// A device-local buffer (Vulkan: storage and transfer usage; D3D12: a default-heap buffer with unordered
/// access). Create with Device::createBuffer, or wrap an engine's with interop::wrapVulkanBuffer /
/// interop::wrapD3D12Resource. Move-only. Releasing it frees the memory once no submission uses it; it keeps
/// its device alive. Thread safety: a Buffer may be recorded by several recorders at once; moving or
/// destroying it needs the caller's exclusive access.
class RIPPLE_API Buffer {
  public:
    /// An empty buffer: valid() is false, size() is 0; binding it is InvalidArgument.
    Buffer() = default;
    /// Takes `other`'s memory; `other` becomes empty.
    Buffer(Buffer&& other) noexcept;
    /// Releases this buffer's memory (as the destructor) and takes `other`'s.
    Buffer& operator=(Buffer&& other) noexcept;
    /// Releases the memory once every submission that uses it has completed.
    ~Buffer();

    /// @return the size in bytes; 0 for an empty buffer.
    uint64_t size() const;
    /// @return false when default-constructed or moved from.
    bool valid() const { return impl_ != nullptr; }

  private:
    /// @cond RIPPLE_INTERNAL
    friend struct detail::ImplAccess; // ripple's own code reaches the state (lib/runtime/access.hpp)
    std::shared_ptr<detail::BufferImpl> impl_;
    /// @endcond
};

/// Where a tensor lives: a buffer and a byte offset into it. The offset must be a multiple of
/// Device::bindingAlignment(), and the tensor's calcBufferTensorSize() bytes must fit in the buffer from
/// there; Device::execute and CommandRecorder::record return InvalidArgument naming the tensor otherwise.
struct TensorBinding {
    const ripple::Buffer* Buffer = nullptr; ///< the buffer (not owned; must outlive the call)
    uint64_t Offset = 0;                    ///< byte offset of the tensor's first element in Buffer
};

} // namespace ripple
