// SPDX-License-Identifier: MIT
// Users' kernels (include/ripple/kernel.hpp): compiled from a KernelSource into a pipeline, recorded through
// the recorder's level planner like an operator's dispatches.
#include "kernels/spirv_interface.hpp"
#include "kernels/spirv_shared.hpp"
#include "runtime/access.hpp"
#include "runtime/objects.hpp"
#include "runtime/recorder_impl.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace ripple {

// The KernelSource struct against its own SPIR-V (kernels/spirv_interface.hpp): a struct that disagrees would
// have ripple bind, push or size something other than what the kernel reads and writes, which a driver
// may answer with a crash or a lost device. InvalidArgument naming the field.
Status detail::checkKernelSource(const KernelSource& s, const std::vector<uint32_t>& words) {
    const std::string name = std::string("compile: kernel ") + s.Name;
    const kernels::SpirvInterface spv = kernels::readSpirvInterface(words.data(), words.size());
    if (!spv.error.empty()) return Status(StatusCode::InvalidArgument, name + "'s SPIR-V: " + spv.error);
    if (spv.entryPoints != 1)
        return Status(StatusCode::InvalidArgument, name + "'s SPIR-V has " + std::to_string(spv.entryPoints) +
                                                       " compute entry points; exactly one is supported");
    if (spv.localSizeFromConstants)
        return Status(StatusCode::InvalidArgument,
                      name + "'s SPIR-V sets its workgroup size by specialization constants, which ripple "
                             "never sets; give local_size_x/y/z as numbers");
    auto triple = [](const uint32_t* v) {
        return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
    };
    for (int i = 0; i < 3; ++i)
        if (s.LocalSize[i] != spv.localSize[i])
            return Status(StatusCode::InvalidArgument,
                          name + ": KernelSource::LocalSize (" + triple(s.LocalSize) +
                              ") disagrees with its SPIR-V's (" + triple(spv.localSize) + ")");
    if (spv.pushConstantBlocks > 1 || s.PushConstantBytes != spv.pushConstantBytes)
        return Status(StatusCode::InvalidArgument, name + ": KernelSource::PushConstantBytes (" +
                                                       std::to_string(s.PushConstantBytes) +
                                                       ") disagrees with its SPIR-V's push-constant block (" +
                                                       std::to_string(spv.pushConstantBytes) + " bytes)");
    for (const kernels::SpirvBinding& b : spv.bindings)
        if (b.other || b.uniform || b.set != 0)
            return Status(StatusCode::InvalidArgument,
                          name + "'s SPIR-V declares binding " + std::to_string(b.binding) + " in set " +
                              std::to_string(b.set) +
                              (b.other     ? " that is not a buffer"
                               : b.uniform ? " as a uniform buffer"
                                           : "") +
                              "; ripple binds storage buffers in descriptor set 0 only");
    if (s.BindingCount != spv.bindings.size())
        return Status(StatusCode::InvalidArgument,
                      name + ": KernelSource::BindingCount (" + std::to_string(s.BindingCount) +
                          ") disagrees with its SPIR-V's " + std::to_string(spv.bindings.size()) +
                          " storage buffers");
    for (uint32_t i = 0; i < s.BindingCount; ++i) {
        const KernelBindingInfo& b = s.Bindings[i];
        const std::string field = name + ": KernelSource::Bindings[" + std::to_string(i) + "]";
        if (i > 0 && b.Binding <= s.Bindings[i - 1].Binding)
            return Status(StatusCode::InvalidArgument,
                          field + ".Binding (" + std::to_string(b.Binding) +
                              ") must be greater than the one before: Bindings are sorted, without repeats");
        const kernels::SpirvBinding* match = nullptr;
        for (const kernels::SpirvBinding& d : spv.bindings)
            if (d.binding == b.Binding) match = &d;
        if (!match)
            return Status(StatusCode::InvalidArgument, field + ".Binding (" + std::to_string(b.Binding) +
                                                           ") is no storage buffer of its SPIR-V");
        // Read where the SPIR-V may write would hide its writes from the recorder's barriers. (The other
        // way round only costs a barrier; HLSL's RW buffers carry no NonReadable, so Write is not checked.)
        if (b.Access == BindingAccess::Read && !match->readOnly)
            return Status(StatusCode::InvalidArgument,
                          field + ".Access (Read) disagrees with its SPIR-V, which may write binding " +
                              std::to_string(b.Binding) + " (no NonWritable decoration)");
    }
    if (const uint32_t undeclared = spv.features & ~s.Features)
        return Status(StatusCode::InvalidArgument, name + ": KernelSource::Features lacks " +
                                                       detail::featureNames(undeclared) +
                                                       ", which its SPIR-V's capabilities need");
    return {};
}

