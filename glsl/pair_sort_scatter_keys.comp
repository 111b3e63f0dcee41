// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// Radix sort pass, step 3, keys only (ripple/pair_sort_scatter.glsl): the small-device variants' first half.
#define PAIR_SORT_KEYS
#include "ripple/pair_sort_scatter.glsl"
