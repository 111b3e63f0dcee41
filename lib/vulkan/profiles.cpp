// SPDX-License-Identifier: MIT
// The profile table: facts (features and limits) read from Khronos' Vulkan-Profiles repository
// (github.com/KhronosGroup/Vulkan-Profiles, profiles/ at 9a121df, 2026-08-22), each entry citing its file.
// Only what ripple reads is kept. A feature absent from a profile's file is false.
#include "vulkan/profiles.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

namespace ripple::vk {
namespace {

// What a profile offers of AdapterFeatures' booleans, as names: int64 int64Atomics storage8 storage16 int8
// int16 float16 float64 float32AtomicAdd nanPreserve32 subgroups fullSubgroups pushDescriptors timeline
// hostQueryReset (implied from Vulkan 1.2, which requires it; named for 1.1 drivers with the extension).
struct Profile {
    const char* name;
    uint32_t apiVersion; // VK_MAKE_API_VERSION packing
    const char* features;
    uint32_t subgroupSize; // the profile's; the adapter keeps its own (CI picks the matching lavapipe width)
    uint32_t sharedMemory, invocations, workgroupSize[3], workgroupCount[3];
    uint64_t storageBufferRange, offsetAlignment;
    uint32_t storageBuffersPerStage;
};

constexpr uint32_t api(uint32_t major, uint32_t minor) {
    return (major << 22) | (minor << 12);
}
constexpr uint32_t kMax = 0xFFFFFFFFu;

// clang-format off
const Profile kProfiles[] = {
    // Vulkan's minimum requirements: profiles/LunarG/VP_LUNARG_minimum_requirements.json. Subgroups: BASIC
    // only (ripple's subgroup kernels need ballot, arithmetic and shuffle too); no push descriptors.
    {"vulkan-minimum", api(1, 3), "storage8 storage16 int8 int16 timeline", 1,
     16384, 128, {128, 128, 64}, {65535, 65535, 65535}, 134217728, 256, 4},
    // Android Baseline 2022: profiles/VP_ANDROID_baseline_2022.json (Vulkan 1.1; shaderInt16 its only
    // shader feature of ripple's; no timeline semaphores, subgroup operations or push descriptors).
    {"android-baseline-2022", api(1, 1), "int16", 4,
     16384, 128, {128, 128, 64}, {65535, 65535, 65535}, 134217728, 256, 4},
    // Apple M1 through MoltenVK 1.4.1: profiles/LunarG/VP_LUNARG_desktop_baseline_2026/
    // vp_gpuinfo_apple_m1_0_2_2209_macos_26_5_1.json (no shaderFloat64, no 64-bit buffer atomics; 4-32).
    {"apple-m1-moltenvk", api(1, 4),
     "int64 storage8 storage16 int8 int16 float16 float32AtomicAdd nanPreserve32 subgroups fullSubgroups "
     "pushDescriptors timeline", 32,
     32768, 1024, {1024, 1024, 1024}, {1073741824, 1073741824, 1073741824}, 4294967295ull, 16, 31},
    // Intel Iris Xe (Tiger Lake GT2), Mesa 26.1.3 ANV: profiles/LunarG/VP_LUNARG_desktop_baseline_2026/
    // vp_gpuinfo_intel_r__iris_r__xe_graphics__tgl_gt2__26_1_3_void_unknown.json (SIMD8-32).
    {"intel-iris-xe", api(1, 4),
     "int64 int64Atomics storage8 storage16 int8 int16 float16 nanPreserve32 subgroups fullSubgroups "
     "pushDescriptors timeline", 32,
     49152, 1024, {1024, 1024, 1024}, {2147483647, 65535, 65535}, 4294967295ull, 4, kMax},
    // AMD Radeon RX 5700 (RDNA 1), AMD's driver 2.0.353: profiles/LunarG/VP_LUNARG_desktop_baseline_2026/
    // vp_gpuinfo_amd_radeon_rx_5700_2_0_353_windows_10.json: wave64 for compute (subgroupSize 64, 32-64).
    {"amd-rdna-wave64", api(1, 4),
     "int64 int64Atomics storage8 storage16 int8 int16 float16 float64 nanPreserve32 subgroups "
     "fullSubgroups pushDescriptors timeline", 64,
     32768, 1024, {1024, 1024, 1024}, {kMax, 65535, 65535}, 4294967295ull, 4, kMax},
    // The same RDNA part run wave32 (its range is 32-64; RADV's subgroupSize where compute runs wave32).
    {"amd-rdna-wave32", api(1, 4),
     "int64 int64Atomics storage8 storage16 int8 int16 float16 float64 nanPreserve32 subgroups "
     "fullSubgroups pushDescriptors timeline", 32,
     32768, 1024, {1024, 1024, 1024}, {kMax, 65535, 65535}, 4294967295ull, 4, kMax},
    // A Mali or Adreno-class Vulkan 1.1 driver: VP_ANDROID_baseline_2022.json's limits, and none of
    // timeline semaphores, 64-bit integers, 16-bit storage or subgroup size control (the 2021 profile,
    // profiles/Android/VP_ANDROID_vulkan_profile_2021.json, requires none of them).
    {"mobile-vk11", api(1, 1), "int16", 16,
     16384, 128, {128, 128, 64}, {65535, 65535, 65535}, 134217728, 256, 4},
    // Real mobile parts, from Mesa's open drivers (github.com/mirror/mesa) where Vulkan-Profiles has no
    // gpuinfo file for them (issue 58):
    // Arm Mali Valhall (v10: G310-G710) under panvk: src/panfrost/vulkan/panvk_physical_device.c at 12a1936
    // (Vulkan 1.1 on v10; no shaderFloat16 or 64-bit atomics; 16-wide subgroups; 32 KiB of shared memory;
    // 64 storage buffers a stage). Its invocations are the GPU's THREAD_MAX_WORKGROUP_SIZE register, which
    // the source does not hold: 512 here is the one assumed figure.
    // VK_EXT_host_query_reset is in its extension table; VK_KHR_shader_float_controls is not, so no
    // nanPreserve32 (a Vulkan 1.2 property on ripple's side).
    {"mali-valhall-panvk", api(1, 1),
     "int64 storage8 storage16 int8 int16 subgroups fullSubgroups pushDescriptors timeline hostQueryReset", 16,
     32768, 512, {512, 512, 512}, {65535, 65535, 65535}, 4294967295ull, 16, 64},
    // Qualcomm Adreno 6xx (a650/a660) under turnip: src/freedreno/vulkan/tu_device.cc at 04f4d8d (Vulkan 1.3;
    // 8-bit storage and 64-bit atomics only on a7xx; subgroups of threadsize_base * 2 = 128; workgroups of
    // 2048 invocations but 1024 a dimension; cs_shared_mem_size 32 KiB in src/freedreno/common/
    // freedreno_devices.py; MAX_STORAGE_BUFFER_RANGE 1 << 27 in tu_common.h). shaderInt64 left out: not
    // read from the source.
    {"adreno-6xx-turnip", api(1, 3),
     "storage16 int8 int16 float16 subgroups fullSubgroups pushDescriptors timeline", 128,
     32768, 1024, {1024, 1024, 1024}, {65535, 65535, 65535}, 134217728, 16, kMax},
    // Imagination PowerVR Rogue under Mesa's driver: src/imagination/vulkan/pvr_device.c at 12a1936 (16 KiB
    // of shared memory; 384 invocations on cores of 14 USC slots, 512 on 16; 28 storage buffers a stage on
    // the smallest (CS408); 128 MiB ranges; shaderInt64 and shaderInt16; no subgroup operations, 8/16-bit
    // storage or push descriptors; timeline semaphores through the extension). That driver reports Vulkan
    // 1.0 (PVR_API_VERSION), on which ripple does not run; the profile is its limits at Vulkan 1.1, what
    // Android requires of a device's own driver.
    // VK_EXT_host_query_reset is in its extension table.
    {"powervr-rogue", api(1, 1), "int64 int16 timeline hostQueryReset", 1,
     16384, 384, {384, 384, 64}, {65536, 65536, 65536}, 134217728, 16, 28},
};
// clang-format on

bool offers(const Profile& p, const char* feature) {
    const std::string list = std::string(" ") + p.features + " ";
    return list.find(std::string(" ") + feature + " ") != std::string::npos;
}

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
    if (!p) { // the name is the user's: cut, so that the message keeps the list of names
        const std::string shown =
            name.size() <= 64 ? name : name.substr(0, 64) + "... (" + std::to_string(name.size()) + " bytes)";
        return Status(StatusCode::InvalidArgument,
                      "DeviceOptions::profile (" + shown + ") is not a known profile: " + profileNames());
    }
    AdapterFeatures& f = adapter.features;
    const std::pair<bool*, const char*> features[] = {{&f.int64, "int64"},
                                                      {&f.int64Atomics, "int64Atomics"},
                                                      {&f.storage8, "storage8"},
                                                      {&f.storage16, "storage16"},
                                                      {&f.int8, "int8"},
                                                      {&f.int16, "int16"},
                                                      {&f.float16, "float16"},
                                                      {&f.float64, "float64"},
                                                      {&f.float32AtomicAdd, "float32AtomicAdd"},
                                                      {&f.signedZeroInfNanPreserveFloat32, "nanPreserve32"},
                                                      {&f.subgroups, "subgroups"},
                                                      {&f.fullSubgroups, "fullSubgroups"},
                                                      {&f.pushDescriptors, "pushDescriptors"},
                                                      {&f.timelineSemaphore, "timeline"}};
    for (auto& [have, name] : features) *have = *have && offers(*p, name);
    const bool v12 = p->apiVersion >= api(1, 2);
    f.hostQueryReset = f.hostQueryReset && (v12 || offers(*p, "hostQueryReset"));
    // As Instance::describe: float controls are read on Vulkan 1.2 devices only.
    f.signedZeroInfNanPreserveFloat32 = f.signedZeroInfNanPreserveFloat32 && v12;
    f.fullSubgroups = f.fullSubgroups && f.subgroups;
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
    f.maxPerStageDescriptorStorageBuffers =
        std::min(f.maxPerStageDescriptorStorageBuffers, p->storageBuffersPerStage);
    adapter.apiVersion = std::min(adapter.apiVersion, p->apiVersion);
    adapter.name += " as profile " + name;
    return {};
}

Status applyProfileOption(const DeviceOptions& options, AdapterInfo& adapter) {
    std::string profile = options.profile;
    if (const char* env = std::getenv("RIPPLE_DEVICE_PROFILE"); profile.empty() && env) profile = env;
    return profile.empty() ? Status() : applyProfile(profile, adapter);
}

} // namespace ripple::vk
