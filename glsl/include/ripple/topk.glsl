// SPDX-License-Identifier: MIT
// TopK's shared layout. Each element becomes an entry (rank key, index) whose plain lexicographic order is
// the output order: rank key = order-preserving key for INCREASING, its complement for DECREASING; ties
// fall to the smaller index. KEYW key words (1 below 64 bits, 2 for 64-bit types; most significant first),
// then the index word: ENTRY_WORDS words per entry in scratch.
//
// Params: [0] n (axis length), [1] K, [2] direction (0 decreasing, 1 increasing), [3] T (tile entries, a
// power of 2), [4] log2(T), [5] tiles per row, [6] tiles per workgroup, [7] total tiles, [8] rows,
// [9] input stride along the axis, [10] output inner size (product of sizes after the axis),
// [11] index output words (1 or 2), [12] levels, [13..29] input row view (the non-axis dims).
//
// Runs: after the tile pass (level 0) each row holds `tiles` sorted runs; level l+1 merges pairs of level
// l's runs. A run at level l covers T<<l input elements and keeps at most cap(l) = min(K, T<<l) entries.
#if defined(KEYW_k2)
#define KEYW 2
#else
#define KEYW 1
#endif
#define ENTRY_WORDS (KEYW + 1u)

#define TOPK_N P(0)
#define TOPK_K P(1)
#define TOPK_DIRECTION P(2)
#define TOPK_T P(3)
#define TOPK_LOG2T P(4)
#define TOPK_TILES P(5)
#define TOPK_ROWS P(8)
#define TOPK_AXIS_STRIDE P(9)
#define TOPK_ROW_VIEW 13u

uint runCapacity(uint level) {
    uint shift = level + TOPK_LOG2T;
    return shift >= 32u ? TOPK_K : min(TOPK_K, 1u << shift);
}
uint runCount(uint level) { return ((TOPK_TILES - 1u) >> level) + 1u; }
// Entries that run j of level l holds: those it covers, at most cap(l).
uint runLength(uint level, uint j) {
    uint first = j << (level + TOPK_LOG2T);
    return first >= TOPK_N ? 0u : min(runCapacity(level), TOPK_N - first);
}
// Element offset of sequence element j of row `row` in the input.
uint inputOffset(uint row, uint j) { return viewOffset(TOPK_ROW_VIEW, row) + j * TOPK_AXIS_STRIDE; }

// viewOffset(TOPK_ROW_VIEW, row) with the view's 17 words loaded at once, before the rank is known:
// viewOffset's loop loads the strides after the rank, and they lie in another 32-byte sector, a second L2
// round trip on a cold SM. For kernels whose first row is their latency; 17 registers while it runs.
uint rowViewOffset(uint row) {
    uint w[VIEW_WORDS];
    [[unroll]] for (uint i = 0u; i < VIEW_WORDS; ++i) w[i] = P(TOPK_ROW_VIEW + i);
    if (w[0] == 0u) return row;
    uint off = 0u, linear = row;
    [[unroll]] for (uint d = 8u; d > 0u; --d) {
        if (d <= w[0]) {
            off += (linear % w[d]) * w[8u + d];
            linear /= w[d];
        }
    }
    return off;
}
