// SPDX-License-Identifier: MIT
// TopK by sampled radix selection for long rows of keys up to 32 bits (v3; core/topk.cpp chooses it).
//
// Every element has a rank key: its order key, complemented for DECREASING, shifted to the top of a 32-bit
// word; a smaller rank comes first, ties by smaller index. Three dispatches:
//   1. topk_select_sample: one workgroup per row (for few rows, several sharing it) takes S samples, each
//      the smallest rank of g elements at pseudo-random positions of its stratum of the row, and finds their
//      m-th smallest rank: the row's estimate tau of a rank a little past the K-th. For small m the m
//      smallest of S * g elements almost surely sit in distinct strata, so the minima stand for S * g
//      samples of the row's low tail (and when two do share one, tau only gets larger: more candidates,
//      never a wrong result). m is chosen (core/topk.cpp) so that fewer than K elements rank at or below
//      tau practically never happens, while about m * n / S do.
//      Rows of at most 1024 samples of one element have no such dispatch: each filter workgroup of the
//      row finds tau itself (topk_select_filter's TAU sample, topk_sample.glsl), and the row's first chunk
//      stores it.
//   2. topk_select_filter: many workgroups per row read the row once. Elements ranked below tau are
//      appended to the row's candidate list (at most `capacity` are stored); elements equal to tau are
//      counted per chunk, and a chunk's tie indices kept (in no order) while there are at most R of them.
//   3. topk_select_final: one workgroup per row. With at least K candidates (all stored) it selects the K
//      best of the list by radix over (rank, index); with fewer, it takes them all plus the first elements
//      equal to tau in index order (the chunk counts say which chunks hold them; the tie slots, or for a
//      chunk of more than R ties its elements, say which ones). Otherwise (the estimate missed,
//      or the list overflowed) it selects from the whole input row itself: slow, but exact. Then it sorts
//      the K winners by (rank, index) and writes values (bit for bit from the input) and indices.

#include "ripple/topk_select_params.glsl"

uint digitShift(uint q) { return P(SELECT_DIGIT_WORD(q)) & 0xFFu; }
uint digitWidth(uint q) { return P(SELECT_DIGIT_WORD(q)) >> 8u; }
uint digitOf(uint k, uint q) { return (k >> digitShift(q)) & ((1u << digitWidth(q)) - 1u); }
// The bits of digits 0..q (q = -1: none): a key agrees with a prefix through digit q when
// ((key ^ prefix) & resolvedBits(q)) == 0.
uint resolvedBits(int q) { return q < 0 ? 0u : 0xFFFFFFFFu << digitShift(uint(q)); }

#if defined(ORDER_KEY_DEFINED)
// The rank key mapping, read from params once per kernel by rankKeySetup().
uint gRankFlip, gRankShift;
void rankKeySetup() {
#if defined(KEY_RUNTIME)
    keyKindSetup();
#endif
    const uint bits = SELECT_KEY_BITS;
    gRankFlip = TOPK_DIRECTION == 0u ? (bits == 32u ? 0xFFFFFFFFu : ((1u << bits) - 1u)) : 0u;
    gRankShift = 32u - bits;
}
uint rankKeyOf(uint bits) { return (orderKeyOf(uvec2(bits, 0u)).x ^ gRankFlip) << gRankShift; }
uint rankKeyAt(uint offset) { return rankKeyOf(loadElement(offset).x); }
#endif

#include "ripple/scan.glsl"

// The bins and findBucket: in the small forms only where a one-workgroup selection runs (SELECT_ENTRIES),
// since the reflection counts the declared array (8 KiB) in kernels that never touch it; the full forms keep
// their SPIR-V.
#if !defined(RIPPLE_SMALL) || defined(SELECT_ENTRIES)
// Finds, over the counts in sBins[0, SELECT_BINS), the bucket b holding the need-th element (1-based) in
// bucket order: sum(bins < b) < need <= sum(bins <= b). Results in sFoundBucket and sFoundBefore (the sum
// below b). Every invocation of the workgroup must call it; it starts and ends with a barrier.
shared uint sBins[SELECT_BINS];
shared uint sFoundBucket, sFoundBefore;

