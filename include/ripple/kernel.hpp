// SPDX-License-Identifier: MIT
/// @file
/// @brief Users' own GLSL compute kernels: compiled at build time by ripple_add_kernels (CMake), run
/// through Device::compile(KernelDesc) and CommandRecorder::record beside ripple's operators, with the
/// recorder's automatic barriers, on Vulkan and D3D12. The guide, with the rules for bindings, push
/// constants, workgroups and features: docs/KERNELS.md. These are ripple's own API (no DirectML or ONNX
/// counterpart); sizes are in bytes, group counts in workgroups.
#pragma once

#include "ripple/buffer.hpp"
#include "ripple/export.hpp"
#include "ripple/status.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ripple {

/// How a kernel reads and writes one binding, from its GLSL qualifiers: `readonly` is Read, `writeonly`
/// Write, neither ReadWrite. The recorder orders the kernel against other work by it.
enum class BindingAccess : uint32_t {
    Read = 0,
    Write = 1,
    ReadWrite = 2,
};

/// Most storage-buffer bindings a kernel may declare (descriptor set 0, bindings 0-7).
constexpr uint32_t kMaxKernelBindings = 8;

/// One storage-buffer binding of a user kernel, as reflected at build time.
struct KernelBindingInfo {
    uint32_t Binding = 0;                            ///< the GLSL `binding` (set 0)
    BindingAccess Access = BindingAccess::ReadWrite; ///< from `readonly` / `writeonly`
    /// Bytes of the block's fixed-size part (members before a runtime array, or a whole fixed-size
    /// array): a binding smaller than this is InvalidArgument.
    uint64_t MinimumBytes = 0;
    const char* Name = nullptr; ///< the block's instance name in the GLSL, for error messages
};

/// A kernel as ripple_add_kernels embeds it in the user's target (the generated header declares one per
/// kernel and permutation). Plain data with static storage; never written at run time.
struct KernelSource {
    const char* Name = nullptr; ///< the source's stem, then ".value" per permutation; unique in its target
    /// SPIR-V, debug-stripped and packed by the ripple-embed of the same ripple version (as ripple's own:
    /// varints of each operand's change from the last instruction of its opcode). Data packed by an older
    /// ripple-embed is refused at Device::compile; ripple_add_kernels repacks it at the next build.
    const uint32_t* PackedSpirv = nullptr;
    uint32_t PackedBytes = 0;                            ///< bytes of PackedSpirv used
    uint32_t SpirvWords = 0;                             ///< words once unpacked
    uint32_t LocalSize[3] = {1, 1, 1};                   ///< the workgroup size
    uint32_t PushConstantBytes = 0;                      ///< the push-constant block's size (0: none)
    uint32_t BindingCount = 0;                           ///< entries used in Bindings, sorted by Binding
    KernelBindingInfo Bindings[kMaxKernelBindings] = {}; ///< the storage-buffer bindings (set 0)
    uint32_t Features = 0; ///< device features the SPIR-V needs (ripple's feature bits)
    /// Its HLSL for the D3D12 back-end where that was built, and in the HLSL_ROUND_TRIP sources (namespace
    /// hlsl_round_trip inside the generated one); else null.
    const char* Hlsl = nullptr;
    /// Its D3D12 bytecode (DXBC, shader model 5.1, entry point "main"), compiled from Hlsl at build time
    /// where ripple_add_kernels found an HLSL compiler (the one that compiled ripple's own: fxc on Windows,
    /// vkd3d-shader in a cross-build), one LEB128 varint per 32-bit word; else null, and a D3D12 device
    /// compiles Hlsl at Device::compile with the system's D3DCompile. A D3D12 device runs it as it is; Vulkan
    /// ignores it.
    const uint32_t* PackedDxbc = nullptr;
    uint32_t PackedDxbcBytes = 0; ///< bytes of PackedDxbc used
    uint32_t DxbcWords = 0;       ///< 32-bit words once unpacked (the DXBC container's size / 4)
};

/// What Device::compile needs to make a runnable Kernel.
struct KernelDesc {
    const KernelSource* Source = nullptr; ///< from the generated header; must outlive the Kernel
};

/// One dispatch of a compiled Kernel (CommandRecorder::record).
struct KernelDispatch {
    /// workgroups in x, y, z: each within the device's limit, x * y * z within
    /// DeviceOptions::maxDispatchWorkgroups
    uint32_t GroupCount[3] = {1, 1, 1};
    /// One per binding in KernelSource::Bindings order; Size 0 binds from Offset to the buffer's end.
    struct Binding {
        const ripple::Buffer* Buffer = nullptr; ///< not owned; kept alive until the submission completes
        uint64_t Offset = 0;                    ///< bytes; a multiple of Device::bindingAlignment()
        uint64_t Size = 0;                      ///< bytes
    };
    std::vector<Binding> Bindings; ///< the buffers, one per KernelSource binding, in its order
    /// Exactly KernelSource::PushConstantBytes bytes, copied at record time (null when there are none).
    const void* PushConstants = nullptr;
    uint32_t PushConstantBytes = 0; ///< bytes at PushConstants: KernelSource::PushConstantBytes
    std::string Label; ///< names the dispatch in RenderDoc and Device::reports; empty: the kernel's name
    /// Indirect dispatch (ripple's addition, docs/FRAME_LOOP.md): when set, the group counts are read on the
    /// GPU when the dispatch runs, three uint32 (x, y, z) at IndirectOffset, and GroupCount is ignored.
    /// ripple first copies them; counts over the device's maxComputeWorkGroupCount in a dimension, or over
    /// DeviceOptions::maxDispatchWorkgroups in total (x * y * z), launch nothing and make the dispatch's
    /// report InvalidArgument (and count in Device::refusedDispatchCount). A count of 0 dispatches nothing.
    /// The recorder orders the dispatch after earlier writes to those 12 bytes, as for a binding.
    const ripple::Buffer* IndirectBuffer = nullptr;
    uint64_t IndirectOffset = 0; ///< bytes into IndirectBuffer; a multiple of 4
};

/// @cond RIPPLE_INTERNAL
namespace detail {
struct ImplAccess;
struct KernelImpl;
} // namespace detail
/// @endcond

/// A user kernel made runnable on one device (Device::compile(KernelDesc)): its pipeline, to record many
/// times (CommandRecorder::record). Move-only; it keeps its device alive. Thread safety: a Kernel may be
/// recorded by several threads at once.
class RIPPLE_API Kernel {
  public:
    /// An empty kernel (valid() is false); recording it is InvalidArgument.
    Kernel() = default;
    /// Takes `other`'s pipeline; `other` becomes empty.
    Kernel(Kernel&& other) noexcept;
    /// Releases this kernel (once no submission uses it) and takes `other`'s.
    Kernel& operator=(Kernel&& other) noexcept;
    /// Releases the kernel once no submission uses it.
    ~Kernel();
    /// @return false when default-constructed or moved from.
    bool valid() const { return impl_ != nullptr; }
    /// @return the KernelSource's name; empty for an empty kernel.
    std::string name() const;

  private:
    /// @cond RIPPLE_INTERNAL
    friend struct detail::ImplAccess; // ripple's own code reaches the state (lib/runtime/access.hpp)
    std::shared_ptr<detail::KernelImpl> impl_;
    /// @endcond
};

} // namespace ripple
