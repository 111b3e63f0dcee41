// SPDX-License-Identifier: MIT
#version 450
// The particles sample's advect pass: moves each live particle one frame (a particle that spawned this
// frame starts afresh instead) and writes the grid cell it lands in, the IndicesTensor of the
// ScatterElements ADD that splats the masses, and its speed, the fastest-particles TopK's input. The frame
// number and live count come from tick.comp's buffers, the attractors from a table: nothing in the
// recorded commands changes from frame to frame. Dispatched indirectly (tick.comp's group count). Integer
// (24.8 fixed-point) arithmetic only, so the CPU model (model.cpp) reproduces every step exactly.
layout(local_size_x = 256) in;
layout(push_constant) uniform PC {
    uint capacity;     // particles the buffers hold
    int width, height; // the grid, in cells (a cell is 256 position units)
    uint period;       // frames in the attractor table
} pc;
layout(std430, binding = 0) buffer Particles { ivec4 state[]; } particles;   // (x, y, vx, vy)
layout(std430, binding = 1) writeonly buffer Cells { int cell[]; } cells;     // y * width + x
layout(std430, binding = 2) readonly buffer Alive { uint alive[]; };          // tick.comp's
layout(std430, binding = 3) readonly buffer Frame { uint frameState[]; };     // tick.comp's
// Where particle i is pulled in frame f: attractor[(f % period) * 3 + i % 3].xy, in position units.
layout(std430, binding = 4) readonly buffer Attractors { ivec4 attractor[]; };
layout(std430, binding = 5) writeonly buffer Speeds { int speed[]; };          // |vx| + |vy|

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
    if (i >= min(alive[0], pc.capacity)) return;
    const uint frame = frameState[0];
    ivec4 s = particles.state[i];
    if (i >= frameState[1]) { // spawned this frame: at a hashed cell, at rest (scene.cpp's spawnState)
        const uint a = hash(i ^ (frame * 0x2545F491u)), b = hash(a + 1u);
        s = ivec4(int(a % uint(pc.width * 256)), int(b % uint(pc.height * 256)), 0, 0);
    } else {
        const ivec2 target = attractor[(frame % pc.period) * 3u + i % 3u].xy;
        const uint noise = hash(i * 0x9E3779B9u + frame);
        const int scale = max(1, max(pc.width, pc.height) >> 8);
        axis(s.x, s.z, target.x, pc.width * 256 - 1, noise, scale);
        axis(s.y, s.w, target.y, pc.height * 256 - 1, noise >> 8u, scale);
    }
    particles.state[i] = s;
    cells.cell[i] = (s.y >> 8) * pc.width + (s.x >> 8);
    speed[i] = abs(s.z) + abs(s.w);
}
