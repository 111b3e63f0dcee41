// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// Sampled radix-select TopK, dispatch 3 (topk_select.glsl): one workgroup per row gathers the K winners.
// STEP write (K <= 1024): sorts them by (rank, index) and writes values (bit for bit from the input) and
// indices. STEP gather (larger K; core/topk_select.cpp's planSelect with `large`): leaves them in the row's
// candidate list
// for the list sort (topk_list.glsl), and stores the list's length in the row's state word 3: the
// candidates as they are when there are at least K, else the candidates plus the first ties of tau, else
// (the estimate missed or the list overflowed) exactly the K winners, selected from the whole row.
// The step is a variant, not a push constant, so that each variant holds one step's code: lavapipe's LLVM
// took 31 s for f32.fast with both steps, 10.4 s and 2.5 s for its two steps apart (a cold CI run pays it
// per subgroup width; bench/NOTES.md, issue 56).
// Bindings: 1 input, 2 state, 3 per-chunk ties (counts, then index slots), 4 candidates, 5 values,
// 6 indices (5 and 6: STEP write only).
layout(local_size_x = RIPPLE_GROUP_SIZE) in;
// The fast variants are one a key width (DTYPE_b8, b16, b32), the key mapping params word [46]
// (topk_key.glsl's KEY_RUNTIME): a fast write variant one a type cost lavapipe's LLVM 15-40 s each, which a
// cold CI run paid for nine types at each subgroup width that runs them (issue 56); on the H200 the fast
// family kept its times. The portable variants stay one a type: with the mapping a param, their streaming
// loop lost 1 us at (1,16777216) K=1024 (bench/NOTES.md).
#if defined(DTYPE_b8) || defined(DTYPE_b16) || defined(DTYPE_b32)
#define KEY_RUNTIME P(46u)
#if defined(DTYPE_b8)
#define ELEM_b8
#elif defined(DTYPE_b16)
#define ELEM_b16
#else
#define ELEM_b32
#endif
#endif
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#define PARAMS_SHARED 64u  // ripple/common.glsl; core/topk_select.cpp keeps the block within it
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
#if defined(RIPPLE_SMALL)
// The small forms (4 storage buffers): binding 2 is the whole scratch, the state at its start, the ties and
// the candidates at the words params [47] and [48] give (topk_select_params.glsl); 3 and 4 undeclared.
layout(std430, binding = 2) buffer Scratch { uint scratchWords[]; };
#define STATE(i) scratchWords[(i)]
#define CHUNK_TIES(i) scratchWords[P(47) + (i)]
#define CANDIDATES(i) scratchWords[P(48) + (i)]
#else
layout(std430, binding = 2) buffer State { uint state[]; };
layout(std430, binding = 3) readonly buffer ChunkTies { uint chunkTies[]; };
layout(std430, binding = 4) buffer Candidates { uint candidates[]; };
#define STATE(i) state[(i)]
#define CHUNK_TIES(i) chunkTies[(i)]
#define CANDIDATES(i) candidates[(i)]
#endif
#if !defined(STEP_gather)  // the gather step writes no output (and its HLSL would drop unused registers)
layout(std430, binding = 5) buffer Values { uint values[]; };
layout(std430, binding = 6) writeonly buffer IndicesOut { uint indicesOut[]; };
#endif

#include "ripple/topk_key.glsl"
#define SELECT_ENTRIES
#include "ripple/topk_select.glsl"
#include "ripple/bitonic.glsl"  // the K winners (K <= SLOTS), unordered until written
#if !defined(STEP_gather)
#include "ripple/topk_write.glsl"
#endif


#if defined(STEP_gather)
const bool kGather = true;
#else
const bool kGather = false;
#endif

shared uint sSlots;
bool gFromList;
uint gListBase, gRowBase, gGatherBase;

// Entry i of the source: the row's candidate list, or the input row itself.
void selectEntry(uint i, out uint key, out uint idx) {
    if (gFromList) {
        key = CANDIDATES(gListBase + 2u * i);
        idx = CANDIDATES(gListBase + 2u * i + 1u);
    } else {
        key = rankKeyAt(gRowBase + i * TOPK_AXIS_STRIDE);
        idx = i;
    }
}

