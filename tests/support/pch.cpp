// Compiles tests/support/pch.hpp into the precompiled header the test binaries reuse (tests/CMakeLists.txt).