namespace {

// KernelSource's DXBC fields against themselves (on every back-end, so that a struct that disagrees fails
// alike everywhere): a DXBC container of DxbcWords words, with HLSL beside it. Sets info.dxbc.
Status checkDxbc(const KernelSource& s, kernels::KernelInfo& info) {
    if (!s.PackedDxbc && !s.PackedDxbcBytes && !s.DxbcWords) return {};
    const std::string name = std::string("compile: kernel ") + s.Name;
    if (!s.PackedDxbc || !s.PackedDxbcBytes || s.DxbcWords < 8 || !s.Hlsl)
        return Status(StatusCode::InvalidArgument,
                      name + ": KernelSource::PackedDxbc, PackedDxbcBytes and DxbcWords must all be set (a "
                             "DXBC container of at least 8 words, beside Hlsl) or all be zero");
    info.dxbc = {s.PackedDxbc, s.PackedDxbcBytes, s.DxbcWords};
    std::vector<uint32_t> words;
    uint32_t magic = 0;
    std::memcpy(&magic, "DXBC", 4);
    if (!kernels::unpackDxbc(info.dxbc, words) || words[0] != magic || words[6] != s.DxbcWords * 4u)
        return Status(StatusCode::InvalidArgument,
                      name + ": KernelSource::PackedDxbc is not a packed DXBC container of DxbcWords (" +
                          std::to_string(s.DxbcWords) + ") words");
    return {};
}

} // namespace

Kernel::Kernel(Kernel&&) noexcept = default;
Kernel& Kernel::operator=(Kernel&&) noexcept = default;
Kernel::~Kernel() = default;

std::string Kernel::name() const {
    return impl_ && impl_->source && impl_->source->Name ? impl_->source->Name : "";
}

Result<Kernel> Device::compile(const KernelDesc& desc) {
    if (!impl_) return Status(StatusCode::InvalidArgument, "compile: the Device is empty");
    const KernelSource* s = desc.Source;
    if (!s || !s->Name || !s->PackedSpirv || !s->SpirvWords)
        return Status(StatusCode::InvalidArgument, "compile: KernelDesc.Source is null or has no SPIR-V");
    const std::string name = s->Name;
    if (s->BindingCount > kMaxKernelBindings)
        return Status(StatusCode::InvalidArgument, "compile: kernel " + name + " declares " +
                                                       std::to_string(s->BindingCount) +
                                                       " bindings; at most 8 are supported");
    if (s->PushConstantBytes > 128 || s->PushConstantBytes % 4)
        return Status(StatusCode::InvalidArgument,
                      "compile: kernel " + name + " has " + std::to_string(s->PushConstantBytes) +
                          " bytes of push constants; at most 128, a multiple of 4");
    const uint32_t missing = s->Features & ~detail::featureBits(impl_->backend->adapter().features);
    if (missing)
        return Status(StatusCode::Unsupported, "compile: kernel " + name + " needs " +
                                                   detail::featureNames(missing) + ", which " +
                                                   impl_->backend->adapter().name + " lacks");
    if (impl_->backend->adapter().backend == Backend::D3D12 && !s->Hlsl)
        return Status(StatusCode::Unsupported,
                      "compile: kernel " + name + " has no HLSL (built without the D3D12 back-end)");
    auto k = std::make_shared<detail::KernelImpl>();
    k->device = impl_;
    k->source = s;
    char address[32];
    std::snprintf(address, sizeof address, "@%p", static_cast<const void*>(s));
    k->name = "user:" + name + address;
    kernels::KernelInfo& info = k->info;
    info.name = k->name.c_str();
    info.spirv = {s->PackedSpirv, s->PackedBytes, s->SpirvWords};
    std::memcpy(info.localSize, s->LocalSize, sizeof info.localSize);
    info.pushConstantBytes = s->PushConstantBytes;
    info.bindingCount = s->BindingCount;
    for (uint32_t i = 0; i < s->BindingCount; ++i)
        info.bindings[i] = {s->Bindings[i].Binding, s->Bindings[i].Access == BindingAccess::Read};
    info.features = s->Features;
    info.hlsl = s->Hlsl;
    std::vector<uint32_t> words;
    if (!kernels::unpackSpirv(info.spirv, words))
        return Status(StatusCode::InvalidArgument,
                      "compile: kernel " + name + "'s packed SPIR-V is malformed");
    if (Status st = detail::checkKernelSource(*s, words); !st) return st;
    if (Status st = checkDxbc(*s, info); !st) return st;
    info.sharedBytes = kernels::workgroupBytes(words.data(), words.size());
    if (std::string limit = detail::exceededLimit(info, impl_->backend->adapter().features); !limit.empty())
        return Status(StatusCode::Unsupported, "compile: kernel " + name + " exceeds " + limit + " of " +
                                                   impl_->backend->adapter().name);
    if (Status st = impl_->backend->preparePipeline(info); !st) return st;
    Kernel out;
    detail::impl(out) = std::move(k);
    return out;
}