void take(uint key, uint idx) {
    const uint at = atomicAdd(sSlots, 1u);
    if (kGather) {  // into the list, after its first gGatherBase entries (at most K in all)
        CANDIDATES(gListBase + 2u * (gGatherBase + at)) = key;
        CANDIDATES(gListBase + 2u * (gGatherBase + at) + 1u) = idx;
    } else if (at < SLOTS) {
        sKey[0][at] = key;
        sIdx[at] = idx;
    }
}

// A list of at most HELD_MAX entries is held in registers, entry lid + 256 u in slot u, so that every pass
// after the first load reads registers, not L2 (H100: each pass over the list was a chain of L2 loads, a
// histogram and a scan, about 2 us). Larger lists, and the whole row, are read from their source each pass.
// 16 slots: (64,128256) rows list about 1128 candidates, and 1.7% of them (68% of runs of 64 rows) more
// than 2048, whose two digit passes and take pass from L2 made the level's slowest row; (1,16777216)
// K=1024's list of about 3968 was never held. Slots past the list are skipped by a uniform test.
// The portable variants hold nothing: topk_select.glsl's SELECT_STREAM says why.
#if defined(MODE_fast)
#define SELECT_HOLD
#define HELD 16u
#define HELD_MAX (GROUP_SIZE * HELD)
bool gHeld;
uint gHeldKey[HELD], gHeldIdx[HELD];

// Loads slots [from, to) of the held list, entries clamped at `last`.
void holdSlots(uint from, uint to, uint last) {
    [[unroll]] for (uint u = 0u; u < HELD; ++u) {  // all loads in flight before any use
        if (u < from || u >= to) continue;         // uniform
        const uint i = min(gl_LocalInvocationID.x + GROUP_SIZE * u, last);
        gHeldKey[u] = CANDIDATES(gListBase + 2u * i);
        gHeldIdx[u] = CANDIDATES(gListBase + 2u * i + 1u);
    }
}

// The slots main loads before it reads the row's state, whose list length it does not know yet: those of
// twice the expected length (core/topk_select.cpp's kHeldSlots), so that their latency and the state's
// overlap. Loading all 16 there cost (256,50257), whose lists hold about 344, 2.8 us (H100: 32 KiB a row of
// the list's scratch, mostly from HBM). takeBest loads the rest of a longer list.
uint prefetchSlots() { return min(HELD, SELECT_PREFETCH_SLOTS); }

// selectByRank (topk_select.glsl) over the held list. Its digits start at the highest bit in which some
// entry differs from tau - 1 (every entry ranks below tau, so all agree above it): f32 candidates share
// their sign, exponent and more, and a first digit at the top bits mostly resolved nothing.
shared uint sSpread;
uint selectHeld(uint count, uint tau, inout uint need, out uint ties, out uint shift) {
    const uint lid = gl_LocalInvocationID.x, low = 32u - SELECT_KEY_BITS, reference = tau - 1u;
    if (lid == 0u) sSpread = 0u;
    barrier();
    uint spread = 0u;
    [[unroll]] for (uint u = 0u; u < HELD; ++u)
        if (GROUP_SIZE * u < count) spread |= (gHeldKey[u] ^ reference) & (0u - uint(lid + GROUP_SIZE * u < count));
    spread = subgroupOr(spread);  // SELECT_HOLD: fast variants only
    if (subgroupElect()) atomicOr(sSpread, spread);
    barrier();
    int top = findMSB(sSpread);  // -1: every entry equals tau - 1
    uint prefix = top < 0 ? reference : reference & ~((2u << uint(top)) - 1u);
    ties = count;
    shift = low;
    while (top >= int(low)) {  // uniform
        const uint s = uint(max(top - 10, int(low))), digitMask = (2u << (uint(top) - s)) - 1u;
        const uint resolved = top >= 31 ? 0u : 0xFFFFFFFFu << uint(top + 1);
        for (uint b = lid; b < SELECT_BINS; b += GROUP_SIZE) sBins[b] = 0u;
        barrier();
        [[unroll]] for (uint u = 0u; u < HELD; ++u) {
            if (GROUP_SIZE * u >= count) continue;  // uniform
            // one branch, not the three of `&&`
            if ((uint(lid + GROUP_SIZE * u < count) & uint(((gHeldKey[u] ^ prefix) & resolved) == 0u)) != 0u)
                atomicAdd(sBins[(gHeldKey[u] >> s) & digitMask], 1u);
        }
        findBucket(need);
        prefix |= sFoundBucket << s;
        need -= sFoundBefore;
        ties = sBins[sFoundBucket];
        shift = s;
        barrier();
        if (ties == need) break;  // uniform: every entry of the bucket is wanted
        top = int(s) - 1;
    }
    return prefix;
}
#endif  // SELECT_HOLD

