# SPDX-License-Identifier: MIT
# Writes the PROFILE permutation's source of a kernel (cmake -P): SOURCE with ripple/profile.glsl after its
# #version line, its main renamed ripple_kernel_main, and ripple/profile_main.glsl's main at the end.
file(READ ${SOURCE} text)
string(REGEX MATCH "^[^#]*#version[^\n]*\n" head "${text}")
string(LENGTH "${head}" head_length)
string(SUBSTRING "${text}" ${head_length} -1 rest)
string(REGEX MATCHALL "\n" newlines "${head}")
list(LENGTH newlines head_lines)
math(EXPR next_line "${head_lines} + 1")
file(WRITE ${OUT} "${head}#extension GL_GOOGLE_include_directive : require
#include \"ripple/profile.glsl\"
#define main ripple_kernel_main
#line ${next_line}
${rest}
#undef main
#include \"ripple/profile_main.glsl\"
")