Status CommandRecorder::record(const Kernel& kernel, const KernelDispatch& d) {
    if (!impl_) return Status(StatusCode::InvalidArgument, "record: the CommandRecorder is empty");
    detail::RecorderImpl& r = *impl_;
    if (!detail::impl(kernel) || detail::impl(kernel)->device != r.device)
        return Status(StatusCode::InvalidArgument, "record: the Kernel is empty or from another Device");
    const detail::KernelImpl& k = *detail::impl(kernel);
    const KernelSource& s = *k.source;
    const std::string what = std::string("record: kernel ") + s.Name;
    auto invalid = [&](const std::string& rule) {
        return Status(StatusCode::InvalidArgument, what + ": " + rule);
    };
    if (d.Bindings.size() != s.BindingCount)
        return invalid(std::to_string(d.Bindings.size()) + " bindings given; it declares " +
                       std::to_string(s.BindingCount));
    if (d.PushConstantBytes != s.PushConstantBytes || (s.PushConstantBytes && !d.PushConstants))
        return invalid(std::to_string(d.PushConstantBytes) + " bytes of push constants given; it declares " +
                       std::to_string(s.PushConstantBytes));
    const uint32_t* limit = r.device->backend->adapter().features.maxWorkgroupCount;
    const Buffer* counts = d.IndirectBuffer;
    for (int i = 0; i < 3 && !counts; ++i)
        if (d.GroupCount[i] == 0 || d.GroupCount[i] > limit[i])
            return invalid("GroupCount[" + std::to_string(i) + "] is " + std::to_string(d.GroupCount[i]) +
                           "; it must be 1 to the device's maxComputeWorkGroupCount, " +
                           std::to_string(limit[i]));
    // At most 65535^3 (under 2^48): no overflow in 64 bits.
    const uint64_t bound = r.device->options.maxDispatchWorkgroups;
    const uint64_t total = uint64_t(d.GroupCount[0]) * d.GroupCount[1] * d.GroupCount[2];
    if (!counts && total > bound)
        return invalid("GroupCount (" + std::to_string(d.GroupCount[0]) + ", " +
                       std::to_string(d.GroupCount[1]) + ", " + std::to_string(d.GroupCount[2]) +
                       ") launches " + std::to_string(total) +
                       " workgroups; DeviceOptions::maxDispatchWorkgroups allows " + std::to_string(bound));
    if (counts && (!counts->valid() || detail::impl(*counts)->device != r.device))
        return invalid("IndirectBuffer is empty or from another Device");
    if (counts &&
        (d.IndirectOffset % 4 || d.IndirectOffset > counts->size() || counts->size() - d.IndirectOffset < 12))
        return invalid(
            "IndirectOffset " + std::to_string(d.IndirectOffset) +
            " is not a multiple of 4, or its 12 bytes of group counts lie outside IndirectBuffer (" +
            std::to_string(counts->size()) + " bytes)");
    uint32_t maxBinding = 0;
    for (uint32_t i = 0; i < s.BindingCount; ++i) maxBinding = std::max(maxBinding, s.Bindings[i].Binding);
    detail::PendingCommand c;
    c.kernel = &k.info;
    c.ranges.resize(maxBinding + 1);
    std::vector<detail::Access> accesses;
    std::vector<std::shared_ptr<detail::BufferImpl>> keep;
    for (uint32_t i = 0; i < s.BindingCount; ++i) {
        const KernelBindingInfo& info = s.Bindings[i];
        const KernelDispatch::Binding& b = d.Bindings[i];
        const std::string which =
            "binding " + std::to_string(info.Binding) + " (" + (info.Name ? info.Name : "") + ")";
        if (!b.Buffer || !b.Buffer->valid() || detail::impl(*b.Buffer)->device != r.device)
            return invalid(which + " has no Buffer, or one from another Device");
        const uint64_t size =
            b.Size ? b.Size : (b.Offset < b.Buffer->size() ? b.Buffer->size() - b.Offset : 0);
        if (b.Offset % r.device->bindingAlignment)
            return invalid(which + " Offset " + std::to_string(b.Offset) +
                           " is not a multiple of Device::bindingAlignment() (" +
                           std::to_string(r.device->bindingAlignment) + ")");
        if (b.Offset > b.Buffer->size() || size > b.Buffer->size() - b.Offset || size == 0 || size % 4)
            return invalid(which + " range (offset " + std::to_string(b.Offset) + ", " +
                           std::to_string(size) +
                           " bytes) is empty, not a multiple of 4 or outside its Buffer (" +
                           std::to_string(b.Buffer->size()) + " bytes)");
        if (size < info.MinimumBytes)
            return invalid(which + " is " + std::to_string(size) + " bytes; its block's fixed part needs " +
                           std::to_string(info.MinimumBytes));
        detail::BackendBuffer* buffer = detail::impl(*b.Buffer)->buffer.get();
        c.ranges[info.Binding] = {buffer, b.Offset, size};
        accesses.push_back({buffer, b.Offset, b.Offset + size, info.Access != BindingAccess::Read});
        keep.push_back(detail::impl(*b.Buffer));
    }
    if (s.PushConstantBytes) std::memcpy(c.push.data(), d.PushConstants, s.PushConstantBytes);
    std::memcpy(c.groups, d.GroupCount, sizeof c.groups);
    // Indirect: the counts checked into ripple's scratch first (glsl/dispatch_clamp.comp). What can fail
    // comes before anything is recorded.
    const kernels::KernelInfo* clamp = nullptr;
    std::unique_ptr<detail::BackendBuffer> args;
    detail::BufferRange status;
    if (counts) {
        clamp = kernels::findKernel("dispatch_clamp");
        if (!clamp) return Status(StatusCode::Internal, what + ": no kernel dispatch_clamp in this build");
        if (Status st = r.device->backend->preparePipeline(*clamp); !st) return st;
        auto scratch = r.device->acquireScratch(16, r.device->scratchPool);
        if (!scratch) return scratch.status();
        args = std::move(scratch.value());
        auto slot = r.statusSlot();
        if (!slot) return slot.status();
        status = slot.value();
    }
    detail::Submission::Op entry;
    entry.label = d.Label.empty() ? std::string(s.Name) : d.Label;
    entry.statusBuffer = status.buffer;
    entry.statusOffset = status.offset;
    c.op = static_cast<int32_t>(r.submission.ops.size());
    r.submission.ops.push_back(std::move(entry));
    if (counts) {
        detail::BackendBuffer* user = detail::impl(*counts)->buffer.get();
        const uint64_t align = r.device->bindingAlignment, base = d.IndirectOffset / align * align;
        detail::PendingCommand clamped;
        clamped.kernel = clamp;
        clamped.ranges = {{user, base, d.IndirectOffset - base + 12}, {args.get(), 0, 16}, status};
        clamped.push[0] = static_cast<uint32_t>((d.IndirectOffset - base) / 4);
        std::memcpy(&clamped.push[1], limit, 3 * sizeof(uint32_t));
        clamped.push[4] = static_cast<uint32_t>(std::min<uint64_t>(bound, UINT32_MAX));
        clamped.op = c.op;
        r.add(std::move(clamped), {{user, d.IndirectOffset, d.IndirectOffset + 12, false},
                                   {args.get(), 0, 16, true},
                                   {status.buffer, status.offset, status.offset + 4, true}});
        c.indirect = {args.get(), 0, 12};
        accesses.push_back({args.get(), 0, 12, false});
        r.stats.dispatches++;
        r.submission.scratch.push_back(std::move(args));
        keep.push_back(detail::impl(*counts));
    }
    r.add(std::move(c), accesses);
    r.stats.dispatches++;
    r.submission.keepAlive.push_back(detail::impl(kernel));
    for (const auto& b : keep) r.keepBuffer(b);
    return {};
}

} // namespace ripple
