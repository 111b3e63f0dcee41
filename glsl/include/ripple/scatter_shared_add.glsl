// SPDX-License-Identifier: MIT
// FLOAT32 ADD into a small output with many updates per target (core/scatter_common.cpp picks it): each
// workgroup first sums its updates per target in shared memory, then adds each sum it holds to the output
// once (ripple/combine.glsl: one float atomic add in MODE_fast, else a compare-and-swap loop). The global
// atomics per target fall from one per update to one per workgroup. A sum starts at -0.0, the identity of
// float addition (+0.0 + -0.0 = +0.0), and a sum still -0.0 is not added, which leaves the target as it was.
// Partial sums reassociate the additions: like the per-update atomics, an order that is not fixed (results
// may differ in the last place; exact for sums that are). Params: [48] the output's element count, at most
// SHARED_SUMS. Needs OUT_BINDING's combineElement and params P().
#define SHARED_SUMS 4096u
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

void sharedSumsEnd() {
    barrier();
    for (uint i = gl_LocalInvocationID.x; i < P(48u); i += gl_WorkGroupSize.x) {
        const uint sum = sharedSums[i];
        if (sum != NEGATIVE_ZERO) combineElement(i, uvec2(sum, 0u), REDUCE_ADD);
    }
}
