# package.install: a fresh `cmake --install` of rmq's build tree into PREFIX (what package.find_package uses).
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX} --config ${CONFIG}
                RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD_DIR} failed (${_rc})")
endif()
