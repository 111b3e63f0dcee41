// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// Sampled radix-select TopK, dispatch 1 (topk_select.glsl), for rows whose filter does not sample them
// itself (core/topk_select.cpp): a workgroup per row (several for few long rows) finds tau, the m-th
// smallest rank among S samples of the row (topk_sample.glsl; S <= SAMPLE_SLOTS), and clears the row's
// counts. The samples are loaded once, many loads in flight per invocation, into shared memory; the 8-bit
// histogram steps of topk_entries.glsl run there. Bindings: 1 input, 2 state, 3 the rows' sample slots (S
// each) and 4 a counter per row (zeroed scratch), both used only with SELECT_SAMPLE_PARTS > 1.
layout(local_size_x = RIPPLE_GROUP_SIZE) in;
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#define PARAMS_SHARED 64u  // ripple/common.glsl; core/topk_select.cpp keeps the block within it
#include "ripple/common.glsl"
#include "ripple/topk.glsl"

layout(std430, binding = 1) readonly buffer Input { uint inputWords[]; };
layout(std430, binding = 2) writeonly buffer State { uint state[]; };
// With SELECT_SAMPLE_PARTS > 1: written by one workgroup, read by another in the same dispatch (coherent,
// fenced before the arrival counted in binding 4).
layout(std430, binding = 3) coherent buffer Samples { uint samples[]; };
layout(std430, binding = 4) coherent buffer Arrivals { uint arrivals[]; };

#include "ripple/topk_key.glsl"
#include "ripple/topk_select.glsl"
#define SLOTS 256u              // the histogram of topk_entries.glsl's steps (no winners here)
#include "ripple/bitonic.glsl"
#if defined(RIPPLE_SMALL)
#define SAMPLE_SLOTS 2048u      // 8 KiB, within the small forms' 16 KiB (core/topk_select.cpp's small S)
#else
#define SAMPLE_SLOTS 4096u      // 16 KiB
#endif
#define ENTRIES SAMPLE_SLOTS
#include "ripple/topk_entries.glsl"
uint entryIndex(uint e) { return e; }  // no index steps: any sample holding the m-th rank will do

#include "ripple/hash.glsl"
#include "ripple/topk_sample.glsl"

// Rows whose samples are many (SELECT_SAMPLE_PARTS > 1: single long rows) spread them over several
// workgroups: each takes S / parts of them into the row's sample slots, and the row's last workgroup to
// arrive (a counter per row, zeroed scratch that it sets back to zero) loads all S and selects. A chain of
// S * g / 2048 dependent load rounds in one workgroup becomes one round in each.
shared uint sLast;

void main() {
    loadParams();
    const uint S = SELECT_SAMPLES, g = SELECT_SAMPLE_GROUP;
    const uint parts = SELECT_SAMPLE_PARTS, per = S / parts, lid = gl_LocalInvocationID.x;
    rankKeySetup();
    gKeyLowBits = gRankShift;
    for (uint w = gl_WorkGroupID.x; w < TOPK_ROWS * parts; w += pc.groupCount) {
        const uint row = w / parts, first = (w % parts) * per;
        const uint rowBase = viewOffset(TOPK_ROW_VIEW, row);
        if (parts == 1u) {  // uniform
            loadSamples(rowBase);  // phases (PROFILE builds): the samples' loads (here invocation 0's), the
            RIPPLE_MARK(0);        // parts' arrival and the row's samples loaded again (none with one part),
            RIPPLE_MARK(1);        // the rest of the loads, the selection, the state's write
        } else {
            // This part's per * g loads spread over every invocation (item q: sample first + q / g, element
            // q % g of its group), eight in flight each: one round for a single row's 1024. Each sample's
            // minimum gathers in sEntry[0, per) by shared atomicMin, then goes to the row's sample slots.
            for (uint e = lid; e < per; e += GROUP_SIZE) sEntry[e] = 0xFFFFFFFFu;
            barrier();
            const uint items = per * g;
            for (uint q0 = lid; q0 < items; q0 += GROUP_SIZE * 8u) {
                uint k[8];
                [[unroll]] for (uint u = 0u; u < 8u; ++u) {
                    const uint q = min(q0 + u * GROUP_SIZE, items - 1u);
                    k[u] = loadElement(sampleOffset(rowBase, first + q / g, q % g)).x;
                }
                [[unroll]] for (uint u = 0u; u < 8u; ++u)
                    if (q0 + u * GROUP_SIZE < items) atomicMin(sEntry[(q0 + u * GROUP_SIZE) / g], rankKeyOf(k[u]));
            }
            barrier();
            RIPPLE_MARK(0);
            for (uint e = lid; e < per; e += GROUP_SIZE) samples[row * S + first + e] = sEntry[e];
            memoryBarrierBuffer();  // this invocation's samples, before the arrival that publishes them
            barrier();
            if (lid == 0u) {
                sLast = atomicAdd(arrivals[row], 1u) == parts - 1u ? 1u : 0u;
                memoryBarrierBuffer();
            }
            barrier();
            RIPPLE_MARK(1);  // a part that is not its row's last ends here
            if (sLast == 0u) continue;  // uniform
            for (uint i0 = lid; i0 < S; i0 += GROUP_SIZE * 16u) {  // the row's last workgroup: all S samples
                uint k[16];
                [[unroll]] for (uint u = 0u; u < 16u; ++u)
                    k[u] = samples[row * S + min(i0 + u * GROUP_SIZE, S - 1u)];
                [[unroll]] for (uint u = 0u; u < 16u; ++u)
                    if (i0 + u * GROUP_SIZE < S) sEntry[i0 + u * GROUP_SIZE] = k[u];
            }
            if (lid == 0u) arrivals[row] = 0u;  // nobody else touches it in this dispatch
        }
        barrier();
        RIPPLE_MARK(2);
        const uint tau = sampleTau();
        RIPPLE_MARK(3);
        if (lid == 0u) {
            state[row * SELECT_STATE] = tau;
            state[row * SELECT_STATE + 1u] = 0u;
            state[row * SELECT_STATE + 2u] = 0u;
        }
        barrier();
    }
}
