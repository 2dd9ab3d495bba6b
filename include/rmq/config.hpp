#pragma once

/// @file config.hpp
/// Macros every rmq header uses. Only things a policy cannot express live here.

#include <version>  // _LIBCPP_VERSION

#include <rmq/version.hpp>

/// libc++ drops std::result_of in C++20, and Boost.Asio 1.74 uses it unless told that std::invoke_result is
/// there. Telling Asio works whatever the user included first (libc++'s
/// _LIBCPP_ENABLE_CXX20_REMOVED_TYPE_TRAITS would have to precede every standard header), so long as Asio
/// comes after an rmq header.
#if defined(_LIBCPP_VERSION) && !defined(BOOST_ASIO_HAS_STD_INVOKE_RESULT)
#    define BOOST_ASIO_HAS_STD_INVOKE_RESULT 1
#endif

/// Empty policies are held as members; this keeps them from costing a byte (MSVC ignores the standard
/// attribute and needs its own spelling).
#if defined(_MSC_VER) && !defined(__clang__)
#    define RMQ_NO_UNIQUE_ADDRESS [[msvc::no_unique_address]]
#else
#    define RMQ_NO_UNIQUE_ADDRESS [[no_unique_address]]
#endif

/// Header-only (the default) or separate compilation, the way Asio offers both: define
/// RMQ_SEPARATE_COMPILATION in every translation unit and include <rmq/src.hpp> in exactly one; the
/// non-template code (codecs, the embedded broker, the connection layer, ...) is then compiled once, there.
///
/// Non-template functions are declared in headers and defined in `impl/*.ipp` files marked `RMQ_DECL`;
/// a header includes its .ipp files at its end inside `#if RMQ_INCLUDE_IMPL`.
#if defined(RMQ_SEPARATE_COMPILATION)
#    define RMQ_DECL
#    if defined(RMQ_SOURCE)  // set by <rmq/src.hpp>
#        define RMQ_INCLUDE_IMPL 1
#    else
#        define RMQ_INCLUDE_IMPL 0
#    endif
#else
#    define RMQ_DECL inline
#    define RMQ_INCLUDE_IMPL 1
#endif
