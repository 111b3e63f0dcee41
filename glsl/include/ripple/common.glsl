// SPDX-License-Identifier: MIT
// Shared by every kernel: the params block, tensor views and element access through 32-bit words.
//
// Binding 0 of every kernel is the operator's params buffer (uint words written by core's planner);
// push constant `paramsBase` is where this dispatch's block starts in it.
#extension GL_EXT_control_flow_attributes : enable

// The workgroup's invocations as a uint (RIPPLE_GROUP_SIZE: 256, or 128 in the small-device forms).
#define GROUP_SIZE uint(RIPPLE_GROUP_SIZE)

#if defined(RIPPLE_SMALL)
// The small-device variants (cmake/RippleKernels.cmake) read params from a uniform buffer: Vulkan
// guarantees only 4 storage buffers per stage, and uniform buffers are counted apart. 16 KiB
// (maxUniformBufferRange's minimum); the runtime binds a params buffer of exactly that size.
layout(std140, binding = 0) uniform Params { uvec4 paramQuads[1024]; };
#define PARAM_WORD(i) paramQuads[(i) >> 2u][(i)&3u]
#else
layout(std430, binding = 0) readonly buffer Params { uint params[]; };
#define PARAM_WORD(i) params[(i)]
#endif

#if defined(PARAMS_SHARED)
// A kernel on a latency-bound path defines PARAMS_SHARED (its block's length in words, at most its
// local_size_x) and calls loadParams() first in main: the block comes in one round of loads, into shared
// memory. Read from the buffer, a kernel's first steps were chains of dependent loads, each a round trip to
// L2 with every SM's L1 cold (the row count, a view's rank, its sizes, then the input: H100, about 0.7 us
// each; bench/NOTES.md, issue 21's ninth session). The planner keeps such a block within PARAMS_SHARED
// words and pads it to that length, so that the copy reads inside the buffer (no length query: glslang's
// HLSL front end, which the tests' HLSL round trip uses, returns a ByteAddressBuffer's length in words).
shared uint sParams[PARAMS_SHARED];
void loadParams() {
    const uint i = gl_LocalInvocationID.x;
    if (i < PARAMS_SHARED) sParams[i] = PARAM_WORD(pc.paramsBase + i);
    barrier();
}
#define P(i) sParams[(i)]
#else
#define P(i) PARAM_WORD(pc.paramsBase + (i))
#endif

// A phase mark for the profiler (ripple/profile.glsl); nothing outside the PROFILE permutation.
#ifndef RIPPLE_MARK
#define RIPPLE_MARK(n)
#endif

// A tensor view in params: [rank, sizes[8], strides[8]] (17 words), strides in elements.
#define VIEW_WORDS 17u

// Element offset (through the view's strides) of the element at packed row-major position `linear`. Rank 0
// marks a packed view (core::appendPackedView): the offset is `linear`, without a division per dimension.
uint viewOffset(uint view, uint linear) {
    uint rank = P(view);
    if (rank == 0u) return linear;
    uint off = 0u;
    for (uint d = rank; d > 0u; --d) {
        uint size = P(view + d);
        off += (linear % size) * P(view + 8u + d);
        linear /= size;
    }
    return off;
}

// Element bits are carried as uvec2(low word, high word); the high word is 0 below 64 bits.
// LOAD_Bxx(buf, e): read element e of a uint[] buffer holding elements of xx bits.
#define LOAD_B8(buf, e) uvec2((buf[(e) >> 2u] >> (((e)&3u) * 8u)) & 0xFFu, 0u)
#define LOAD_B16(buf, e) uvec2((buf[(e) >> 1u] >> (((e)&1u) * 16u)) & 0xFFFFu, 0u)
#define LOAD_B32(buf, e) uvec2(buf[(e)], 0u)
#define LOAD_B64(buf, e) uvec2(buf[2u * (e)], buf[2u * (e) + 1u])

#if defined(ELEM_b8)
#define ELEM_BITS 8
#define LOAD_ELEM LOAD_B8
#elif defined(ELEM_b16)
#define ELEM_BITS 16
#define LOAD_ELEM LOAD_B16
#elif defined(ELEM_b32)
#define ELEM_BITS 32
#define LOAD_ELEM LOAD_B32
#elif defined(ELEM_b64)
#define ELEM_BITS 64
#define LOAD_ELEM LOAD_B64
#endif

// The workgroup whose share of the work this one does: gl_WorkGroupID.x permuted by the params words at
// `at` ([multiplier, offset]: (id * multiplier + offset) % groupCount, multiplier coprime to groupCount).
// core plans the identity (1, 0); tests plan shuffles (core::groupOrderSeedForTests) to run the scatters
// under other workgroup orders. Needs the push constant `groupCount`.
#define ORDERED_GROUP(at) ((gl_WorkGroupID.x * P(at) + P((at) + 1u)) % pc.groupCount)
