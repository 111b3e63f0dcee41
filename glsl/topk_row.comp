#version 450
#extension GL_GOOGLE_include_directive : require
// TopK of rows of 1025 to 4096 elements (core/topk.cpp): one workgroup per row, one dispatch. The row's rank
// keys (topk_select.glsl's) are loaded into shared memory once; radix selection over 8-bit digits finds
// the K-th smallest rank T and how many of the elements equal to T are wanted (the first ones by index);
// the K winners are then ranked by counting (K <= 256) or sorted (bitonic), and written.
// Params: the TopK block (topk.glsl), then [30] key bits. Bindings: 1 input, 2 values, 3 indices.
layout(local_size_x = 256) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) buffer Values { uint values[]; };
layout(std430, binding = 3) writeonly buffer IndicesOut { uint indicesOut[]; };

#include "ripple/topk_key.glsl"
#include "ripple/scan.glsl"
#include "ripple/bitonic.glsl"  // the K winners (K <= SLOTS), unordered until written
#include "ripple/topk_write.glsl"

#define ROW_SLOTS 4096u  // 16 KiB; with the winners and the scans 26 KiB of shared memory
shared uint sRow[ROW_SLOTS];
shared uint sBins[256];
shared uint sFound, sBefore, sSlots;

uint gFlip, gShift;
uint rankOf(uint bits) { return (orderKeyOf(uvec2(bits, 0u)).x ^ gFlip) << gShift; }

void take(uint key, uint idx) {
    const uint at = atomicAdd(sSlots, 1u);
    if (at < SLOTS) {
        sKey[0][at] = key;
        sIdx[at] = idx;
    }
}

void main() {
    const uint n = TOPK_N, K = TOPK_K, stride = TOPK_AXIS_STRIDE, lid = gl_LocalInvocationID.x, x = scanIndex();
    const uint bits = P(30);
    gFlip = TOPK_DIRECTION == 0u ? (bits == 32u ? 0xFFFFFFFFu : ((1u << bits) - 1u)) : 0u;
    gShift = 32u - bits;
    for (uint row = gl_WorkGroupID.x; row < TOPK_ROWS; row += pc.groupCount) {
        const uint rowBase = viewOffset(TOPK_ROW_VIEW, row);
        for (uint i0 = lid; i0 < n; i0 += 256u * 8u) {
            uint v[8];
            [[unroll]] for (uint u = 0u; u < 8u; ++u)  // eight loads in flight, no branch between
                v[u] = loadElement(rowBase + min(i0 + u * 256u, n - 1u) * stride).x;
            [[unroll]] for (uint u = 0u; u < 8u; ++u)
                if (i0 + u * 256u < n) sRow[i0 + u * 256u] = rankOf(v[u]);
        }
        // Radix selection of the K-th smallest rank, 8 bits at a time from the top.
        uint prefix = 0u, need = K, ties = 0u;
        for (uint shift = 24u; shift + bits >= 32u; shift -= 8u) {  // only the key's own bits
            sBins[lid] = 0u;
            barrier();
            for (uint i = lid; i < n; i += 256u) {
                const uint k = sRow[i];
                if (shift == 24u || (k >> (shift + 8u)) == (prefix >> (shift + 8u)))
                    atomicAdd(sBins[(k >> shift) & 0xFFu], 1u);
            }
            barrier();
            const uint count = sBins[x];
            uint total;
            const uint before = workgroupExclusiveAdd(count, total);
            if (before < need && need <= before + count) {
                sFound = x;
                sBefore = before;
            }
            barrier();
            prefix |= sFound << shift;
            need -= sBefore;
            ties = sBins[sFound];
            barrier();
            if (shift == 0u) break;
        }
        // The last wanted index among the ties of T: each invocation counts the ties in its own
        // contiguous run of the row, a prefix sum orders the runs.
        uint lastIndex = 0xFFFFFFFFu;
        if (need < ties) {
            const uint len = (n + 255u) / 256u, from = x * len, to = min(n, from + len);
            uint mine = 0u;
            for (uint i = from; i < to; ++i) mine += sRow[i] == prefix ? 1u : 0u;
            uint total;
            uint rank = workgroupExclusiveAdd(mine, total);
            if (rank < need && need <= rank + mine) {
                for (uint i = from; i < to; ++i) {
                    if (sRow[i] != prefix) continue;
                    if (++rank == need) {
                        sFound = i;
                        break;
                    }
                }
            }
            barrier();
            lastIndex = sFound;
        }
        if (lid == 0u) sSlots = 0u;
        barrier();
        for (uint i = lid; i < n; i += 256u) {
            const uint k = sRow[i];
            if (k < prefix || (k == prefix && i <= lastIndex)) take(k, i);
        }
        barrier();
        writeWinners(row, rowBase);
        barrier();
    }
}
