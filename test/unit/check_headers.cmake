# SPDX-License-Identifier: MIT
# Fails if a public header outside interop/ includes a Vulkan, D3D12, DXGI or Windows header.
file(GLOB headers ${DIR}/*.hpp)
foreach(h IN LISTS headers)
    file(STRINGS ${h} lines REGEX "^[ \t]*#[ \t]*include")
    foreach(l IN LISTS lines)
        if(l MATCHES "vulkan|volk|d3d12|dxgi|windows\\.h")
            message(FATAL_ERROR "${h}: public headers may not include graphics headers: ${l}")
        endif()
    endforeach()
endforeach()
message(STATUS "checked ${headers}")
