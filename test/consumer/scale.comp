// SPDX-License-Identifier: MIT
#version 450
// The consumer's own kernel (ripple_add_kernels): multiplies `count` floats by `factor` rounded to
// BFLOAT16 as ripple rounds (ripple/bfloat16.glsl, the public include: the consumer's build must find it),
// in place.
#extension GL_GOOGLE_include_directive : require
#include "ripple/bfloat16.glsl"
layout(local_size_x = 64) in;
layout(push_constant) uniform PC { uint count; float factor; } pc;
layout(std430, binding = 0) buffer Values { float x[]; } values;

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i < pc.count) values.x[i] *= rippleBFloat16ToFloat(rippleFloatToBFloat16(pc.factor));
}
