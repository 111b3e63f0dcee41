// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
#if defined(MODE_fast)
// NaNs kept by the float comparisons (SignedZeroInfNanPreserve for 32-bit floats; the device property
// shaderSignedZeroInfNanPreserveFloat32), as topk_select_filter's fast form: the mask needs no NaN test.
#extension GL_EXT_spirv_intrinsics : require
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4466], 4461, 32);
#endif
// TopK by invocation-private lists of one workgroup's rows (core/topk.cpp's planLaneGroup; strided rows of
// types up to 32 bits, K <= 16): topk_lane.comp's lists, with a row's P parts (a power of 2) in one workgroup,
// so that they share a threshold and merge in shared memory, in one dispatch. Invocation l of a tile takes
// part l / R of row tile * R + l % R (R = GROUP / P): neighbouring invocations take neighbouring rows, whose
// elements are neighbours in memory (the axis is not the last one).
// 1. Each invocation sorts its part's first KMAX elements into its list (a bitonic network: every one of
//    them goes in, so insertion rounds would be as many, each costlier).
// 2. With params [34] set, the row's parts merge copies of their lists' keys (laneMergeKeys: log2(P) rounds
//    in shared memory): tau, the K-th smallest of the row's P * KMAX first keys, has K elements of the row at
//    or below it, so no element with a larger key can be a winner. Each invocation then considers only
//    the rest of its part's elements at or below tau: with 16 parts of 256, about 1 in 16 (issue 59's
//    model, bench/NOTES.md: a warp runs as many insertion rounds a batch as its busiest invocation; without
//    tau, about 117 a warp, 52 with it).
//    With params [35] = o > 0, tau is taken again once the parts have seen o elements each: the K-th
//    smallest key of their lists then (more elements fall above it); with [36] set, again at twice that
//    offset, and so on (each take costs log2(P) rounds and barriers; fewer insertion rounds pay for it,
//    bench/experiments/lane_group_sim.cpp).
// 3. The parts' lists merge (laneMerge: entries by (key, index), log2(P) rounds) and every invocation of the
//    row holds the row's best KMAX; invocation p writes ranks p, p + P, ... below K.
// Bindings: 1 input, 2 values, 3 indices. Params: planLane's, [30] P, [31] part length L, [32] key bits,
// [34] 1: the threshold (step 2), [35] its second take (0: none), [36] 1: each later take at twice the offset.
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) buffer Values { uint values[]; };
layout(std430, binding = 3) writeonly buffer IndicesOut { uint indicesOut[]; };

#include "ripple/topk_key.glsl"
#include "ripple/topk_write.glsl"
// 16 loads in flight an invocation: 16 parts of (128,4096,64) are 32 warps an SM on the H200, which
// stream at 37-39 us with batches of 8 to 16 (the stream probe, bench/NOTES.md, issue 59).
#if defined(KMAX_k16)
#define LANE_BATCH 16u
#else
#define LANE_BATCH 8u
#endif
uint gTau;  // the row's threshold (step 2), 0xFFFFFFFF without
#include "ripple/topk_lane.glsl"

#define GROUP RIPPLE_GROUP_SIZE
#define LANE_GROUP_TAU P(34)
#define LANE_GROUP_REFRESH P(35)
#define LANE_GROUP_AGAIN P(36)
// The lists as they merge: slot s of invocation l at s * GROUP + l (consecutive invocations, consecutive
// words). KMAX 16: 32 KiB.
shared uint sKey[KMAX * GROUP];
shared uint sIdx[KMAX * GROUP];

// Compare-exchange of list slots a < b (constants once unrolled): the entry that comes first, by (key,
// index), goes to a.
#define LANE_CE(a, b)                                                          \
    {                                                                          \
        const bool swap = winnerBefore(gKey[b], gIdx[b], gKey[a], gIdx[a]) != 0u; \
        const uint ka = gKey[a], ia = gIdx[a];                                 \
        gKey[a] = swap ? gKey[b] : ka;                                         \
        gIdx[a] = swap ? gIdx[b] : ia;                                         \
        gKey[b] = swap ? ka : gKey[b];                                         \
        gIdx[b] = swap ? ia : gIdx[b];                                         \
    }

