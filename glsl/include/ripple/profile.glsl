// SPDX-License-Identifier: MIT
// The PROFILE permutation (RIPPLE_PROFILE_KERNELS; bench/ripple_profile.cpp): every workgroup writes a
// record of RIPPLE_PROFILE_WORDS words at gl_WorkGroupID.x * RIPPLE_PROFILE_WORDS of binding 7:
//   [0] the SM (gl_SMIDNV)  [1] 1 once written  [2,3] start  [4,5] end  [6 + 2n, 7 + 2n] mark n (n < 4)
//   [14,15] the SM's clock cycles from start to end (clock2x32ARB, invocation 0's subgroup clock)
// Times are the device's real-time clock (clockRealtime2x32EXT, nanoseconds on NVIDIA), low word first.
// Cycles against nanoseconds are the clock the SM ran at: what a reported SM clock may not show (the H200's
// slow spells after idling, bench/NOTES.md, issue 58's fifth session).
// Start is read by invocation 0 on entry, end after a barrier once every invocation has left the kernel's
// main; a kernel marks a phase with RIPPLE_MARK(n) (invocation 0's clock at that point). The build adds
// this file before a profiled kernel's code and ripple/profile_main.glsl after it.
#ifndef RIPPLE_PROFILE_GLSL
#define RIPPLE_PROFILE_GLSL
#extension GL_EXT_shader_realtime_clock : require
#extension GL_ARB_shader_clock : require
#extension GL_NV_shader_sm_builtins : require

layout(std430, binding = 7) buffer RippleProfile { uint ripple_profile[]; };

#define RIPPLE_PROFILE_WORDS 16u
#define RIPPLE_MARK(n)                                                                                       \
    {                                                                                                        \
        if (gl_LocalInvocationIndex == 0u) {                                                                 \
            uvec2 ripple_t = clockRealtime2x32EXT();                                                         \
            uint ripple_at = gl_WorkGroupID.x * RIPPLE_PROFILE_WORDS + 6u + 2u * uint(n);                    \
            ripple_profile[ripple_at] = ripple_t.x;                                                          \
            ripple_profile[ripple_at + 1u] = ripple_t.y;                                                     \
        }                                                                                                    \
    }
#endif
