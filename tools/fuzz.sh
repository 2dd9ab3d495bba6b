#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, RMQ_FUZZ=ON) with clang-16 + ASan + UBSan in build/fuzz and runs
# each for SECONDS (default 20) over its committed seed corpus (tests/fuzz/corpus/<target>/). Inputs it
# discovers go to build/fuzz/corpus/<target>/ (not the repo); a crash leaves its input in
# build/fuzz/artifacts/ and fails the script. Prints executions per target.
#
#   tools/fuzz.sh                 every target, 20 s each
#   tools/fuzz.sh 3600            every target, an hour each (a long session)
#   tools/fuzz.sh 600 fuzz_messages   one target
#   RMQ_FUZZ_JOBS=2 tools/fuzz.sh 3600   two fuzzing processes per target
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-20}
shift || true
BUILD=build/fuzz
CXX_BIN=${RMQ_FUZZ_CXX:-clang++-16}
if ! command -v "$CXX_BIN" >/dev/null 2>&1; then
    echo "fuzz: $CXX_BIN not found (apt-get install clang-16 libclang-rt-16-dev)" >&2
    exit 1
fi
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=1
launcher=()
if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_CXX_COMPILER="$CXX_BIN" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DRMQ_WERROR=ON -DRMQ_FUZZ=ON -DRMQ_BUILD_TESTS=OFF -DRMQ_BUILD_EXAMPLES=OFF -DRMQ_BUILD_BENCH=OFF -DRMQ_INSTALL=OFF \
    "${launcher[@]}" >/dev/null
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    targets=()
    for f in tests/fuzz/fuzz_*.cpp; do
        targets+=("$(basename "$f" .cpp)")
    done
fi
cmake --build "$BUILD" --target "${targets[@]/#/rmq_}"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$BUILD/artifacts"
failed=0
summary=()
for t in "${targets[@]}"; do
    mkdir -p "$BUILD/corpus/$t"
    log="$BUILD/$t.log"
    echo "fuzz: $t for ${SECONDS_EACH}s"
    rc=0
    jobs=()
    if [[ ${RMQ_FUZZ_JOBS:-1} -gt 1 ]]; then
        # Parallel workers log to fuzz-<n>.log in the working directory: keep those in the build dir.
        jobs=(-jobs="$RMQ_FUZZ_JOBS" -workers="$RMQ_FUZZ_JOBS")
        rm -f "$BUILD"/fuzz-*.log
    fi
    (cd "$BUILD" && "tests/fuzz/rmq_$t" -max_total_time="$SECONDS_EACH" -max_len=65536 -rss_limit_mb=2048 \
        -timeout=10 -print_final_stats=1 "${jobs[@]}" -artifact_prefix="artifacts/$t-" "corpus/$t" \
        "$OLDPWD/tests/fuzz/corpus/$t") >"$log" 2>&1 || rc=$?
    execs=$(cat "$log" "$BUILD"/fuzz-*.log 2>/dev/null | grep 'stat::number_of_executed_units' |
        awk '{s += $2} END {print s + 0}' || true)
    if [[ $rc -ne 0 ]]; then
        failed=1
        tail -40 "$log"
        summary+=("$(printf '%-20s FAILED  %12s execs  (log %s)' "$t" "$execs" "$log")")
    else
        summary+=("$(printf '%-20s ok      %12s execs' "$t" "$execs")")
    fi
done
printf '%s\n' "${summary[@]}"
exit $failed
