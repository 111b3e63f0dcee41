// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// ScatterElements along the last axis, copy and scatter fused, with a reduction (DTYPE: the data type, up
// to 32 bits): ripple/scatter_elements_rows.glsl.
#define SCATTER_REDUCE
#include "ripple/dtype_elem.glsl"
#include "ripple/scatter_elements_rows.glsl"