// takeBest's passes over the source, each entry given to visit(pass, ...): the list held in registers, or
// (larger lists and whole rows) STREAM loads in flight an invocation. One loop body a pass: with both forms
// in every unrolled slot the kernel's machine code grew 188 -> 265 KB when HELD went 8 -> 16, and the level
// lost about 1 us on rows whose list was held before (H100: (256,50257), bench/NOTES.md).
#define VISIT_BELOW_AND_TIES 0u  // takes the entries below gT, gathers the indices of those equal to it
#define VISIT_INDEX_DIGIT 1u     // counts the index digit at gShift of entries equal to gT that agree above
#define VISIT_TAKE 2u            // takes the entries that win: rank below gT (from gShift up), or equal to it
                                 // and index at most gLastIndex
#define TIE_GATHER 256u
shared uint sTieCount;
uint gT, gShift, gPrefix, gHigh, gLastIndex;
void visit(uint pass, uint key, uint idx) {
    if (pass == VISIT_BELOW_AND_TIES) {
        if (key < gT) {
            take(key, idx);
        } else if (key == gT) {
            const uint at = atomicAdd(sTieCount, 1u);
            if (at < TIE_GATHER) sBins[at] = idx;
        }
    } else if (pass == VISIT_INDEX_DIGIT) {
        if ((uint(key == gT) & uint(((idx ^ gPrefix) & gHigh) == 0u)) != 0u)  // branch-free test
            atomicAdd(sBins[(idx >> gShift) & (SELECT_BINS - 1u)], 1u);
    } else {
        const uint k = key >> gShift, t = gT >> gShift;
        if ((uint(k < t) | (uint(k == t) & uint(idx <= gLastIndex))) != 0u) take(key, idx);
    }
}
void visitAll(uint pass, uint count) {
    const uint lid = gl_LocalInvocationID.x;
#if defined(SELECT_HOLD)
    if (gHeld) {  // uniform
        [[unroll]] for (uint u = 0u; u < HELD; ++u) {
            if (GROUP_SIZE * u >= count) break;  // uniform: slots past the list
            if (lid + GROUP_SIZE * u < count) visit(pass, gHeldKey[u], gHeldIdx[u]);
        }
        return;
    }
#endif
    for (uint i0 = lid; i0 < count; i0 += GROUP_SIZE * SELECT_STREAM) {
        uint key[SELECT_STREAM], idx[SELECT_STREAM];
        [[unroll]] for (uint u = 0u; u < SELECT_STREAM; ++u)  // all loads in flight before any use
            selectEntry(min(i0 + GROUP_SIZE * u, count - 1u), key[u], idx[u]);
        [[unroll]] for (uint u = 0u; u < SELECT_STREAM; ++u)
            if (i0 + GROUP_SIZE * u < count) visit(pass, key[u], idx[u]);
    }
}

