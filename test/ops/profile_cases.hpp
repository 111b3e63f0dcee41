// SPDX-License-Identifier: MIT
// Shared by the limit and profile tests: the emulated profiles (lib/vulkan/profiles.cpp) and the check that
// a kernel variant fits a device, made from the embedded reflection independently of the runtime's own.
#pragma once

#include "runtime/objects.hpp"

#include <catch2/catch.hpp>

namespace pc {

inline const char* const kProfiles[] = {
    "vulkan-minimum",  "android-baseline-2022", "apple-m1-moltenvk",  "intel-iris-xe",     "amd-rdna-wave64",
    "amd-rdna-wave32", "mobile-vk11",           "mali-valhall-panvk", "adreno-6xx-turnip", "powervr-rogue"};

inline void requireFits(const ripple::kernels::KernelInfo& k, const ripple::AdapterFeatures& f) {
    uint32_t storageBuffers = 0;
    for (uint32_t b = 0; b < k.bindingCount; ++b) storageBuffers += k.bindings[b].uniform ? 0 : 1;
    INFO("kernel " << k.name << ": " << k.localSize[0] << "x" << k.localSize[1] << "x" << k.localSize[2]
                   << " invocations, " << k.sharedBytes << " bytes shared, " << storageBuffers
                   << " storage buffers");
    CHECK(uint64_t(k.localSize[0]) * k.localSize[1] * k.localSize[2] <= f.maxComputeWorkGroupInvocations);
    for (int i = 0; i < 3; ++i) CHECK(k.localSize[i] <= f.maxComputeWorkGroupSize[i]);
    CHECK(k.sharedBytes <= f.maxComputeSharedMemorySize);
    CHECK(storageBuffers <= f.maxPerStageDescriptorStorageBuffers);
    CHECK((k.features & ~ripple::detail::featureBits(f)) == 0);
    if (k.features & ripple::kernels::FeatureFullSubgroups) CHECK(k.localSize[0] % f.subgroupSize == 0);
}

// Whether this build has the small-device variants (-DRIPPLE_SMALL_DEVICE_KERNELS, on by default).
inline bool hasSmallDeviceKernels() {
    return ripple::kernels::findKernel("copy.b32.small") != nullptr;
}

// A refusal under a profile is right only for a device feature the profile lacks, naming it; never for a
// limit, since some strategy fits every profile (unless the build left the small-device variants out).
inline void requireFeatureRefusal(const ripple::Status& s) {
    INFO(s.message());
    CHECK(s.code() == ripple::StatusCode::Unsupported);
    if (hasSmallDeviceKernels()) {
        CHECK(s.message().find(" needs ") != std::string::npos);
        CHECK(s.message().find("exceeds") == std::string::npos);
    } else {
        CHECK((s.message().find(" needs ") != std::string::npos ||
               s.message().find(" exceeds ") != std::string::npos));
    }
}

} // namespace pc
