// SPDX-License-Identifier: MIT
// A stable least-significant-digit radix sort of (key, value) pairs of uints by 8-bit digits; the
// scatters' deterministic mode sorts update numbers by target with it (core/scatter_ordered.cpp). One pass
// per digit, the digit's shift in the push constant `arg`, each pass three dispatches:
//   pair_sort_hist     each block's digit counts into counts[digit * blocks + block];
//   pair_sort_scan     those counts into exclusive offsets (digit-major, block-minor: stable order);
//   pair_sort_scatter  each pair to its offset plus its rank among its block's earlier pairs of its digit.
// Blocks are PAIR_SORT_BLOCK consecutive pairs, a workgroup of 256 invocations taking them 256 at a time.
// Params: [0] pairs, [1] blocks, [2..3] group order (ORDERED_GROUP).
layout(local_size_x = 256) in;
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"

#define PAIR_SORT_BLOCK 2048u
#define PAIR_SORT_ROUNDS (PAIR_SORT_BLOCK / 256u)

uint digitOf(uint key) { return (key >> pc.arg) & 0xFFu; }
