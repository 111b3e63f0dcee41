# SPDX-License-Identifier: MIT
# Build-time kernels: every GLSL kernel is compiled per variant by glslangValidator (with a depfile, so an
# edited include rebuilds only what uses it), validated by spirv-val, stripped of debug instructions by
# spirv-opt, and embedded with its reflection into generated C++ by ripple-embed. No GLSL is compiled at run
# time. Everything is written under ripple's own binary directory (${PROJECT_BINARY_DIR}/kernels).
#
# ripple_kernel(<name> AXES "<AXIS>:<v1>,<v2>" ... [EXCLUDE "<AXIS>=<v>;<AXIS>=<v>" ...])
#   One variant per combination of axis values, named <name>.<v1>.<v2>...; each value <v> of axis <AXIS>
#   is seen by the GLSL as the macro <AXIS>_<v>. An EXCLUDE entry "<AXIS>=<v>,<AXIS>=<v>" drops the
#   combinations matching all its pairs.
#
# ripple_kernel(<name> SMALL ...): each variant whose MODE is not fast also gets a small-device form
#   "<variant>.small" for devices with Vulkan's minimum limits (128 invocations, 16 KiB of shared memory,
#   4 storage buffers per stage): RIPPLE_GROUP_SIZE 128 (256 in the others) and RIPPLE_SMALL, which makes
#   the params block a uniform buffer (glsl/include/ripple/common.glsl). No profile permutation, no D3D12
#   form. The runtime takes it only where the variant it replaces exceeds a limit (runtime/device.cpp).
#   SMALL_ONLY: the small-device forms alone (kernels that only the small-device plans use). Neither is
#   built with -DRIPPLE_SMALL_DEVICE_KERNELS=OFF. SMALL_EXCLUDE "<AXIS>=<v>,..." (with SMALL): the
#   matching variants get no small form (ones that no small-device plan runs).
# Every other variant is compiled with RIPPLE_GROUP_SIZE 256.
#
# With RIPPLE_PROFILE_KERNELS, each variant also gets its PROFILE permutation "<variant>.profile"
# (glsl/include/ripple/profile.glsl), which the runtime uses for RecorderOptions::profile.
#
# With RIPPLE_BUILD_TESTS, each variant also gets its HLSL round trip (ripple-embed hlsl-round-trip), for
# the test-only table that ripple_embed_round_trip() generates.
#
# Every step runs through ripple-embed (tools/ripple-embed/build_steps.hpp) and its kernel cache
# (kernel_cache.hpp): a variant whose inputs (source, includes, defines, tools) a build of any folder has
# compiled before is copied from RIPPLE_KERNEL_CACHE_DIR instead of compiled.

# The depfiles name their inputs by absolute path, which Ninja takes as they are: CMake need not rewrite
# each one with a `cmake -E cmake_transform_depfile` per variant (CMP0116 NEW), which cost more than a
# cached variant.
# Functions keep the policies of their definition. Ninja then wants a depfile to name its output as
# build.ninja does, relative to the top build folder, or it runs the step again on every build:
# _ripple_depfile_target gives ripple-embed that name.
cmake_policy(SET CMP0116 OLD)
function(_ripple_depfile_target out var)
    set(flag "")
    if(CMAKE_GENERATOR MATCHES "Ninja")
        file(RELATIVE_PATH relative ${CMAKE_BINARY_DIR} ${out})
        set(flag --depfile-target ${relative})
    endif()
    set(${var} ${flag} PARENT_SCOPE)
