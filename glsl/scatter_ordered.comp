// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// The deterministic mode's last pass with a reduction (DTYPE: the data type): ripple/scatter_ordered.glsl.
#include "ripple/dtype_elem.glsl"
#include "ripple/scatter_ordered.glsl"
