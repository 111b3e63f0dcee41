// SPDX-License-Identifier: MIT
// Bitonic sort of up to 256 * RSORT_SLOTS (key, index) entries held in registers by a 256-invocation
// workgroup: entry i sits in invocation i % 256 (scanIndex() order) at slot i / 256, ascending in
// (key, index) order on return. Partners 256 or more apart are slots of one invocation; nearer ones are
// exchanged by subgroup shuffles (MODE_fast, partners in the same subgroup) or through shared memory
// (RSORT_KEYS and RSORT_IDXS, arrays of at least 256 * RSORT_SLOTS words the including kernel names),
// a barrier pair per step. A shared-memory bitonic network pays a barrier and the shared round trips in every
// step (H100: about 0.3 us a step, 66 steps for 2048 entries); here 2048 entries take 15 exchanging steps.
// Needs ripple/scan.glsl (scanIndex and, for MODE_fast, the subgroup extensions).
#define RSORT_SLOTS 8u

bool rsortBefore(uint ak, uint ai, uint bk, uint bi) { return ak < bk || (ak == bk && ai < bi); }

// Orders slots a < b of this invocation: ascending (the smaller entry to a) or descending.
void rsortPair(inout uint ka, inout uint ia, inout uint kb, inout uint ib, bool ascending) {
    if (ascending ? rsortBefore(kb, ib, ka, ia) : rsortBefore(ka, ia, kb, ib)) {
        const uint k = ka, i = ia;
        ka = kb;
        ia = ib;
        kb = k;
        ib = i;
    }
}

// Sorts the P2 entries in key[s] / idx[s] (P2 a power of 2 up to 256 * RSORT_SLOTS; entries past the real
// ones padded with 0xFFFFFFFF keys and indices). Invocations hold slots [0, max(P2 / 256, 1)). All
// invocations must call it.
void registerSort(inout uint key[RSORT_SLOTS], inout uint idx[RSORT_SLOTS], uint P2) {
    const uint x = scanIndex(), slots = max(P2 >> 8u, 1u);
    for (uint k = 2u; k <= P2; k <<= 1u) {
        for (uint d = k >> 1u; d > 0u; d >>= 1u) {
            if (d >= 256u) {  // uniform: slot s and slot s ^ (d / 256) of this invocation
                const uint sd = d >> 8u;
                [[unroll]] for (uint s = 0u; s < RSORT_SLOTS; ++s) {
                    [[unroll]] for (uint t = s + 1u; t < RSORT_SLOTS; ++t) {
                        if ((s ^ t) == sd && t < slots)
                            rsortPair(key[s], idx[s], key[t], idx[t], (((s << 8u) | x) & k) == 0u);
                    }
                }
                continue;
            }
            bool viaShared = true;
#if defined(MODE_fast)
            viaShared = d >= gl_SubgroupSize;
#endif
            if (viaShared) {
                [[unroll]] for (uint s = 0u; s < RSORT_SLOTS; ++s) {
                    if (s < slots) {
                        RSORT_KEYS[(s << 8u) | x] = key[s];
                        RSORT_IDXS[(s << 8u) | x] = idx[s];
                    }
                }
                barrier();
            }
            [[unroll]] for (uint s = 0u; s < RSORT_SLOTS; ++s) {
                if (s < slots) {
                    uint ok, oi;
#if defined(MODE_fast)
                    if (!viaShared) {
                        ok = subgroupShuffleXor(key[s], d);
                        oi = subgroupShuffleXor(idx[s], d);
                    } else
#endif
                    {
                        ok = RSORT_KEYS[(s << 8u) | (x ^ d)];
                        oi = RSORT_IDXS[(s << 8u) | (x ^ d)];
                    }
                    const bool lower = (x & d) == 0u, ascending = (((s << 8u) | x) & k) == 0u;
                    if ((lower == ascending) == rsortBefore(ok, oi, key[s], idx[s])) {
                        key[s] = ok;
                        idx[s] = oi;
                    }
                }
            }
            if (viaShared) barrier();
        }
    }
}
