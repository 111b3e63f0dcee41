// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// ScatterElements' FLOAT32 ADD pass for a small output with many updates per target: sums per workgroup
// in shared memory first (ripple/scatter_shared_add.glsl), then ripple/scatter_elements_pass.glsl.
#define SCATTER_REDUCE
#define SCATTER_SHARED
#include "ripple/dtype_elem.glsl"
#include "ripple/scatter_elements_pass.glsl"
