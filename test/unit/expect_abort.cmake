# SPDX-License-Identifier: MIT
# Passes when PROGRAM stops with a failure (an assert's abort) and its output matches the regex EXPECT.
# -DPROGRAM= -DEXPECT=
execute_process(COMMAND ${PROGRAM} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} succeeded; it should have stopped at an assert")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT}")
    message(FATAL_ERROR "${PROGRAM} failed (${rc}) without the expected message '${EXPECT}':\n${out}${err}")
endif()
message(STATUS "${PROGRAM} stopped as expected (${rc}): ${err}")
