// SPDX-License-Identifier: MIT
#version 450
// The frame-loop fuzzer's kernel (fuzz_frame_loop.cpp): writes `value` to the first `count` words of its
// buffer that its invocations reach (x only: workgroups in y and z write the same words again).
layout(local_size_x = 64) in;
layout(push_constant) uniform PC { uint count; uint value; } pc;
layout(std430, binding = 0) writeonly buffer Data { uint words[]; } data;

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i < pc.count) data.words[i] = pc.value;
}
