// SPDX-License-Identifier: MIT
#version 450
// Whether the device keeps its promise of full subgroups (lib/vulkan/subgroup_probe.cpp): run with
// REQUIRE_FULL_SUBGROUPS like every subgroup kernel of ripple's, each invocation reports whether its
// subgroup holds gl_SubgroupSize invocations and its place in scan order (ripple/scan.glsl's scanIndex()).
// Mesa 22.3's lavapipe at LP_NATIVE_VECTOR_WIDTH 1024 and 2048 claims computeFullSubgroups, reports
// subgroups of 32 or 64 and runs them 16 invocations wide: this catches such a driver.
// Binding 0: one word per invocation, bit 31 set where the subgroup was full, bits 0-30 the scan index.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(local_size_x = 256) in;
layout(std430, binding = 0) writeonly buffer Report { uint report[]; };

void main() {
    const uint lanes = subgroupAdd(1u);
    const bool full = lanes == gl_SubgroupSize && gl_NumSubgroups * gl_SubgroupSize == 256u;
    const uint scanIndex = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
    report[gl_WorkGroupID.x * 256u + gl_LocalInvocationID.x] = (full ? 0x80000000u : 0u) | (scanIndex & 0x7FFFFFFFu);
}
