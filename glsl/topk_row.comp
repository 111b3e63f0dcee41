// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK of rows of up to 4096 elements (core/topk.cpp, planRow): one workgroup per row, one dispatch.
// Each invocation holds up to 16 rank keys (topk_select.glsl's) of the row, elements lid, lid + 256, ...
// (every load coalesced along a contiguous axis), in its own slots of shared memory. The K-th smallest entry
// (rank key, index) is found 8 key bits at a time from the top, by a 256-bin shared-memory histogram of
// the elements agreeing with the prefix found so far, then, when ties of the K-th rank straddle K, 8
// index bits at a time the same way. H100 (bench/NOTES.md, TopK v9): counting every key bit pair by packed
// counters took (4096,4096) K=256 to 205 us, the histograms to 159, despite normal data crowding a few bins
// of the top byte. A step after which every entry of the chosen digit is wanted ends the search early. The
// K winners are then ranked (topk_write.glsl) and written.
// Params: the TopK block (topk.glsl), then [30] key bits (8, 16 or 32). Bindings: 1 input, 2 values,
// 3 indices.
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
#if defined(SLOTS_s256)  // K <= 256: 6 KiB less shared memory than 1024 slots
#define SLOTS 256u
#endif
#include "ripple/bitonic.glsl"  // the K winners (K <= SLOTS), unordered until written
#include "ripple/topk_write.glsl"

#define PER 16u  // keys per invocation: rows of up to 16 * 256 = 4096 elements
#define COMPACT SLOTS  // entries of the compacted steps, in the slots
#define CP (COMPACT / 256u)  // compacted entries per invocation
uint gFlip, gShift;
// The row's rank keys, invocation lid's at j * 256 + lid: only it reads them, so no barrier guards them.
// Shared memory, not registers: 44 registers instead of 64 let 5 workgroups share an SM instead of 4 (H100,
// (4096,4096) K=256 124 -> 113 us), and the loops over them stay loops (smaller code, fewer live values).
shared uint sRow[PER * 256u];
uint keyAt(uint j) { return sRow[j * 256u + gl_LocalInvocationID.x]; }
// Rank key of element bits: smaller ranks come first, the type's bits at the top of the word.
uint rankOf(uint bits) { return (orderKeyOf(uvec2(bits, 0u)).x ^ gFlip) << gShift; }

// After a histogram of 8-bit digits in the slots (sKey[0][0..255]) is complete (the caller's barrier
// follows its atomics): the digit holding the need-th counted entry. need becomes its rank within the digit,
// ties the digit's count. Every invocation must call it; it ends with a barrier, the slots free again.
uint findDigit(inout uint need, out uint ties) {
    const uint x = scanIndex(), count = sKey[0][x];
    uint total;
    const uint before = workgroupExclusiveAdd(count, total);
    if (before < need && need <= before + count) {
        sIdx[0] = x;
        sIdx[1] = before;
    }
    barrier();
    const uint digit = sIdx[0];
    need -= sIdx[1];
    ties = sKey[0][digit];
    barrier();
    return digit;
}

