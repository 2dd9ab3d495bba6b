#!/usr/bin/env bash
# Installs what building and testing rmq needs on Debian 12, and nothing else. Idempotent: packages already
# installed are detected with dpkg -s, and apt-get (including `apt-get update`) only runs when one is missing.
#
#   tools/install-deps.sh            the build/test toolchain and libraries
#   RMQ_DEPS_BROKER=1 tools/install-deps.sh   also the JDK + Maven for the real-broker tests
#                                              (tools/broker-test.sh and tools/bench.sh call it that way)
set -euo pipefail

PACKAGES=(
    g++ cmake ninja-build ccache python3
    catch2 librange-v3-dev libboost-dev libfmt-dev nlohmann-json3-dev
    zlib1g-dev libssl-dev liblz4-dev libzstd-dev
    clang-format-16
    libspdlog-dev                 # examples/log_spdlog.cpp
    clang-16 libclang-rt-16-dev   # tools/fuzz.sh: clang++-16 and its libFuzzer/sanitizer runtimes
)
# Real-broker tests (an Apache RocketMQ broker run from Java). Enabled with RMQ_DEPS_BROKER=1.
BROKER_PACKAGES=(openjdk-17-jdk-headless maven)
if [[ "${RMQ_DEPS_BROKER:-0}" == 1 ]]; then
    PACKAGES+=("${BROKER_PACKAGES[@]}")
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q '^install ok installed$'; then
        missing+=("$pkg")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "install-deps: all ${#PACKAGES[@]} packages already installed"
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
"${SUDO[@]}" apt-get update -q
"${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
