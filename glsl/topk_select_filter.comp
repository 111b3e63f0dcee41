// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
#if defined(MODE_fast)
// NaNs and infinities kept by the float comparisons (SignedZeroInfNanPreserve for 32-bit floats; the device
// property shaderSignedZeroInfNanPreserveFloat32): without it a Vulkan compiler may assume none is one.
#extension GL_EXT_spirv_intrinsics : require
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4466], 4461, 32);
#endif
// Sampled radix-select TopK, dispatch 2 (topk_select.glsl): reads every row once, chunk by chunk. Elements
// ranked below the row's tau are appended to its candidate list as (rank, index); elements equal to tau
// are counted, per chunk and per row, and a chunk's tie indices are kept while there are at most
// SELECT_TIE_SLOTS, so that the final step finds the first ties without reading the row again. TAU state:
// tau from the row's state (topk_select_sample.comp). TAU sample (rows of few samples; core/topk_select.cpp's
// kFusedSamples): each workgroup finds its row's tau from the row's samples itself (topk_sample.glsl),
// and the row's first chunk stores it for the final step; the state is zeroed scratch. A variant of its
// own, so that the other rows' kernel keeps its registers and shared memory (H100, f16: 54 registers and
// 8464 bytes; the sample form 58 and 9492). Bindings: 1 input, 2 state, 3 per-chunk ties (counts, then
// index slots), 4 candidates.
//
// No barrier in the loop: candidates are staged (stageCandidate).
layout(local_size_x = RIPPLE_GROUP_SIZE) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#define PARAMS_SHARED 64u  // ripple/common.glsl; core/topk_select.cpp keeps the block within it
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) buffer State { uint state[]; };
layout(std430, binding = 3) writeonly buffer ChunkTies { uint chunkTies[]; };
layout(std430, binding = 4) writeonly buffer Candidates { uint candidates[]; };

#include "ripple/topk_key.glsl"
#include "ripple/topk_select.glsl"

// The stage of stageCandidate (below): STAGE keys, then their indices.
#define STAGE 1024u
shared uint sStage[2u * STAGE];
#if defined(TAU_sample)
// The samples, the histogram and a step's result in the stage's memory, which the selection is done with
// before the first tile: with 8 KiB more shared memory the NVIDIA compiler gave this kernel 128 registers
// instead of 54 (H100, FLOAT16), two workgroups an SM instead of four.
#define ENTRIES_SHARED
#define ENTRIES 1024u  // the most samples (core/topk_select.cpp's kFusedSamples)
#define sEntry sStage
#define ENTRY_HIST(i) sStage[ENTRIES + (i)]
#define ENTRY_RESULT(i) sStage[ENTRIES + 256u + (i)]
#include "ripple/topk_entries.glsl"
uint entryIndex(uint e) { return e; }  // no index steps: any sample holding the m-th rank will do
#define SAMPLE_SINGLE  // g = 1
#include "ripple/hash.glsl"
#include "ripple/topk_sample.glsl"
#endif

