// SPDX-License-Identifier: MIT
#version 450
// The particles sample's last pass: one pixel per grid cell, coloured by the square root of its density
// relative to the densest cell (the TopK's first value), with a ring around each of the K densest cells.
// Integer arithmetic only (the float square root is a first guess, corrected exactly), so the CPU model
// reproduces the image bit for bit.
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform PC {
    uint width, height;
    uint k;          // cells the TopK selected (at most 1024)
    uint floatMass;  // 1: the grid holds FLOAT32 (whole units count), 0: INT32
} pc;
layout(std430, binding = 0) readonly buffer Grid { uint density[]; } grid;
layout(std430, binding = 1) readonly buffer TopValues { uint value[]; } topValues;
layout(std430, binding = 2) readonly buffer TopIndices { uint index[]; } topIndices;
layout(std430, binding = 3) writeonly buffer Image { uint rgba[]; } image;

uint units(uint bits) { // a density in whole units
    return pc.floatMass != 0u ? uint(max(uintBitsToFloat(bits), 0.0)) : uint(max(int(bits), 0));
}

uint isqrt(uint x) { // floor(sqrt(x)), exact
    uint r = min(uint(sqrt(float(x))), 65535u);
    while (r * r > x) --r;
    while (r < 65535u && (r + 1u) * (r + 1u) <= x) ++r;
    return r;
}

// The K densest cells' (x, y) whose ring can touch this workgroup's 16 x 16 tile: most tiles have none.
shared ivec2 marks[1024];
shared uint markCount;

void main() {
    const uvec2 xy = gl_GlobalInvocationID.xy;
    if (gl_LocalInvocationIndex == 0u) markCount = 0u;
    barrier();
    const ivec2 low = ivec2(gl_WorkGroupID.xy * 16u) - 3, high = low + 22; // the tile widened by the ring
    for (uint j = gl_LocalInvocationIndex; j < pc.k; j += 256u) {
        const uint at = topIndices.index[j];
        const ivec2 m = ivec2(at % pc.width, at / pc.width);
        if (all(greaterThanEqual(m, low)) && all(lessThan(m, high))) marks[atomicAdd(markCount, 1u)] = m;
    }
    barrier();
    if (xy.x >= pc.width || xy.y >= pc.height) return;
    const uint cell = xy.y * pc.width + xy.x;
    const uint d = units(grid.density[cell]);
    const uint top = max(isqrt(units(topValues.value[0])), 1u);
    const uint t = min(isqrt(d) * 765u / top, 765u); // black, red, yellow, white
    uvec3 c = d == 0u ? uvec3(10u, 12u, 30u) : uvec3(min(t, 255u), clamp(t, 255u, 510u) - 255u, max(t, 510u) - 510u);
    for (uint j = 0u; j < markCount; ++j) { // in any order: every ring has one colour
        const ivec2 delta = abs(ivec2(xy) - marks[j]);
        if (max(delta.x, delta.y) == 3) c = uvec3(0u, 255u, 255u);
    }
    image.rgba[cell] = c.r | (c.g << 8u) | (c.b << 16u) | (255u << 24u);
}