#define BINS_PER_INVOCATION (SELECT_BINS / GROUP_SIZE)  // 8 (the small forms: 1024 bins, 128 invocations)
void findBucket(uint need) {
    const uint x = scanIndex();  // owns bins [x BINS_PER_INVOCATION, (x + 1) BINS_PER_INVOCATION)
    if (gl_LocalInvocationID.x == 0u) sFoundBucket = sFoundBefore = 0u;  // kept only if the counts fall short
    barrier();
    uint part = 0u;
    [[unroll]] for (uint i = 0u; i < BINS_PER_INVOCATION; ++i) part += sBins[x * BINS_PER_INVOCATION + i];
    uint total;
    uint before = workgroupExclusiveAdd(part, total);
    if (before < need && need <= before + part) {
        for (uint i = 0u; i < BINS_PER_INVOCATION; ++i) {
            const uint c = sBins[x * BINS_PER_INVOCATION + i];
            if (need <= before + c) {
                sFoundBucket = x * BINS_PER_INVOCATION + i;
                sFoundBefore = before;
                break;
            }
            before += c;
        }
    }
    barrier();
}
#endif

#if defined(SELECT_ENTRIES)
// Entry i of the source a one-workgroup selection runs over (defined by the including kernel).
void selectEntry(uint i, out uint key, out uint idx);

// Entries loaded by an invocation before any is used, in the passes over a source. The portable variants
// (D3D12's HLSL, docs/D3D12.md) load one: vkd3d-shader unrolls every loop of constant bounds and inlines
// every call, and its compile time grows steeply with the unrolled size (topk_select_final took over 15
// minutes).
#if defined(MODE_fast)
#define SELECT_STREAM 8u
#else
#define SELECT_STREAM 1u
#endif

// Radix selection by one workgroup: the need-th smallest rank key among entries [0, count) of selectEntry.
// Returns the key's prefix resolved down to bit `shift`: when the entries agreeing with it through a digit
// are exactly the ones wanted, the later digits are not looked at (one pass over the entries fewer; on
// f32 rows the second digit mostly leaves one). On return `need` is how many entries agreeing with the
// prefix (key >> shift) are wanted and `ties` how many there are; need < ties only when every digit was
// resolved. All invocations must call it.
uint selectByRank(uint count, inout uint need, out uint ties, out uint shift) {
    const uint lid = gl_LocalInvocationID.x;
    uint prefix = 0u;
    ties = 0u;
    shift = 0u;
    for (uint q = 0u; q < SELECT_DIGITS; ++q) {
        const uint resolved = resolvedBits(int(q) - 1);
        for (uint b = lid; b < SELECT_BINS; b += GROUP_SIZE) sBins[b] = 0u;
        barrier();
        for (uint i0 = lid; i0 < count; i0 += GROUP_SIZE * SELECT_STREAM) {
            uint key[SELECT_STREAM];
            [[unroll]] for (uint u = 0u; u < SELECT_STREAM; ++u) {  // all loads in flight before any use
                uint idx;
                key[u] = 0u;
                if (i0 + u * GROUP_SIZE < count) selectEntry(i0 + u * GROUP_SIZE, key[u], idx);
            }
            [[unroll]] for (uint u = 0u; u < SELECT_STREAM; ++u)  // one branch, not the three of `&&`
                if ((uint(i0 + u * GROUP_SIZE < count) & uint(((key[u] ^ prefix) & resolved) == 0u)) != 0u)
                    atomicAdd(sBins[digitOf(key[u], q)], 1u);
        }
        findBucket(need);
        prefix |= sFoundBucket << digitShift(q);
        need -= sFoundBefore;
        ties = sBins[sFoundBucket];
        shift = digitShift(q);
        barrier();
        if (ties == need) break;  // uniform: every entry of the bucket is wanted
    }
    return prefix;
}
#endif