endfunction()
set(RIPPLE_KERNEL_DIR ${PROJECT_BINARY_DIR}/kernels)
set(RIPPLE_GLSL_INCLUDE_DIR ${PROJECT_SOURCE_DIR}/glsl/include)
# The includes users' kernels may use too (docs/KERNELS.md); ripple_add_kernels sees only these.
set(RIPPLE_GLSL_PUBLIC_INCLUDE_DIR ${PROJECT_SOURCE_DIR}/glsl/public)
set_property(GLOBAL PROPERTY RIPPLE_KERNEL_LINES "")
set_property(GLOBAL PROPERTY RIPPLE_KERNEL_OUTPUTS "")
set_property(GLOBAL PROPERTY RIPPLE_DXBC_LINES "")
# Where built kernel artifacts (SPIR-V, the HLSL round trip, D3D12 bytecode) are kept between builds, keyed by
# their inputs and the tools' versions: builds that share it (all of CI's) compile each variant once.
# Default: the RIPPLE_KERNEL_CACHE_DIR environment variable (.ci/run sets it for all its builds), else inside
# this build. An empty value turns the cache off.
if(DEFINED ENV{RIPPLE_KERNEL_CACHE_DIR} AND NOT "$ENV{RIPPLE_KERNEL_CACHE_DIR}" STREQUAL "")
    set(_ripple_kernel_cache "$ENV{RIPPLE_KERNEL_CACHE_DIR}")
else()
    set(_ripple_kernel_cache "${PROJECT_BINARY_DIR}/kernel-cache")
endif()
set(RIPPLE_KERNEL_CACHE_DIR "${_ripple_kernel_cache}" CACHE PATH
    "Directory of compiled kernel artifacts shared between builds (keyed by content)")
set(_ripple_kernel_cache_flag "")
if(RIPPLE_KERNEL_CACHE_DIR)
    set(_ripple_kernel_cache_flag --cache ${RIPPLE_KERNEL_CACHE_DIR})
endif()
# What every variant's key holds of the tools beside their paths, sizes and times (kernel_cache.hpp).
execute_process(COMMAND ${RIPPLE_GLSLANG_VALIDATOR} --version OUTPUT_VARIABLE _glslang_version ERROR_QUIET)
execute_process(COMMAND ${RIPPLE_SPIRV_VAL} --version OUTPUT_VARIABLE _spirv_tools_version ERROR_QUIET)
string(REGEX MATCH "Glslang Version: [^\n]*" _glslang_version "${_glslang_version}")
string(REGEX MATCH "SPIRV-Tools [^\n]*" _spirv_tools_version "${_spirv_tools_version}")
set(RIPPLE_KERNEL_TOOLS_VERSION "${_glslang_version} / ${_spirv_tools_version}")
set(_ripple_kernel_tools --glslang ${RIPPLE_GLSLANG_VALIDATOR} --spirv-val ${RIPPLE_SPIRV_VAL} --spirv-opt
    ${RIPPLE_SPIRV_OPT} --tools-version "${RIPPLE_KERNEL_TOOLS_VERSION}" ${_ripple_kernel_cache_flag})
set_property(GLOBAL PROPERTY RIPPLE_ROUND_TRIP_LINES "")
set_property(GLOBAL PROPERTY RIPPLE_ROUND_TRIP_OUTPUTS "")

