// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// ScatterND's scatter pass, each update written (ELEM: the element size class). ripple/scatter_nd_pass.glsl.
#include "ripple/scatter_nd_pass.glsl"
