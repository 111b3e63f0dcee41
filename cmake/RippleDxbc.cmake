# SPDX-License-Identifier: MIT
# One kernel variant's D3D12 bytecode (run by the build, see RippleKernels.cmake): ripple-embed writes the HLSL
# the D3D12 back-end runs (an empty file for a variant with no D3D12 form), the HLSL compiler turns it into
# shader-model-5.1 DXBC. A variant the compiler rejects stops the build, naming it, with the compiler's
# messages and the HLSL's first lines.
# With CACHE, the DXBC is kept there under a hash of the HLSL and the compiler's name and version, and a later
# build (or another build of the same run: the Windows cross-build, the tests') takes it from there. Any change
# to the HLSL or the compiler is another key.
# -DEMBED= -DSPV= -DHLSL= -DOUT= -DNAME= -DCOMPILER= -DKIND=fxc|vkd3d -DVERSION= [-DCACHE=]
execute_process(COMMAND ${EMBED} d3d12-hlsl ${SPV} ${HLSL} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ripple-embed could not translate ${SPV} to HLSL")
endif()
file(SIZE ${HLSL} size)
if(size EQUAL 0) # no D3D12 form: nothing to compile
    file(WRITE ${OUT} "")
    return()
endif()
if(CACHE)
    file(SHA256 ${HLSL} hlsl_hash)
    string(SHA256 key "${hlsl_hash} ${KIND} ${VERSION} cs_5_1 main")
    set(cached ${CACHE}/dxbc/${key}.dxbc)
    if(EXISTS ${cached})
        file(COPY_FILE ${cached} ${OUT})
        return()
    endif()
endif()
if(KIND STREQUAL "fxc")
    execute_process(COMMAND ${COMPILER} /nologo /T cs_5_1 /E main /O3 /Fo ${OUT} ${HLSL}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
else()
    execute_process(COMMAND ${COMPILER} ${HLSL} ${OUT} ${NAME} RESULT_VARIABLE rc OUTPUT_VARIABLE log
                    ERROR_VARIABLE log)
endif()
if(NOT rc EQUAL 0 OR NOT EXISTS ${OUT})
    file(STRINGS ${HLSL} first LIMIT_COUNT 12)
    list(JOIN first "\n    " first)
    file(REMOVE ${OUT})
    message(FATAL_ERROR "${VERSION} rejected the D3D12 kernel variant ${NAME} (${HLSL}):\n${log}\n"
                        "Its HLSL begins:\n    ${first}")
endif()
if(CACHE)
    # Another name first, then a rename: parallel builds sharing the cache never read a partial file.
    string(RANDOM LENGTH 12 tag)
    file(MAKE_DIRECTORY ${CACHE}/dxbc)
    file(COPY_FILE ${OUT} ${cached}.${tag}.tmp)
    file(RENAME ${cached}.${tag}.tmp ${cached})
endif()