function(_ripple_kernel_variant name source suffix defines)
    if(RIPPLE_KERNEL_SMALL_ONLY AND NOT RIPPLE_SMALL_DEVICE_KERNELS)
        return()
    endif()
    if(RIPPLE_KERNEL_SMALL AND RIPPLE_SMALL_DEVICE_KERNELS)
        set(small_defines "${defines}")
        if(NOT "MODE_fast" IN_LIST defines)
            list(APPEND small_defines RIPPLE_SMALL RIPPLE_GROUP_SIZE=128)
            set(RIPPLE_KERNEL_SMALL FALSE)
            set(RIPPLE_PROFILE_KERNELS FALSE)
            set(RIPPLE_BUILD_TESTS FALSE)
            _ripple_kernel_variant(${name} ${source} "${suffix}.small" "${small_defines}")
            set(RIPPLE_KERNEL_SMALL TRUE)
            set(RIPPLE_PROFILE_KERNELS ${RIPPLE_PROFILE_KERNELS_SAVED})
            set(RIPPLE_BUILD_TESTS ${RIPPLE_BUILD_TESTS_SAVED})
        endif()
        if(RIPPLE_KERNEL_SMALL_ONLY)
            return()
        endif()
    endif()
    if(NOT "RIPPLE_SMALL" IN_LIST defines)
        list(APPEND defines RIPPLE_GROUP_SIZE=256) # every kernel written for a workgroup size reads it
    endif()
    set(out_dir ${RIPPLE_KERNEL_DIR}/spv)
    set(variant "${name}${suffix}")
    set(spv ${out_dir}/${variant}.spv)            # as compiled: reflected and translated to HLSL
    set(stripped ${out_dir}/${variant}.strip.spv) # what the library embeds
    set(dep ${out_dir}/${variant}.d)
    _ripple_depfile_target(${spv} depfile_target)
    set(define_flags "")
    foreach(d IN LISTS defines)
        if(d)
            list(APPEND define_flags "-D${d}")
        endif()
    endforeach()
    add_custom_command(
        OUTPUT ${spv} ${stripped}
        COMMAND ripple-embed glsl --source ${source} --spv ${spv} --stripped ${stripped} --depfile ${dep}
                ${depfile_target} --name ${variant} ${_ripple_kernel_tools}
                -- --target-env vulkan1.1 -I${RIPPLE_GLSL_INCLUDE_DIR} -I${RIPPLE_GLSL_PUBLIC_INCLUDE_DIR} ${define_flags}
        DEPENDS ${source} ripple-embed
        DEPFILE ${dep}
        COMMENT "glsl ${variant}"
        VERBATIM)
    set_property(GLOBAL APPEND_STRING PROPERTY RIPPLE_KERNEL_LINES "${variant} ${spv} ${stripped}\n")
    set_property(GLOBAL APPEND PROPERTY RIPPLE_KERNEL_OUTPUTS ${spv} ${stripped})
    if(RIPPLE_DXBC_COMPILER AND NOT "RIPPLE_SMALL" IN_LIST defines)
        # The D3D12 bytecode (ripple-embed dxbc); an empty file for a variant with no D3D12 form.
        set(dxbc ${out_dir}/${variant}.dxbc)
        add_custom_command(
            OUTPUT ${dxbc}
            COMMAND ripple-embed dxbc --spv ${spv} --hlsl ${out_dir}/${variant}.d3d12.hlsl --out ${dxbc}
                    --name ${variant} --compiler ${RIPPLE_DXBC_COMPILER} --kind ${RIPPLE_DXBC_COMPILER_KIND}
                    --compiler-version "${RIPPLE_DXBC_COMPILER_VERSION}" ${_ripple_kernel_cache_flag}
            DEPENDS ${spv} ripple-embed ${RIPPLE_DXBC_COMPILER}
            COMMENT "dxbc ${variant}"
            VERBATIM)
        set_property(GLOBAL APPEND_STRING PROPERTY RIPPLE_DXBC_LINES "${variant} ${dxbc}\n")
        set_property(GLOBAL APPEND PROPERTY RIPPLE_KERNEL_OUTPUTS ${dxbc})
    endif()
    if(RIPPLE_PROFILE_KERNELS)
        # The PROFILE permutation (glsl/include/ripple/profile.glsl), "<variant>.profile", from the source
        # ripple_kernel() generated.
        set(pspv ${out_dir}/${variant}.profile.spv)
        set(pstripped ${out_dir}/${variant}.profile.strip.spv)
        _ripple_depfile_target(${pspv} depfile_target)
        add_custom_command(
            OUTPUT ${pspv} ${pstripped}
            COMMAND ripple-embed glsl --source ${RIPPLE_PROFILE_SOURCE} --spv ${pspv} --stripped ${pstripped}
                    --depfile ${out_dir}/${variant}.profile.d ${depfile_target} --name ${variant}.profile
                    ${_ripple_kernel_tools} --
                    --target-env vulkan1.1 -I${RIPPLE_GLSL_INCLUDE_DIR} -I${RIPPLE_GLSL_PUBLIC_INCLUDE_DIR}
                    ${define_flags}
            DEPENDS ${RIPPLE_PROFILE_SOURCE} ripple-embed
            DEPFILE ${out_dir}/${variant}.profile.d
            COMMENT "glsl ${variant} (profile)"
            VERBATIM)
        set_property(GLOBAL APPEND_STRING PROPERTY RIPPLE_KERNEL_LINES
                     "${variant}.profile ${pspv} ${pstripped}\n")
        set_property(GLOBAL APPEND PROPERTY RIPPLE_KERNEL_OUTPUTS ${pspv} ${pstripped})
    endif()
    if(RIPPLE_BUILD_TESTS)
        # The HLSL round trip: the D3D12 HLSL compiled back for Vulkan (tests only).
        set(rt ${out_dir}/${variant}.hlsl.spv)
        add_custom_command(
            OUTPUT ${rt}
            COMMAND ripple-embed hlsl-round-trip --spv ${spv} --hlsl ${out_dir}/${variant}.hlsl --out ${rt}
                    --glslang ${RIPPLE_GLSLANG_VALIDATOR} --spirv-val ${RIPPLE_SPIRV_VAL}
                    --tools-version "${RIPPLE_KERNEL_TOOLS_VERSION}" ${_ripple_kernel_cache_flag}
            DEPENDS ${spv} ripple-embed
            COMMENT "hlsl round trip ${variant}"
            VERBATIM)
        set_property(GLOBAL APPEND_STRING PROPERTY RIPPLE_ROUND_TRIP_LINES "${variant} ${spv} ${rt}\n")
        set_property(GLOBAL APPEND PROPERTY RIPPLE_ROUND_TRIP_OUTPUTS ${spv} ${rt})
    endif()
