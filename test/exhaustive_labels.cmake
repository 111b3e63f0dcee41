# SPDX-License-Identifier: MIT
# Read by CTest after the lists catch_discover_tests made (test/CMakeLists.txt): the exhaustive matrices keep
# their group's label and gain "exhaustive", so `ctest -LE exhaustive` leaves them out.
if(RIPPLE_EXHAUSTIVE_GPU)
    set_tests_properties(${RIPPLE_EXHAUSTIVE_GPU} PROPERTIES LABELS "gpu;exhaustive")
endif()
if(RIPPLE_EXHAUSTIVE_HLSL)
    set_tests_properties(${RIPPLE_EXHAUSTIVE_HLSL} PROPERTIES LABELS "hlsl;exhaustive")
endif()
