# SPDX-License-Identifier: MIT
# The HLSL compiler that turns ripple's D3D12 kernel variants into shader-model-5.1 bytecode (DXBC) at build
# time, so that no Windows program compiles ripple's HLSL at run time (docs/D3D12.md). Only in builds with the
# D3D12 back-end (RIPPLE_HAS_D3D12).
#   RIPPLE_D3D12_BYTECODE  AUTO (default): embed bytecode where a compiler is found, else say so and keep
#                          run-time compilation; ON: a missing compiler stops the configure; OFF: none.
#   RIPPLE_HLSL_COMPILER   the compiler: fxc.exe (the Windows SDK; found on a Windows host) or
#                          tools/vkd3d-tool.sh's bin/ripple-hlsl-dxbc (vkd3d-shader; found under
#                          build-tools/vkd3d on a Linux host, the cross-build's and the tests').
# Sets RIPPLE_DXBC_COMPILER (empty: no bytecode), RIPPLE_DXBC_COMPILER_KIND (fxc or vkd3d) and
# RIPPLE_DXBC_COMPILER_VERSION (its name and version, embedded in the library: ripple::d3d12BytecodeCompiler()).
set(RIPPLE_D3D12_BYTECODE AUTO CACHE STRING
    "D3D12 bytecode compiled at build time: AUTO (where an HLSL compiler is found), ON (required), OFF")
set_property(CACHE RIPPLE_D3D12_BYTECODE PROPERTY STRINGS AUTO ON OFF)
set(RIPPLE_HLSL_COMPILER "" CACHE FILEPATH
    "HLSL compiler for the D3D12 bytecode: fxc.exe, or tools/vkd3d-tool.sh's bin/ripple-hlsl-dxbc (empty: searched)")

set(RIPPLE_DXBC_COMPILER "")
set(RIPPLE_DXBC_COMPILER_KIND "")
set(RIPPLE_DXBC_COMPILER_VERSION "")
if(RIPPLE_HAS_D3D12 AND NOT RIPPLE_D3D12_BYTECODE STREQUAL "OFF")
    set(_ripple_hlsl ${RIPPLE_HLSL_COMPILER})
    if(NOT _ripple_hlsl)
        if(CMAKE_HOST_WIN32)
            file(GLOB _ripple_sdk_bins LIST_DIRECTORIES true "$ENV{ProgramFiles\(x86\)}/Windows Kits/10/bin/10.*/x64")
            list(SORT _ripple_sdk_bins ORDER DESCENDING) # the newest SDK first
            find_program(_ripple_fxc fxc HINTS "$ENV{WindowsSdkVerBinPath}/x64" ${_ripple_sdk_bins})
            set(_ripple_hlsl ${_ripple_fxc})
        else()
            find_program(_ripple_vkd3d_dxbc ripple-hlsl-dxbc
                         HINTS ${PROJECT_SOURCE_DIR}/build-tools/vkd3d/bin NO_DEFAULT_PATH)
            set(_ripple_hlsl ${_ripple_vkd3d_dxbc})
        endif()
    endif()
    if(_ripple_hlsl AND EXISTS "${_ripple_hlsl}")
        get_filename_component(_ripple_hlsl_name ${_ripple_hlsl} NAME_WE)
        string(TOLOWER ${_ripple_hlsl_name} _ripple_hlsl_name)
        if(_ripple_hlsl_name STREQUAL "fxc")
            set(RIPPLE_DXBC_COMPILER_KIND fxc)
            execute_process(COMMAND ${_ripple_hlsl} /? OUTPUT_VARIABLE _ripple_v ERROR_VARIABLE _ripple_v)
        else()
            set(RIPPLE_DXBC_COMPILER_KIND vkd3d)
            execute_process(COMMAND ${_ripple_hlsl} --version OUTPUT_VARIABLE _ripple_v ERROR_VARIABLE _ripple_v)
        endif()
        string(REGEX MATCH "[^\r\n]+" _ripple_v "${_ripple_v}") # the first line
        string(STRIP "${_ripple_v}" _ripple_v)
        string(REPLACE "\"" "'" _ripple_v "${_ripple_v}")
        if(_ripple_v)
            set(RIPPLE_DXBC_COMPILER ${_ripple_hlsl})
            set(RIPPLE_DXBC_COMPILER_VERSION "${_ripple_v}")
        endif()
    endif()
    if(RIPPLE_DXBC_COMPILER)
        message(STATUS "ripple: D3D12 bytecode compiled at build time by ${RIPPLE_DXBC_COMPILER_VERSION} "
                       "(${RIPPLE_DXBC_COMPILER})")
    elseif(RIPPLE_D3D12_BYTECODE STREQUAL "ON")
        message(FATAL_ERROR "ripple: RIPPLE_D3D12_BYTECODE=ON, but no HLSL compiler was found: set "
                            "RIPPLE_HLSL_COMPILER to fxc.exe (Windows SDK), or run tools/vkd3d-tool.sh (Linux)")
    else()
        message(STATUS "ripple: no HLSL compiler found (fxc.exe on Windows; tools/vkd3d-tool.sh's "
                       "ripple-hlsl-dxbc on Linux): no D3D12 bytecode is embedded, and D3D12 devices need "
                       "DeviceOptions::compileHlslAtRunTime to compile ripple's HLSL at first use")
    endif()
endif()
