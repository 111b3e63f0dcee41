# SPDX-License-Identifier: MIT
# Users' own GLSL compute kernels, compiled at build time exactly like ripple's (glslangValidator with a
# depfile, spirv-val, spirv-opt --strip-debug, ripple-embed's reflection), embedded into the user's target.
# Available after add_subdirectory and from the installed package (rippleConfig.cmake finds the GLSL tools).
#
# ripple_add_kernels(<target> SOURCES <a.comp>... [NAMESPACE <ns>] [INCLUDE_DIRS <dir>...]
#                    [DEFINES <NAME[=value]>...] [PERMUTATIONS "<AXIS>:<v1>,<v2>"...] [HLSL_ROUND_TRIP])
#   Each source is compiled once per combination of PERMUTATIONS values (the GLSL sees <AXIS>_<v>), as
#   variant "<stem>[.<v>...]". ripple's public GLSL includes (glsl/public: ripple/bfloat16.glsl, documented
#   in docs/KERNELS.md) are on the include path; its kernels' own includes are not. Generates <target>_kernels.hpp (<target> made an identifier;
#   on the target's include path)
#   declaring one `const ripple::KernelSource` per variant in namespace <ns> (default: <target>_kernels),
#   its name made an identifier ('.' becomes '_'), and adds the source defining them to <target>.
#   HLSL_ROUND_TRIP: each variant's HLSL (what the D3D12 back-end runs) is also compiled back to SPIR-V by
#   glslang's HLSL front end, as KernelSources in <ns>::hlsl_round_trip, so a Vulkan device (lavapipe in CI)
#   can run the D3D12 form's semantics.
#   In a build with the D3D12 back-end and an HLSL compiler (the one cmake/RippleHlslCompiler.cmake found for
#   ripple's own kernels), each variant's HLSL is also compiled to D3D12 bytecode, as ripple's
#   own kernels are (KernelSource::PackedDxbc), so that no D3D12 device compiles it at run time. A variant
#   the compiler rejects fails the build, naming it, with the compiler's messages.

# What the function needs from ripple's scope, reachable from a parent project's (add_subdirectory); an
# installed package sets them in rippleConfig.cmake before including this file.
if(NOT RIPPLE_USER_EMBED)
    set(RIPPLE_USER_EMBED ripple-embed)
endif()
set_property(GLOBAL PROPERTY RIPPLE_USER_GLSL_INCLUDE_DIR ${RIPPLE_GLSL_PUBLIC_INCLUDE_DIR})
set_property(GLOBAL PROPERTY RIPPLE_USER_HLSL ${RIPPLE_HAS_D3D12})
set_property(GLOBAL PROPERTY RIPPLE_USER_EMBED ${RIPPLE_USER_EMBED})
set_property(GLOBAL PROPERTY RIPPLE_USER_DXBC "${RIPPLE_DXBC_COMPILER}")
set_property(GLOBAL PROPERTY RIPPLE_USER_DXBC_KIND "${RIPPLE_DXBC_COMPILER_KIND}")
set_property(GLOBAL PROPERTY RIPPLE_USER_DXBC_VERSION "${RIPPLE_DXBC_COMPILER_VERSION}")
set_property(GLOBAL PROPERTY RIPPLE_USER_KERNEL_CACHE "${RIPPLE_KERNEL_CACHE_DIR}")

function(_ripple_user_variants out_var stem axes suffix defines)
    list(LENGTH axes n)
    if(n EQUAL 0)
        set(${out_var} "${stem}${suffix}|${defines}" PARENT_SCOPE)
        return()
    endif()
    list(GET axes 0 axis)
    list(REMOVE_AT axes 0)
    string(REPLACE ":" ";" parts "${axis}")
    list(GET parts 0 axis_name)
    list(GET parts 1 values)
    string(REPLACE "," ";" values "${values}")
    set(all "")
    foreach(v IN LISTS values)
        _ripple_user_variants(sub ${stem} "${axes}" "${suffix}.${v}" "${defines},${axis_name}_${v}")
        list(APPEND all ${sub})
    endforeach()
    set(${out_var} "${all}" PARENT_SCOPE)
endfunction()

