// SPDX-License-Identifier: MIT
// Radix sort pass, step 3 (ripple/pair_sort.glsl): each pair to its digit's offset for its block plus its
// rank among the block's earlier pairs of the same digit. The rank comes from per-digit bit masks of the
// 256 pairs of a round: the pairs of my digit in lower lanes, counted with bitCount. The digits' bases, an
// exclusive scan of their totals, are summed by each workgroup (256 values). MODE fast: subgroup scans.
// The kernel defines PAIR_SORT_KEYS and/or PAIR_SORT_VALUES: what it writes (the small-device variants
// write keys and values in two dispatches, each within 4 storage buffers).
// Bindings: 1 keys in, 2 values in, 3 offsets (256 * blocks, then the 256 totals), 4 keys out, 5 values out.
#include "ripple/pair_sort.glsl"
#include "ripple/scan.glsl"

#define LANES (256u / RIPPLE_GROUP_SIZE)  // lanes of a round and digits per invocation: 1, or 2 (small)

layout(std430, binding = 1) readonly buffer KeysIn { uint keysIn[]; };
layout(std430, binding = 3) readonly buffer Offsets { uint offsets[]; };
#if defined(PAIR_SORT_KEYS)
layout(std430, binding = 4) writeonly buffer KeysOut { uint keysOut[]; };
#endif
#if defined(PAIR_SORT_VALUES)
layout(std430, binding = 2) readonly buffer ValuesIn { uint valuesIn[]; };
layout(std430, binding = 5) writeonly buffer ValuesOut { uint valuesOut[]; };
#endif

shared uint sMask[256u * 8u];  // digit d's 256-lane mask in words [8d, 8d + 8)
shared uint sNext[256];        // digit d's next output position
shared uint sBase[256];        // digit d's first output position

void main() {
    const uint pairs = P(0), blocks = P(1), rounds = P(4), lid = gl_LocalInvocationID.x;
    const uint G = gl_WorkGroupSize.x;
    uint total, sum = 0u, totals[LANES];
    const uint first = scanIndex() * LANES;  // my digits, in scan order
    [[unroll]] for (uint j = 0u; j < LANES; ++j) {
        totals[j] = offsets[256u * blocks + first + j];
        sum += totals[j];
    }
    uint base = workgroupExclusiveAdd(sum, total);
    [[unroll]] for (uint j = 0u; j < LANES; ++j) {
        sBase[first + j] = base;
        base += totals[j];
    }
    barrier();
    for (uint block = ORDERED_GROUP(2u); block < blocks; block += pc.groupCount) {
        for (uint d = lid; d < 256u; d += G) sNext[d] = sBase[d] + offsets[d * blocks + block];
        for (uint r = 0u; r < rounds; ++r) {
            for (uint d = lid; d < 256u; d += G) [[unroll]] for (uint k = 0u; k < 8u; ++k) sMask[d * 8u + k] = 0u;
            barrier();
            uint key[LANES], digit[LANES];
            [[unroll]] for (uint j = 0u; j < LANES; ++j) {
                const uint lane = lid + j * G, i = (block * rounds + r) * 256u + lane;
                key[j] = 0u;
                digit[j] = 0u;
                if (i < pairs) {
                    key[j] = keysIn[i];
                    digit[j] = digitOf(key[j]);
                    atomicOr(sMask[digit[j] * 8u + lane / 32u], 1u << (lane % 32u));
                }
            }
            barrier();
            [[unroll]] for (uint j = 0u; j < LANES; ++j) {
                const uint lane = lid + j * G, i = (block * rounds + r) * 256u + lane, word = lane / 32u;
                if (i < pairs) {
                    const uint d = digit[j];
                    uint rank = bitCount(sMask[d * 8u + word] & ((1u << (lane % 32u)) - 1u));
                    for (uint w = 0u; w < word; ++w) rank += bitCount(sMask[d * 8u + w]);
                    const uint to = sNext[d] + rank;
#if defined(PAIR_SORT_KEYS)
                    keysOut[to] = key[j];
#endif
#if defined(PAIR_SORT_VALUES)
                    valuesOut[to] = valuesIn[i];
#endif
                }
            }
            barrier();
            for (uint d = lid; d < 256u; d += G) {  // each digit's pairs in the round; read after a barrier
                uint mine = 0u;
                [[unroll]] for (uint k = 0u; k < 8u; ++k) mine += bitCount(sMask[d * 8u + k]);
                sNext[d] += mine;
            }
        }
        barrier();
    }
}
