#!/usr/bin/env bash
# Quick start, part 1: installs what is missing (Debian 12), builds rmq's examples in release mode and runs the main
# demo (examples/ordered.cpp, or examples/ordered_producer.cpp while the former does not exist).
set -euo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh demo

if [[ -f examples/ordered.cpp ]]; then
    demo=ordered
elif [[ -f examples/ordered_producer.cpp ]]; then
    demo=ordered_producer
else
    echo "demo: neither examples/ordered.cpp nor examples/ordered_producer.cpp exists yet" >&2
    exit 1
fi

cmake --preset release
cmake --build --preset release --target "rmq_example_${demo}"
echo "demo: running build/release/examples/rmq_example_${demo}"
exec "build/release/examples/rmq_example_${demo}"
