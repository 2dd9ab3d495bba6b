#!/usr/bin/env bash
# Quick start, part 2: installs what is missing (Debian 12), configures the dev preset (Debug, tests, examples,
# benchmarks), builds everything and runs the whole ctest suite. Extra arguments go to ctest (e.g. -L unit).
set -euo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh

cmake --preset dev
cmake --build --preset dev
ctest --preset dev "$@"