// Floats compared as floats when tau is a normal number or an infinity: the filter is bound by its
// per-element work, not by its bytes (H100, (64,128256): FLOAT16's 16 MB took FLOAT32's 17-18 us), and a
// rank key costs about ten operations where a float comparison costs one or two. The comparisons keep the
// rank keys' order: -0.0 == +0.0, and NaNs rank first for DECREASING and last for INCREASING. MODE fast
// holds the compiler to IEEE rules for NaNs (above), so the unordered comparison says it: `!(x <= tau)`
// takes every NaN for DECREASING, `x < tau` none for INCREASING. MODE portable, for devices without that
// property and for HLSL (D3DCompile without IEEE strictness may rewrite comparisons), finds NaNs from their
// bits, at a cost: H100, (64,128256) f16 37.1 -> 41.0 us. A denormal flushed to zero by the device stays on
// its side of a normal tau, so only a tau that is NaN, zero or denormal takes the rank keys (gByValue false).
#if defined(DTYPE_f32) || defined(DTYPE_f16) || defined(DTYPE_bf16)
#define BY_VALUE
#if defined(DTYPE_f32)
#define EXPONENT_SHIFT 23u
#define EXPONENT_ONES 0xFFu
#define MAGNITUDE 0x7FFFFFFFu
#elif defined(DTYPE_f16)
#define EXPONENT_SHIFT 10u
#define EXPONENT_ONES 0x1Fu
#define MAGNITUDE 0x7FFFu
#else
#define EXPONENT_SHIFT 7u
#define EXPONENT_ONES 0xFFu
#define MAGNITUDE 0x7FFFu
#endif
#define INFINITY_BITS (EXPONENT_ONES << EXPONENT_SHIFT)
bool gByValue;
float gTauValue;
float valueOf(uint bits) {
#if defined(DTYPE_f32)
    return uintBitsToFloat(bits);
#elif defined(DTYPE_f16)
    return unpackHalf2x16(bits).x;
#else
    return uintBitsToFloat(bits << 16u);
#endif
}
// Element bits of rank key tau (the inverse of rankKeyOf, with +0.0 for zero and the all-ones NaN), then
// whether the comparisons by value hold for it.
void valueSetup(uint tau) {
    const uint bits = SELECT_KEY_BITS, top = 1u << (bits - 1u);
    const uint order = (tau >> gRankShift) ^ gRankFlip;
    const uint b = (order & top) != 0u ? order & ~top : ~order & (top | (top - 1u));
    const uint exponent = (b >> EXPONENT_SHIFT) & EXPONENT_ONES;
    gByValue = exponent != 0u && !(exponent == EXPONENT_ONES && (b & ((1u << EXPONENT_SHIFT) - 1u)) != 0u);
    gTauValue = valueOf(b);
}
// Bit `bit` of the tie and candidate masks for element value x, whose bits (in the low bits of `bits`, above
// them anything) say whether it is a NaN.
void classify(float x, uint bits, bool inside, uint bit, inout uint tieBits, inout uint candidateBits) {
#if defined(MODE_fast)
    const bool candidate = TOPK_DIRECTION == 0u ? !(x <= gTauValue) : x < gTauValue;
    const bool tie = x == gTauValue;
#else
    const bool nan = (bits & MAGNITUDE) > INFINITY_BITS;
    const bool candidate = TOPK_DIRECTION == 0u ? x > gTauValue || nan : x < gTauValue && !nan;
    const bool tie = x == gTauValue && !nan;
#endif
    tieBits |= inside && tie ? bit : 0u;
    candidateBits |= inside && candidate ? bit : 0u;
}
#endif

// Candidates are staged in shared memory (a shared atomic each) and reserved in the row's list with one
// global atomic per workgroup at the end, since one counter per row serializes the atomics of every
// workgroup of that row. Candidates beyond the stage (an estimate that missed) reserve their own slot.
shared uint sStaged, sBase;

void stageCandidate(uint row, uint key, uint j) {
    const uint C = SELECT_CAPACITY;
    const uint at = atomicAdd(sStaged, 1u);
    if (at < STAGE) {
        sStage[at] = key;
        sStage[STAGE + at] = j;
    } else {
        const uint slot = atomicAdd(state[row * SELECT_STATE + 1u], 1u);
        if (slot < C) {
            candidates[(row * C + slot) * 2u] = key;
            candidates[(row * C + slot) * 2u + 1u] = j;
        }
    }
}

// Appends the staged candidates to the row's list. All invocations call it, after a barrier that follows
// their last stageCandidate; it ends with one. The caller empties the stage (sStaged = 0, then a barrier)
// before staging again.
void flushStage(uint row) {
    const uint C = SELECT_CAPACITY, lid = gl_LocalInvocationID.x;
    const uint staged = min(sStaged, STAGE);
    if (lid == 0u) sBase = staged != 0u ? atomicAdd(state[row * SELECT_STATE + 1u], staged) : 0u;
    barrier();
    for (uint i = lid; i < staged; i += GROUP_SIZE) {
        const uint slot = sBase + i;
        if (slot < C) {
            candidates[(row * C + slot) * 2u] = sStage[i];
            candidates[(row * C + slot) * 2u + 1u] = sStage[STAGE + i];
        }
    }
    barrier();
}

// An invocation's ties of tau in a tile (bit u: index first + 256 u), kept in the chunk's slots while they
// last. Reading sTieSlots before the atomic keeps a chunk of many ties (all-equal rows) from contending on
// it once the slots are full; a stale read only costs an atomic whose slot is past the end.
shared uint sTieSlots;
void recordTies(uint slots, uint tieBits, uint first) {
    for (; tieBits != 0u && sTieSlots < SELECT_TIE_SLOTS; tieBits &= tieBits - 1u) {
        const uint at = atomicAdd(sTieSlots, 1u);
        if (at < SELECT_TIE_SLOTS) chunkTies[slots + at] = first + GROUP_SIZE * uint(findLSB(tieBits));
    }
}

