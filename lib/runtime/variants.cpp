// SPDX-License-Identifier: MIT
// Which variant of a kernel a device runs: the features its kernels need, named; the first device limit a
// variant exceeds; and chooseKernel, the fastest variant the device can run.
#include "runtime/objects.hpp"

#include <string>

namespace ripple::detail {

uint32_t featureBits(const AdapterFeatures& f) {
    using namespace kernels;
    return (f.int64 ? FeatureInt64 : 0) | (f.int16 ? FeatureInt16 : 0) | (f.int8 ? FeatureInt8 : 0) |
           (f.storage8 ? FeatureStorage8 : 0) | (f.storage16 ? FeatureStorage16 : 0) |
           (f.int64Atomics ? FeatureInt64Atomics : 0) | (f.subgroups ? FeatureSubgroupBasic : 0) |
           (f.float16 ? FeatureFloat16 : 0) | (f.float64 ? FeatureFloat64 : 0) |
           (f.float32AtomicAdd ? FeatureFloat32AtomicAdd : 0) | (f.profiling ? FeatureProfiling : 0) |
           (f.signedZeroInfNanPreserveFloat32 ? FeatureFloat32NanPreserve : 0) |
           (f.subgroups && f.fullSubgroups ? FeatureFullSubgroups : 0);
}

std::string featureNames(uint32_t bits) {
    using namespace kernels;
    static const std::pair<uint32_t, const char*> names[] = {
        {FeatureInt64, "shaderInt64"},
        {FeatureInt16, "shaderInt16"},
        {FeatureInt8, "shaderInt8"},
        {FeatureStorage8, "storageBuffer8BitAccess"},
        {FeatureStorage16, "storageBuffer16BitAccess"},
        {FeatureInt64Atomics, "shaderBufferInt64Atomics"},
        {FeatureSubgroupBasic, "subgroup operations"},
        {FeatureFloat16, "shaderFloat16"},
        {FeatureFloat64, "shaderFloat64"},
        {FeatureFloat32AtomicAdd, "shaderBufferFloat32AtomicAdd"},
        {FeatureProfiling, "shaderDeviceClock, shaderSubgroupClock and shaderSMBuiltins"},
        {FeatureFloat32NanPreserve, "shaderSignedZeroInfNanPreserveFloat32"},
        {FeatureFullSubgroups, "computeFullSubgroups"}};
    std::string out;
    for (auto& [bit, name] : names)
        if (bits & bit) out += (out.empty() ? "" : ", ") + std::string(name);
    return out;
}

std::string exceededLimit(const kernels::KernelInfo& k, const AdapterFeatures& f) {
    const uint64_t invocations = uint64_t(k.localSize[0]) * k.localSize[1] * k.localSize[2];
    static const char* axes[] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i)
        if (k.localSize[i] > f.maxComputeWorkGroupSize[i])
            return std::string("maxComputeWorkGroupSize.") + axes[i] + " (" + std::to_string(k.localSize[i]) +
                   " > " + std::to_string(f.maxComputeWorkGroupSize[i]) + ")";
    if (invocations > f.maxComputeWorkGroupInvocations)
        return "maxComputeWorkGroupInvocations (" + std::to_string(invocations) + " > " +
               std::to_string(f.maxComputeWorkGroupInvocations) + ")";
    if (k.sharedBytes > f.maxComputeSharedMemorySize)
        return "maxComputeSharedMemorySize (" + std::to_string(k.sharedBytes) + " bytes > " +
               std::to_string(f.maxComputeSharedMemorySize) + ")";
    uint32_t storageBuffers = 0;
    for (uint32_t b = 0; b < k.bindingCount && b < kernels::kMaxKernelBindings; ++b)
        storageBuffers += k.bindings[b].uniform ? 0 : 1;
    if (storageBuffers > f.maxPerStageDescriptorStorageBuffers)
        return "maxPerStageDescriptorStorageBuffers (" + std::to_string(storageBuffers) +
               " storage buffers > " + std::to_string(f.maxPerStageDescriptorStorageBuffers) + ")";
    // REQUIRE_FULL_SUBGROUPS needs the workgroup's x size to be a multiple of the subgroup size.
    if ((k.features & kernels::FeatureFullSubgroups) &&
        (f.subgroupSize == 0 || k.localSize[0] % f.subgroupSize))
        return "full subgroups (workgroup x size " + std::to_string(k.localSize[0]) +
               " is no multiple of subgroupSize " + std::to_string(f.subgroupSize) + ")";
    return {};
}

Result<const kernels::KernelInfo*> chooseKernel(const core::PlanDispatch& d, const DeviceImpl& dev,
                                                const char* op, bool* overLimit) {
    *overLimit = false;
    std::vector<std::string> candidates;
    // Some fast variants are one a key width where the portable ones are one a type (fastKernel).
    const std::string fast = (d.fastKernel.empty() ? d.kernel : d.fastKernel) + ".fast";
    if (!d.hasModes) {
        candidates = {d.kernel};
    } else if (dev.options.kernels == KernelPreference::Portable || dev.roundTrip) {
        candidates = {d.kernel + ".portable", fast}; // some classes have only one variant
    } else {
        candidates = {fast, d.kernel + ".portable"};
    }
    // Last, the small-device form (cmake/RippleKernels.cmake, SMALL): Vulkan's minimum limits, taken only
    // where the others exceed the device's. It has no D3D12 form.
    if (!dev.roundTrip && d.smallForm)
        candidates.push_back((d.hasModes ? d.kernel + ".portable" : d.kernel) + ".small");
    const AdapterFeatures& f = dev.backend->adapter().features;
    const uint32_t have = detail::featureBits(f);
    std::string missing;
    for (const std::string& name : candidates) {
        const kernels::KernelInfo* k = kernels::findKernel(name);
        if (!k) continue;
        if (dev.roundTrip && !kernels::findRoundTrip(*dev.roundTrip, name))
            return Status(StatusCode::Unsupported,
                          std::string(op) + ": " + name + " has no D3D12 (HLSL) form");
        // The refusal names the last full-size variant tried (the small form only where it is the one).
        const bool keep =
            !missing.empty() && name.size() > 6 && name.compare(name.size() - 6, 6, ".small") == 0;
        if ((k->features & ~have) != 0) {
            if (!keep) {
                missing = name + " needs " + detail::featureNames(k->features & ~have) + ", which " +
                          dev.backend->adapter().name + " lacks";
                *overLimit = false;
            }
            continue;
        }
        if (std::string limit = detail::exceededLimit(*k, f); !limit.empty()) {
            if (!keep) {
                missing = name + " exceeds " + dev.backend->adapter().name + "'s " + limit;
                *overLimit = true;
            }
            continue;
        }
        return k;
    }
    if (missing.empty())
        return Status(StatusCode::Internal, std::string(op) + ": no kernel " + d.kernel + " in this build");
    return Status(StatusCode::Unsupported, std::string(op) + ": " + missing);
}

} // namespace ripple::detail
