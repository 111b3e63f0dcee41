// SPDX-License-Identifier: MIT
// A driver's claim of full subgroups, checked once per device: ripple's subgroup kernels rely on it (their
// scans and shuffles map invocations to lanes), and a driver that breaks it gives wrong results silently.
// Mesa 22.3's lavapipe does at LP_NATIVE_VECTOR_WIDTH 1024 and 2048 (issue 40).
#include "vulkan/device.hpp"

#include <cstring>
#include <vector>

namespace ripple::vk {

Status VulkanDevice::probeFullSubgroups() {
    AdapterFeatures& f = adapter_.features;
    if (!f.fullSubgroups) return {};
    const kernels::KernelInfo* probe = kernels::findKernel("subgroup_probe");
    if (!probe) return Status(StatusCode::Internal, "the build has no subgroup_probe kernel");
    constexpr uint32_t kGroups = 4, kWords = kGroups * 256;
    if (Status s = preparePipeline(*probe); !s) return s;
    // Host-visible, read in place: no staging buffer is made for the probe (Device::upload makes it when
    // first needed).
    auto buffer = createBuffer(kWords * 4, true);
    if (!buffer) return buffer.status();
    auto list = beginCommands(0);
    if (!list) return list.status();
    const uint32_t groups[3] = {kGroups, 1, 1};
    list.value()->dispatch(*probe, {{buffer.value().get(), 0, kWords * 4}}, nullptr, groups);
    list.value()->hostReadBarrier();
    auto ticket = submit(std::move(list.value()));
    if (!ticket) return ticket.status();
    if (Status s = wait(ticket.value(), UINT64_MAX); !s) return s;
    std::vector<uint32_t> report(kWords);
    std::memcpy(report.data(), buffer.value()->mapped, kWords * 4);

    // Every subgroup full, and the scan indices of each workgroup a permutation of [0, 256).
    bool full = true;
    for (uint32_t g = 0; g < kGroups && full; ++g) {
        std::vector<bool> seen(256, false);
        for (uint32_t i = 0; i < 256 && full; ++i) {
            const uint32_t w = report[g * 256 + i], index = w & 0x7FFFFFFFu;
            full = (w & 0x80000000u) && index < 256 && !seen[index];
            if (full) seen[index] = true;
        }
    }
    if (!full) {
        f.fullSubgroups = false;
        log(LogLevel::Info, adapter_.name + " claims computeFullSubgroups but launched a partially filled "
                                            "subgroup: ripple runs its portable kernels on it");
    }
    return {};
}

} // namespace ripple::vk
