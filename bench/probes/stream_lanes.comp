// SPDX-License-Identifier: MIT
#version 450
// The streaming probe's kernel (stream_probe.cpp): TopK's lane access patterns with no selection, so that
// what bounds them shows apart from what the lists cost (bench/NOTES.md, issue 59). Invocation x reads part
// x / rows of row x % rows, L elements, B loads a batch with the next batch in flight (as topk_lane.comp),
// folds each element into a running minimum through `work` dependent multiply-adds (0: the minimum alone),
// and writes that minimum. The rows are those of an (outer, n, inner) tensor along its middle axis: element
// j of row r at (r / inner) * n * inner + r % inner + j * inner (inner = 1: rows of neighbouring elements).
// PAT_lanes: each invocation loads its own part (topk_lane). PAT_staged: the workgroup loads its parts'
// batches together, element after element of one part, into shared memory, a barrier each side of a batch
// (topk_lane_staged; inner must be 1). PAT_quads: as staged, 16-byte loads (n and L multiples of 4).
// PAT_direct4: as lanes, each invocation its own part, by 16-byte loads (inner 1, n and L multiples of 4).
#extension GL_EXT_control_flow_attributes : enable
layout(local_size_x = 256) in;
layout(push_constant) uniform PC { uint n; uint rows; uint inner; uint L; uint parts; uint work; } pc;
#if defined(PAT_quads) || defined(PAT_direct4)
layout(std430, binding = 0) readonly buffer Input { uvec4 quads[]; };
#else
layout(std430, binding = 0) readonly buffer Input { uint words[]; };
#endif
layout(std430, binding = 1) writeonly buffer Out { uint outs[]; };
#if defined(B_b32)
#define B 32u
#elif defined(B_b16)
#define B 16u
#else
#define B 8u
#endif
#define GROUP 256u

uint gAcc = 0xFFFFFFFFu;
void fold(uint v) {
    uint t = v;
    for (uint i = 0u; i < pc.work; ++i) t = t * 1664525u + 1013904223u;
    gAcc = min(gAcc, t);
}

#if defined(PAT_lanes)
void main() {
    const uint x = gl_GlobalInvocationID.x;
    if (x >= pc.rows * pc.parts) return;
    const uint row = x % pc.rows, part = x / pc.rows, stride = pc.inner;
    const uint base = (row / pc.inner) * pc.n * pc.inner + row % pc.inner;
    const uint begin = part * pc.L, end = min(pc.n, begin + pc.L);
    uint raw[B];
    [[unroll]] for (uint u = 0u; u < B; ++u) raw[u] = words[base + min(begin + u, end - 1u) * stride];
    for (uint j0 = begin; j0 < end; j0 += B) {
        uint cur[B] = raw;
        [[unroll]] for (uint u = 0u; u < B; ++u) raw[u] = words[base + min(j0 + B + u, end - 1u) * stride];
        [[unroll]] for (uint u = 0u; u < B; ++u)
            if (j0 + u < end) fold(cur[u]);
    }
    outs[x] = gAcc;
}
#elif defined(PAT_direct4)
void main() {
    const uint x = gl_GlobalInvocationID.x;
    if (x >= pc.rows * pc.parts) return;
    const uint row = x % pc.rows, part = x / pc.rows;
    const uint base = row * pc.n, begin = part * pc.L, end = min(pc.n, begin + pc.L);
    uvec4 raw[B / 4u];
    [[unroll]] for (uint v = 0u; v < B / 4u; ++v) {
        const uint j = begin + 4u * v;
        raw[v] = j < end ? quads[(base + j) >> 2u] : uvec4(0u);
    }
    for (uint j0 = begin; j0 < end; j0 += B) {
        uvec4 cur[B / 4u] = raw;
        [[unroll]] for (uint v = 0u; v < B / 4u; ++v) {
            const uint j = j0 + B + 4u * v;
            raw[v] = j < end ? quads[(base + j) >> 2u] : uvec4(0u);
        }
        [[unroll]] for (uint u = 0u; u < B; ++u)
            if (j0 + u < end) fold(cur[u / 4u][u % 4u]);
    }
    outs[x] = gAcc;
}
#else
#define PITCH (B + 1u)
shared uint sFirst[GROUP];
shared uint sLength[GROUP];
shared uint sStage[GROUP * PITCH];
#if defined(PAT_quads)
#define LOADS (B / 4u)
uvec4 stageLoad(uint u, uint j0) {
    const uint q = u * GROUP + gl_LocalInvocationID.x, s = q / (B / 4u), j = j0 + (q % (B / 4u)) * 4u;
    return j < sLength[s] ? quads[(sFirst[s] + j) >> 2u] : uvec4(0u);
}
#else
#define LOADS B
uint stageLoad(uint u, uint j0) {
    const uint f = u * GROUP + gl_LocalInvocationID.x, s = f / B, j = j0 + f % B;
    return j < sLength[s] ? words[sFirst[s] + j] : 0u;
}
#endif
void main() {
    const uint l = gl_LocalInvocationID.x, x = gl_WorkGroupID.x * GROUP + l;
    const bool live = x < pc.rows * pc.parts;
    const uint row = x % pc.rows, part = x / pc.rows;
    const uint begin = part * pc.L, length = live ? min(pc.n, begin + pc.L) - begin : 0u;
    sFirst[l] = row * pc.n + begin;
    sLength[l] = length;
    barrier();
#if defined(PAT_quads)
    uvec4 raw[LOADS];
#else
    uint raw[LOADS];
#endif
    [[unroll]] for (uint u = 0u; u < LOADS; ++u) raw[u] = stageLoad(u, 0u);
    for (uint j0 = 0u; j0 < pc.L; j0 += B) {
#if defined(PAT_quads)
        [[unroll]] for (uint u = 0u; u < LOADS; ++u) {
            const uint q = u * GROUP + l, at = (q / (B / 4u)) * PITCH + (q % (B / 4u)) * 4u;
            [[unroll]] for (uint e = 0u; e < 4u; ++e) sStage[at + e] = raw[u][e];
        }
#else
        [[unroll]] for (uint u = 0u; u < LOADS; ++u) {
            const uint f = u * GROUP + l;
            sStage[(f / B) * PITCH + f % B] = raw[u];
        }
#endif
        barrier();
        [[unroll]] for (uint u = 0u; u < LOADS; ++u) raw[u] = stageLoad(u, j0 + B);
        [[unroll]] for (uint u = 0u; u < B; ++u)
            if (j0 + u < length) fold(sStage[l * PITCH + u]);
        barrier();
    }
    if (live) outs[x] = gAcc;
}
#endif
