// SPDX-License-Identifier: MIT
// A stable least-significant-digit radix sort of (key, value) pairs of uints by 8-bit digits; the
// scatters' deterministic mode sorts update numbers by target with it (core/scatter_ordered.cpp). One pass
// per digit, the digit's shift in the push constant `arg`, each pass three dispatches:
//   pair_sort_hist     each block's digit counts into counts[digit * blocks + block];
//   pair_sort_scan     a workgroup per digit: its blocks' counts into exclusive offsets, in place, and the
//                      digit's total into counts[256 * blocks + digit];
//   pair_sort_scatter  each pair to its digit's base (the totals of the smaller digits) plus its block's
//                      offset plus its rank among its block's earlier pairs of its digit.
// Blocks are 256 * rounds consecutive pairs, taken 256 at a time (a round) by a workgroup of 256 invocations
// (128 in the small-device variants, each then taking two lanes of a round and two digits).
// Params: [0] pairs, [1] blocks, [2..3] group order (ORDERED_GROUP), [4] rounds.
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"

uint digitOf(uint key) { return (key >> pc.arg) & 0xFFu; }
