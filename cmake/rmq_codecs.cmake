# Finds liblz4 and libzstd (the optional LZ4 / Zstandard body codecs) as the imported targets rmq::lz4 and
# rmq::zstd. Used by rmq's CMakeLists.txt and, installed beside rmqConfig.cmake, by the package config, so that an
# installed rmq::rmq links found libraries instead of bare names. Neither ships a CMake package everywhere (zstd
# does on Debian 12, lz4 does not), hence find_library/find_path. Sets RMQ_LZ4_FOUND and RMQ_ZSTD_FOUND.
foreach(_rmq_codec IN ITEMS LZ4 ZSTD)
  if(_rmq_codec STREQUAL "LZ4")
    set(_rmq_lib lz4)
    set(_rmq_header lz4frame.h)
  else()
    set(_rmq_lib zstd)
    set(_rmq_header zstd.h)
  endif()
  set(RMQ_${_rmq_codec}_FOUND FALSE)
  if(TARGET rmq::${_rmq_lib})
    set(RMQ_${_rmq_codec}_FOUND TRUE)
    continue()
  endif()
  find_library(RMQ_${_rmq_codec}_LIBRARY ${_rmq_lib})
  find_path(RMQ_${_rmq_codec}_INCLUDE_DIR ${_rmq_header})
  mark_as_advanced(RMQ_${_rmq_codec}_LIBRARY RMQ_${_rmq_codec}_INCLUDE_DIR)
  if(RMQ_${_rmq_codec}_LIBRARY AND RMQ_${_rmq_codec}_INCLUDE_DIR)
    add_library(rmq::${_rmq_lib} UNKNOWN IMPORTED)
    set_target_properties(rmq::${_rmq_lib} PROPERTIES
      IMPORTED_LOCATION "${RMQ_${_rmq_codec}_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${RMQ_${_rmq_codec}_INCLUDE_DIR}")
    set(RMQ_${_rmq_codec}_FOUND TRUE)
  endif()
endforeach()
unset(_rmq_codec)
unset(_rmq_lib)
unset(_rmq_header)
