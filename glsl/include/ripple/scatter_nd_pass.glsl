// SPDX-License-Identifier: MIT
// ScatterND's scatter pass (the copy pass ran before it): one thread per updates element writes it to
// the slice its index tuple selects, or with SCATTER_REDUCE combines it with what is there
// (ripple/combine.glsl). Out-of-range tuples are dropped and flagged in status[0].
// Params: [0] updates count, [1] slice size, [2] q, [3..10] sizes of the q indexed dims,
// [11..18] their output pitches, [19..35] indices view, [36..52] updates view, [53..54] group order
// (ORDERED_GROUP), [55] the reduction (ScatterReduction: 1 ADD, 2 MUL, 3 MAX, 4 MIN; read with
// SCATTER_REDUCE only).
// Bindings (ripple/scatter_pass.glsl): 1 indices, 2 updates, 3 output (packed), 4 status.
#define SCATTER_REDUCTION_PARAM 55u
#include "ripple/scatter_pass.glsl"
#include "ripple/scatter_nd_tuple.glsl"

void main() {
    const uint slice = P(1);
    const uint count = countedUnits(P(0), slice); // the first tuples' slices, with a CountTensor
    const uint q = P(2);
    const uint stride = pc.groupCount * gl_WorkGroupSize.x;
    for (uint e = ORDERED_GROUP(53u) * gl_WorkGroupSize.x + gl_LocalInvocationID.x; e < count; e += stride) {
        uint tuple = e / slice;
        uint within = e % slice;
        uint target = within;
        if (!addTupleOffset(tuple, q, target)) {
            if (within == 0u) atomicOr(status[0], 1u);
            continue;
        }
        SCATTER_WRITE(target, LOAD_ELEM(updates, viewOffset(36u, e)));
    }
}
