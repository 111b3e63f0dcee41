// SPDX-License-Identifier: MIT
// Workgroup prefix sums for workgroups of RIPPLE_GROUP_SIZE invocations (256 unless a kernel says).
// Subgroup operations in the fast variants (MODE_fast); the portable ones use shared memory only.
#if defined(MODE_fast)
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
// This invocation's place in scan order: subgroups in order, each in lane order (a bijection onto
// [0, RIPPLE_GROUP_SIZE) with full subgroups, which the fast variants request).
uint scanIndex() { return gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID; }
#else
uint scanIndex() { return gl_LocalInvocationID.x; }
#endif

shared uint sScan[RIPPLE_GROUP_SIZE];
// Exclusive prefix sum of v over the workgroup's invocations in scanIndex() order; `total` gets the sum.
// All invocations must call it; it starts and ends with a barrier.
uint workgroupExclusiveAdd(uint v, out uint total) {
    barrier();
#if defined(MODE_fast)
    const uint inclusive = subgroupInclusiveAdd(v);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) sScan[gl_SubgroupID] = inclusive;
    barrier();
    uint before = 0u;
    total = 0u;
    for (uint w = 0u; w < gl_NumSubgroups; ++w) {
        const uint t = sScan[w];
        before += w < gl_SubgroupID ? t : 0u;
        total += t;
    }
    barrier();
    return before + inclusive - v;
#else
    const uint lid = gl_LocalInvocationID.x;
    sScan[lid] = v;
    barrier();
    for (uint off = 1u; off < RIPPLE_GROUP_SIZE; off <<= 1u) {  // inclusive prefix sum (Hillis-Steele)
        const uint x = lid >= off ? sScan[lid - off] : 0u;
        barrier();
        sScan[lid] += x;
        barrier();
    }
    const uint inclusive = sScan[lid];
    total = sScan[RIPPLE_GROUP_SIZE - 1u];
    barrier();
    return inclusive - v;
#endif
}
