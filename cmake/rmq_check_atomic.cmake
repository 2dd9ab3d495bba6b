# clang (and some targets) need libatomic for Boost.Lockfree's double-width atomics: probe, link only if needed.
include(CheckCXXSourceCompiles)

function(rmq_check_atomic target)
  set(_src "
#include <atomic>
#include <cstdint>
struct Tagged { void* p; std::uint64_t tag; };
int main() {
  std::atomic<std::uint64_t> a{0};
  std::atomic<Tagged> t{Tagged{nullptr, 0}};
  Tagged expected = t.load();
  t.compare_exchange_strong(expected, Tagged{&a, 1});
  return static_cast<int>(a.fetch_add(1) + t.load().tag);
}")
  set(CMAKE_REQUIRED_FLAGS "-std=c++20")
  # CMake's own "Performing Test ... - Failed" line would read like an error when the answer is just "yes".
  set(CMAKE_REQUIRED_QUIET ON)
  message(CHECK_START "rmq: checking whether 16-byte std::atomic needs libatomic")
  check_cxx_source_compiles("${_src}" RMQ_ATOMIC_WITHOUT_LIB)
  if(RMQ_ATOMIC_WITHOUT_LIB)
    message(CHECK_PASS "no")
    return()
  endif()
  set(CMAKE_REQUIRED_LIBRARIES atomic)
  check_cxx_source_compiles("${_src}" RMQ_ATOMIC_WITH_LIB)
  if(RMQ_ATOMIC_WITH_LIB)
    message(CHECK_PASS "yes: rmq::rmq links atomic")
    get_target_property(_type ${target} TYPE)
    if(_type STREQUAL "INTERFACE_LIBRARY")
      target_link_libraries(${target} INTERFACE atomic)
    else()
      target_link_libraries(${target} PUBLIC atomic)
    endif()
  else()
    message(CHECK_FAIL "no working 16-byte std::atomic, even with libatomic")
    message(WARNING "rmq: no working std::atomic for 16-byte structs found, even with libatomic")
  endif()
endfunction()