#define UNROLL 16u
shared uint sTies;
// A tile's loads: an invocation's UNROLL words, all in flight before any use. main issues the chunk's first
// tile before it reads the row's tau, so that the two latencies overlap.
uint gTile[UNROLL];
void loadTile(uint tile, uint end, uint rowBase, uint stride) {
    [[unroll]] for (uint u = 0u; u < UNROLL; ++u)  // no branch between the loads
        gTile[u] = loadElement(rowBase + min(tile + u * GROUP_SIZE + gl_LocalInvocationID.x, end - 1u) * stride).x;
}

#if defined(DTYPE_f16) || defined(DTYPE_bf16) || defined(DTYPE_i16) || defined(DTYPE_u16)
#define PAIRED_WORDS
// A contiguous row of 16-bit elements read a 32-bit word (two elements) per load: H100, (64,128256) f16 took
// 21.5 us for half the bytes of FLOAT32's 18.4 with one load per element (19.2 this way). Word w holds
// elements 2w and 2w + 1 of the buffer; tile bit 2u + h is element 2 (first + 256 u) + h - rowBase of the
// row. Elements of the words at the chunk's ends that lie outside it are another chunk's. Candidates are
// staged as in the generic loop (main).
void loadPairedTile(uint first, uint lastWord) {
    [[unroll]] for (uint u = 0u; u < UNROLL; ++u) gTile[u] = inputWords[min(first + u * GROUP_SIZE, lastWord)];
}
// The tile's words are in gTile (loadPairedTile).
uint pairedTile(uint row, uint rowBase, uint begin, uint end, uint first, uint tau) {
    uint word[UNROLL] = gTile;
    uint tieBits = 0u, candidateBits = 0u;
#if defined(BY_VALUE)
    if (gByValue) {  // uniform
        [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
#if defined(DTYPE_f16)
            const vec2 v = unpackHalf2x16(word[u]);
#else
            const vec2 v =
                vec2(uintBitsToFloat(word[u] << 16u), uintBitsToFloat(word[u] & 0xFFFF0000u));
#endif
            const uint j = 2u * (first + u * GROUP_SIZE) - rowBase;  // wraps below begin for an odd base: outside
            const bool inside0 = j - begin < end - begin, inside1 = j + 1u - begin < end - begin;
            classify(v.x, word[u], inside0, 1u << (2u * u), tieBits, candidateBits);
            classify(v.y, word[u] >> 16u, inside1, 2u << (2u * u), tieBits, candidateBits);
        }
    } else
#endif
    [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
        [[unroll]] for (uint h = 0u; h < 2u; ++h) {
            // j wraps below begin for h = 0 of an odd base: outside, as wanted.
            const uint j = 2u * (first + u * GROUP_SIZE) + h - rowBase;
            const uint key = rankKeyOf((word[u] >> (16u * h)) & 0xFFFFu);
            const bool inside = j - begin < end - begin;
            tieBits |= inside && key == tau ? 1u << (2u * u + h) : 0u;
            candidateBits |= inside && key < tau ? 1u << (2u * u + h) : 0u;
        }
    }
    for (; candidateBits != 0u; candidateBits &= candidateBits - 1u) {
        const uint b = uint(findLSB(candidateBits)), w = first + GROUP_SIZE * (b >> 1u), h = b & 1u;
        stageCandidate(row, rankKeyOf((inputWords[w] >> (16u * h)) & 0xFFFFu), 2u * w + h - rowBase);
    }
    return tieBits;
}
void recordPairedTies(uint slots, uint tieBits, uint first, uint rowBase) {
    for (; tieBits != 0u && sTieSlots < SELECT_TIE_SLOTS; tieBits &= tieBits - 1u) {
        const uint at = atomicAdd(sTieSlots, 1u), b = uint(findLSB(tieBits));
        if (at < SELECT_TIE_SLOTS)
            chunkTies[slots + at] = 2u * (first + GROUP_SIZE * (b >> 1u)) + (b & 1u) - rowBase;
    }
}
#endif

