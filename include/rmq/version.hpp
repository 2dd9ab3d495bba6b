#pragma once

/// @file version.hpp
/// rmq's version; CMake reads it from here so there is one source of truth.

#define RMQ_VERSION_MAJOR 0
#define RMQ_VERSION_MINOR 1
#define RMQ_VERSION_PATCH 0
