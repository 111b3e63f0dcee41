// SPDX-License-Identifier: MIT
// Writing one TopK winner: its index and its value, copied bit for bit from the input. Needs DTYPE_xx (or
// ELEM_bxx), the input as `inputWords` and the outputs as `values` (not writeonly: 8/16-bit values use
// atomics) and `indicesOut`.
#if defined(DTYPE_f32) || defined(DTYPE_i32) || defined(DTYPE_u32) || \
    defined(ELEM_b32)
#define VALUE_BITS 32
#define LOAD_VALUE LOAD_B32
#elif defined(DTYPE_f16) || defined(DTYPE_bf16) || defined(DTYPE_i16) || defined(DTYPE_u16) || \
    defined(ELEM_b16)
#define VALUE_BITS 16
#define LOAD_VALUE LOAD_B16
#elif defined(DTYPE_i64) || defined(DTYPE_u64) || defined(ELEM_b64)
#define VALUE_BITS 64
#define LOAD_VALUE LOAD_B64
#else
#define VALUE_BITS 8
#define LOAD_VALUE LOAD_B8
#endif

// Output rank r of row `row` is sequence element idx, whose bits (as LOAD_VALUE returns them) are `value`.
void writeWinnerValue(uint row, uint r, uint idx, uvec2 value) {
    const uint K = TOPK_K, inner = P(10), indexWords = P(11);
    const uint e = (row / inner) * K * inner + row % inner + r * inner;  // outer * K * inner + r * inner + ...
    indicesOut[e * indexWords] = idx;
    if (indexWords == 2u) indicesOut[e * 2u + 1u] = 0u;
#if VALUE_BITS == 64
    values[2u * e] = value.x;
    values[2u * e + 1u] = value.y;
#elif VALUE_BITS == 32
    values[e] = value.x;
#else
    const uint bits = value.x;
    // Neighbouring values of other rows may share the word: change only this value's bits.
    const uint per = 32u / uint(VALUE_BITS), shift = (e % per) * uint(VALUE_BITS);
    const uint mask = ((1u << uint(VALUE_BITS)) - 1u) << shift;
    atomicAnd(values[e / per], ~mask | (bits << shift));
    atomicOr(values[e / per], bits << shift);
#endif
}

// Output rank r of row `row` (whose input starts at element rowBase) is sequence element idx.
void writeWinner(uint row, uint rowBase, uint r, uint idx) {
    writeWinnerValue(row, r, idx, LOAD_VALUE(inputWords, rowBase + idx * TOPK_AXIS_STRIDE));
}

// 1 when entry (ak, ai) comes before (bk, bi). Branch-free: glslang turns `a < b || (a == b && c < d)` into
// branches, which cost about 100 cycles a comparison in a loop on the H100 (topk_list.glsl's listBefore).
uint winnerBefore(uint ak, uint ai, uint bk, uint bi) {
    return uint(ak < bk) | (uint(ak == bk) & uint(ai < bi));
}

#if defined(SLOTS) && defined(MODE_fast) && KEYW == 1
// The bitonic network of sortFirst(P2), P2 <= 256, with one entry per invocation in registers: invocation x
// (scanIndex()) holds slot x; partners within a subgroup are exchanged by shuffles, farther ones through the
// slots (a barrier each). P2 = 256 on the H100: 6 of the 36 steps need the slots. Then writes rank x.
void sortWinnersInRegisters(uint row, uint rowBase, uint P2) {
    const uint x = scanIndex();
    uint key = x < P2 ? sKey[0][x] : 0xFFFFFFFFu, idx = x < P2 ? sIdx[x] : 0xFFFFFFFFu;
    barrier();
    for (uint k = 2u; k <= P2; k <<= 1u) {
        for (uint d = k >> 1u; d > 0u; d >>= 1u) {
            const uint mask = d == (k >> 1u) ? k - 1u : d;  // the first step of a stage pairs mirrored slots
            uint otherKey, otherIdx;
            if (mask < gl_SubgroupSize) {  // uniform
                otherKey = subgroupShuffleXor(key, mask);
                otherIdx = subgroupShuffleXor(idx, mask);
            } else {
                sKey[0][x] = key;
                sIdx[x] = idx;
                barrier();
                otherKey = sKey[0][x ^ mask];
                otherIdx = sIdx[x ^ mask];
                barrier();
            }
            const bool otherFirst = winnerBefore(otherKey, otherIdx, key, idx) != 0u;
            if (((x & d) == 0u) == otherFirst) {  // the lower slot of the pair keeps the smaller entry
                key = otherKey;
                idx = otherIdx;
            }
        }
    }
    if (x < TOPK_K) writeWinner(row, rowBase, x, idx);
}
#endif

#if defined(SLOTS)  // with bitonic.glsl: the K winners in sKey[0] / sIdx[0, K), unordered
// Writes the K winners of `row` in output order: each one's rank is the number of winners before it in (rank
// key, index) order when K <= 128 (K comparisons per invocation, four independent ones at a time, no
// barrier), a bitonic sort of the first power of 2 >= K slots otherwise (K = 256: about 2000 operations
// per invocation by counting, about 500 by sorting). All invocations call it.
void writeWinners(uint row, uint rowBase) {
    const uint K = TOPK_K, lid = gl_LocalInvocationID.x;
    if (K <= 128u) {
        for (uint i = lid; i < K; i += GROUP_SIZE) {
            const uint key = sKey[0][i], idx = sIdx[i];
            uint r0 = 0u, r1 = 0u, r2 = 0u, r3 = 0u;
            uint j = 0u;
            for (; j + 4u <= K; j += 4u) {
                r0 += winnerBefore(sKey[0][j], sIdx[j], key, idx);
                r1 += winnerBefore(sKey[0][j + 1u], sIdx[j + 1u], key, idx);
                r2 += winnerBefore(sKey[0][j + 2u], sIdx[j + 2u], key, idx);
                r3 += winnerBefore(sKey[0][j + 3u], sIdx[j + 3u], key, idx);
            }
            for (; j < K; ++j) r0 += winnerBefore(sKey[0][j], sIdx[j], key, idx);
            writeWinner(row, rowBase, r0 + r1 + r2 + r3, idx);
        }
    } else {
        const uint P2 = TOPK_T;  // a power of 2 >= K
        for (uint i = K + lid; i < P2; i += GROUP_SIZE) {
            sKey[0][i] = 0xFFFFFFFFu;
            sIdx[i] = 0xFFFFFFFFu;
        }
        barrier();
#if defined(MODE_fast) && KEYW == 1
        if (P2 <= 256u) {
            sortWinnersInRegisters(row, rowBase, P2);
            return;
        }
#endif
        sortFirst(P2);
        for (uint i = lid; i < K; i += GROUP_SIZE) writeWinner(row, rowBase, i, sIdx[i]);
    }
}
#endif
