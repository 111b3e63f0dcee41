// SPDX-License-Identifier: MIT
// TopK by invocation-private lists (core/topk.cpp's planLane): each invocation keeps the best KMAX entries
// (rank key, index) of its stretch of a row in registers, sorted, by insertion. No shared memory, no
// barrier, no subgroup operation: one variant serves every device. KMAX_x (a power of 2 from 1 to 32, at
// least K) sizes the list; keeping KMAX >= K entries is exact, the extra ones are simply not written.
//
// Rank key: the order key (topk_key.glsl), complemented for DECREASING; smaller ranks first, ties by the
// smaller index. 64-bit types carry it as uvec2(most, least significant word).
//
// Params beyond the TopK block (topk.glsl): [30] parts P per row, [31] part length L (elements), [32] key
// bits. Invocation x handles part x / rows of row x % rows: consecutive invocations take consecutive rows,
// whose elements are neighbours in memory when the axis is not the last one (coalesced loads).
// Candidates (P > 1) live in scratch as three planes of rows * P * KMAX words (index, key word 0, key
// word 1), entry (part * KMAX + s) * rows + row, so that consecutive invocations touch consecutive words;
// topk_lane_rank ranks them. LANE_KEYS_ONLY (topk_lane_rank): the key type and order without the list.
#if defined(LANE_KEYS_ONLY)
#elif defined(KMAX_k1)
#define KMAX 1u
#elif defined(KMAX_k2)
#define KMAX 2u
#elif defined(KMAX_k4)
#define KMAX 4u
#elif defined(KMAX_k8)
#define KMAX 8u
#elif defined(KMAX_k16)
#define KMAX 16u
#else
#define KMAX 32u
#endif

#define LANE_PARTS P(30)
#define LANE_PART_LENGTH P(31)
#define LANE_KEY_BITS P(32)

// keyBefore: 1 when rank key a comes strictly before b. Branch-free: glslang compiles `||` and `&&` into
// branches, which cost about 100 cycles each in the H100's unrolled loops (bench/NOTES.md, issue 21).
#if KEYW == 2
#define LaneKey uvec2
#define LANE_KEY_WORST uvec2(0xFFFFFFFFu)
uint keyBefore(uvec2 a, uvec2 b) { return uint(a.x < b.x) | (uint(a.x == b.x) & uint(a.y < b.y)); }
#else
#define LaneKey uint
#define LANE_KEY_WORST 0xFFFFFFFFu
uint keyBefore(uint a, uint b) { return uint(a < b); }
#endif

#if !defined(LANE_KEYS_ONLY)
LaneKey gKey[KMAX];
uint gIdx[KMAX];

void laneClear() {
    [[unroll]] for (uint s = 0u; s < KMAX; ++s) {
        gKey[s] = LANE_KEY_WORST;
        gIdx[s] = 0xFFFFFFFFu;
    }
}

// An invocation considers its part's elements in index order, so a new entry comes before a listed one
// exactly when its key is smaller, or when the slot is empty (index 0xFFFFFFFF): equal keys keep the listed,
// smaller index first.
uint laneBeforeSlot(LaneKey key, uint s) { return keyBefore(key, gKey[s]) | uint(gIdx[s] == 0xFFFFFFFFu); }
bool laneBeats(LaneKey key) { return laneBeforeSlot(key, KMAX - 1u) != 0u; }

// Inserts (key, idx) where it belongs; the worst entry falls off the end. Every slot's comparison reads the
// list as it was (the list is sorted, so they are false up to the new entry's place and true after it), and
// each slot then takes its old entry, its predecessor's or the new one: no chain from slot to slot, so the
// KMAX steps overlap (the chained form, which carried the displaced entry down, held the H100's (128,4096,64)
// K=16 lanes at 168 us). Unrolled so that the list stays in registers (a dynamically indexed array would go
// to local memory). `full`, a constant at every call: the list has no empty slot (topk_lane_staged's
// LANE_FILL), so the comparisons need no test for one. (The select of two calls costs each module about 260
// bytes of SPIR-V over two copies of the loop, and RADV's ACO compiles it to the same code; folding the test
// into the comparison as `& uint(!full)` made ACO's code larger.)
void laneShiftIn(LaneKey key, uint idx, const bool full) {
    uint shifted = 0u;  // the previous slot's comparison
    LaneKey prevKey = key;
    uint prevIdx = idx;
    [[unroll]] for (uint s = 0u; s < KMAX; ++s) {
        const uint before = full ? keyBefore(key, gKey[s]) : laneBeforeSlot(key, s);
        const LaneKey k = gKey[s];
        const uint i = gIdx[s];
        gKey[s] = before != 0u ? (shifted != 0u ? prevKey : key) : k;
        gIdx[s] = before != 0u ? (shifted != 0u ? prevIdx : idx) : i;
        shifted = before;
        prevKey = k;
        prevIdx = i;
    }
}
void laneInsert(LaneKey key, uint idx) { laneShiftIn(key, idx, false); }

