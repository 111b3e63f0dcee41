// SPDX-License-Identifier: MIT
// What both scatters' element passes (ripple/scatter_nd_pass.glsl, ripple/scatter_elements_pass.glsl) open
// with: the workgroup size, the push constants, SCATTER_WRITE(e, bits) (a store, or with SCATTER_REDUCE a
// combine by the reduction in params[SCATTER_REDUCTION_PARAM]; SCATTER_SHARED brings its own from
// ripple/scatter_shared_add.glsl), and the bindings: 1 indices, 2 updates, 3 output (packed), 4 status.
layout(local_size_x = RIPPLE_GROUP_SIZE) in;  // 256, or 128 in .small (RippleKernels.cmake)
// groupCount: the workgroups dispatched along x (HLSL has no gl_NumWorkGroups).
layout(push_constant) uniform PC { uint paramsBase; uint arg; uint groupCount; } pc;
#include "ripple/common.glsl"
#include "ripple/index.glsl"
#define OUT_BINDING 3
#if defined(SCATTER_SHARED)  // MODE_portable: binding 3 holds the partial sums instead of the output
#if defined(MODE_fast)
#include "ripple/combine.glsl"
#endif
#include "ripple/scatter_shared_add.glsl"
#elif defined(SCATTER_REDUCE)
#include "ripple/combine.glsl"
#define SCATTER_WRITE(e, bits) combineElement(e, bits, P(SCATTER_REDUCTION_PARAM))
#else
#include "ripple/store.glsl"
#define SCATTER_WRITE(e, bits) storeElement(e, bits)
#endif

layout(std430, binding = 1) readonly buffer Indices { uint indices[]; };
layout(std430, binding = 2) readonly buffer Updates { uint updates[]; };
layout(std430, binding = 4) buffer Status { uint status[]; };
#include "ripple/counted.glsl"
