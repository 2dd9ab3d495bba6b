#pragma once

/// @file config.hpp
/// Macros every rmq header uses. Only things a policy cannot express live here.

#include <rmq/version.hpp>

/// Empty policies are held as members; this keeps them from costing a byte.
#if defined(_MSC_VER) && !defined(__clang__)
#    define RMQ_NO_UNIQUE_ADDRESS [[msvc::no_unique_address]]
#else
#    define RMQ_NO_UNIQUE_ADDRESS [[no_unique_address]]
#endif
