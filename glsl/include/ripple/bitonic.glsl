// SPDX-License-Identifier: MIT
// Bitonic sorting of (key, index) entries in shared memory, SLOTS of them, by one workgroup.
#if !defined(SLOTS)
#define SLOTS 1024u  // a kernel may choose fewer (less shared memory, more workgroups per SM)
#endif
shared uint sKey[KEYW][SLOTS];
shared uint sIdx[SLOTS];

// Slots lo and hi in order: both entries read, compared and written back without a branch (glslang
// compiles an early return, `||` and `&&` into branches, about 100 cycles each on the H100: bench/NOTES.md,
// issue 21).
void orderPair(uint lo, uint hi) {
    uint keyLo[KEYW], keyHi[KEYW];
    [[unroll]] for (uint w = 0u; w < KEYW; ++w) {
        keyLo[w] = sKey[w][lo];
        keyHi[w] = sKey[w][hi];
    }
    const uint idxLo = sIdx[lo], idxHi = sIdx[hi];
    uint swap = uint(idxHi < idxLo);  // hi before lo, from the last word up
    [[unroll]] for (int w = int(KEYW) - 1; w >= 0; --w)
        swap = uint(keyHi[w] < keyLo[w]) | (uint(keyHi[w] == keyLo[w]) & swap);
    const uint mask = 0u - swap;
    [[unroll]] for (uint w = 0u; w < KEYW; ++w) {
        const uint change = (keyLo[w] ^ keyHi[w]) & mask;
        sKey[w][lo] = keyLo[w] ^ change;
        sKey[w][hi] = keyHi[w] ^ change;
    }
    const uint change = (idxLo ^ idxHi) & mask;
    sIdx[lo] = idxLo ^ change;
    sIdx[hi] = idxHi ^ change;
}


// The bitonic network over segments of T entries (T a power of 2 up to SLOTS), for pair positions
// [0, pairs): the first step of each stage compares mirrored pairs, so no segment needs sorting in the
// opposite direction. All invocations of the workgroup must call it.
void bitonicNetwork(uint T, uint pairs) {
    const uint lid = gl_LocalInvocationID.x;
    for (uint k = 2u; k <= T; k <<= 1u) {
        for (uint d = k >> 1u; d > 0u; d >>= 1u) {
            for (uint p = lid; p < pairs; p += gl_WorkGroupSize.x) {
                uint lo = ((p & ~(d - 1u)) << 1u) | (p & (d - 1u));
                uint hi = d == (k >> 1u) ? (lo ^ (k - 1u)) : (lo + d);
                orderPair(lo, hi);
            }
            barrier();
        }
    }
}

// Sorts every T-entry segment of the slots ascending.
void sortSegments(uint T) { bitonicNetwork(T, SLOTS / 2u); }

// Sorts slots [0, T) ascending.
void sortFirst(uint T) { bitonicNetwork(T, T / 2u); }
