#pragma once

/// @file config.hpp
/// Macros every rmq header uses. Only things a policy cannot express live here.

#include <rmq/version.hpp>

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
