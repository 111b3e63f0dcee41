// SPDX-License-Identifier: MIT
#version 450
// The particles sample's first pass: moves each particle one frame and writes the grid cell it lands in,
// the IndicesTensor of the ScatterElements ADD that splats the masses. Integer (24.8 fixed-point)
// arithmetic only, so the CPU model (model.cpp) reproduces every step exactly.
layout(local_size_x = 256) in;
layout(push_constant) uniform PC {
    uint count;           // particles
    int width, height;    // the grid, in cells (a cell is 256 position units)
    uint frame;           // seeds the jitter
    // Where particle i is pulled this frame: attractor[i % 3].xy, in position units. (An array in push
    // constants needs 16-byte elements for the D3D12 form: HLSL's constant-buffer packing.)
    ivec4 attractor[3];
} pc;
layout(std430, binding = 0) buffer Particles { ivec4 state[]; } particles; // (x, y, vx, vy)
layout(std430, binding = 1) writeonly buffer Cells { int cell[]; } cells;   // y * width + x

uint hash(uint x) { // a 32-bit integer mix (wraps identically on the CPU)
    x ^= x >> 16u;
    x *= 0x7FEB352Du;
    x ^= x >> 15u;
    x *= 0x846CA68Bu;
    x ^= x >> 16u;
    return x;
}

// One axis: pull toward `target`, drag, jitter (`scale` times, so clouds span as many cells at any grid
// size), move, bounce off [0, limit].
void axis(inout int p, inout int v, int target, int limit, uint noise, int scale) {
    v += (target - p) >> 11;
    v -= v >> 5;
    v += (int(noise & 63u) - 32) * scale;
    p += v;
    if (p < 0) { p = -p; v = -v; }
    if (p > limit) { p = 2 * limit - p; v = -v; }
    p = clamp(p, 0, limit);
}

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) return;
    ivec4 s = particles.state[i];
    const ivec2 target = pc.attractor[i % 3u].xy;
    const uint noise = hash(i * 0x9E3779B9u + pc.frame);
    const int scale = max(1, max(pc.width, pc.height) >> 8);
    axis(s.x, s.z, target.x, pc.width * 256 - 1, noise, scale);
    axis(s.y, s.w, target.y, pc.height * 256 - 1, noise >> 8u, scale);
    particles.state[i] = s;
    cells.cell[i] = (s.y >> 8) * pc.width + (s.x >> 8);
}
