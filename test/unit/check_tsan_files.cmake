# SPDX-License-Identifier: MIT
# tools/ci-sanitizers.sh's TSan build compiles only FILES of test/ops and runs the tests tagged TAGS; a test
# with one of those tags in another file would silently not run there. Fails if one does.
# -DOPS= -DFILES="a;b" -DTAGS="x;y"
cmake_policy(VERSION 3.25)
file(GLOB sources ${OPS}/*.cpp)
set(problems "")
foreach(source IN LISTS sources)
    get_filename_component(name ${source} NAME_WE)
    if(name IN_LIST FILES)
        continue()
    endif()
    file(READ ${source} text)
    foreach(tag IN LISTS TAGS)
        string(FIND "${text}" "[${tag}]" at)
        if(NOT at EQUAL -1)
            string(APPEND problems "\n  ${name}.cpp has a [${tag}] test")
        endif()
    endforeach()
endforeach()
if(problems)
    message(FATAL_ERROR "tests that the TSan build would not compile (add their file to tools/ci-sanitizers.sh's "
                        "RIPPLE_OPS_TEST_FILES and FILES here):${problems}")
endif()
message(STATUS "the [${TAGS}] tests live in ${FILES} only")
