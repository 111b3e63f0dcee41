// SPDX-License-Identifier: MIT
// The profiled kernel's entry point (ripple/profile.glsl): the kernel's own main, renamed
// ripple_kernel_main by the build, between a start and an end record. Its early returns return here, so the
// barrier below is reached by every invocation.
void main() {
    uvec2 start = clockRealtime2x32EXT();
    ripple_kernel_main();
    barrier();
    uvec2 end = clockRealtime2x32EXT();
    if (gl_LocalInvocationIndex == 0u) {
        uint at = gl_WorkGroupID.x * RIPPLE_PROFILE_WORDS;
        ripple_profile[at] = gl_SMIDNV;
        ripple_profile[at + 1u] = 1u;
        ripple_profile[at + 2u] = start.x;
        ripple_profile[at + 3u] = start.y;
        ripple_profile[at + 4u] = end.x;
        ripple_profile[at + 5u] = end.y;
    }
}
