// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// Radix sort pass, step 3, values only (ripple/pair_sort_scatter.glsl): the small-device variants' second
// half, reading the keys its first half has not yet moved.
#define PAIR_SORT_VALUES
#include "ripple/pair_sort_scatter.glsl"
