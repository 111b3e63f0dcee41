// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// TopK of rows over 4096 elements, K up to 1024, types up to 32 bits, in one dispatch (core/topk.cpp,
// planChunk). Each workgroup reads one chunk of CHUNK elements of a row into shared memory as rank keys
// and narrows it to at most B candidates that include the chunk's K best: 8 key bits at a time by a
// 256-bin shared histogram, stopping after the first step whose bins up to the K-th's hold at most B
// entries; only when ties of the K-th rank keep more than that, index steps pick exactly the first K. The
// candidates are appended to the row's list. The row's last workgroup to finish (a counter per row) loads
// the list (at most chunks * B <= CHUNK entries) the same way, selects the K winners exactly and writes
// them sorted. One dispatch instead of sampled selection's three (on the H100 each level costs about 4 us
// between timestamps, bench/NOTES.md v9).
//
// Code size is the design constraint: a workgroup's selection is a chain of short steps whose cost on the
// H100 follows the instructions fetched (bench/NOTES.md, v12: the same kernel with its entries in
// registers, every loop unrolled, was 163 KB of machine code and slower than three dispatches). Here
// the entries sit in shared memory and the loops over them stay loops; only the global loads are unrolled,
// to keep them in flight together.
//
// Params: the TopK block (topk.glsl), then [30] key bits (8, 16 or 32), [31] chunks per row, [32] B,
// [33] the key mapping of this variant's width (topk_key.glsl's KEY_RUNTIME: one variant a width).
// Bindings: 1 input, 2 values, 3 indices, 4 the list (rows * chunks * B entries of (rank key, index)),
// 5 per row: [0] workgroups arrived, [1] list length (zeroed scratch: zero before the dispatch; the row's
// last workgroup sets both back to zero).
layout(local_size_x = 256) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) buffer Values { uint values[]; };
layout(std430, binding = 3) writeonly buffer IndicesOut { uint indicesOut[]; };
// Written by one workgroup, read by another in the same dispatch: coherent, and fenced before the
// arrival that publishes them.
layout(std430, binding = 4) coherent buffer List { uint list[]; };
layout(std430, binding = 5) coherent buffer RowState { uint rowState[]; };

#define KEY_RUNTIME P(33u)  // one variant a width, the key mapping a param
#include "ripple/topk_key.glsl"
#include "ripple/scan.glsl"
#if defined(SLOTS_s256)  // K <= 256: 6 KiB less shared memory than 1024 slots
#define SLOTS 256u
#endif
#include "ripple/bitonic.glsl"  // the K winners (K <= SLOTS), unordered until written
#include "ripple/topk_write.glsl"

#define CHUNK 4096u           // elements per chunk, and list entries per row at most
#define PER (CHUNK / 256u)    // entries per invocation
#define CHUNK_INDEX_BITS 16u  // an entry's place in a chunk, in whole 8-bit index steps
#define ENTRIES CHUNK
#include "ripple/topk_entries.glsl"

shared uint sShared;        // a value one invocation gives the workgroup

uint gFlip, gShift;
bool gFinal;     // selecting from the row's list rather than from a chunk of the input
uint gListBase;  // the row's first list entry

uint rankOf(uint bits) { return (orderKeyOf(uvec2(bits, 0u)).x ^ gFlip) << gShift; }

// The index that ties of entry e are broken by: its place in the chunk (the chunk's order is the row's),
// or in the final selection the input index its list entry holds.
uint entryIndex(uint e) { return gFinal ? list[2u * (gListBase + e) + 1u] : e; }

void main() {
    const uint n = TOPK_N, K = TOPK_K, stride = TOPK_AXIS_STRIDE, lid = gl_LocalInvocationID.x;
    const uint chunks = P(31), B = P(32);
    const uint bits = P(30);
    keyKindSetup();
    gFlip = TOPK_DIRECTION == 0u ? (bits == 32u ? 0xFFFFFFFFu : ((1u << bits) - 1u)) : 0u;
    gShift = 32u - bits;
    gKeyLowBits = gShift;
    uint rowIndexBits = 8u;
    while (rowIndexBits < 32u && (1u << rowIndexBits) < n) rowIndexBits += 8u;
    for (uint g = gl_WorkGroupID.x; g < TOPK_ROWS * chunks; g += pc.groupCount) {
        const uint row = g / chunks, chunk = g % chunks;
        const uint begin = chunk * CHUNK, m = min(CHUNK, n - begin);
        const uint rowBase = viewOffset(TOPK_ROW_VIEW, row);
        gFinal = false;
        gListBase = row * chunks * B;
        // Every load issued before any key arithmetic, none behind a branch (a load after a branch waits
        // for the ones before it). Slots past the end read the last element again.
        uint key[PER];
        [[unroll]] for (uint j = 0u; j < PER; ++j)
            key[j] = loadElement(rowBase + min(begin + j * 256u + lid, n - 1u) * stride).x;
        [[unroll]] for (uint j = 0u; j < PER; ++j) sEntry[j * 256u + lid] = rankOf(key[j]);
        barrier();
        RIPPLE_MARK(0);  // phases (PROFILE builds): the chunk's loads, its selection, the list and arrival
        if (chunks == 1u) {  // uniform: a row of one chunk is selected here, entries' places are indices
            selectEntries(m, K, K, CHUNK_INDEX_BITS);
            writeSelected(row, rowBase, m);
            continue;
        }
        if (m > B) {  // uniform; otherwise every element of the chunk is a candidate
            selectEntries(m, min(K, m), B, CHUNK_INDEX_BITS);
        } else {
            gEarly = true;
            gShiftAt = 0u;
            gPrefix = 0xFFFFFFFFu;
            gByLimit = true;
            gLimit = 0xFFFFFFFFu;
        }
        RIPPLE_MARK(1);
        uint total;
        uint at = workgroupExclusiveAdd(selectedMine(m), total);  // total <= B
        if (lid == 0u) sShared = atomicAdd(rowState[2u * row + 1u], total);
        barrier();
        at += gListBase + sShared;
        for (uint e = lid; e < m; e += 256u) {
            if (selected(e)) {
                list[2u * at] = sEntry[e];
                list[2u * at + 1u] = begin + e;
                ++at;
            }
        }
        memoryBarrierBuffer();  // this invocation's list writes, before the arrival that publishes them
        barrier();
        if (lid == 0u) {
            sShared = atomicAdd(rowState[2u * row], 1u) == chunks - 1u ? 1u : 0u;
            memoryBarrierBuffer();
        }
        barrier();
        RIPPLE_MARK(2);
        if (sShared == 0u) continue;  // uniform

        // The row's last workgroup: every chunk's candidates are in the list. Select the K best of them.
        gFinal = true;
        const uint count = rowState[2u * row + 1u];  // at least K, at most chunks * B <= CHUNK
        [[unroll]] for (uint j = 0u; j < PER; ++j)
            key[j] = list[2u * (gListBase + min(j * 256u + lid, count - 1u))];
        [[unroll]] for (uint j = 0u; j < PER; ++j) sEntry[j * 256u + lid] = key[j];
        barrier();
        if (lid == 0u) {  // nobody else touches the row's state in this dispatch
            rowState[2u * row] = 0u;
            rowState[2u * row + 1u] = 0u;
        }
        selectEntries(count, K, K, rowIndexBits);
        RIPPLE_MARK(3);  // the last workgroup: the list's loads and the selection, then the write
        writeSelected(row, rowBase, count);
    }
}
