# SPDX-License-Identifier: MIT
# Fails if the library defines a global symbol named like a Vulkan function or a volk function.
execute_process(COMMAND ${NM} -g --defined-only ${LIB} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nm failed on ${LIB}")
endif()
string(REGEX MATCHALL "[^\n]* [A-Za-z] (vk|volk)[A-Za-z0-9_]*" clashes "${symbols}")
if(clashes)
    message(FATAL_ERROR "ripple defines symbols an engine's Vulkan loader or volk would clash with:\n${clashes}")
endif()
message(STATUS "no vk* or volk* symbols in ${LIB}")
