// TopK by sampled radix selection for long rows of keys up to 32 bits (v3; core/topk.cpp chooses it).
//
// Every element has a rank key: its order key, complemented for DECREASING, shifted to the top of a 32-bit
// word; a smaller rank comes first, ties by smaller index. Three dispatches:
//   1. topk_select_sample: one workgroup per row takes S elements at pseudo-random positions (one per
//      stratum of the row) and finds their m-th smallest rank: the row's estimate tau of a rank a little
//      past the K-th. m is chosen (core/topk.cpp) so that fewer than K elements rank at or below tau
//      practically never happens, while about m * n / S do.
//   2. topk_select_filter: many workgroups per row read the row once. Elements ranked below tau are
//      appended to the row's candidate list (at most `capacity` are stored); elements equal to tau are
//      counted per chunk.
//   3. topk_select_final: one workgroup per row. With at least K candidates (all stored) it selects the K
//      best of the list by radix over (rank, index); with fewer, it takes them all plus the first elements
//      equal to tau in index order (the chunk counts say where they are). Otherwise (the estimate missed,
//      or the list overflowed) it selects from the whole input row itself: slow, but exact. Then it sorts
//      the K winners by (rank, index) and writes values (bit for bit from the input) and indices.
//
// Params beyond the TopK block (topk.glsl): [30] input elements per filter workgroup (a chunk), [31] chunks
// per row, [32] key bits (8, 16 or 32), [33] candidate list capacity per row, [34] samples S per row,
// [35] the sample rank m (1-based), [36] digits D, [37 + q] digit q: shift | width << 8 (at most 3).
// Per row in `state` (SELECT_STATE words): [0] tau, [1] candidates (ranked below tau; may exceed the
// capacity), [2] elements equal to tau.
#define SELECT_STATE 4u
#define SELECT_BINS 2048u
#define SELECT_CHUNK P(30)
#define SELECT_CHUNKS P(31)
#define SELECT_KEY_BITS P(32)
#define SELECT_CAPACITY P(33)
#define SELECT_SAMPLES P(34)
#define SELECT_SAMPLE_RANK P(35)
#define SELECT_DIGITS P(36)

uint digitShift(uint q) { return P(37u + q) & 0xFFu; }
uint digitWidth(uint q) { return P(37u + q) >> 8u; }
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
    if (lid == 0u) sFoundBucket = sFoundBefore = 0u;  // (kept only if the counts fall short of need)
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

#if defined(SELECT_ENTRIES)
// Entry i of the source a one-workgroup selection runs over (defined by the including kernel).
void selectEntry(uint i, out uint key, out uint idx);

// Radix selection by one workgroup: the need-th smallest rank key among entries [0, count) of selectEntry.
// On return `need` is how many entries holding that key are wanted and `ties` how many there are. All
// invocations must call it.
uint selectByRank(uint count, inout uint need, out uint ties) {
    const uint lid = gl_LocalInvocationID.x;
    uint prefix = 0u;
    ties = 0u;
    for (uint q = 0u; q < SELECT_DIGITS; ++q) {
        for (uint b = lid; b < SELECT_BINS; b += 256u) sBins[b] = 0u;
        barrier();
        for (uint i = lid; i < count; i += 256u) {
            uint key, idx;
            selectEntry(i, key, idx);
            if (matchThrough(key, prefix, int(q) - 1)) atomicAdd(sBins[digitOf(key, q)], 1u);
        }
        findBucket(need);
        prefix |= sFoundBucket << digitShift(q);
        need -= sFoundBefore;
        ties = sBins[sFoundBucket];
        barrier();
    }
    return prefix;
}
#endif