// Takes the K best of the source by (rank, index): radix selection of the K-th rank T, then, when only
// some of the entries equal to T are wanted, the last wanted index among them: for at most TIE_GATHER ties
// gathered in shared memory in the pass that takes the entries below T, each tie counting the smaller
// indices (no pass of its own: 16-bit keys tie often, and the three 11-bit index passes cost about 6 us on
// the H100); for more, by radix selection over the entries. count >= 1.
void takeBest(uint count, uint tau) {
    const uint lid = gl_LocalInvocationID.x;
    uint need = TOPK_K, ties, shift;
#if defined(SELECT_HOLD)
    gHeld = gFromList && count <= HELD_MAX;
    // main loaded the first ones
    if (gHeld) holdSlots(prefetchSlots(), (count + (GROUP_SIZE - 1u)) / GROUP_SIZE, count - 1u);
    gT = gHeld ? selectHeld(count, tau, need, ties, shift) : selectByRank(count, need, ties, shift);
#else
    gT = selectByRank(count, need, ties, shift);
#endif
    if (need < ties && ties <= TIE_GATHER) {  // every digit resolved: ties are the entries equal to T
        if (lid == 0u) sTieCount = 0u;
        barrier();  // sBins is free after the selection
        visitAll(VISIT_BELOW_AND_TIES, count);
        barrier();
        for (uint a = lid; a < ties; a += GROUP_SIZE) {  // indices are distinct
            const uint idx = sBins[a];
            uint smaller = 0u;
            for (uint b = 0u; b < ties; ++b) smaller += sBins[b] < idx ? 1u : 0u;
            if (smaller < need) take(gT, idx);
        }
        barrier();
        return;
    }
    gLastIndex = 0xFFFFFFFFu;
    if (need < ties) {
        gPrefix = 0u;
        // Index digits of SELECT_BIN_BITS from the top: 22, 11, 0 (30, 20, 10, 0 in the small forms).
        for (int s = (31 / SELECT_BIN_BITS) * SELECT_BIN_BITS; s >= 0; s -= SELECT_BIN_BITS) {
            for (uint b = lid; b < SELECT_BINS; b += GROUP_SIZE) sBins[b] = 0u;
            barrier();
            const uint above = uint(s) + uint(SELECT_BIN_BITS);
            gHigh = above >= 32u ? 0u : 0xFFFFFFFFu << above;
            gShift = uint(s);
            visitAll(VISIT_INDEX_DIGIT, count);
            findBucket(need);
            gPrefix |= sFoundBucket << uint(s);
            need -= sFoundBefore;
            barrier();
        }
        gLastIndex = gPrefix;
    }
    // Keys compared down to `shift` only: with fewer digits resolved, every entry agreeing with T there wins.
    gShift = shift;
    RIPPLE_MARK(1);  // the digits found (takeBest only), then the winners taken
    visitAll(VISIT_TAKE, count);
}

// Every element equal to tau in chunk c (a chunk of more than R ties, all of them wanted): streamed, all
// loads in flight before the comparisons, taken in no order.
void takeAllTies(uint tau, uint c) {
    const uint begin = c * SELECT_CHUNK, end = min(TOPK_N, begin + SELECT_CHUNK);
    for (uint w = begin + gl_LocalInvocationID.x; w < end; w += GROUP_SIZE * SELECT_STREAM) {
        uint key[SELECT_STREAM];
        [[unroll]] for (uint u = 0u; u < SELECT_STREAM; ++u)
            key[u] = rankKeyAt(gRowBase + min(w + u * GROUP_SIZE, end - 1u) * TOPK_AXIS_STRIDE);
        [[unroll]] for (uint u = 0u; u < SELECT_STREAM; ++u)
            if (w + u * GROUP_SIZE < end && key[u] == tau) take(tau, w + u * GROUP_SIZE);
    }
}

// The first `need` elements equal to tau of chunk c, in index order, from its `here` tie slots (here <= R):
// an entry is wanted when fewer than `need` slots hold a smaller index (indices are distinct).
void takeFirstStoredTies(uint tau, uint slots, uint here, uint need) {
    for (uint t = gl_LocalInvocationID.x; t < here; t += GROUP_SIZE) sBins[t] = CHUNK_TIES(slots + t);
    barrier();
    for (uint t = gl_LocalInvocationID.x; t < here; t += GROUP_SIZE) {
        const uint idx = sBins[t];
        uint smaller = 0u;
        for (uint o = 0u; o < here; ++o) smaller += sBins[o] < idx ? 1u : 0u;
        if (smaller < need) take(tau, idx);
    }
    barrier();
}

