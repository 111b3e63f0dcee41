// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// ScatterElements' scatter pass, each update written (ELEM: the element size class).
// ripple/scatter_elements_pass.glsl.
#include "ripple/scatter_elements_pass.glsl"
