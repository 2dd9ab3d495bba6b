# Warnings for rmq's own tests, examples and benchmarks; never put on the INTERFACE target (users pick theirs).
# -Werror is for rmq's presets and CI (CMakePresets.json, tools/fuzz.sh, tools/broker-test.sh turn it on): a user's or
# packager's build with another compiler or build type must not stop at a warning no one here has seen.
option(RMQ_WERROR "Treat warnings as errors in rmq's own targets" OFF)

function(rmq_set_warnings target)
  # rmq::rmq's include directory is a system one for users; rmq's own targets must see warnings in rmq's headers.
  set_property(TARGET ${target} PROPERTY RMQ_WARN_IN_HEADERS ON)
  if(MSVC)
    target_compile_options(${target} PRIVATE /W4 $<$<BOOL:${RMQ_WERROR}>:/WX>)
  else()
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic $<$<BOOL:${RMQ_WERROR}>:-Werror>)
  endif()
endfunction()