void main() {
    const uint n = TOPK_N, stride = TOPK_AXIS_STRIDE, lid = gl_LocalInvocationID.x;
    const uint bits = P(30);
    gFlip = TOPK_DIRECTION == 0u ? (bits == 32u ? 0xFFFFFFFFu : ((1u << bits) - 1u)) : 0u;
    gShift = 32u - bits;
    const uint padKey = 0xFFFFFFFFu << gShift;  // past-end slots: the last rank, indices >= n
    for (uint row = gl_WorkGroupID.x; row < TOPK_ROWS; row += pc.groupCount) {
        const uint rowBase = viewOffset(TOPK_ROW_VIEW, row);
        // Every load of a batch issued before any key arithmetic, none behind a branch: a load after a branch
        // waits for the ones before it (H100: 170 us instead of about 25 for the loads of (4096,4096)).
        // Slots past the end read the last element again, from the cache.
        if (n == PER * 256u && stride == 1u) {  // uniform: one address, the others its offsets
            uint key[PER];
            [[unroll]] for (uint j = 0u; j < PER; ++j) key[j] = loadElement(rowBase + lid + j * 256u).x;
            [[unroll]] for (uint j = 0u; j < PER; ++j) sRow[j * 256u + lid] = rankOf(key[j]);
        } else {  // eight at a time: each clamped load its own address
            [[unroll]] for (uint h = 0u; h < PER; h += PER / 2u) {
                uint key[PER / 2u];
                [[unroll]] for (uint j = 0u; j < PER / 2u; ++j)
                    key[j] = loadElement(rowBase + min((h + j) * 256u + lid, n - 1u) * stride).x;
                [[unroll]] for (uint j = 0u; j < PER / 2u; ++j)
                    sRow[(h + j) * 256u + lid] = (h + j) * 256u + lid < n ? rankOf(key[j]) : padKey;
            }
        }
        // Phases (PROFILE builds): loads, key selection, index selection, winners, sort and write.
        RIPPLE_MARK(0);

        // The K-th smallest rank T, 8 bits at a time from the top. Once at most COMPACT elements still
        // agree with the prefix, they move to the slots and on to 4 registers per invocation, so that the
        // later steps look at 4 entries each instead of 16.
        uint prefix = 0u, need = TOPK_K, ties = PER * 256u, shift = 32u;  // ties: the slots agreeing so far
        bool compact = false;
        uint ck[CP], ci[CP];
        while (shift > gShift) {
            if (!compact && ties <= COMPACT) {  // uniform
                const uint agree = shift == 32u ? 0u : 0xFFFFFFFFu << shift;
                uint mine = 0u;
                [[dont_unroll]] for (uint j = 0u; j < PER; ++j)
                    mine += ((keyAt(j) ^ prefix) & agree) == 0u ? 1u : 0u;
                uint total;
                uint at = workgroupExclusiveAdd(mine, total);
                [[dont_unroll]] for (uint j = 0u; j < PER; ++j) {
                    if (((keyAt(j) ^ prefix) & agree) == 0u) {
                        sKey[0][at] = keyAt(j);
                        sIdx[at] = j * 256u + lid;
                        ++at;
                    }
                }
                for (uint i = total + lid; i < COMPACT; i += 256u)
                    sKey[0][i] = prefix ^ 0x80000000u;  // agrees with no prefix: every step has bit 31
                barrier();
                [[unroll]] for (uint j = 0u; j < CP; ++j) {
                    ck[j] = sKey[0][j * 256u + lid];
                    ci[j] = sIdx[j * 256u + lid];
                }
                barrier();  // the slots are the winners' again
                compact = true;
            }
            // The next 8 bits by a histogram in the slots (free between compaction and the winners).
            const uint above = shift == 32u ? 0u : 0xFFFFFFFFu << shift;
            shift -= 8u;
            sKey[0][lid] = 0u;
            barrier();
            if (compact) {
                [[unroll]] for (uint j = 0u; j < CP; ++j)
                    if (((ck[j] ^ prefix) & above) == 0u) atomicAdd(sKey[0][(ck[j] >> shift) & 0xFFu], 1u);
            } else {
                [[dont_unroll]] for (uint j = 0u; j < PER; ++j) {
                    const uint k = keyAt(j);
                    if (((k ^ prefix) & above) == 0u) atomicAdd(sKey[0][(k >> shift) & 0xFFu], 1u);
                }
            }
            barrier();
            prefix |= findDigit(need, ties) << shift;
            if (ties == need) break;  // uniform: every entry of the chosen digit wins, no need for the rest
        }
        RIPPLE_MARK(1);
        // Ties of T straddle K: the need-th smallest index among them, 8 bits at a time by the same
        // histograms (the packed 2-bit counters this took before held the kernel at 44 registers; it has 40
        // now, but its 19.5 KB of shared memory already hold the H100 at 5 workgroups per SM: bench/NOTES.md,
        // issue 21).
        uint last = 0xFFFFFFFFu;
        if (need < ties) {  // uniform
            last = 0u;
            for (uint s = n > 256u ? 8u : 0u;; s -= 8u) {  // indices below 4096: at most two steps
                const uint above = 0xFFFFFFFFu << (s + 8u);
                sKey[0][lid] = 0u;
                barrier();
                if (compact) {
                    [[unroll]] for (uint j = 0u; j < CP; ++j)
                        if (ck[j] == prefix && ((ci[j] ^ last) & above) == 0u)
                            atomicAdd(sKey[0][(ci[j] >> s) & 0xFFu], 1u);
                } else {
                    [[dont_unroll]] for (uint j = 0u; j < PER; ++j) {
                        const uint i = j * 256u + lid;
                        if (keyAt(j) == prefix && ((i ^ last) & above) == 0u)
                            atomicAdd(sKey[0][(i >> s) & 0xFFu], 1u);
                    }
                }
                barrier();
                uint digitCount;
                last |= findDigit(need, digitCount) << s;
                if (s == 0u) break;
            }
        }
        RIPPLE_MARK(2);
        // The K winners into the slots, in invocation order: keys below the prefix in the bits resolved
        // (all of them, or down to `shift` when the loop ended early), and up to `last` of those equal.
        const uint p = prefix >> shift;
        uint mine = 0u;
        [[dont_unroll]] for (uint j = 0u; j < PER; ++j)
            mine += uint((keyAt(j) >> shift) < p) |
                    (uint((keyAt(j) >> shift) == p) & uint(j * 256u + lid <= last));  // branch-free
        uint total;
        uint at = workgroupExclusiveAdd(mine, total);
        [[dont_unroll]] for (uint j = 0u; j < PER; ++j) {
            const uint i = j * 256u + lid;
            if ((uint((keyAt(j) >> shift) < p) | (uint((keyAt(j) >> shift) == p) & uint(i <= last))) != 0u) {
                sKey[0][at] = keyAt(j);
                sIdx[at] = i;
                ++at;
            }
        }
        barrier();
        RIPPLE_MARK(3);
        writeWinners(row, rowBase);
        barrier();
    }
}
