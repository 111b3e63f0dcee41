// SPDX-License-Identifier: MIT
// The profile table: facts (features and limits) read from Khronos' Vulkan-Profiles repository
// (github.com/KhronosGroup/Vulkan-Profiles, profiles/ at 9a121df, 2026-08-22), each entry citing its file.
// Only what ripple reads is kept. A feature absent from a profile's file is false.
#include "vulkan/profiles.hpp"

#include <algorithm>

namespace ripple::vk {
namespace {

struct Profile {
    const char* name;
    uint32_t apiVersion; // VK_MAKE_API_VERSION packing
    // Features, in AdapterFeatures' order.
    bool int64, int64Atomics, storage8, storage16, int8, int16, float16, float64, float32AtomicAdd,
        nanPreserve32, subgroups, fullSubgroups, pushDescriptors, timelineSemaphore;
    uint32_t subgroupSize, minSubgroupSize, maxSubgroupSize;
    uint32_t sharedMemory, invocations, workgroupSize[3], workgroupCount[3];
    uint64_t storageBufferRange, offsetAlignment;
    uint32_t storageBuffersPerStage;
};

constexpr uint32_t api(uint32_t major, uint32_t minor) { return (major << 22) | (minor << 12); }
constexpr uint32_t kUnbounded = 0xFFFFFFFFu;

const Profile kProfiles[] = {
    // Vulkan's minimum requirements: profiles/LunarG/VP_LUNARG_minimum_requirements.json. Subgroups: BASIC
    // only (ripple's subgroup kernels need ballot, arithmetic and shuffle too).
    {"vulkan-minimum", api(1, 3), false, false, true, true, true, true, false, false, false, false, false, true,
     false, true, 1, 1, 1, 16384, 128, {128, 128, 64}, {65535, 65535, 65535}, 134217728, 256, 4},
    // Android Baseline 2022: profiles/VP_ANDROID_baseline_2022.json (Vulkan 1.1; shaderInt16 its only
    // shader feature of ripple's; no timeline semaphores, subgroup operations or push descriptors).
    {"android-baseline-2022", api(1, 1), false, false, false, false, false, true, false, false, false, false,
     false, false, false, false, 4, 4, 4, 16384, 128, {128, 128, 64}, {65535, 65535, 65535}, 134217728, 256, 4},
    // Apple M1 through MoltenVK 1.4.1: profiles/LunarG/VP_LUNARG_desktop_baseline_2026/
    // vp_gpuinfo_apple_m1_0_2_2209_macos_26_5_1.json (no shaderFloat64, no 64-bit buffer atomics).
    {"apple-m1-moltenvk", api(1, 4), true, false, true, true, true, true, true, false, true, true, true, true,
     true, true, 32, 4, 32, 32768, 1024, {1024, 1024, 1024}, {1073741824, 1073741824, 1073741824},
     4294967295ull, 16, 31},
    // Intel Iris Xe (Tiger Lake GT2), Mesa 26.1.3 ANV: profiles/LunarG/VP_LUNARG_desktop_baseline_2026/
    // vp_gpuinfo_intel_r__iris_r__xe_graphics__tgl_gt2__26_1_3_void_unknown.json (SIMD8-32).
    {"intel-iris-xe", api(1, 4), true, true, true, true, true, true, true, false, false, true, true, true, true,
     true, 32, 8, 32, 49152, 1024, {1024, 1024, 1024}, {2147483647, 65535, 65535}, 4294967295ull, 4,
     kUnbounded},
    // AMD Radeon RX 5700 (RDNA 1), AMD's driver 2.0.353: profiles/LunarG/VP_LUNARG_desktop_baseline_2026/
    // vp_gpuinfo_amd_radeon_rx_5700_2_0_353_windows_10.json: wave64 for compute (subgroupSize 64, 32-64).
    {"amd-rdna-wave64", api(1, 4), true, true, true, true, true, true, true, true, false, true, true, true, true,
     true, 64, 32, 64, 32768, 1024, {1024, 1024, 1024}, {kUnbounded, 65535, 65535}, 4294967295ull, 4,
     kUnbounded},
    // The same RDNA part run wave32 (RADV's subgroupSize where compute runs wave32; the range is 32-64).
    {"amd-rdna-wave32", api(1, 4), true, true, true, true, true, true, true, true, false, true, true, true, true,
     true, 32, 32, 64, 32768, 1024, {1024, 1024, 1024}, {kUnbounded, 65535, 65535}, 4294967295ull, 4,
     kUnbounded},
    // A Mali or Adreno-class Vulkan 1.1 driver: VP_ANDROID_baseline_2022.json's limits, and none of
    // timeline semaphores, 64-bit integers, 16-bit storage or subgroup size control (the 2021 profile,
    // profiles/Android/VP_ANDROID_vulkan_profile_2021.json, requires none of them).
    {"mobile-vk11", api(1, 1), false, false, false, false, false, true, false, false, false, false, false, false,
     false, false, 16, 16, 16, 16384, 128, {128, 128, 64}, {65535, 65535, 65535}, 134217728, 256, 4},
};

} // namespace

std::string profileNames() {
    std::string out;
    for (const Profile& p : kProfiles) out += (out.empty() ? "" : ", ") + std::string(p.name);
    return out;
}

Status applyProfile(const std::string& name, AdapterInfo& adapter) {
    const Profile* p = nullptr;
    for (const Profile& candidate : kProfiles)
        if (name == candidate.name) p = &candidate;
    if (!p)
        return Status(StatusCode::InvalidArgument,
                      "DeviceOptions::profile (" + name + ") is not a known profile: " + profileNames());
    AdapterFeatures& f = adapter.features;
    f.int64 &= p->int64, f.int64Atomics &= p->int64Atomics, f.storage8 &= p->storage8;
    f.storage16 &= p->storage16, f.int8 &= p->int8, f.int16 &= p->int16, f.float16 &= p->float16;
    f.float64 &= p->float64, f.float32AtomicAdd &= p->float32AtomicAdd;
    f.signedZeroInfNanPreserveFloat32 &= p->nanPreserve32, f.subgroups &= p->subgroups;
    f.fullSubgroups &= p->fullSubgroups && f.subgroups, f.pushDescriptors &= p->pushDescriptors;
    f.timelineSemaphore &= p->timelineSemaphore;
    // The subgroup size stays the adapter's (lavapipe's follows LP_NATIVE_VECTOR_WIDTH): a profile cannot
    // make a driver run other subgroups, so CI pairs each profile with the matching width.
    f.maxComputeSharedMemorySize = std::min(f.maxComputeSharedMemorySize, p->sharedMemory);
    f.maxComputeWorkGroupInvocations = std::min(f.maxComputeWorkGroupInvocations, p->invocations);
    for (int i = 0; i < 3; ++i) {
        f.maxComputeWorkGroupSize[i] = std::min(f.maxComputeWorkGroupSize[i], p->workgroupSize[i]);
        f.maxWorkgroupCount[i] = std::min(f.maxWorkgroupCount[i], p->workgroupCount[i]);
    }
    f.maxStorageBufferRange = std::min(f.maxStorageBufferRange, p->storageBufferRange);
    f.minStorageBufferOffsetAlignment = std::max(f.minStorageBufferOffsetAlignment, p->offsetAlignment);
    f.maxPerStageDescriptorStorageBuffers = std::min(f.maxPerStageDescriptorStorageBuffers, p->storageBuffersPerStage);
    adapter.apiVersion = std::min(adapter.apiVersion, p->apiVersion);
    adapter.name += " as profile " + name;
    return {};
}

} // namespace ripple::vk
