// SPDX-License-Identifier: MIT
#version 450
// The dispatch floor probe's kernel (dispatch_floor.cpp): the first `count` invocations each follow
// `depth` dependent loads through `chain` (each a different 256-byte block, so none hits the line the last
// one brought into L1) and store where they ended. count 0: a dispatch that does nothing.
#if defined(WG_w32)
layout(local_size_x = 32) in;
#else
layout(local_size_x = 256) in;
#endif
layout(push_constant) uniform PC { uint depth; uint count; } pc;
layout(std430, binding = 0) readonly buffer Chain { uint chain[]; };
layout(std430, binding = 1) writeonly buffer Ends { uint ends[]; };

void main() {
    const uint x = gl_GlobalInvocationID.x;
    if (x >= pc.count) return;
    uint i = x;
    for (uint d = 0u; d < pc.depth; ++d) i = chain[i];
    ends[x] = i;
}
