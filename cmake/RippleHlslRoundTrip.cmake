# SPDX-License-Identifier: MIT
# One variant's HLSL round trip (run by the build, see RippleKernels.cmake): ripple-embed writes the HLSL
# the D3D12 path would run, and glslang's HLSL front end compiles it back to SPIR-V for Vulkan, so the test
# suite can run the HLSL's semantics on lavapipe. A variant with no D3D12 form gets an empty OUT.
# -DEMBED= -DSPV= -DHLSL= -DOUT= -DGLSLANG= -DSPIRV_VAL=
execute_process(COMMAND ${EMBED} hlsl ${SPV} ${HLSL} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ripple-embed could not translate ${SPV} to HLSL")
endif()
file(SIZE ${HLSL} size)
if(size EQUAL 0)
    file(WRITE ${OUT} "")
    return()
endif()
# t# and u# registers map to binding #, register spaces to descriptor sets (d3d12/README's recipe).
execute_process(COMMAND ${GLSLANG} --quiet -D -V -e main -S comp --target-env vulkan1.1 --hlsl-iomap --stb 0
                        --suavb 0 --scb 200 --amb ${HLSL} -o ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "glslang's HLSL front end rejected ${HLSL}:\n${log}")
endif()
execute_process(COMMAND ${SPIRV_VAL} --target-env vulkan1.1 ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "spirv-val rejected ${OUT} (compiled from ${HLSL}):\n${log}")
endif()
