// SPDX-License-Identifier: MIT
#version 450
// The particles sample's frame step, the frame's last command: advances the frame number and the live
// particle count on the GPU for the next frame, so that the recorded frame replays unchanged (the host
// steps frame 0). Each frame some particles expire from the end of the live range [0, alive) and some spawn
// after the survivors; `alive` is then the next frame's splat's and fastest-particles TopK's CountTensor,
// and its advect's group count the indirect dispatch's. Last in the frame, it waits only for this frame's
// readers of `alive` and runs beside the TopKs, where first it would have been a level of its own.
// One invocation; scene.cpp's tick() is the same step on the CPU.
layout(local_size_x = 1) in;
layout(push_constant) uniform PC {
    uint capacity; // particles the buffers hold
    uint churn;    // at most this many expire, and at most this many spawn, each frame
} pc;
layout(std430, binding = 0) buffer Alive { uint alive[]; };      // [0] live particles
// [0] frame, [1] survivors, [2..4] advect's groups, [5] the live count of the frame that just ran
layout(std430, binding = 1) buffer Frame { uint frameState[]; };

uint hash(uint x) { // advect.comp's mix
    x ^= x >> 16u;
    x *= 0x7FEB352Du;
    x ^= x >> 15u;
    x *= 0x846CA68Bu;
    x ^= x >> 16u;
    return x;
}

void main() {
    const uint frame = frameState[0] + 1u;
    const uint before = alive[0];
    frameState[5] = before;
    const uint survivors = before - min(hash(2u * frame + 1u) % (pc.churn + 1u), before);
    const uint now = min(survivors + hash(2u * frame + 2u) % (pc.churn + 1u), pc.capacity);
    alive[0] = now;
    frameState[0] = frame;
    frameState[1] = survivors;
    frameState[2] = (now + 255u) / 256u;
    frameState[3] = 1u;
    frameState[4] = 1u;
}
