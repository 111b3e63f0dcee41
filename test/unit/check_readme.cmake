# SPDX-License-Identifier: MIT
# Fails unless README.md shows samples/readme/main.cpp's code (between its readme markers) verbatim, so the
# README's code is the code CI compiles under -Werror -fno-exceptions -fno-rtti and runs.
# -DREADME= -DSAMPLE=
file(READ ${SAMPLE} sample)
string(REGEX MATCH "// \\[readme-begin\\]\n(.*)// \\[readme-end\\]" found "${sample}")
if(NOT found)
    message(FATAL_ERROR "${SAMPLE}: no // [readme-begin] ... // [readme-end] block")
endif()
set(code "${CMAKE_MATCH_1}")
file(READ ${README} readme)
string(FIND "${readme}" "```cpp\n${code}```" at)
if(at EQUAL -1)
    message(FATAL_ERROR "README.md does not show ${SAMPLE}'s readme block verbatim in a ```cpp block: "
                        "copy it from there")
endif()
message(STATUS "README.md shows ${SAMPLE}'s code verbatim")
