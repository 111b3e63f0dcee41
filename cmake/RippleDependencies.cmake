# Finds ripple's build dependencies, each from a Debian 12 package, and names the package when one is missing.
# Nothing is downloaded.

set(_ripple_missing "")
macro(_ripple_require found package what)
    if(NOT ${found})
        list(APPEND _ripple_missing "  - ${what}: install the Debian package '${package}'")
    endif()
endmacro()

find_package(Vulkan QUIET)   # headers only: the loader is opened at run time through volk
find_path(RIPPLE_VULKAN_INCLUDE_DIR vulkan/vulkan.h HINTS ${Vulkan_INCLUDE_DIRS})
_ripple_require(RIPPLE_VULKAN_INCLUDE_DIR libvulkan-dev "Vulkan headers (vulkan/vulkan.h)")

find_path(RIPPLE_VOLK_DIR volk.c PATH_SUFFIXES include)
_ripple_require(RIPPLE_VOLK_DIR libvulkan-volk-dev "volk (volk.h, volk.c)")

find_program(RIPPLE_GLSLANG_VALIDATOR glslangValidator)
_ripple_require(RIPPLE_GLSLANG_VALIDATOR glslang-tools "glslangValidator")

find_program(RIPPLE_SPIRV_VAL spirv-val)
_ripple_require(RIPPLE_SPIRV_VAL spirv-tools "spirv-val")

find_package(spirv_cross_c_shared QUIET CONFIG)
_ripple_require(spirv_cross_c_shared_FOUND libspirv-cross-c-shared-dev "SPIRV-Cross C API (spirv_cross_c_shared)")

if(RIPPLE_BUILD_TESTS)
    find_package(Catch2 2 QUIET CONFIG)
    _ripple_require(Catch2_FOUND catch2 "Catch2 v2 (for RIPPLE_BUILD_TESTS)")
endif()

if(_ripple_missing)
    list(JOIN _ripple_missing "\n" _ripple_missing_text)
    message(FATAL_ERROR "ripple: missing build dependencies:\n${_ripple_missing_text}\n"
                        "On Debian 12: apt-get install <package>...")
endif()

# volk is shipped as source: ripple compiles it privately so it never clashes with an engine's own volk.
add_library(ripple_volk OBJECT ${RIPPLE_VOLK_DIR}/volk.c)
target_include_directories(ripple_volk SYSTEM PUBLIC ${RIPPLE_VOLK_DIR} ${RIPPLE_VULKAN_INCLUDE_DIR})
target_compile_definitions(ripple_volk PUBLIC VK_NO_PROTOTYPES)
set_target_properties(ripple_volk PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
target_link_libraries(ripple_volk PUBLIC ${CMAKE_DL_LIBS})