void main() {
    loadParams();
    const uint chunks = SELECT_CHUNKS, lid = gl_LocalInvocationID.x;
    const uint n = TOPK_N, chunkSize = SELECT_CHUNK, stride = TOPK_AXIS_STRIDE;
    rankKeySetup();
#if defined(TAU_sample)
    gKeyLowBits = gRankShift;
    uint sampledRow = 0xFFFFFFFFu, sampledTau = 0u;  // the last row sampled, and its tau
#endif
    for (uint g = gl_WorkGroupID.x; g < TOPK_ROWS * chunks; g += pc.groupCount) {
        const uint row = g / chunks, chunk = g % chunks, s = row * SELECT_STATE;
        const uint begin = chunk * chunkSize, end = min(n, begin + chunkSize);
        const uint rowBase = viewOffset(TOPK_ROW_VIEW, row);
#if defined(TAU_sample)
        // tau first, then the tile's loads (issued before the selection, they measured no faster: H100).
        if (row != sampledRow) {  // uniform
            loadSamples(rowBase);
            barrier();
            RIPPLE_MARK(0);  // phases (PROFILE builds), sampling forms only: the samples' loads, tau
            sampledTau = sampleTau();
            RIPPLE_MARK(1);
            sampledRow = row;
        }
        if (chunk == 0u && lid == 0u) state[s] = sampledTau;
        const uint tau = sampledTau;
#endif
#if defined(PAIRED_WORDS)
        const bool paired = stride == 1u;
        const uint firstWord = (rowBase + begin) >> 1u, lastWord = (rowBase + end - 1u) >> 1u;
        if (begin < end && paired) loadPairedTile(firstWord + lid, lastWord); else  // uniform
#endif
        if (begin < end) loadTile(begin, end, rowBase, stride);
#if !defined(TAU_sample)
        const uint tau = state[s];
#endif
        const uint slots = TOPK_ROWS * chunks + g * SELECT_TIE_SLOTS;  // this chunk's tie index slots
#if defined(BY_VALUE)
        valueSetup(tau);
#endif
        if (lid == 0u) sStaged = sTies = sTieSlots = 0u;
        barrier();
        RIPPLE_MARK(2);  // phases (PROFILE builds): (the sample form's above) the state and the first tile's
                         // loads, the tiles, the append
        uint ties = 0u;
#if defined(PAIRED_WORDS)
        if (paired) {  // uniform
            // begin < end: a chunk is never empty (core/topk_select.cpp); end - begin must not wrap below.
            for (uint tile = firstWord; begin < end && tile <= lastWord; tile += GROUP_SIZE * UNROLL) {
                if (tile != firstWord) loadPairedTile(tile + lid, lastWord);  // uniform
                const uint tieBits = pairedTile(row, rowBase, begin, end, tile + lid, tau);
                if (tieBits != 0u) {
                    ties += bitCount(tieBits);
                    recordPairedTies(slots, tieBits, tile + lid, rowBase);
                }
            }
        } else
#endif
        for (uint tile = begin; tile < end; tile += GROUP_SIZE * UNROLL) {
            if (tile != begin) loadTile(tile, end, rowBase, stride);  // uniform
            uint key[UNROLL] = gTile;
            // The tile's ties and candidates as bit masks, the candidates (rare: about m / S of the elements)
            // then staged in a loop, each read again from the cache: one staging block in the machine code
            // instead of one per element. H100: 30 -> 17 KB (76 -> 34 for 16-bit pairs), (64,128256) filter
            // 18.7 -> 17.4 us (f16 19.2 -> 17.9).
            uint tieBits = 0u, candidateBits = 0u;
#if defined(BY_VALUE)
            if (gByValue) {  // uniform
                [[unroll]] for (uint u = 0u; u < UNROLL; ++u)
                    classify(valueOf(key[u]), key[u], tile + u * GROUP_SIZE + lid < end, 1u << u, tieBits,
                             candidateBits);
            } else
#endif
            [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
                const uint k = rankKeyOf(key[u]);
                const bool inside = tile + u * GROUP_SIZE + lid < end;
                tieBits |= inside && k == tau ? 1u << u : 0u;
                candidateBits |= inside && k < tau ? 1u << u : 0u;
            }
            for (; candidateBits != 0u; candidateBits &= candidateBits - 1u) {
                const uint j = tile + GROUP_SIZE * uint(findLSB(candidateBits)) + lid;
                stageCandidate(row, rankKeyAt(rowBase + j * stride), j);
            }
            if (tieBits != 0u) {
                ties += bitCount(tieBits);
                recordTies(slots, tieBits, tile + lid);
            }
        }
        if (ties != 0u) atomicAdd(sTies, ties);
        barrier();
        RIPPLE_MARK(3);
        if (lid == 0u) {
            chunkTies[g] = sTies;
            if (sTies != 0u) atomicAdd(state[s + 2u], sTies);
        }
        flushStage(row);
    }
}
