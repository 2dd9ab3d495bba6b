# Fails (the test binary's build, POST_BUILD) when a Catch2 test case name cannot be run through ctest:
# catch_discover_tests splits the listed names at CMake's list separator `;`, and Catch2 reads `\` in a test spec
# as an escape, so such a ctest entry would run another case or none (and Catch2 exits 0 when none matched).
#   cmake -DTEST_EXECUTABLE=<test binary> -P check_test_names.cmake
execute_process(COMMAND "${TEST_EXECUTABLE}" --list-test-names-only
                OUTPUT_VARIABLE _out RESULT_VARIABLE _rc)
if(NOT _rc MATCHES "^[0-9]+$")
  message(FATAL_ERROR "${TEST_EXECUTABLE} --list-test-names-only failed: ${_rc}")
endif()
# Made visible before the text is split into lines: CMake lists would split at the semicolons themselves.
string(REPLACE ";" "<SEMICOLON>" _out "${_out}")
string(REGEX MATCHALL "[^\n]*(<SEMICOLON>|\\\\)[^\n]*" _bad "${_out}")
if(_bad)
  list(JOIN _bad "\n  " _lines)
  message(FATAL_ERROR
    "${TEST_EXECUTABLE}: test names ctest cannot run (no ';' or '\\' in a TEST_CASE name):\n  ${_lines}")
endif()
