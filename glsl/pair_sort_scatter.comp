// SPDX-License-Identifier: MIT
#version 450
#extension GL_GOOGLE_include_directive : require
// Radix sort pass, step 3: keys and values (ripple/pair_sort_scatter.glsl).
#define PAIR_SORT_KEYS
#define PAIR_SORT_VALUES
#include "ripple/pair_sort_scatter.glsl"
