// SPDX-License-Identifier: MIT
// Device memory that tensors live in.
#pragma once

#include "ripple/export.hpp"

#include <cstdint>
#include <memory>

namespace ripple {

namespace detail {
struct BufferImpl;
}

// A device-local buffer (Vulkan: storage + transfer usage). Move-only; releasing it while the device is
// still alive frees the memory. Create with Device::createBuffer.
class RIPPLE_API Buffer {
  public:
    Buffer() = default;
    Buffer(Buffer&&) noexcept;
    Buffer& operator=(Buffer&&) noexcept;
    ~Buffer();

    uint64_t size() const; // bytes
    bool valid() const { return impl_ != nullptr; }

    std::shared_ptr<detail::BufferImpl> impl_; // internal
};

// Where a tensor lives: a buffer and a byte offset into it. The offset must be a multiple of
// Device::bindingAlignment(), and the tensor's calcBufferTensorSize() bytes must fit in the buffer.
struct TensorBinding {
    const ripple::Buffer* Buffer = nullptr;
    uint64_t Offset = 0;
};

} // namespace ripple