// The networks' loops count up by one to a constant, every bound the same for all iterations of the loops
// around them (an induction variable that doubles, counts down or starts at an outer one's value has no trip
// count the drivers unroll by: lavapipe's LLVM kept such loops and the lists went to memory, and RADV's ACO
// made topk_lane_group.f32.k16 105 KB of code instead of 18 KB; bench/NOTES.md, issue 59, tenth session).
#if defined(KMAX_k1)
#define LOG2_KMAX 0u
#elif defined(KMAX_k2)
#define LOG2_KMAX 1u
#elif defined(KMAX_k4)
#define LOG2_KMAX 2u
#elif defined(KMAX_k8)
#define LOG2_KMAX 3u
#else
#define LOG2_KMAX 4u
#endif

// Sorts the list by (key, index): Batcher's bitonic network, log2(KMAX) (log2(KMAX) + 1) / 2 steps.
void laneSortList() {
    [[unroll]] for (uint lk = 1u; lk <= LOG2_KMAX; ++lk)
        [[unroll]] for (uint m = 0u; m < LOG2_KMAX; ++m)  // distances k / 2, k / 4, ... 1, then none
            [[unroll]] for (uint i = 0u; i < KMAX; ++i) {
                const uint k = 1u << lk, l = i ^ ((k >> 1u) >> m);
                if (l > i) {
                    if ((i & k) == 0u) LANE_CE(i, l) else LANE_CE(l, i)
                }
            }
}

// The list, a bitonic sequence, sorted: the bitonic merge's half-cleaners.
void laneCleanList() {
    [[unroll]] for (uint m = 0u; m < LOG2_KMAX; ++m)
        [[unroll]] for (uint i = 0u; i < KMAX; ++i) {
            const uint l = i ^ ((KMAX >> 1u) >> m);
            if (l > i) LANE_CE(i, l)
        }
}

// Merges the lists of the row's P parts: after round d, each holds the best KMAX of the 2d lists of its
// part's block. The best KMAX of sorted lists A and B are min(A[s], B[KMAX - 1 - s]), a bitonic sequence.
// Workgroup-uniform (barriers); invocation l's partner in round d is l ^ (d * R).
void laneMerge(uint parts, uint R) {
    const uint l = gl_LocalInvocationID.x;
    for (uint d = 1u; d < parts; d <<= 1u) {
        [[unroll]] for (uint s = 0u; s < KMAX; ++s) {
            sKey[s * GROUP + l] = gKey[s];
            sIdx[s * GROUP + l] = gIdx[s];
        }
        barrier();
        const uint partner = l ^ (d * R);
        [[unroll]] for (uint s = 0u; s < KMAX; ++s) {
            const uint bk = sKey[(KMAX - 1u - s) * GROUP + partner], bi = sIdx[(KMAX - 1u - s) * GROUP + partner];
            const bool take = winnerBefore(bk, bi, gKey[s], gIdx[s]) != 0u;
            gKey[s] = take ? bk : gKey[s];
            gIdx[s] = take ? bi : gIdx[s];
        }
        barrier();  // read before the next round's writes
        laneCleanList();
    }
}