// The first `need` elements equal to tau of chunk c, in index order, read from the chunk: windows of
// GROUP_SIZE * 32 elements, each invocation 32 consecutive ones marked in a bit mask, a prefix sum of the mask counts
// ordering the invocations.
void takeFirstReadTies(uint tau, uint c, uint need) {
    const uint x = scanIndex(), begin = c * SELECT_CHUNK, end = min(TOPK_N, begin + SELECT_CHUNK);
    uint taken = 0u;
    for (uint w = begin; w < end && taken < need; w += GROUP_SIZE * 32u) {  // uniform
        const uint first = w + x * 32u;
        uint mask = 0u;
#if defined(MODE_fast)
        uint key[32];
        [[unroll]] for (uint i = 0u; i < 32u; ++i)  // all loads in flight before the comparisons
            key[i] = rankKeyAt(gRowBase + min(first + i, end - 1u) * TOPK_AXIS_STRIDE);
        [[unroll]] for (uint i = 0u; i < 32u; ++i)
            if (first + i < end && key[i] == tau) mask |= 1u << i;
#else
        // A loop, not 32 unrolled slots (topk_select.glsl's SELECT_STREAM): that form alone took
        // vkd3d-shader over 80 s.
        [[dont_unroll]] for (uint i = 0u; i < 32u; ++i) {
            const uint key = rankKeyAt(gRowBase + min(first + i, end - 1u) * TOPK_AXIS_STRIDE);
            mask |= (uint(first + i < end) & uint(key == tau)) << i;
        }
#endif
        uint total;
        uint rank = taken + workgroupExclusiveAdd(bitCount(mask), total);
        for (; mask != 0u && rank < need; ++rank) {
            const int i = findLSB(mask);
            mask &= mask - 1u;
            take(tau, first + uint(i));
        }
        taken = min(need, taken + total);
    }
}

// Takes the first `need` elements equal to tau in index order. The chunks' tie counts, one an invocation and
// summed in chunk order, say which chunks are wanted whole (their tie slots, or for more than R ties the
// chunk itself, taken in any order) and which one only in part (ordered).
shared uint sWhole[RIPPLE_GROUP_SIZE], sWholeCount, sPartChunk, sPartNeed;
void takeFirstTies(uint row, uint tau, uint need) {
    const uint chunks = SELECT_CHUNKS, R = SELECT_TIE_SLOTS, x = scanIndex();
    const uint slotBase = TOPK_ROWS * chunks + row * chunks * R;
    uint taken = 0u;
    for (uint c0 = 0u; c0 < chunks && taken < need; c0 += GROUP_SIZE) {  // uniform
        if (gl_LocalInvocationID.x == 0u) {
            sWholeCount = 0u;
            sPartChunk = 0xFFFFFFFFu;
        }
        const uint c = c0 + x;
        const uint here = c < chunks ? CHUNK_TIES(row * chunks + c) : 0u;
        uint total;
        const uint start = taken + workgroupExclusiveAdd(here, total);  // starts with a barrier
        if (here != 0u && start < need) {
            if (start + here > need) {  // at most one chunk straddles
                sPartChunk = c;
                sPartNeed = need - start;
            } else if (here <= R) {
                for (uint t = 0u; t < here; ++t) take(tau, CHUNK_TIES(slotBase + c * R + t));
            } else {
                sWhole[atomicAdd(sWholeCount, 1u)] = c;
            }
        }
        barrier();
        for (uint i = 0u; i < sWholeCount; ++i) takeAllTies(tau, sWhole[i]);
        const uint part = sPartChunk;
        if (part != 0xFFFFFFFFu) {
            const uint partTies = CHUNK_TIES(row * chunks + part);
            if (partTies <= R)
                takeFirstStoredTies(tau, slotBase + part * R, partTies, sPartNeed);
            else
                takeFirstReadTies(tau, part, sPartNeed);
        }
        taken = min(need, taken + total);
        barrier();
    }
}

