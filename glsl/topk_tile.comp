#version 450
#extension GL_GOOGLE_include_directive : require
// TopK pass 1: each workgroup sorts tiles of T entries in shared memory (bitonic network, every tile
// ascending) and writes each tile's first min(K, tile length) entries as a level-0 run. Rows shorter than
// SLOTS share a workgroup, one tile each. DTYPE_xx picks the value-to-key mapping.
// Bindings: 1 input, 2 level-0 runs.
#if defined(DTYPE_i64) || defined(DTYPE_u64)
#define KEYW_k2
#endif
layout(local_size_x = 256) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) writeonly buffer Runs { uint runs[]; };

#define SLOTS 1024u
shared uint sKey[KEYW][SLOTS];
shared uint sIdx[SLOTS];

// Unsigned key whose integer order is the promised value order: floats by sign flip, -0.0 folded onto
// +0.0, every NaN above +inf; signed integers by flipping the sign bit. Returns (most, least significant).
uvec2 orderKey(uint offset) {
#if defined(DTYPE_f32)
    uint b = LOAD_B32(inputWords, offset).x;
    if ((b & 0x7FFFFFFFu) > 0x7F800000u) return uvec2(0xFFFFFFFFu, 0u);
    if (b == 0x80000000u) b = 0u;
    return uvec2((b & 0x80000000u) != 0u ? ~b : (b | 0x80000000u), 0u);
#elif defined(DTYPE_f16)
    uint b = LOAD_B16(inputWords, offset).x;
    if ((b & 0x7FFFu) > 0x7C00u) return uvec2(0xFFFFu, 0u);
    if (b == 0x8000u) b = 0u;
    return uvec2((b & 0x8000u) != 0u ? (~b & 0xFFFFu) : (b | 0x8000u), 0u);
#elif defined(DTYPE_i32)
    return uvec2(LOAD_B32(inputWords, offset).x ^ 0x80000000u, 0u);
#elif defined(DTYPE_u32)
    return uvec2(LOAD_B32(inputWords, offset).x, 0u);
#elif defined(DTYPE_i16)
    return uvec2(LOAD_B16(inputWords, offset).x ^ 0x8000u, 0u);
#elif defined(DTYPE_u16)
    return uvec2(LOAD_B16(inputWords, offset).x, 0u);
#elif defined(DTYPE_i8)
    return uvec2(LOAD_B8(inputWords, offset).x ^ 0x80u, 0u);
#elif defined(DTYPE_u8)
    return uvec2(LOAD_B8(inputWords, offset).x, 0u);
#elif defined(DTYPE_i64)
    uvec2 v = LOAD_B64(inputWords, offset);
    return uvec2(v.y ^ 0x80000000u, v.x);
#elif defined(DTYPE_u64)
    uvec2 v = LOAD_B64(inputWords, offset);
    return uvec2(v.y, v.x);
#endif
}

bool slotLess(uint a, uint b) {
    [[unroll]] for (uint w = 0u; w < KEYW; ++w) {
        if (sKey[w][a] != sKey[w][b]) return sKey[w][a] < sKey[w][b];
    }
    return sIdx[a] < sIdx[b];
}

void orderPair(uint lo, uint hi) {
    if (slotLess(hi, lo)) {
        [[unroll]] for (uint w = 0u; w < KEYW; ++w) {
            uint t = sKey[w][lo];
            sKey[w][lo] = sKey[w][hi];
            sKey[w][hi] = t;
        }
        uint t = sIdx[lo];
        sIdx[lo] = sIdx[hi];
        sIdx[hi] = t;
    }
}

void main() {
    const uint n = TOPK_N, K = TOPK_K, T = TOPK_T, log2T = TOPK_LOG2T, tiles = TOPK_TILES;
    const uint perGroup = P(6), totalTiles = P(7);
    const bool decreasing = TOPK_DIRECTION == 0u;
    const uint groups = (totalTiles + perGroup - 1u) / perGroup;
    const uint lid = gl_LocalInvocationID.x;
    const uint cap0 = runCapacity(0u);

    for (uint g = gl_WorkGroupID.x; g < groups; g += pc.groupCount) {
        for (uint i = lid; i < SLOTS; i += gl_WorkGroupSize.x) {
            uint seg = i >> log2T, local = i & (T - 1u);
            uint tile = g * perGroup + seg;
            uint j = (tile % tiles) * T + local;
            bool real = seg < perGroup && tile < totalTiles && j < n;
            uvec2 key = real ? orderKey(inputOffset(tile / tiles, j)) : uvec2(0u);
            if (decreasing) key = ~key;
            sKey[0][i] = real ? key.x : 0xFFFFFFFFu;
            if (KEYW == 2u) sKey[KEYW - 1u][i] = real ? key.y : 0xFFFFFFFFu;
            sIdx[i] = real ? j : 0xFFFFFFFFu;  // padding sorts after every real entry
        }
        barrier();
        // Bitonic sort of every T-entry tile, all ascending: the first step of each stage compares
        // mirrored pairs, so no tile needs to be sorted in the opposite direction.
        for (uint k = 2u; k <= T; k <<= 1u) {
            for (uint d = k >> 1u; d > 0u; d >>= 1u) {
                for (uint p = lid; p < SLOTS / 2u; p += gl_WorkGroupSize.x) {
                    uint lo = ((p & ~(d - 1u)) << 1u) | (p & (d - 1u));
                    uint hi = d == (k >> 1u) ? (lo ^ (k - 1u)) : (lo + d);
                    orderPair(lo, hi);
                }
                barrier();
            }
        }
        for (uint i = lid; i < SLOTS; i += gl_WorkGroupSize.x) {
            uint seg = i >> log2T, local = i & (T - 1u);
            uint tile = g * perGroup + seg;
            if (seg < perGroup && tile < totalTiles && local < runLength(0u, tile % tiles)) {
                uint dst = (tile * cap0 + local) * ENTRY_WORDS;
                [[unroll]] for (uint w = 0u; w < KEYW; ++w) runs[dst + w] = sKey[w][i];
                runs[dst + KEYW] = sIdx[i];
            }
        }
        barrier();
    }
}