// The K-th smallest key of the row's lists (step 2): laneMerge on copies of the keys alone.
uint laneRowTau(uint parts, uint R) {
    const uint l = gl_LocalInvocationID.x;
    uint t[KMAX];
    [[unroll]] for (uint s = 0u; s < KMAX; ++s) t[s] = gKey[s];
    for (uint d = 1u; d < parts; d <<= 1u) {
        [[unroll]] for (uint s = 0u; s < KMAX; ++s) sKey[s * GROUP + l] = t[s];
        barrier();
        const uint partner = l ^ (d * R);
        [[unroll]] for (uint s = 0u; s < KMAX; ++s) t[s] = min(t[s], sKey[(KMAX - 1u - s) * GROUP + partner]);
        barrier();
        [[unroll]] for (uint lj = 0u; lj < LOG2_KMAX; ++lj)
            [[unroll]] for (uint i = 0u; i < KMAX; ++i) {
                const uint m = i ^ ((KMAX >> 1u) >> lj);
                if (m > i) {
                    const uint a = t[i], b = t[m];
                    t[i] = min(a, b);
                    t[m] = max(a, b);
                }
            }
    }
    uint tau = t[0];
    [[unroll]] for (uint s = 1u; s < KMAX; ++s) tau = s + 1u == TOPK_K ? t[s] : tau;
    return tau;
}

// Step 2's batch: entries 0 .. count - 1, entry u the part's element first + u. Once the loop runs, the list
// is full (count > 0 needs a part longer than KMAX, whose first KMAX filled it), so no empty-slot tests. An
// entry can enter only strictly before the list's worst (a later index loses a tie) and at or below tau:
// rank key at or below T = min(tau, worst - 1), one comparison an entry, a superset (each entry is rechecked
// exactly in its round; one above tau that beats the worst is harmless: the lists keep every possible
// winner either way).
// FLOAT32 (LANE_GROUP_FLOAT): cur[] holds the elements' bits and the mask compares them as floats with T's
// value, a few instructions an entry instead of the order key's eight; only the picked entries are mapped.
// The order key is monotonic in the value, with -0.0 = +0.0 (as the float compare) and NaN above everything.
// For DECREASING (flip set) every NaN must pass: found from its bits (MODE portable), since without
// SignedZeroInfNanPreserve (MODE fast) a Vulkan compiler may assume no operand is one (and make !(x < v) into
// x >= v). For INCREASING none must; one that passes by such a rewrite costs only a round. A device that
// flushes denormals compares them as zeros: still a superset.
#if defined(DTYPE_f32)
#define LANE_GROUP_FLOAT
float laneKeyValue(uint key) { return uintBitsToFloat(key >= 0x80000000u ? (key & 0x7FFFFFFFu) : ~key); }
#endif
void laneGroupConsider(uint cur[LANE_BATCH], uint first, uint count, uint flip) {
    const uint worst = gKey[KMAX - 1u], T = min(gTau, worst - 1u);  // worst 0: nothing passes (below)
    uint pending = 0u;
#if defined(LANE_GROUP_FLOAT)
    if (flip != 0u) {
        // rank ~key <= T: key >= ~T. Past +inf's key only NaNs would pass: +inf's key instead (its ties too).
        const float v = laneKeyValue(min(~T, 0xFF800000u));
        [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u) {
#if defined(MODE_fast)
            const uint nan = 0u;
#else
            const uint nan = uint((cur[u] & 0x7FFFFFFFu) > 0x7F800000u);  // | not ||: glslang branches on ||
#endif
            pending |= (uint(!(uintBitsToFloat(cur[u]) < v)) | nan) << u;
        }
    } else {
        // key <= T. 0x7FFFFFFF, -0.0's key before the fold (no element's), as the one below it: +0.0 stays
        // out. Past +inf's key, +inf: every number passes, no NaN.
        const float v = laneKeyValue(T == 0x7FFFFFFFu ? 0x7FFFFFFEu : min(T, 0xFF800000u));
        [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u) pending |= uint(uintBitsToFloat(cur[u]) <= v) << u;
    }
#else
    [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u) pending |= uint(cur[u] <= T) << u;
#endif
    pending &= worst == 0u ? 0u : count >= 32u ? 0xFFFFFFFFu : (1u << count) - 1u;
    while (pending != 0u) {
        const uint u = uint(findLSB(pending));
        pending &= pending - 1u;
#if defined(LANE_GROUP_FLOAT)
        const uint k = orderKeyOf(uvec2(lanePick(cur, u), 0u)).x ^ flip;
#else
        const uint k = lanePick(cur, u);
#endif
        if (laneBeatsFull(k)) laneInsertFull(k, first + u);
    }
}

