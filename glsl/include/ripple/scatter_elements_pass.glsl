// SPDX-License-Identifier: MIT
// ScatterElements' scatter pass (the copy pass ran before it): one thread per updates element writes it
// at its own coordinates with the Axis coordinate replaced by its index, or with SCATTER_REDUCE combines it
// with what is there (ripple/combine.glsl). Out-of-range indices are dropped and flagged in status[0].
// Params: [0] updates count, [1] axis, [2] input size at axis, [3..19] indices view (its sizes are also
// the updates' sizes), [20..36] updates view, [37..44] output pitch per dimension, [45..46] group order
// (ORDERED_GROUP), [47] the reduction (ScatterReduction: 1 ADD, 2 MUL, 3 MAX, 4 MIN; read with
// SCATTER_REDUCE only), [48] the output's element count (SCATTER_SHARED only: ripple/scatter_shared_add.glsl).
// Bindings (ripple/scatter_pass.glsl): 1 indices, 2 updates, 3 output (packed), 4 status.
#define SCATTER_REDUCTION_PARAM 47u
#include "ripple/scatter_pass.glsl"

void main() {
    const uint count = countedUnits(P(0), 1u); // the first updates, with a CountTensor
    const uint axis = P(1);
    const uint axisSize = P(2);
    const uint rank = P(3);
    const uint stride = pc.groupCount * gl_WorkGroupSize.x;
#if defined(SCATTER_SHARED)
    sharedSumsBegin();
#endif
    for (uint e = ORDERED_GROUP(45u) * gl_WorkGroupSize.x + gl_LocalInvocationID.x; e < count; e += stride) {
        uint linear = e;
        uint offIndices = 0u, offUpdates = 0u, target = 0u;
        for (uint d = rank; d > 0u; --d) {
            uint size = P(3u + d);
            uint c = linear % size;
            linear /= size;
            offIndices += c * P(3u + 8u + d);
            offUpdates += c * P(20u + 8u + d);
            if (d - 1u != axis) target += c * P(37u + d - 1u);
        }
        uint r;
        if (!resolveIndex(LOAD_INDEX(indices, offIndices), axisSize, r)) {
            atomicOr(status[0], 1u);
            continue;
        }
        SCATTER_WRITE(target + r * P(37u + axis), LOAD_ELEM(updates, offUpdates));
    }
#if defined(SCATTER_SHARED)
    sharedSumsEnd();
#endif
}
