// SPDX-License-Identifier: MIT
#version 450
// The engine's own kernel (ripple_add_kernels), recorded by ripple into the engine's command buffer: adds
// `amount` to `count` floats in place.
layout(local_size_x = 64) in;
layout(push_constant) uniform PC { uint count; float amount; } pc;
layout(std430, binding = 0) buffer Values { float x[]; } values;

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i < pc.count) values.x[i] += pc.amount;
}
