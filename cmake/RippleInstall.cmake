# SPDX-License-Identifier: MIT
# `cmake --install` (RIPPLE_INSTALL, on by default only at top level): the library, its public headers (the
# generated export.hpp and version.hpp among them), a CMake package exporting ripple::ripple, a pkg-config
# file, the licence and notices, and ripple-run (component "tools", when the samples are built).
# The package names no library outside the C/C++ runtime: volk is compiled in and opens the Vulkan loader
# at run time, and vkd3d (RIPPLE_D3D12=ON on Linux, for ripple's own tests) is refused here.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

if(RIPPLE_HAS_D3D12 AND NOT WIN32)
    message(STATUS "ripple: RIPPLE_D3D12=ON on Linux links vkd3d, which exists for ripple's own tests; "
                    "an install of this build would depend on it. Install a build without it.")
endif()

# ripple_add_kernels from the package: the tool, the function and the GLSL includes users may use.
set(RIPPLE_INSTALL_GLSL_DIR ${CMAKE_INSTALL_DATADIR}/ripple/glsl)
if(NOT CMAKE_CROSSCOMPILING AND NOT RIPPLE_EMBED_EXECUTABLE) # a prebuilt tool is not this build's to install
    install(TARGETS ripple-embed EXPORT rippleTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
            COMPONENT ripple_development)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/cmake/RippleUserKernels.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ripple
        COMPONENT ripple_development)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/glsl/public/ripple DESTINATION ${RIPPLE_INSTALL_GLSL_DIR}
        COMPONENT ripple_development)

install(TARGETS ripple EXPORT rippleTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ripple_development
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ripple_runtime
                NAMELINK_COMPONENT ripple_development
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ripple_runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ripple ${RIPPLE_GENERATED_INCLUDE_DIR}/ripple
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT ripple_development)
install(EXPORT rippleTargets NAMESPACE ripple:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ripple
        COMPONENT ripple_development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/templates/rippleConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/rippleConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ripple)
# 0.x: every minor version may break the API (SOVERSION MAJOR.MINOR, lib/CMakeLists.txt).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/rippleConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/rippleConfig.cmake ${PROJECT_BINARY_DIR}/rippleConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ripple COMPONENT ripple_development)

# pkg-config: a static ripple also needs the dynamic loader's library (dlopen) where it is separate.
set(RIPPLE_PC_LIBS_PRIVATE "")
foreach(lib IN LISTS CMAKE_DL_LIBS)
    string(APPEND RIPPLE_PC_LIBS_PRIVATE " -l${lib}")
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/templates/ripple.pc.in ${PROJECT_BINARY_DIR}/ripple.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ripple.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT ripple_development)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/THIRD_PARTY_NOTICES.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/ripple COMPONENT ripple_runtime)

if(TARGET ripple-run)
    install(TARGETS ripple-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ripple_tools)
endif()
