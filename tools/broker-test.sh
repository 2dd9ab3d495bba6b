#!/usr/bin/env bash
# Real-cluster tests: rmq's RemotingTransport against Apache RocketMQ 5.3.3 (one NameServer, broker-a and
# broker-b on 127.0.0.1, started by tools/rocketmq.sh).
#
#   tools/broker-test.sh [catch2 args...]     e.g. tools/broker-test.sh "[realcluster]" -s
#   RMQ_VERSION=4.9.7 tools/broker-test.sh    the same suite against Apache RocketMQ 4.9.7 (RMQ_VERSION is passed
#                                             to tools/rocketmq.sh and to the tests, which skip 5.x-only checks
#                                             loudly); RMQ_NAMESRV_PORT / RMQ_BROKER_PORT pick the ports
#
# 1. makes sure the JDK and Maven are there (installs them with RMQ_DEPS_BROKER=1 tools/install-deps.sh when
#    running as root), then `tools/rocketmq.sh fetch`. When that fails (Maven Central unreachable) the tests are
#    NOT run: a loud SKIPPED message and exit status 0 -- nothing is reported as passed. Under CI=true (.ci/run)
#    a skip is a failure: exit status 1.
# 2. builds tests/realcluster (its own small CMake project) in build/broker-test (RMQ_BROKER_TEST_BUILD),
# 3. starts the cluster in a fresh directory, runs the tests, stops the cluster (also on failure / Ctrl-C).
# With RMQ_TLS_MODE=enforcing (or permissive) the cluster serves TLS (tools/rocketmq.sh start --tls) and every test
# connects with TLS; the [tls] tests then also check the failures (e.g. RMQ_TLS_MODE=enforcing tools/broker-test.sh
# "[tls]"); on a plain cluster they only warn.
# With RMQ_ACL=1 the brokers enforce authentication and authorization (tools/rocketmq.sh start --acl) and every
# test signs as the cluster's super user; the [acl] tests then run (RMQ_ACL=1 tools/broker-test.sh "[acl]"); on a
# cluster without ACL they only warn.
# Prints how long each step took. Exit status: the tests' (non-zero when a test failed or the cluster did not
# start).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
T0=$SECONDS
export RMQ_VERSION=${RMQ_VERSION:-5.3.3}
declare -a TIMES=()

step_done() { TIMES+=("$(printf '%-22s %4ds' "$1" $((SECONDS - $2)))"); }

skip() {
    {
        echo
        echo "######################################################################################"
        echo "####  SKIPPED (NOT PASSED): real-cluster tests (tools/broker-test.sh)"
        echo "####  reason: $1"
        echo "####  No real-cluster test ran; nothing here was verified against Apache RocketMQ."
        if [[ ${CI:-} == true ]]; then
            echo "####  CI=true: a skipped real-cluster stage is a FAILURE."
        fi
        echo "######################################################################################"
        echo
    } >&2
    [[ ${CI:-} == true ]] && exit 1
    exit 0
}

if ! command -v java >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
    if [[ $(id -u) -eq 0 ]]; then
        RMQ_DEPS_BROKER=1 tools/install-deps.sh >&2 || true
    fi
    command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1 ||
        skip "java and/or mvn missing (install openjdk-17-jdk-headless and maven: RMQ_DEPS_BROKER=1 tools/install-deps.sh)"
fi

t=$SECONDS
if ! tools/rocketmq.sh fetch >&2; then
    skip "Apache RocketMQ $RMQ_VERSION could not be fetched from Maven Central (tools/rocketmq.sh fetch failed)"
fi
step_done fetch "$t"

BUILD=${RMQ_BROKER_TEST_BUILD:-$ROOT/build/broker-test}
t=$SECONDS
launcher=()
if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
generator=()
if command -v ninja >/dev/null 2>&1; then
    generator=(-G Ninja)
fi
cmake -S tests/realcluster -B "$BUILD" "${generator[@]}" -DCMAKE_BUILD_TYPE=Debug -DRMQ_WERROR=ON "${launcher[@]}" >&2
cmake --build "$BUILD" -j "${RMQ_BUILD_JOBS:-2}" >&2
step_done build "$t"

t=$SECONDS
start_args=()
[[ ${RMQ_ACL:-0} != 1 ]] || start_args+=(--acl)
RMQ_CLUSTER_DIR=$(tools/rocketmq.sh start "${start_args[@]+"${start_args[@]}"}") || {
    echo "broker-test.sh: FAILED: the Apache RocketMQ cluster did not start" >&2
    exit 1
}
export RMQ_CLUSTER_DIR
trap 'tools/rocketmq.sh stop --fast --dir "$RMQ_CLUSTER_DIR" >&2 || true' EXIT
set -a
# shellcheck disable=SC1091
. "$RMQ_CLUSTER_DIR/cluster.env"
set +a
export RMQ_ROCKETMQ_SH=$ROOT/tools/rocketmq.sh
step_done "cluster start" "$t"

t=$SECONDS
rc=0
"$BUILD/rmq_realcluster" --durations yes "$@" || rc=$?
step_done tests "$t"

echo "broker-test.sh: timings (Apache RocketMQ $RMQ_VERSION)" >&2
printf '  %s\n' "${TIMES[@]}" >&2
printf '  %-22s %4ds\n' total $((SECONDS - T0)) >&2
if [[ $rc -ne 0 ]]; then
    echo "broker-test.sh: FAILED (real-cluster tests exit status $rc, Apache RocketMQ $RMQ_VERSION)" >&2
else
    echo "broker-test.sh: real-cluster tests passed (Apache RocketMQ $RMQ_VERSION)" >&2
fi
exit $rc
