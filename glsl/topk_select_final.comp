#version 450
#extension GL_GOOGLE_include_directive : require
// Radix-select TopK, last dispatch: one workgroup per row gathers the row's K winners (the selected list,
// the candidates below the threshold T, and the `need` smallest indices among the elements equal to T),
// sorts them by (rank key, index) and writes values (bit for bit from the input) and indices.
// Bindings: 1 input, 2 state, 3 selected lists, 4 candidate lists, 5 values, 6 indices.
layout(local_size_x = 256) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) readonly buffer State { uint state[]; };
layout(std430, binding = 3) readonly buffer Selected { uint selected[]; };
layout(std430, binding = 4) readonly buffer Lists { uint lists[]; };
layout(std430, binding = 5) buffer Values { uint values[]; };
layout(std430, binding = 6) writeonly buffer IndicesOut { uint indicesOut[]; };

#include "ripple/topk_key.glsl"
#include "ripple/topk_select.glsl"
#include "ripple/bitonic.glsl"

#if defined(DTYPE_f32) || defined(DTYPE_i32) || defined(DTYPE_u32)
#define VALUE_BITS 32
#define LOAD_VALUE LOAD_B32
#elif defined(DTYPE_f16) || defined(DTYPE_i16) || defined(DTYPE_u16)
#define VALUE_BITS 16
#define LOAD_VALUE LOAD_B16
#else
#define VALUE_BITS 8
#define LOAD_VALUE LOAD_B8
#endif

shared uint sSlots;

// Entry i of the row's source: the last candidate list, or the input row itself when that overflowed.
void sourceEntry(bool fromList, uint listBase, uint rowBase, uint i, out uint key, out uint idx) {
    if (fromList) {
        key = lists[listBase + 2u * i];
        idx = lists[listBase + 2u * i + 1u];
    } else {
        key = rankKeyAt(rowBase + i * TOPK_AXIS_STRIDE);
        idx = i;
    }
}

void take(uint key, uint idx) {
    const uint at = atomicAdd(sSlots, 1u);
    if (at < SLOTS) {
        sKey[0][at] = key;
        sIdx[at] = idx;
    }
}

void main() {
    const uint K = TOPK_K, C = SELECT_CAPACITY, D = SELECT_DIGITS, last = SELECT_PASSES - 1u;
    const uint lid = gl_LocalInvocationID.x;
    for (uint row = gl_WorkGroupID.x; row < TOPK_ROWS; row += pc.groupCount) {
        const uint s = row * SELECT_STATE;
        const uint T = state[s], need = state[s + 1u], ties = state[s + 6u];
        const uint selectedCount = min(state[s + 2u], K);
        const uint listCount = last >= 1u ? state[s + 3u + (last & 1u)] : 0xFFFFFFFFu;
        const bool fromList = listCount <= C;
        const uint count = fromList ? listCount : TOPK_N;
        const uint listBase = ((last & 1u) * TOPK_ROWS + row) * C * 2u;
        const uint rowBase = viewOffset(TOPK_ROW_VIEW, row);
        if (lid == 0u) sSlots = selectedCount;
        for (uint i = lid; i < selectedCount; i += 256u) {
            sKey[0][i] = selected[(row * K + i) * 2u];
            sIdx[i] = selected[(row * K + i) * 2u + 1u];
        }
        // The need-th smallest index among the elements equal to T, by a radix pass per 11-bit digit of
        // the index (all of them when every tie is needed).
        uint lastIndex = 0xFFFFFFFFu;
        if (need < ties) {
            uint prefix = 0u, left = need;
            for (int shift = 22; shift >= 0; shift -= 11) {
                for (uint i = lid; i < SELECT_BINS; i += 256u) sBins[i] = 0u;
                barrier();
                const uint above = uint(shift) + 11u;
                for (uint i = lid; i < count; i += 256u) {
                    uint key, idx;
                    sourceEntry(fromList, listBase, rowBase, i, key, idx);
                    if (key == T && (above >= 32u || (idx >> above) == (prefix >> above)))
                        atomicAdd(sBins[(idx >> uint(shift)) & 0x7FFu], 1u);
                }
                findBucket(left);
                prefix |= sFoundBucket << uint(shift);
                left -= sFoundBefore;
                barrier();
            }
            lastIndex = prefix;
        }
        barrier();
        // Candidates below T (those above the prefix's last digit were selected by the passes), then ties.
        const int beforeLast = int(D) - 2;
        for (uint i = lid; i < count; i += 256u) {
            uint key, idx;
            sourceEntry(fromList, listBase, rowBase, i, key, idx);
            if ((key < T && matchThrough(key, T, beforeLast)) || (key == T && idx <= lastIndex)) take(key, idx);
        }
        barrier();
        const uint P2 = TOPK_T;  // a power of 2 >= K: the sorted segment
        for (uint i = K + lid; i < P2; i += 256u) {
            sKey[0][i] = 0xFFFFFFFFu;
            sIdx[i] = 0xFFFFFFFFu;
        }
        barrier();
        sortSegments(P2);
        // Output element of rank i: outer * K * inner + i * inner + (row % inner).
        const uint inner = P(10), indexWords = P(11);
        const uint outBase = (row / inner) * K * inner + row % inner;
        for (uint i = lid; i < K; i += 256u) {
            const uint idx = sIdx[i], e = outBase + i * inner;
            indicesOut[e * indexWords] = idx;
            if (indexWords == 2u) indicesOut[e * 2u + 1u] = 0u;
            const uint bits = LOAD_VALUE(inputWords, rowBase + idx * TOPK_AXIS_STRIDE).x;
#if VALUE_BITS == 32
            values[e] = bits;
#else
            // Neighbouring values of other rows may share the word: change only this value's bits.
            const uint per = 32u / uint(VALUE_BITS), shift = (e % per) * uint(VALUE_BITS);
            const uint mask = ((1u << uint(VALUE_BITS)) - 1u) << shift;
            atomicAnd(values[e / per], ~mask | (bits << shift));
            atomicOr(values[e / per], bits << shift);
#endif
        }
        barrier();
    }
}
