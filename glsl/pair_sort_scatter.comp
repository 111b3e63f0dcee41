// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// Radix sort pass, step 3: each pair to its digit's offset for its block plus its rank among the block's
// earlier pairs of the same digit (ripple/pair_sort.glsl). The rank comes from per-digit bit masks of the
// 256 pairs of a round: the pairs of my digit in lower lanes, counted with bitCount. The digits' bases, an
// exclusive scan of their totals, are summed by each workgroup (256 values). MODE fast: subgroup scans.
// Bindings: 1 keys in, 2 values in, 3 offsets (256 * blocks, then the 256 totals), 4 keys out, 5 values out.
#include "ripple/pair_sort.glsl"
#include "ripple/scan.glsl"

layout(std430, binding = 1) readonly buffer KeysIn { uint keysIn[]; };
layout(std430, binding = 2) readonly buffer ValuesIn { uint valuesIn[]; };
layout(std430, binding = 3) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 4) writeonly buffer KeysOut { uint keysOut[]; };
layout(std430, binding = 5) writeonly buffer ValuesOut { uint valuesOut[]; };

shared uint sMask[256u * 8u];  // digit d's 256-lane mask in words [8d, 8d + 8)
shared uint sNext[256];        // digit d's next output position
shared uint sBase[256];        // digit d's first output position

void main() {
    const uint pairs = P(0), blocks = P(1), rounds = P(4), lid = gl_LocalInvocationID.x;
    const uint word = lid / 32u, below = (1u << (lid % 32u)) - 1u;
    uint total;
    const uint digit = scanIndex();
    const uint base = workgroupExclusiveAdd(offsets[256u * blocks + digit], total);
    sBase[digit] = base;
    barrier();
    for (uint block = ORDERED_GROUP(2u); block < blocks; block += pc.groupCount) {
        sNext[lid] = sBase[lid] + offsets[lid * blocks + block];
        for (uint r = 0u; r < rounds; ++r) {
            [[unroll]] for (uint k = 0u; k < 8u; ++k) sMask[lid * 8u + k] = 0u;
            barrier();
            const uint i = (block * rounds + r) * 256u + lid;
            uint key = 0u, d = 0u;
            if (i < pairs) {
                key = keysIn[i];
                d = digitOf(key);
                atomicOr(sMask[d * 8u + word], 1u << (lid % 32u));
            }
            barrier();
            if (i < pairs) {
                uint rank = bitCount(sMask[d * 8u + word] & below);
                for (uint w = 0u; w < word; ++w) rank += bitCount(sMask[d * 8u + w]);
                const uint to = sNext[d] + rank;
                keysOut[to] = key;
                valuesOut[to] = valuesIn[i];
            }
            barrier();
            uint mine = 0u;  // this invocation's digit (lid) in the round
            [[unroll]] for (uint k = 0u; k < 8u; ++k) mine += bitCount(sMask[lid * 8u + k]);
            sNext[lid] += mine;  // read next round after its barrier
        }
        barrier();
    }
}
