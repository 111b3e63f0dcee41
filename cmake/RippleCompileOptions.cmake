# SPDX-License-Identifier: MIT
# ripple_target_options(<target>): the warnings and flags of ripple's own C++ targets, per compiler (GCC and
# Clang, or MSVC and clang-cl) through generator expressions, so an MSVC configure gets MSVC's spelling.
# C sources (volk) get none of them. RIPPLE_WARNINGS_AS_ERRORS adds -Werror or /WX.
set(_ripple_cxx "$<COMPILE_LANGUAGE:CXX>")
# MSVC and clang-cl take MSVC-style flags (CMAKE_CXX_COMPILER_FRONTEND_VARIANT is "MSVC" for both).
set(_ripple_msvc "$<STREQUAL:${CMAKE_CXX_COMPILER_FRONTEND_VARIANT},MSVC>")
function(ripple_target_options target)
    target_compile_options(${target} PRIVATE
        "$<$<AND:${_ripple_cxx},$<NOT:${_ripple_msvc}>>:-Wall;-Wextra;-Wno-missing-field-initializers>"
        "$<$<AND:${_ripple_cxx},${_ripple_msvc}>:/W4;/permissive-;/Zc:__cplusplus;/utf-8>"
        "$<$<AND:${_ripple_cxx},$<BOOL:${RIPPLE_WARNINGS_AS_ERRORS}>,$<NOT:${_ripple_msvc}>>:-Werror>"
        "$<$<AND:${_ripple_cxx},$<BOOL:${RIPPLE_WARNINGS_AS_ERRORS}>,${_ripple_msvc}>:/WX>")
endfunction()
# ripple_no_exceptions(<target>): ripple never throws; its library code builds without exceptions and RTTI
# (errors are Status values). MSVC: no /EHsc, and _HAS_EXCEPTIONS=0 for its standard library.
function(ripple_no_exceptions target)
    target_compile_options(${target} PRIVATE
        "$<$<AND:${_ripple_cxx},$<NOT:${_ripple_msvc}>>:-fno-exceptions;-fno-rtti>"
        "$<$<AND:${_ripple_cxx},${_ripple_msvc}>:/GR->")
    target_compile_definitions(${target} PRIVATE "$<$<AND:${_ripple_cxx},${_ripple_msvc}>:_HAS_EXCEPTIONS=0>")
endfunction()
