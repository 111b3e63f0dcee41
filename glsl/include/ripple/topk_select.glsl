// TopK by radix selection for long rows of keys up to 32 bits (v2; core/topk.cpp chooses it).
//
// Every element has a rank key: its order key, complemented for DECREASING, shifted to the top of a 32-bit
// word; a smaller rank comes first. The key is split into digits (at most 11 bits each, most significant
// first). Pass p (topk_select_pass.comp) runs over many workgroups per row:
//   - it filters by digit p-1, already resolved: elements above the prefix's bucket are selected (appended to
//     the row's selected list), elements in it are kept (appended to the next candidate list);
//   - it counts digit p of the kept elements into the row's histogram;
//   - the last workgroup of the row to finish (a counter) finds the bucket holding the row's K-th element,
//     appends its digit to the prefix, and clears the histogram for the next pass.
// Pass 0 only counts. A pass reads the previous pass's candidate list when it fits its capacity, else the
// input again. topk_select_final.comp then takes, per row, the selected list, the candidates above the
// threshold T (the full prefix: the K-th element's rank key) and the first `need` elements equal to T by
// index, sorts them by (rank key, index) and writes the outputs.
//
// Params beyond the TopK block (topk.glsl): [30] input elements per workgroup chunk, [31] chunks
// (workgroups) per row, [32] key bits (8, 16 or 32), [33] candidate list capacity per row, [34] digits D,
// [35 + q] digit q: shift | width << 8, [38] passes.
// Per row in `state` (SELECT_STATE words): [0] prefix, [1] elements still needed from the prefix's bucket,
// [2] selected count, [3] [4] candidate list 0 / 1 counts, [5] workgroups done with the current pass,
// [6] elements equal to T (after the last digit).
#define SELECT_STATE 8u
#define SELECT_BINS 2048u
#define SELECT_CHUNK P(30)
#define SELECT_CHUNKS P(31)
#define SELECT_KEY_BITS P(32)
#define SELECT_CAPACITY P(33)
#define SELECT_DIGITS P(34)
#define SELECT_PASSES P(38)

uint digitShift(uint q) { return P(35u + q) & 0xFFu; }
uint digitWidth(uint q) { return P(35u + q) >> 8u; }
uint digitOf(uint k, uint q) { return (k >> digitShift(q)) & ((1u << digitWidth(q)) - 1u); }
// Does rank key k agree with the prefix on digits 0..q? (q = -1: no digit, always.)
bool matchThrough(uint k, uint prefix, int q) {
    if (q < 0) return true;
    const uint s = digitShift(uint(q));
    return (k >> s) == (prefix >> s);
}

#if defined(ORDER_KEY_DEFINED)
uint rankKeyAt(uint offset) {
    const uint bits = SELECT_KEY_BITS;
    uint k = orderKey(offset).x;
    if (TOPK_DIRECTION == 0u) k = ~k;
    return bits == 32u ? k : (k << (32u - bits));
}
#endif

// Finds, over the counts in sBins[0, 2048), the bucket b holding the need-th element (1-based) in bucket
// order: sum(bins < b) < need <= sum(bins <= b). Results in sFoundBucket and sFoundBefore (the sum below b).
// Every invocation of the workgroup (256) must call it; it starts and ends with a barrier.
shared uint sBins[SELECT_BINS];
shared uint sPart[256];
shared uint sFoundBucket, sFoundBefore;

void findBucket(uint need) {
    const uint lid = gl_LocalInvocationID.x;
    if (lid == 0u) sFoundBucket = sFoundBefore = 0u;  // (only if the counts fall short of need: a bug)
    barrier();
    uint part = 0u;
    [[unroll]] for (uint i = 0u; i < 8u; ++i) part += sBins[lid * 8u + i];
    sPart[lid] = part;
    barrier();
    for (uint off = 1u; off < 256u; off <<= 1u) {  // inclusive prefix sum of the parts
        const uint v = lid >= off ? sPart[lid - off] : 0u;
        barrier();
        sPart[lid] += v;
        barrier();
    }
    uint before = sPart[lid] - part;
    if (before < need && need <= sPart[lid]) {
        for (uint i = 0u; i < 8u; ++i) {
            const uint c = sBins[lid * 8u + i];
            if (need <= before + c) {
                sFoundBucket = lid * 8u + i;
                sFoundBefore = before;
                break;
            }
            before += c;
        }
    }
    barrier();
}
