// SPDX-License-Identifier: MIT
#version 450
// A user kernel for the D3D12 tests on vkd3d: y = x * mul + add over `count` words, the computation of the
// DXBC fixture test/data/d3d12/affine_u32_cs50.dxbc (vkd3d compiles no HLSL, so that fixture stands in for
// this kernel's HLSL there), with the same interface: t0 read, u1 written, 12 bytes of root constants.
layout(local_size_x = 64) in;
layout(push_constant) uniform PC { uint count; uint mul; uint add; } pc;
layout(std430, binding = 0) readonly buffer Source { uint x[]; } source;
layout(std430, binding = 1) writeonly buffer Destination { uint y[]; } destination;

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i < pc.count) destination.y[i] = source.x[i] * pc.mul + pc.add;
}
