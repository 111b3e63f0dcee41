// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// ScatterElements along the last axis, copy and scatter fused, NONE (ELEM: the element size):
// ripple/scatter_elements_rows.glsl.
#include "ripple/scatter_elements_rows.glsl"