function(ripple_add_kernels target)
    cmake_parse_arguments(K "HLSL_ROUND_TRIP" "NAMESPACE" "SOURCES;INCLUDE_DIRS;DEFINES;PERMUTATIONS" ${ARGN})
    if(NOT TARGET ${target})
        message(FATAL_ERROR "ripple_add_kernels: ${target} is not a target")
    endif()
    if(NOT K_SOURCES)
        message(FATAL_ERROR "ripple_add_kernels(${target}): no SOURCES")
    endif()
    if(NOT K_NAMESPACE)
        string(MAKE_C_IDENTIFIER "${target}_kernels" K_NAMESPACE)
    endif()
    set(out ${CMAKE_CURRENT_BINARY_DIR}/ripple_kernels/${target})
    get_property(glsl_include GLOBAL PROPERTY RIPPLE_USER_GLSL_INCLUDE_DIR)
    set(include_flags -I${glsl_include})
    foreach(dir IN LISTS K_INCLUDE_DIRS)
        get_filename_component(dir "${dir}" ABSOLUTE)
        list(APPEND include_flags -I${dir})
    endforeach()
    get_property(embed GLOBAL PROPERTY RIPPLE_USER_EMBED)
    get_property(with_hlsl GLOBAL PROPERTY RIPPLE_USER_HLSL)
    get_property(dxbc_compiler GLOBAL PROPERTY RIPPLE_USER_DXBC)
    get_property(dxbc_kind GLOBAL PROPERTY RIPPLE_USER_DXBC_KIND)
    get_property(dxbc_version GLOBAL PROPERTY RIPPLE_USER_DXBC_VERSION)
    get_property(kernel_cache GLOBAL PROPERTY RIPPLE_USER_KERNEL_CACHE)
    set(cache_flag "")
    if(kernel_cache)
        set(cache_flag --cache ${kernel_cache})
    endif()
    set(lines "")
    set(dxbc_lines "")
    set(round_trip_lines "")
    set(outputs "")
    foreach(source IN LISTS K_SOURCES)
        get_filename_component(source "${source}" ABSOLUTE)
        get_filename_component(stem "${source}" NAME_WE)
        _ripple_user_variants(variants ${stem} "${K_PERMUTATIONS}" "" "")
        foreach(entry IN LISTS variants)
            string(REPLACE "|" ";" entry "${entry}")
            list(GET entry 0 variant)
            list(LENGTH entry has_defines)
            set(define_flags "")
            foreach(d IN LISTS K_DEFINES)
                list(APPEND define_flags -D${d})
            endforeach()
            if(has_defines GREATER 1)
                list(GET entry 1 axis_defines)
                string(REPLACE "," ";" axis_defines "${axis_defines}")
                foreach(d IN LISTS axis_defines)
                    if(d)
                        list(APPEND define_flags -D${d})
                    endif()
                endforeach()
            endif()
            set(spv ${out}/spv/${variant}.spv)
            set(stripped ${out}/spv/${variant}.strip.spv)
            add_custom_command(
                OUTPUT ${spv} ${stripped}
                COMMAND ${CMAKE_COMMAND} -E make_directory ${out}/spv
                COMMAND ${RIPPLE_GLSLANG_VALIDATOR} --quiet --target-env vulkan1.1 ${include_flags}
                        ${define_flags} --depfile ${out}/spv/${variant}.d -o ${spv} ${source}
                COMMAND ${RIPPLE_SPIRV_VAL} --target-env vulkan1.1 ${spv}
                COMMAND ${RIPPLE_SPIRV_OPT} --strip-debug ${spv} -o ${stripped}
                DEPENDS ${source}
                DEPFILE ${out}/spv/${variant}.d
                COMMENT "glsl ${target}: ${variant}"
                VERBATIM)
            string(APPEND lines "${variant} ${spv} ${stripped}\n")
            list(APPEND outputs ${spv} ${stripped})
            if(with_hlsl AND dxbc_compiler)
                # An empty file for a variant with no D3D12 form (one that needs a device feature).
                set(dxbc ${out}/dxbc/${variant}.dxbc)
                add_custom_command(
                    OUTPUT ${dxbc}
                    COMMAND ${embed} dxbc --spv ${spv} --hlsl ${out}/dxbc/${variant}.hlsl --out ${dxbc}
                            --name ${target}.${variant} --compiler ${dxbc_compiler} --kind ${dxbc_kind}
                            --compiler-version "${dxbc_version}" ${cache_flag}
                    DEPENDS ${spv} ${embed} ${dxbc_compiler}
                    COMMENT "dxbc ${target}: ${variant}"
                    VERBATIM)
                string(APPEND dxbc_lines "${variant} ${dxbc}\n")
                list(APPEND outputs ${dxbc})
            endif()
            if(K_HLSL_ROUND_TRIP)
                set(rt ${out}/spv/${variant}.hlsl.spv)
                add_custom_command(
                    OUTPUT ${rt}
                    COMMAND ${embed} hlsl-round-trip --spv ${spv} --hlsl ${out}/spv/${variant}.hlsl --out ${rt}
                            --glslang ${RIPPLE_GLSLANG_VALIDATOR} --spirv-val ${RIPPLE_SPIRV_VAL}
                    DEPENDS ${spv} ${embed}
                    COMMENT "hlsl round trip ${target}: ${variant}"
                    VERBATIM)
                string(APPEND round_trip_lines "${variant} ${spv} ${rt}\n")
                list(APPEND outputs ${rt})
            endif()
        endforeach()
    endforeach()
    set(list_file ${out}/kernels.txt)
    file(CONFIGURE OUTPUT ${list_file} CONTENT "${lines}")
    set(round_trip_flag "")
    if(K_HLSL_ROUND_TRIP)
        file(CONFIGURE OUTPUT ${out}/round_trip.txt CONTENT "${round_trip_lines}")
        set(round_trip_flag --round-trip ${out}/round_trip.txt)
    endif()
    string(MAKE_C_IDENTIFIER "${target}" target_id)
    set(hpp ${out}/include/${target_id}_kernels.hpp)
    set(cpp ${out}/${target}_kernels.cpp)
    set(hlsl_flag "")
    if(with_hlsl)
        set(hlsl_flag --hlsl)
        if(dxbc_compiler)
            file(CONFIGURE OUTPUT ${out}/dxbc.txt CONTENT "${dxbc_lines}")
            list(APPEND hlsl_flag --dxbc ${out}/dxbc.txt)
        endif()
    endif()
    add_custom_command(
        OUTPUT ${hpp} ${cpp}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${out}/include
        COMMAND ${embed} user ${list_file} ${hpp} ${cpp} ${K_NAMESPACE} ${hlsl_flag} ${round_trip_flag}
        DEPENDS ${embed} ${outputs} ${list_file}
        COMMENT "embedding ${target}'s kernels"
        VERBATIM)
    target_sources(${target} PRIVATE ${cpp} ${hpp})
    target_include_directories(${target} PRIVATE ${out}/include)
endfunction()
