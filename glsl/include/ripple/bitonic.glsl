// SPDX-License-Identifier: MIT
// Bitonic sorting of (key, index) entries in shared memory, SLOTS of them, by one workgroup.
#if !defined(SLOTS)
#define SLOTS 1024u  // a kernel may choose fewer (less shared memory, more workgroups per SM)
#endif
shared uint sKey[KEYW][SLOTS];
shared uint sIdx[SLOTS];

bool slotLess(uint a, uint b) {
    [[unroll]] for (uint w = 0u; w < KEYW; ++w) {
        if (sKey[w][a] != sKey[w][b]) return sKey[w][a] < sKey[w][b];
    }
    return sIdx[a] < sIdx[b];
}

void orderPair(uint lo, uint hi) {
    if (slotLess(hi, lo)) {
        [[unroll]] for (uint w = 0u; w < KEYW; ++w) {
            uint t = sKey[w][lo];
            sKey[w][lo] = sKey[w][hi];
            sKey[w][hi] = t;
        }
        uint t = sIdx[lo];
        sIdx[lo] = sIdx[hi];
        sIdx[hi] = t;
    }
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
