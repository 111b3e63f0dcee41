# SPDX-License-Identifier: MIT
# Build-time kernels: every GLSL kernel is compiled per variant by glslangValidator (with a depfile, so an
# edited include rebuilds only what uses it), validated by spirv-val, and embedded with its reflection into
# generated C++ by ripple-embed. No GLSL is compiled at run time.
#
# ripple_kernel(<name> AXES "<AXIS>:<v1>,<v2>" ... [EXCLUDE "<AXIS>=<v>;<AXIS>=<v>" ...])
#   One variant per combination of axis values, named <name>.<v1>.<v2>...; each value <v> of axis <AXIS>
#   is seen by the GLSL as the macro <AXIS>_<v>. An EXCLUDE entry "<AXIS>=<v>,<AXIS>=<v>" drops the
#   combinations matching all its pairs.

set(RIPPLE_KERNEL_SPV "" CACHE INTERNAL "")
set(RIPPLE_KERNEL_NAMES "" CACHE INTERNAL "")
set(RIPPLE_KERNEL_ROUND_TRIP "" CACHE INTERNAL "")

function(_ripple_kernel_variant name source suffix defines)
    set(out_dir ${CMAKE_BINARY_DIR}/kernels/spv)
    set(variant "${name}${suffix}")
    set(spv ${out_dir}/${variant}.spv)
    set(dep ${out_dir}/${variant}.d)
    set(define_flags "")
    foreach(d IN LISTS defines)
        if(d)
            list(APPEND define_flags "-D${d}")
        endif()
    endforeach()
    add_custom_command(
        OUTPUT ${spv}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir}
        COMMAND ${RIPPLE_GLSLANG_VALIDATOR} --quiet --target-env vulkan1.1 -I${CMAKE_SOURCE_DIR}/glsl/include
                ${define_flags} --depfile ${dep} -o ${spv} ${source}
        COMMAND ${RIPPLE_SPIRV_VAL} --target-env vulkan1.1 ${spv}
        DEPENDS ${source}
        DEPFILE ${dep}
        COMMENT "glsl ${variant}"
        VERBATIM)
    # The HLSL round trip (cmake/RippleHlslRoundTrip.cmake): the D3D12 HLSL compiled back for Vulkan.
    set(rt ${out_dir}/${variant}.hlsl.spv)
    add_custom_command(
        OUTPUT ${rt}
        COMMAND ${CMAKE_COMMAND} -DEMBED=$<TARGET_FILE:ripple-embed> -DSPV=${spv} -DHLSL=${out_dir}/${variant}.hlsl
                -DOUT=${rt} -DGLSLANG=${RIPPLE_GLSLANG_VALIDATOR} -DSPIRV_VAL=${RIPPLE_SPIRV_VAL}
                -P ${PROJECT_SOURCE_DIR}/cmake/RippleHlslRoundTrip.cmake
        DEPENDS ${spv} ripple-embed ${PROJECT_SOURCE_DIR}/cmake/RippleHlslRoundTrip.cmake
        COMMENT "hlsl round trip ${variant}"
        VERBATIM)
    set(RIPPLE_KERNEL_ROUND_TRIP ${RIPPLE_KERNEL_ROUND_TRIP} ${rt} CACHE INTERNAL "")
    set(RIPPLE_KERNEL_SPV ${RIPPLE_KERNEL_SPV} ${spv} CACHE INTERNAL "")
    set(RIPPLE_KERNEL_NAMES ${RIPPLE_KERNEL_NAMES} ${variant} CACHE INTERNAL "")
endfunction()

function(_ripple_kernel_expand name source suffix defines chosen axes)
    list(LENGTH axes n)
    if(n EQUAL 0)
        foreach(ex IN LISTS RIPPLE_KERNEL_EXCLUDES)
            string(REPLACE "," ";" pairs "${ex}")
            set(all_match TRUE)
            foreach(p IN LISTS pairs)
                if(NOT p IN_LIST chosen)
                    set(all_match FALSE)
                endif()
            endforeach()
            if(all_match)
                return()
            endif()
        endforeach()
        _ripple_kernel_variant(${name} ${source} "${suffix}" "${defines}")
        return()
    endif()
    list(GET axes 0 axis)
    list(REMOVE_AT axes 0)
    string(REPLACE ":" ";" parts "${axis}")
    list(GET parts 0 axis_name)
    list(GET parts 1 values)
    string(REPLACE "," ";" values "${values}")
    foreach(v IN LISTS values)
        _ripple_kernel_expand(${name} ${source} "${suffix}.${v}" "${defines};${axis_name}_${v}"
                              "${chosen};${axis_name}=${v}" "${axes}")
    endforeach()
endfunction()

function(ripple_kernel name)
    cmake_parse_arguments(K "" "" "AXES;EXCLUDE" ${ARGN})
    set(RIPPLE_KERNEL_EXCLUDES ${K_EXCLUDE})
    _ripple_kernel_expand(${name} ${CMAKE_CURRENT_SOURCE_DIR}/${name}.comp "" "" "" "${K_AXES}")
endfunction()

# Embeds every variant declared so far into one generated registry source, returned in <out_var>.
function(ripple_embed_kernels out_var)
    set(cpp ${CMAKE_BINARY_DIR}/kernels/kernel_registry.cpp)
    set(list_file ${CMAKE_BINARY_DIR}/kernels/kernels.txt)
    set(lines "")
    foreach(name spv rt IN ZIP_LISTS RIPPLE_KERNEL_NAMES RIPPLE_KERNEL_SPV RIPPLE_KERNEL_ROUND_TRIP)
        string(APPEND lines "${name} ${spv} ${rt}\n")
    endforeach()
    file(CONFIGURE OUTPUT ${list_file} CONTENT "${lines}")
    add_custom_command(
        OUTPUT ${cpp}
        COMMAND ripple-embed ${list_file} ${cpp}
        DEPENDS ripple-embed ${RIPPLE_KERNEL_SPV} ${RIPPLE_KERNEL_ROUND_TRIP} ${list_file}
        COMMENT "embedding ${CMAKE_BINARY_DIR}/kernels/spv into kernel_registry.cpp"
        VERBATIM)
    add_custom_target(ripple_kernels DEPENDS ${cpp})
    set(${out_var} ${cpp} PARENT_SCOPE)
endfunction()
