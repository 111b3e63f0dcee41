# SPDX-License-Identifier: MIT
# `cmake --install` puts the library, its public headers and a package config exporting ripple::ripple.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS ripple EXPORT rippleTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ripple DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT rippleTargets NAMESPACE ripple:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ripple)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/rippleConfig.cmake.in
     "@PACKAGE_INIT@\ninclude(CMakeFindDependencyMacro)\ninclude(\"\${CMAKE_CURRENT_LIST_DIR}/rippleTargets.cmake\")\n")
configure_package_config_file(${CMAKE_CURRENT_BINARY_DIR}/rippleConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/rippleConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ripple)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/rippleConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/rippleConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/rippleConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ripple)