// The same for a list known to be full.
bool laneBeatsFull(LaneKey key) { return keyBefore(key, gKey[KMAX - 1u]) != 0u; }
void laneInsertFull(LaneKey key, uint idx) { laneShiftIn(key, idx, true); }

#if !defined(LANE_INDEXED)
// Entry u of a batch by a tree of selects on u's bits, log2(LANE_BATCH) deep: a chain over the batch would put
// LANE_BATCH - 1 dependent selects in every insertion round (H200, (128,4096,64) axis 1 K=16: lane level 131
// -> 108 us with the batch-ahead loads). A level per bit, written out so that each level's loop has a
// constant count (LANE_BATCH is at most 32).
LaneKey lanePick(LaneKey key[LANE_BATCH], uint u) {
    LaneKey t[LANE_BATCH] = key;
#define LANE_PICK_LEVEL(level)                                            \
    [[unroll]] for (uint w = 0u; w < (LANE_BATCH >> (level + 1u)); ++w) { \
        const bool odd = ((u >> level) & 1u) != 0u;                       \
        t[w] = odd ? t[2u * w + 1u] : t[2u * w];                          \
    }
    LANE_PICK_LEVEL(0u)
    LANE_PICK_LEVEL(1u)
    LANE_PICK_LEVEL(2u)
    LANE_PICK_LEVEL(3u)
    LANE_PICK_LEVEL(4u)
#undef LANE_PICK_LEVEL
    return t[0];
}
#endif

// Considers entries 0 .. count - 1 of a batch (count <= LANE_BATCH, which the kernel defines, at most 32)
// in their order, key[u] being entry u's; its index is first + u (a part's elements), or idx[u] with
// LANE_INDEXED (topk_lane_merge: a part's list). Only the comparisons with the current worst are unrolled;
// the insertion code exists once, for the entries that beat it (few, after the first ones), which keeps the
// shader small: eight inlined insertions of 32 entries made lavapipe's compiler take minutes. Picking entry u
// out of the batch costs a select per entry, but fewer rounds of insertion make up for it: a warp runs as
// many as its busiest invocation needs (topk_lane.comp's LANE_BATCH).
#if defined(LANE_INDEXED)
void laneConsiderBatch(LaneKey key[LANE_BATCH], uint idx[LANE_BATCH], uint count) {
#else
void laneConsiderBatch(LaneKey key[LANE_BATCH], uint first, uint count) {
#endif
    uint pending = 0u;
    [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u) pending |= (uint(laneBeats(key[u])) & uint(u < count)) << u;
    while (pending != 0u) {
        const uint u = uint(findLSB(pending));
        pending &= pending - 1u;
#if defined(LANE_INDEXED)
        // The merge: entry u and its index by a chain of selects (the tree below in both would add about 7 KB
        // a variant to the binary, for 0.3-0.8 us on the H200's merged cases).
        LaneKey k = key[0];
        uint i = idx[0];
        [[unroll]] for (uint w = 1u; w < LANE_BATCH; ++w) {
            k = u == w ? key[w] : k;
            i = u == w ? idx[w] : i;
        }
#else
        const LaneKey k = lanePick(key, u);
        const uint i = first + u;
#endif
        if (laneBeats(k)) laneInsert(k, i);  // the worst may have improved since the mask was taken
    }
}

// Writes the list's first K entries as output ranks 0..K-1 of `row`: the head each time, then the list
// shifts down (a loop over r with gIdx[r] would index the array dynamically).
void laneWrite(uint row, uint rowBase) {
    for (uint r = 0u; r < TOPK_K; ++r) {
        writeWinner(row, rowBase, r, gIdx[0]);
        [[unroll]] for (uint s = 0u; s + 1u < KMAX; ++s) gIdx[s] = gIdx[s + 1u];
    }
}
#if defined(LANE_WRITES_CANDIDATES)
// Writes the list as part `part`'s candidates of `row` (P > 1), in the layout above.
void laneWriteCandidates(uint row, uint part) {
    const uint rows = TOPK_ROWS, plane = rows * LANE_PARTS * KMAX;
    [[unroll]] for (uint s = 0u; s < KMAX; ++s) {
        const uint e = (part * KMAX + s) * rows + row;
        candidates[e] = gIdx[s];
#if KEYW == 2
        candidates[plane + e] = gKey[s].x;
        candidates[2u * plane + e] = gKey[s].y;
#else
        candidates[plane + e] = gKey[s];
#endif
    }
}
#endif
#endif  // !LANE_KEYS_ONLY
