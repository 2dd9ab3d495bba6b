#!/usr/bin/env bash
# Installs what building and testing rmq needs on Debian 12, and nothing else. Idempotent: packages already
# installed are detected with dpkg-query, and apt-get only runs when one is missing; `apt-get update` only when
# installing from the current package lists fails. apt waits up to 10 minutes for the dpkg lock held by another
# apt instead of failing at once.
#
#   tools/install-deps.sh demo   what tools/demo.sh needs: compiler, CMake, Ninja, rmq's libraries
#   tools/install-deps.sh test   demo + what tools/test.sh needs: Catch2, Python 3, ccache, spdlog (an example),
#                                clang-16 with libc++ (the libc++ packaging test)
#   tools/install-deps.sh [all]  test + clang-format-16 (tools/format.sh), clang-tidy-16 (tools/tidy.sh) and
#                                clang-16's sanitizer/libFuzzer runtimes (the asan/tsan presets, tools/fuzz.sh):
#                                everything .ci/run needs
#   RMQ_DEPS_BROKER=1 tools/install-deps.sh ...   also the JDK + Maven for the real-broker tests
#                                (tools/broker-test.sh and tools/bench.sh call it that way)
#   RMQ_DEPS_BENCH=1 tools/install-deps.sh ...    also python3-matplotlib for the benchmark charts (tools/bench.sh)
set -euo pipefail

profile=${1:-all}
DEMO_PACKAGES=(
    g++ cmake ninja-build
    librange-v3-dev libboost-dev libfmt-dev nlohmann-json3-dev zlib1g-dev libssl-dev liblz4-dev libzstd-dev
)
TEST_PACKAGES=(
    ccache python3 catch2
    libspdlog-dev                                 # examples/log_spdlog.cpp
    clang-16 libc++-16-dev libc++abi-16-dev       # the ctest package.libcxx
)
ALL_PACKAGES=(
    clang-format-16
    clang-tidy-16                 # tools/tidy.sh
    libclang-rt-16-dev            # clang++-16 sanitizer runtimes (asan/tsan presets) and libFuzzer (tools/fuzz.sh)
)
case "$profile" in
    demo) PACKAGES=("${DEMO_PACKAGES[@]}") ;;
    test) PACKAGES=("${DEMO_PACKAGES[@]}" "${TEST_PACKAGES[@]}") ;;
    all) PACKAGES=("${DEMO_PACKAGES[@]}" "${TEST_PACKAGES[@]}" "${ALL_PACKAGES[@]}") ;;
    *)
        echo "usage: tools/install-deps.sh [demo|test|all]" >&2
        exit 2
        ;;
esac
# Real-broker tests (an Apache RocketMQ broker run from Java). Enabled with RMQ_DEPS_BROKER=1.
BROKER_PACKAGES=(openjdk-17-jdk-headless maven)
if [[ "${RMQ_DEPS_BROKER:-0}" == 1 ]]; then
    PACKAGES+=("${BROKER_PACKAGES[@]}")
fi
if [[ "${RMQ_DEPS_BENCH:-0}" == 1 ]]; then
    PACKAGES+=(python3-matplotlib)
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q '^install ok installed$'; then
        missing+=("$pkg")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "install-deps: all ${#PACKAGES[@]} packages (${profile}) already installed"
    exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=()
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        echo "install-deps: missing packages (${missing[*]}) and not root; run as root or install them" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
APT=("${SUDO[@]}" apt-get -q -o DPkg::Lock::Timeout=600)
if ! "${APT[@]}" install -y --no-install-recommends "${missing[@]}"; then
    echo "install-deps: retrying after apt-get update"
    "${APT[@]}" update
    "${APT[@]}" install -y --no-install-recommends "${missing[@]}"
fi
