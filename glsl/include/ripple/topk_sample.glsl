// SPDX-License-Identifier: MIT
// The row's estimate tau (topk_select.glsl, step 1): S samples, sample i the smallest rank of g elements at
// pseudo-random positions of the i-th of S equal strata (so periodic data cannot fool it), and their m-th
// smallest rank. Included by topk_select_sample.comp and, for rows of at most 1024 samples of one element
// (core/topk_select.cpp's kFusedSamples), by topk_select_filter.comp, each of whose workgroups then finds its
// row's tau itself instead of waiting for a dispatch of its own.
//
// The including kernel includes topk_key.glsl and topk_select.glsl, defines ENTRIES >= S, includes
// topk_entries.glsl (and what it needs) and hash.glsl, defines entryIndex, and sets gKeyLowBits to gRankShift
// after rankKeySetup(). SAMPLE_SINGLE: g is 1 in every plan that runs the kernel (no loop over the group).

// The input offset of element t of sample i's group: a pseudo-random position in the i-th of S strata.
uint sampleOffset(uint rowBase, uint i, uint t) {
    const uint S = SELECT_SAMPLES, n = TOPK_N;
    const float perSample = float(n) / float(S);  // stratum i: [i * n / S, (i + 1) * n / S), rounded
    const uint lo = min(uint(float(i) * perSample), n - 1u);
    const uint width = max(min(uint(float(i + 1u) * perSample), n) - lo, 1u);
    return rowBase + min(lo + hash(i * SELECT_SAMPLE_GROUP + t) % width, n - 1u) * TOPK_AXIS_STRIDE;
}

// Samples [0, S) of the row into sEntry, eight loads in flight per invocation. Loads first, none behind a
// branch (rankKeyOf has some): a load after a branch waits for the ones before it. The caller ends it with a
// barrier.
void loadSamples(uint rowBase) {
    const uint S = SELECT_SAMPLES, g = SELECT_SAMPLE_GROUP, lid = gl_LocalInvocationID.x;
    for (uint i0 = lid; i0 < S; i0 += GROUP_SIZE * 8u) {
        uint k[8];
        [[unroll]] for (uint u = 0u; u < 8u; ++u)  // eight independent loads in flight
            k[u] = loadElement(sampleOffset(rowBase, min(i0 + u * GROUP_SIZE, S - 1u), 0u)).x;
        [[unroll]] for (uint u = 0u; u < 8u; ++u) k[u] = rankKeyOf(k[u]);
#if !defined(SAMPLE_SINGLE)
        for (uint t = 1u; t < g; ++t) {  // the rest of each sample's group
            uint more[8];
            [[unroll]] for (uint u = 0u; u < 8u; ++u)
                more[u] = loadElement(sampleOffset(rowBase, min(i0 + u * GROUP_SIZE, S - 1u), t)).x;
            [[unroll]] for (uint u = 0u; u < 8u; ++u) k[u] = min(k[u], rankKeyOf(more[u]));
        }
#endif
        [[unroll]] for (uint u = 0u; u < 8u; ++u)
            if (i0 + u * GROUP_SIZE < S) sEntry[i0 + u * GROUP_SIZE] = k[u];
    }
}

// tau from the S samples in sEntry (after a barrier): the m-th smallest sample, or once the digits chosen
// so far hold exactly m samples (an early exit), the largest rank of those digits: either way exactly m
// samples rank at or below it, which is all the estimate relies on. A rank key of fewer than 32 bits sits at
// the top of its word, and tau keeps the word's low bits zero like every element's: with them set, no element
// equals tau by rank key, while the filter's float comparisons (by value, which drops them) counted the
// elements of tau's value as ties, and the last step, comparing rank keys, then found none of them. Every
// invocation must call it; it ends with a barrier.
uint sampleTau() {
    selectEntries(SELECT_SAMPLES, SELECT_SAMPLE_RANK, SELECT_SAMPLE_RANK, 0u);
    const uint keyBits = 0xFFFFFFFFu << (32u - SELECT_KEY_BITS);
    return gEarly ? (gPrefix | ((1u << gShiftAt) - 1u)) & keyBits : gPrefix;
}
