// The test binaries' precompiled header (tests/CMakeLists.txt, RMQ_TEST_PCH): Catch2 and all of rmq, which
// every test TU would otherwise parse on its own (about half of a test TU's compile time), parsed once per
// build tree.
#pragma once

// GCC's -fsanitize=thread warns on Asio's atomic fences; the tests silence it before <atomic>, and this
// header is now the first thing every test TU sees.
#if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <catch2/catch.hpp>

#include <rmq/rmq.hpp>
