// SPDX-License-Identifier: MIT
#version 450
// A user kernel for the ripple_add_kernels tests: moves particles by velocity * dt and marks them.
// PERMUTATIONS "DIM:d2,d3" gives advect.d2 and advect.d3 (a third push constant).
layout(local_size_x = 64) in;
layout(push_constant) uniform PC {
    uint count;
    float dt;
#if defined(DIM_d3)
    float damping;
#endif
} pc;
layout(std430, binding = 0) buffer Positions { vec2 p[]; } positions;
layout(std430, binding = 1) readonly buffer Velocities { vec2 v[]; } velocities;
layout(std430, binding = 2) writeonly buffer Stats { uint header[4]; uint touched[]; } stats;

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) return;
#if defined(DIM_d3)
    positions.p[i] += velocities.v[i] * pc.dt * pc.damping;
#else
    positions.p[i] += velocities.v[i] * pc.dt;
#endif
    stats.touched[i] = 1u;
}