endfunction()

# Sets <var> TRUE when the chosen AXIS=value pairs match one of the entries ("AXIS=v,AXIS=v": all its pairs).
function(_ripple_kernel_matches var entries chosen)
    foreach(ex IN LISTS entries)
        string(REPLACE "," ";" pairs "${ex}")
        set(all_match TRUE)
        foreach(p IN LISTS pairs)
            if(NOT p IN_LIST chosen)
                set(all_match FALSE)
            endif()
        endforeach()
        if(all_match)
            set(${var} TRUE PARENT_SCOPE)
            return()
        endif()
    endforeach()
    set(${var} FALSE PARENT_SCOPE)
endfunction()

function(_ripple_kernel_expand name source suffix defines chosen axes)
    list(LENGTH axes n)
    if(n EQUAL 0)
        _ripple_kernel_matches(excluded "${RIPPLE_KERNEL_EXCLUDES}" "${chosen}")
        if(excluded)
            return()
        endif()
        _ripple_kernel_matches(no_small "${RIPPLE_KERNEL_SMALL_EXCLUDES}" "${chosen}")
        if(no_small AND NOT RIPPLE_KERNEL_SMALL_ONLY)
            set(RIPPLE_KERNEL_SMALL FALSE) # this call's scope: the variant without its small form
        endif()
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
    cmake_parse_arguments(K "SMALL;SMALL_ONLY" "" "AXES;EXCLUDE;SMALL_EXCLUDE" ${ARGN})
    set(RIPPLE_KERNEL_EXCLUDES ${K_EXCLUDE})
    set(RIPPLE_KERNEL_SMALL_EXCLUDES ${K_SMALL_EXCLUDE})
    set(RIPPLE_KERNEL_SMALL ${K_SMALL})
    set(RIPPLE_KERNEL_SMALL_ONLY ${K_SMALL_ONLY})
    if(K_SMALL_ONLY)
        set(RIPPLE_KERNEL_SMALL TRUE)
    endif()
    set(RIPPLE_PROFILE_KERNELS_SAVED ${RIPPLE_PROFILE_KERNELS})
    set(RIPPLE_BUILD_TESTS_SAVED ${RIPPLE_BUILD_TESTS})
    if(RIPPLE_PROFILE_KERNELS)
        set(RIPPLE_PROFILE_SOURCE ${RIPPLE_KERNEL_DIR}/profile/${name}.comp)
        add_custom_command(
            OUTPUT ${RIPPLE_PROFILE_SOURCE}
            COMMAND ${CMAKE_COMMAND} -DSOURCE=${CMAKE_CURRENT_SOURCE_DIR}/${name}.comp
                    -DOUT=${RIPPLE_PROFILE_SOURCE} -P ${PROJECT_SOURCE_DIR}/cmake/RippleProfileSource.cmake
            DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${name}.comp ${PROJECT_SOURCE_DIR}/cmake/RippleProfileSource.cmake
            COMMENT "profile source ${name}"
            VERBATIM)
    endif()
    _ripple_kernel_expand(${name} ${CMAKE_CURRENT_SOURCE_DIR}/${name}.comp "" "" "" "${K_AXES}")
