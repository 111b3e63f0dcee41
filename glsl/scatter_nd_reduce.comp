// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// ScatterND's scatter pass with a reduction (ADD, MUL, MAX, MIN), each update combined with its target
// (DTYPE: the data type; ripple/combine.glsl). ripple/scatter_nd_pass.glsl.
#define SCATTER_REDUCE
#include "ripple/dtype_elem.glsl"
#include "ripple/scatter_nd_pass.glsl"
