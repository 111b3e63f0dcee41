// SPDX-License-Identifier: MIT
// The profiled kernel's entry point (ripple/profile.glsl): the kernel's own main, renamed
// ripple_kernel_main by the build, between a start and an end record. Its early returns return here, so the
// barrier below is reached by every invocation.
void main() {
    uvec2 start = clockRealtime2x32EXT(), cycles0 = clock2x32ARB();
    ripple_kernel_main();
    barrier();
    uvec2 end = clockRealtime2x32EXT(), cycles1 = clock2x32ARB();
    if (gl_LocalInvocationIndex == 0u) {
        uint at = gl_WorkGroupID.x * RIPPLE_PROFILE_WORDS;
        ripple_profile[at] = gl_SMIDNV;
        ripple_profile[at + 1u] = 1u;
        ripple_profile[at + 2u] = start.x;
        ripple_profile[at + 3u] = start.y;
        ripple_profile[at + 4u] = end.x;
        ripple_profile[at + 5u] = end.y;
        ripple_profile[at + 14u] = cycles1.x - cycles0.x;  // a 64-bit difference, low word first
        ripple_profile[at + 15u] = cycles1.y - cycles0.y - uint(cycles1.x < cycles0.x);
    }
}
