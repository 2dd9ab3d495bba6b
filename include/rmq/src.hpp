#pragma once

/// @file src.hpp
/// Separate compilation: include this in exactly one translation unit of a program that defines
/// RMQ_SEPARATE_COMPILATION in every translation unit. That TU compiles all of rmq's non-template code (the
/// `impl/*.ipp` files); every other TU then parses declarations only. With the CMake option
/// RMQ_SEPARATE_COMPILATION=ON, rmq::rmq is a static library built from such a TU (docs/cmake.md).
///
/// Users of the single header do the same by hand: RMQ_SEPARATE_COMPILATION everywhere, and in one TU
/// `#define RMQ_SOURCE` before `#include <rmq/remoting.hpp>` (or `<rmq/rmq.hpp>` in a program without the TCP
/// transport).

#if !defined(RMQ_SEPARATE_COMPILATION)
#    error                                                                                                   \
        "<rmq/src.hpp> is for separate compilation: define RMQ_SEPARATE_COMPILATION in every translation unit"
#endif

#if defined(RMQ_INCLUDE_IMPL) && !RMQ_INCLUDE_IMPL
#    error "<rmq/src.hpp> must be included before any other rmq header of its translation unit"
#endif

#define RMQ_SOURCE

#include <rmq/remoting.hpp>