void main() {
    loadParams();
    const uint K = TOPK_K, C = SELECT_CAPACITY, lid = gl_LocalInvocationID.x;
    rankKeySetup();
    for (uint row = gl_WorkGroupID.x; row < TOPK_ROWS; row += pc.groupCount) {
        const uint s = row * SELECT_STATE;
        gListBase = row * C * 2u;
#if defined(SELECT_HOLD)
        if (!kGather) holdSlots(0u, prefetchSlots(), C - 1u);  // in flight with the state's load
#endif
        const uint tau = STATE(s), below = STATE(s + 1u), atTau = STATE(s + 2u);
        gRowBase = viewOffset(TOPK_ROW_VIEW, row);
        if (lid == 0u) sSlots = 0u;
        barrier();
        RIPPLE_MARK(0);  // phases (PROFILE builds): start and state, selection (its digits, then the winners
                         // taken, where takeBest runs), sort and write
#if defined(SELECT_HOLD)
        if (kGather) {  // the list, sorted by the passes after this one
            gGatherBase = below;
            if (below >= K && below <= C) {
                if (lid == 0u) STATE(s + 3u) = below;  // the list as it is
            } else if (below < K && below + atTau >= K) {
                takeFirstTies(row, tau, K - below);
                if (lid == 0u) STATE(s + 3u) = K;
            } else {
                gGatherBase = 0u;
                gFromList = false;
                takeBest(TOPK_N, tau);
                if (lid == 0u) STATE(s + 3u) = K;
            }
            barrier();
            continue;
        }
        if (below >= K && below <= C) {  // the K best are all in the list
            gFromList = true;
            takeBest(below, tau);
        } else if (below < K && below + atTau >= K) {  // all candidates, then the first ties of tau
            for (uint i = lid; i < below; i += GROUP_SIZE)
                take(CANDIDATES(gListBase + 2u * i), CANDIDATES(gListBase + 2u * i + 1u));
            takeFirstTies(row, tau, K - below);
        } else {  // the estimate missed, or the list overflowed: select from the whole row (exact, slow)
            gFromList = false;
            takeBest(TOPK_N, tau);
        }
#else
        // The same cases with one call site each of takeFirstTies and takeBest: vkd3d-shader inlines every
        // call, and its compile time grows faster than the code (f32: one takeBest call 13 s, two 46 s; the
        // five calls of the form above over 200 s). The fast variants keep that form, tuned on the H100.
        const bool listHolds = below >= K && below <= C;
        const bool withTies = !listHolds && below < K && below + atTau >= K;
        gGatherBase = listHolds || withTies ? below : 0u;  // gather: the list's entries kept
        if (withTies) {  // all candidates, then the first ties of tau
            if (!kGather)
                for (uint i = lid; i < below; i += GROUP_SIZE)
                    take(CANDIDATES(gListBase + 2u * i), CANDIDATES(gListBase + 2u * i + 1u));
            takeFirstTies(row, tau, K - below);
        } else if (!kGather || !listHolds) {  // the list's K best, or (missed, overflowed) the row's
            gFromList = listHolds;
            takeBest(listHolds ? below : TOPK_N, tau);
        }
        if (kGather) {  // the list, sorted by the passes after this one
            if (lid == 0u) STATE(s + 3u) = listHolds ? below : K;
            barrier();
        }
#endif
        // The write step only: no code after a `continue` in the gather step, which vkd3d's DXBC-to-SPIR-V
        // translation (Debian's 1.6) made into an invalid module ("Branch must appear in a block").
#if !defined(STEP_gather)
        barrier();
        RIPPLE_MARK(2);
        writeWinners(row, gRowBase);
        // The row's state cleared for the next run: with the filter sampling (its TAU sample form) the state
        // is zeroed scratch, whose counts nothing else clears. Read by every invocation before the barriers
        // above.
        if (lid == 0u) {
            STATE(s) = 0u;
            STATE(s + 1u) = 0u;
            STATE(s + 2u) = 0u;
        }
        barrier();
#endif
    }
}
