# A compile-fail test (cmake -P): building TARGET must fail AND print the regex on SOURCE's first line
# ("// EXPECT: <regex>"). ctest's PASS_REGULAR_EXPRESSION alone ignores the exit status, so a build that
# succeeded but printed the text would pass.
#   cmake -DBUILD_DIR=<dir> -DTARGET=<target> -DCONFIG=<config> -DSOURCE=<x.fail.cpp> -P check_compile_fail.cmake
foreach(_var BUILD_DIR TARGET SOURCE)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "check_compile_fail.cmake: -D${_var}=... missing")
  endif()
endforeach()
file(STRINGS ${SOURCE} _expect REGEX "^// EXPECT: " LIMIT_COUNT 1)
string(REPLACE "// EXPECT: " "" _expect "${_expect}")
if(_expect STREQUAL "")
  message(FATAL_ERROR "${SOURCE}: first line must be '// EXPECT: <regex>'")
endif()
set(_config_args)
if(CONFIG)
  set(_config_args --config ${CONFIG})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET} ${_config_args}
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(_rc EQUAL 0)
  message(FATAL_ERROR "compile-fail ${TARGET}: the build SUCCEEDED; it must fail with '${_expect}'.\n${_out}")
endif()
if(NOT _out MATCHES "${_expect}")
  message(FATAL_ERROR "compile-fail ${TARGET}: the build failed (${_rc}) without printing '${_expect}':\n${_out}")
endif()
message(STATUS "compile-fail ${TARGET}: failed as expected with '${_expect}'")
