// SPDX-License-Identifier: MIT
// ScatterND's scatter pass (the copy pass ran before it): one thread per updates element writes it to
// the slice its index tuple selects, or with SCATTER_REDUCE combines it with what is there
// (ripple/combine.glsl). Out-of-range tuples are dropped and flagged in status[0].
// Params: [0] updates count, [1] slice size, [2] q, [3..10] sizes of the q indexed dims,
// [11..18] their output pitches, [19..35] indices view, [36..52] updates view, [53..54] group order
// (ORDERED_GROUP), [55] the reduction (ScatterReduction: 1 ADD, 2 MUL, 3 MAX, 4 MIN; read with
// SCATTER_REDUCE only).
// Bindings: 1 indices, 2 updates, 3 output (packed), 4 status.
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/index.glsl"
#define OUT_BINDING 3
#if defined(SCATTER_REDUCE)
#include "ripple/combine.glsl"
#define SCATTER_WRITE(e, bits) combineElement(e, bits, P(55u))
#else
#include "ripple/store.glsl"
#define SCATTER_WRITE(e, bits) storeElement(e, bits)
#endif

layout(std430, binding = 1) readonly buffer Indices { uint indices[]; };
layout(std430, binding = 2) readonly buffer Updates { uint updates[]; };
layout(std430, binding = 4) buffer Status { uint status[]; };
#include "ripple/counted.glsl"

void main() {
    const uint slice = P(1);
    const uint count = countedUnits(P(0), slice); // the first tuples' slices, with a CountTensor
    const uint q = P(2);
    const uint stride = pc.groupCount * gl_WorkGroupSize.x;
    for (uint e = ORDERED_GROUP(53u) * gl_WorkGroupSize.x + gl_LocalInvocationID.x; e < count; e += stride) {
        uint tuple = e / slice;
        uint within = e % slice;
        uint target = within;
        bool inRange = true;
        for (uint j = 0u; j < q; ++j) {
            uint r;
            inRange = resolveIndex(LOAD_INDEX(indices, viewOffset(19u, tuple * q + j)), P(3u + j), r);
            if (!inRange) break;
            target += r * P(11u + j);
        }
        if (!inRange) {
            if (within == 0u) atomicOr(status[0], 1u);
            continue;
        }
        SCATTER_WRITE(target, LOAD_ELEM(updates, viewOffset(36u, e)));
    }
}