endfunction()

# Embeds every variant declared so far into the library's registry source, returned in <out_var>. The
# D3D12 path's HLSL is embedded only in builds with that back-end (RIPPLE_HAS_D3D12), and its bytecode where
# the build has an HLSL compiler (cmake/RippleHlslCompiler.cmake).
function(ripple_embed_kernels out_var)
    set(cpp ${RIPPLE_KERNEL_DIR}/kernel_registry.cpp)
    set(list_file ${RIPPLE_KERNEL_DIR}/kernels.txt)
    get_property(lines GLOBAL PROPERTY RIPPLE_KERNEL_LINES)
    get_property(outputs GLOBAL PROPERTY RIPPLE_KERNEL_OUTPUTS)
    file(CONFIGURE OUTPUT ${list_file} CONTENT "${lines}")
    set(hlsl_flag "")
    if(RIPPLE_HAS_D3D12)
        set(hlsl_flag --hlsl)
    endif()
    if(RIPPLE_DXBC_COMPILER)
        set(dxbc_list ${RIPPLE_KERNEL_DIR}/dxbc.txt)
        get_property(dxbc_lines GLOBAL PROPERTY RIPPLE_DXBC_LINES)
        file(CONFIGURE OUTPUT ${dxbc_list} CONTENT "${dxbc_lines}")
        list(APPEND hlsl_flag --dxbc ${dxbc_list} "${RIPPLE_DXBC_COMPILER_VERSION}")
    endif()
    add_custom_command(
        OUTPUT ${cpp}
        COMMAND ripple-embed registry ${list_file} ${cpp} ${hlsl_flag}
        DEPENDS ripple-embed ${outputs} ${list_file}
        COMMENT "embedding the kernels into kernel_registry.cpp"
        VERBATIM)
    add_custom_target(ripple_kernels DEPENDS ${cpp})
    set(${out_var} ${cpp} PARENT_SCOPE)
endfunction()

# The test-only HLSL round-trip table's source (RIPPLE_BUILD_TESTS), returned in <out_var>.
function(ripple_embed_round_trip out_var)
    set(cpp ${RIPPLE_KERNEL_DIR}/kernel_round_trip.cpp)
    set(list_file ${RIPPLE_KERNEL_DIR}/round_trip.txt)
    get_property(lines GLOBAL PROPERTY RIPPLE_ROUND_TRIP_LINES)
    get_property(outputs GLOBAL PROPERTY RIPPLE_ROUND_TRIP_OUTPUTS)
    file(CONFIGURE OUTPUT ${list_file} CONTENT "${lines}")
    add_custom_command(
        OUTPUT ${cpp}
        COMMAND ripple-embed round-trip ${list_file} ${cpp}
        DEPENDS ripple-embed ${outputs} ${list_file}
        COMMENT "embedding the HLSL round trip into kernel_round_trip.cpp (tests only)"
        VERBATIM)
    set(${out_var} ${cpp} PARENT_SCOPE)
endfunction()
