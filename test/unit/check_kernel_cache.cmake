# SPDX-License-Identifier: MIT
# The kernel cache (tools/ripple-embed/kernel_cache.hpp) never changes a result: a variant compiled again
# from the cache is byte for byte what the compile made, and a change to the kernel, to an include it reads,
# to a define or to the compiler misses the cache and gives the new result; the depfile names the output as
# the build does. Run by CTest in a scratch folder.
# -DEMBED= -DGLSLANG= -DSPIRV_VAL= -DSPIRV_OPT= -DWORK=
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/include/lib ${WORK}/tools)
set(cache ${WORK}/cache)
file(WRITE ${WORK}/include/lib/scale.glsl "const uint kScale = 3u;\n")
file(WRITE ${WORK}/include/lib/unused.glsl "const uint kUnused = 1u;\n")
file(WRITE ${WORK}/kernel.comp [=[
#version 450
#extension GL_GOOGLE_include_directive : require
#include "lib/scale.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Data { uint data[]; };
void main() { data[gl_GlobalInvocationID.x] *= kScale + OFFSET; }
]=])
file(WRITE ${WORK}/other.comp [=[
#version 450
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer Data { uint data[]; };
void main() { data[gl_GlobalInvocationID.x] += 1u; }
]=])
# A copy of glslang: changing it (its time, as a package upgrade would) must miss.
file(COPY_FILE ${GLSLANG} ${WORK}/tools/glslang)
set(glslang ${WORK}/tools/glslang)

set(step 0)
# Compiles SOURCE with DEFINE into out<step>; checks that the cache log's last line says EXPECT (hit|miss).
function(compile source define expect)
    math(EXPR n "${step} + 1")
    set(step ${n} PARENT_SCOPE)
    set(out ${WORK}/out${n})
    execute_process(COMMAND ${EMBED} glsl --source ${WORK}/${source} --spv ${out}/k.spv --stripped ${out}/k.strip.spv
                            --depfile ${out}/k.d --glslang ${glslang} --spirv-val ${SPIRV_VAL} --spirv-opt ${SPIRV_OPT}
                            --depfile-target kernels/step${n}.spv --cache ${cache} --name step${n}
                            -- --target-env vulkan1.1 -I${WORK}/include -D${define}
                    RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "step ${n}: ripple-embed glsl failed (${rc})")
    endif()
    file(STRINGS ${cache}/log lines)
    list(GET lines -1 last)
    if(NOT last STREQUAL "${expect} glsl step${n}")
        message(FATAL_ERROR "step ${n}: the cache said '${last}', expected '${expect} glsl step${n}'")
    endif()
    foreach(f k.spv k.strip.spv k.d)
        if(NOT EXISTS ${out}/${f})
            message(FATAL_ERROR "step ${n}: no ${f}")
        endif()
    endforeach()
    file(READ ${out}/k.d deps)
    if(NOT deps MATCHES "scale.glsl" OR deps MATCHES "unused.glsl")
        message(FATAL_ERROR "step ${n}: the depfile names what the kernel reads and nothing else:\n${deps}")
    endif()
    # Its target as build.ninja names the output (--depfile-target), on a hit as on a miss: any other name,
    # and Ninja runs the step again on every build.
    string(FIND "${deps}" "kernels/step${n}.spv: ${WORK}/${source}" at)
    if(NOT at EQUAL 0)
        message(FATAL_ERROR "step ${n}: the depfile's target is not kernels/step${n}.spv:\n${deps}")
    endif()
    message(STATUS "step ${n}: ${source} -D${define}: ${expect}")
endfunction()
function(expect_same a b)
    foreach(f k.spv k.strip.spv)
        file(SHA256 ${WORK}/out${a}/${f} ha)
        file(SHA256 ${WORK}/out${b}/${f} hb)
        if(NOT ha STREQUAL hb)
            message(FATAL_ERROR "out${a}/${f} and out${b}/${f} differ: the cache changed a result")
        endif()
    endforeach()
endfunction()
function(expect_differ a b)
    file(SHA256 ${WORK}/out${a}/k.spv ha)
    file(SHA256 ${WORK}/out${b}/k.spv hb)
    if(ha STREQUAL hb)
        message(FATAL_ERROR "out${a} and out${b} are the same: a changed input gave the old result")
    endif()
endfunction()

compile(kernel.comp OFFSET=1u miss)   # 1
compile(kernel.comp OFFSET=1u hit)    # 2: from the cache, byte for byte
expect_same(1 2)
compile(kernel.comp OFFSET=2u miss)   # 3: another define
expect_differ(1 3)
file(WRITE ${WORK}/include/lib/scale.glsl "const uint kScale = 5u;\n")
compile(kernel.comp OFFSET=1u miss)   # 4: an include it reads changed
expect_differ(1 4)
file(WRITE ${WORK}/include/lib/unused.glsl "const uint kUnused = 2u;\n")
compile(kernel.comp OFFSET=1u hit)    # 5: an include it does not read changed
expect_same(4 5)
file(APPEND ${WORK}/kernel.comp "// edited\n")
compile(kernel.comp OFFSET=1u miss)   # 6: the kernel changed
execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1.1)
file(TOUCH ${glslang})
compile(kernel.comp OFFSET=1u miss)   # 7: the compiler changed
expect_same(6 7)
file(WRITE ${WORK}/include/lib/scale.glsl "const uint kScale = 3u;\n")
compile(kernel.comp OFFSET=1u miss)   # 8: back to step 1's include, under the changed compiler
expect_same(1 8)

# A compile without the cache gives what the cache gave.
execute_process(COMMAND ${EMBED} glsl --source ${WORK}/kernel.comp --spv ${WORK}/plain/k.spv
                        --stripped ${WORK}/plain/k.strip.spv --depfile ${WORK}/plain/k.d --glslang ${glslang}
                        --spirv-val ${SPIRV_VAL} --spirv-opt ${SPIRV_OPT} -- --target-env vulkan1.1
                        -I${WORK}/include -DOFFSET=1u RESULT_VARIABLE rc)
file(SHA256 ${WORK}/plain/k.strip.spv plain)
file(SHA256 ${WORK}/out8/k.strip.spv cached)
if(NOT rc EQUAL 0 OR NOT plain STREQUAL cached)
    message(FATAL_ERROR "a compile without the cache differs from the cache's")
endif()
# A damaged entry is never used: every entry and manifest cut short, the next lookup compiles.
file(GLOB entries ${cache}/glsl/*)
foreach(e IN LISTS entries)
    file(WRITE ${e} "999999\n")
endforeach()
compile(kernel.comp OFFSET=1u miss)   # 9
expect_same(1 9)
message(STATUS "the kernel cache hit and missed exactly when it should, and never changed a result")
