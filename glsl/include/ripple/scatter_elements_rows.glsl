// SPDX-License-Identifier: MIT
// ScatterElements along the last axis, out of place, copy and scatter fused: a workgroup per line (a row
// of the output) loads the input line into shared memory with 16-byte accesses, writes the line's updates
// there (with SCATTER_REDUCE: combines them with the line's elements, ripple/combine_bits.glsl), and stores
// the line, so the output is written once and in whole 16-byte blocks. core plans it for a packed input,
// elements up to 32 bits and lines of whole 16-byte blocks up to 16 KiB (core/scatter_elements.cpp); in
// place the plain pass runs instead. Colliding updates without a reduction: one wins, whole (8/16-bit
// elements by compare-and-swap on their shared word). Out-of-range indices are dropped and flagged in
// status[0].
// Params: [0] lines, [1] line length L (the axis size), [2] 16-byte blocks per line, [3] updates per line
// (the indices' last size), [4] rank, [5..12] input sizes, [13..20] indices sizes, [21..37] indices view,
// [38..54] updates view, [55..56] group order (ORDERED_GROUP), [57] the reduction (SCATTER_REDUCE only:
// ScatterReduction 1 ADD, 2 MUL, 3 MAX, 4 MIN).
// Bindings: 1 input, 2 indices, 3 updates, 4 output, 5 status.
layout(local_size_x = 256) in;
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/index.glsl"
#if defined(SCATTER_REDUCE)
#include "ripple/combine_bits.glsl"
#endif

layout(std430, binding = 1) readonly buffer Input { uvec4 inBlocks[]; };
layout(std430, binding = 2) readonly buffer Indices { uint indices[]; };
layout(std430, binding = 3) readonly buffer Updates { uint updates[]; };
layout(std430, binding = 4) writeonly buffer Output { uvec4 outBlocks[]; };
layout(std430, binding = 5) buffer Status { uint status[]; };
#include "ripple/counted.glsl"

shared uint sLine[4096];

#if defined(SCATTER_REDUCE)
// Combines an update with its element of the line in shared memory (combineBits: every duplicate counts;
// float ADD and MUL in no fixed order), by compare-and-swap on the element's word.
void writeShared(uint e, uint bits) {
    const uint op = P(57u);
    const uint perWord = 32u / ELEM_BITS, w = e / perWord, shift = (e % perWord) * ELEM_BITS;
#if ELEM_BITS == 32
    const uint mask = 0xFFFFFFFFu;
#else
    const uint mask = ((1u << ELEM_BITS) - 1u) << shift;
#endif
    uint expected = sLine[w];
    for (;;) {
        const uint now = (expected & mask) >> shift;
        const uint next = (expected & ~mask) | ((combineBits(now, bits, op) << shift) & mask);
        const uint seen = atomicCompSwap(sLine[w], expected, next);
        if (seen == expected) break;
        expected = seen;
    }
}
#else
void writeShared(uint e, uint bits) {
#if ELEM_BITS == 32
    sLine[e] = bits;
#else
    const uint perWord = 32u / ELEM_BITS, shift = (e % perWord) * ELEM_BITS;
    const uint mask = ((1u << ELEM_BITS) - 1u) << shift;
    uint expected = sLine[e / perWord];
    for (;;) {
        const uint next = (expected & ~mask) | ((bits << shift) & mask);
        const uint seen = atomicCompSwap(sLine[e / perWord], expected, next);
        if (seen == expected) break;
        expected = seen;
    }
#endif
}
#endif

void main() {
    const uint lines = P(0), len = P(1), blocks = P(2), perLine = P(3), rank = P(4);
    const uint lid = gl_LocalInvocationID.x;
    const uint counted = countedUnits(0xFFFFFFFFu, 1u); // updates from here on are past a CountTensor's
    for (uint line = ORDERED_GROUP(55u); line < lines; line += pc.groupCount) {
        // All of an invocation's loads (at most 4: 1024 blocks) issued before the first is used.
        uvec4 v[4];
        [[unroll]] for (uint k = 0u; k < 4u; ++k) {
            const uint b = lid + 256u * k;
            if (b < blocks) v[k] = inBlocks[line * blocks + b];
        }
        [[unroll]] for (uint k = 0u; k < 4u; ++k) {
            const uint b = lid + 256u * k;
            if (b < blocks) {
                sLine[4u * b] = v[k].x;
                sLine[4u * b + 1u] = v[k].y;
                sLine[4u * b + 2u] = v[k].z;
                sLine[4u * b + 3u] = v[k].w;
            }
        }
        // The line's coordinates off the axis; it has updates where each is inside the indices' sizes.
        uint rest = line, indicesLine = 0u, pitch = 1u;
        bool hasUpdates = true;
        for (uint d = rank - 1u; d > 0u; --d) {
            const uint c = rest % P(4u + d);
            rest /= P(4u + d);
            hasUpdates = hasUpdates && c < P(12u + d);
            indicesLine += c * pitch;
            pitch *= P(12u + d);
        }
        barrier();
        if (hasUpdates) {
            for (uint k = lid; k < perLine; k += 256u) {
                const uint linear = indicesLine * perLine + k;
                if (linear >= counted) break;
                uint r;
                if (!resolveIndex(LOAD_INDEX(indices, viewOffset(21u, linear)), len, r)) {
                    atomicOr(status[0], 1u);
                    continue;
                }
                writeShared(r, LOAD_ELEM(updates, viewOffset(38u, linear)).x);
            }
        }
        barrier();
        [[unroll]] for (uint k = 0u; k < 4u; ++k) {
            const uint b = lid + 256u * k;
            if (b < blocks)
                outBlocks[line * blocks + b] =
                    uvec4(sLine[4u * b], sLine[4u * b + 1u], sLine[4u * b + 2u], sLine[4u * b + 3u]);
        }
        barrier();
    }
}
