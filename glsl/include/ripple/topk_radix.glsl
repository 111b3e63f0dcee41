// SPDX-License-Identifier: MIT
// TopK by radix selection (long rows, K <= 1024). Every element is a composite key (rank key words, then its
// index), all distinct, whose lexicographic order is the output order. Digit passes, most significant first,
// narrow each row's threshold: the composite of its K-th element. A row resolves once the bucket holding the
// K-th element holds exactly the ones still needed; its lower digits become all ones, so "composite <=
// threshold" then selects exactly K elements.
//
// Per row, in `state` (RADIX_STATE words): [0..2] threshold composite (KEYW key words, then the index word),
// [3] elements still needed, [4] resolved, [5] survivors gathered. Per row in `hist`: 256 counts.
// Params beyond the TopK block (topk.glsl): [30] elements per workgroup chunk, [31] chunks per row,
// [32] key bits (8, 16, 32 or 64). Push constant arg: digit word << 8 | bit shift, | 1 << 16 on the last digit.
#define RADIX_STATE 8u
#define COMPOSITE_WORDS (KEYW + 1u)
#define RADIX_CHUNK P(30)
#define RADIX_CHUNKS P(31)
#define RADIX_KEY_BITS P(32)

#if defined(ORDER_KEY_DEFINED)  // kernels that read the input (DTYPE_xx, topk_key.glsl)
// Rank key words of an element (smaller ranks first): the order key, complemented within the type's bits for
// DECREASING.
uvec2 rankKeyOfBits(uvec2 bits) {
    uvec2 key = orderKeyOf(bits);
    if (TOPK_DIRECTION == 0u) {
        const uint bits = RADIX_KEY_BITS;
        key.x ^= bits >= 32u ? 0xFFFFFFFFu : ((1u << bits) - 1u);
        key.y = ~key.y;
    }
    return key;
}

// The composite of element j, whose bits are `bits`: words 0..KEYW-1 the rank key (most significant first),
// then j.
void compositeOf(uvec2 bits, uint j, out uint c[3]) {
    uvec2 rk = rankKeyOfBits(bits);
    c[0] = rk.x;
    c[1] = KEYW == 2u ? rk.y : j;
    c[2] = j;
}

// A chunk's elements are read RADIX_BATCH at a time, all loads issued before any is used: one load per
// iteration left each invocation waiting on memory (H200 under mobile-vk11, (64,128256) K=50: each pass
// about 40 us for 33 MB; bench/NOTES.md, issue 58). Past the chunk's end a load repeats the last element.
#define RADIX_BATCH 8u
#endif

// Does c agree with the prefix p on every bit above digit (word, shift)?
bool abovePrefix(uint c[3], uint p[3], uint word, uint shift) {
    for (uint w = 0u; w < word; ++w)
        if (c[w] != p[w]) return false;
    return shift + 8u >= 32u || (c[word] >> (shift + 8u)) == (p[word] >> (shift + 8u));
}

bool atMostThreshold(uint c[3], uint p[3]) {
    for (uint w = 0u; w < COMPOSITE_WORDS; ++w)
        if (c[w] != p[w]) return c[w] < p[w];
    return true;
}