void main() {
    const uint n = TOPK_N, rows = TOPK_ROWS, parts = LANE_PARTS, L = LANE_PART_LENGTH, stride = TOPK_AXIS_STRIDE;
    const uint bits = LANE_KEY_BITS, K = TOPK_K;
    const uint flip = TOPK_DIRECTION == 0u ? (bits >= 32u ? 0xFFFFFFFFu : ((1u << bits) - 1u)) : 0u;
    const uint R = GROUP / parts, tiles = (rows + R - 1u) / R, l = gl_LocalInvocationID.x;
    const bool useTau = LANE_GROUP_TAU != 0u;
    // Workgroup-uniform loops (the barriers): tile t is rows t * R .. t * R + R - 1.
    for (uint t = gl_WorkGroupID.x; t < tiles; t += pc.groupCount) {
        const uint row = t * R + l % R, part = l / R;
        const bool live = row < rows;
        const uint rowBase = viewOffset(TOPK_ROW_VIEW, live ? row : 0u);
        const uint begin = part * L, end = live ? min(n, begin + L) : 0u;  // an empty part: end <= begin
        // Step 1: the first KMAX elements, sorted. Past the end the row's last element is loaded again,
        // not considered (an empty slot: the worst key, index 0xFFFFFFFF).
        [[unroll]] for (uint s = 0u; s < KMAX; ++s) {
            const uint j = begin + s;
            const uint key = orderKeyOf(loadElement(rowBase + min(j, n - 1u) * stride)).x ^ flip;
            gKey[s] = j < end ? key : LANE_KEY_WORST;
            gIdx[s] = j < end ? j : 0xFFFFFFFFu;
        }
        // The next batch's loads in flight while the list sorts and the threshold merges.
        uvec2 raw[LANE_BATCH];
        [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u)
            raw[u] = loadElement(rowBase + min(begin + KMAX + u, n - 1u) * stride);
        laneSortList();
        gTau = useTau ? laneRowTau(parts, R) : 0xFFFFFFFFu;
        // Step 2: the rest of the part, a batch at a time (a batch ahead), at or below tau.
        uint refresh = useTau ? LANE_GROUP_REFRESH : 0u;
        for (uint o = KMAX; o < L; o += LANE_BATCH) {
            const uint j0 = begin + o;
            if (refresh != 0u && o >= refresh) {  // uniform: the lists have seen o elements each
                gTau = min(gTau, laneRowTau(parts, R));
                refresh = LANE_GROUP_AGAIN != 0u ? 2u * o : 0u;
            }
            uint cur[LANE_BATCH];
#if defined(LANE_GROUP_FLOAT)
            [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u) cur[u] = raw[u].x;
#else
            [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u) cur[u] = orderKeyOf(raw[u]).x ^ flip;
#endif
            [[unroll]] for (uint u = 0u; u < LANE_BATCH; ++u)
                raw[u] = loadElement(rowBase + min(j0 + LANE_BATCH + u, n - 1u) * stride);
            laneGroupConsider(cur, j0, end > j0 ? end - j0 : 0u, flip);
        }
        // Step 3: the row's lists merged; invocation p of the row writes ranks p, p + P, ...
        laneMerge(parts, R);
        if (live)
            for (uint r = part; r < K; r += parts) {
                uint idx = gIdx[0];
                [[unroll]] for (uint s = 1u; s < KMAX; ++s) idx = s == r ? gIdx[s] : idx;
                writeWinner(row, rowBase, r, idx);
            }
    }
}
