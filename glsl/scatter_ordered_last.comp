// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// The deterministic mode's last pass without a reduction (ELEM: the element size): each target's last
// update in row-major order wins. ripple/scatter_ordered.glsl.
#define SCATTER_LAST
#include "ripple/scatter_ordered.glsl"
