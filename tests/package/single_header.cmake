# package.single_header: builds tests/package/downstream/main.cpp against the committed single header with the
# compile line docs/cmake.md gives (the `g++ -std=c++20 ...` line, with or without the LZ4/Zstandard codecs),
# then runs it. Inputs: -DSOURCE_DIR= -DWORK_DIR= -DCXX= [-DLAUNCHER=] -DCODECS=ON|OFF
file(STRINGS ${SOURCE_DIR}/docs/cmake.md _lines REGEX "^g\\+\\+ -std=c\\+\\+20 ")
set(_line)
foreach(_l IN LISTS _lines)
  string(FIND "${_l}" "-llz4" _has_codecs)
  if((CODECS AND _has_codecs GREATER -1) OR (NOT CODECS AND _has_codecs EQUAL -1))
    set(_line "${_l}")
  endif()
endforeach()
if(NOT _line)
  message(FATAL_ERROR "docs/cmake.md has no `g++ -std=c++20 ...` line (codecs: ${CODECS})")
endif()
message(STATUS "documented line: ${_line}")

# The layout the docs describe: the single headers copied to third_party/rmq/, the program in app.cpp.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/third_party)
file(COPY ${SOURCE_DIR}/single_include/rmq DESTINATION ${WORK_DIR}/third_party)
configure_file(${SOURCE_DIR}/tests/package/downstream/main.cpp ${WORK_DIR}/app.cpp COPYONLY)

separate_arguments(_args UNIX_COMMAND "${_line}")
list(POP_FRONT _args)  # g++: the compiler the suite is configured with instead
execute_process(COMMAND ${LAUNCHER} ${CXX} ${_args} WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "the documented single-header compile line failed (${_rc})")
endif()
execute_process(COMMAND ${WORK_DIR}/app WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "./app failed (${_rc})")
endif()
