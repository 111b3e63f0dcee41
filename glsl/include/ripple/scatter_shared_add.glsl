// SPDX-License-Identifier: MIT
// FLOAT32 ADD into a small output with many updates per target (core/scatter_common.cpp picks it): each
// workgroup first sums its updates per target in shared memory. MODE_fast then adds each sum it holds to the
// output by one float atomic add (OUT_BINDING's combineElement): the global atomics per target fall from one
// per update to one per workgroup. MODE_portable (no float atomics: the compare-and-swap loops it ran
// instead retried 128 deep, 127.7 us against 29.9 on an H200; bench/NOTES.md "Issue 58: portable float
// ADD") stores its sums as one row of partials a workgroup (binding 3), and glsl/scatter_sums_add.comp adds
// each target's partials to the output. A sum starts at -0.0, the identity of float addition (+0.0 + -0.0
// = +0.0); a sum still -0.0 is not added, which leaves the target as it was. Partial sums reassociate the
// additions: like the per-update atomics, an order that is not fixed (results may differ in the last place;
// exact for sums that are). Params: [48] the output's element count, at most SHARED_SUMS (core/scatter_common.cpp
// keeps it). Needs params P().
#if defined(RIPPLE_SMALL)
#define SHARED_SUMS 2048u  // 8 KiB of the small-device form's 16
#else
#define SHARED_SUMS 4096u
#endif
#define NEGATIVE_ZERO 0x80000000u

shared uint sharedSums[SHARED_SUMS];

void sharedSumsBegin() {
    for (uint i = gl_LocalInvocationID.x; i < P(48u); i += gl_WorkGroupSize.x) sharedSums[i] = NEGATIVE_ZERO;
    barrier();
}

void sharedAdd(uint e, uvec2 bits) {
    uint expected = sharedSums[e];
    for (;;) {
        const uint sum = floatBitsToUint(uintBitsToFloat(expected) + uintBitsToFloat(bits.x));
        const uint seen = atomicCompSwap(sharedSums[e], expected, sum);
        if (seen == expected) break;
        expected = seen;
    }
}
#define SCATTER_WRITE(e, bits) sharedAdd(e, bits)

#if defined(MODE_fast)
void sharedSumsEnd() {
    barrier();
    for (uint i = gl_LocalInvocationID.x; i < P(48u); i += gl_WorkGroupSize.x) {
        const uint sum = sharedSums[i];
        if (sum != NEGATIVE_ZERO) combineElement(i, uvec2(sum, 0u), REDUCE_ADD);
    }
}
#else
layout(std430, binding = 3) writeonly buffer Partials { uint partials[]; };

// Every workgroup stores all its sums (-0.0 where it had none), so the partials need no clearing.
void sharedSumsEnd() {
    barrier();
    const uint row = gl_WorkGroupID.x * P(48u);
    for (uint i = gl_LocalInvocationID.x; i < P(48u); i += gl_WorkGroupSize.x) partials[row + i] = sharedSums[i];
}
#endif
