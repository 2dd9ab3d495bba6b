#!/usr/bin/env bash
# One command for rmq's benchmarks (docs/benchmarks.md): builds bench/ in Release with the flags of the
# `release` preset, runs every benchmark that can run on this machine (fresh process per run, interleaved,
# repeated), and writes bench/results/latest.md and bench/results/latest.json. Progress goes to stderr.
# On a clean Debian machine it first installs what is missing (tools/install-deps.sh, with the JDK and Maven
# unless --no-java) and fetches Apache RocketMQ 5.3.3 and its Java client (tools/rocketmq.sh fetch).
#
#   tools/bench.sh [--quick] [--reps N] [--messages N] [--backlog N] [--no-backlog] [--no-rebalance]
#                  [--real-messages N] [--real-backlog N] [--backlog-window S] [--no-real-backlog]
#                  [--work-messages N] [--no-work] [--no-busy]
#                  [--no-java] [--build-dir DIR] [--out DIR] [--report-only FILE]
#                  [--compile] [--no-compile] [--compile-include DIR] [--key-orderly] [--no-key-orderly]
#                  [--allocate] [--no-allocate] [--beyond-push] [--no-beyond-push] [--beyond-messages N]
#
#   --quick       a smoke run (~3 minutes): 100,000 in-process messages, 1 repetition, 500,000-message
#                 in-process backlog; real broker: 20,000 messages, 1,000,000-message backlog, 10 s window
#   --reps N      repetitions of the throughput runs (default 3; medians are reported)
#   --messages N  prefilled messages of the in-process throughput runs (default 1,000,000)
#   --backlog N   messages of the in-process backlog run (default 5,000,000; ~5 GB of RAM for the embedded broker)
#   --real-messages N   messages prefilled on the real broker, once of 128 B and once of 1 KiB (default
#                       1,000,000: long enough that the steady part, after the first fifth, is most of the run)
#   --work-messages N   messages (128 B, 400 keys) of the real-broker runs whose listener does work: sleeps 1 ms
#                       per call, or hashes each body 100 times; 64 consume threads (default 100,000)
#   --no-work     skip those runs
#   --no-busy     skip the real-broker runs with one core kept busy by a CPU hog (128 B, each pipeline once,
#                 Java and rmq; part of the default full run)
#   --real-backlog N    real-broker backlog on a 16-queue topic (default 5,000,000 of 128 B; prefilled by 4
#                       Java sender threads in batches of 128, ~1.2 GB of commit log)
#   --backlog-window S  how long rmq and Java each drain the real-broker backlog (default 30 s)
#   --no-real-backlog   skip the real-broker backlog runs
#   --report-only FILE  only rewrite latest.md/json (and the charts) from the JSON lines of an earlier run, or
#                 from a latest.json (its runs and parameters): `--report-only bench/results/latest.json`
#   --no-java     skip the real-broker runs (RocketMQ cluster from tools/rocketmq.sh + Java DefaultMQPushConsumer)
#   --compile     only the compile-cost measurement (~2-4 minutes): its rows replace the compile rows of the
#                 existing latest.md/json, the other rows are kept from the last full run
#   --no-compile  skip the compile-cost measurement (it is part of the default full run)
#   --compile-include DIR  measure the headers under DIR instead of include/ (e.g. a worktree of an older
#                 commit: `--compile --compile-include /tmp/before/include --out /tmp/before-results`)
#   --allocate    only the allocation-movement table (~2 minutes, deterministic): rmq_bench_allocate_movement
#                 over N = 1..64 queues, C = 1..16 consumers; its section of latest.md is replaced, the rest kept
#   --no-allocate skip it (it is part of the default full run; other runs keep the section they find)
#   --key-orderly only rmq::KeyOrderly vs rmq::Orderly (bench/key_orderly.cpp, ~30 s per repetition): its rows
#                 replace the key-orderly rows of the existing latest.md/json, the other rows are kept
#   --no-key-orderly  skip it (it is part of the default full run)
#   --producer    only the producer benchmark (bench/produce.cpp vs bench/java JavaProduceBench on a one-broker
#                 5.3.3 cluster: sync, async (1,024 in flight), batch (32) and oneway sends of 128 B and 1 KiB, Java
#                 right before rmq, --reps repetitions): its rows replace the producer rows of latest.md/json
#   --no-producer skip it (it is part of the default full run)
#   --produce-messages N  messages per producer run (default 200,000; --quick 20,000)
#   --beyond-push only the consumers beyond push (on a one-broker 5.3.3 cluster of its own, topic BenchBeyond, 8
#                 queues, 128 B): per repetition the push consumer (Concurrently, 20 threads, batch 1), the lite
#                 pull consumer (rmq::LitePullConsumer / DefaultLitePullConsumer, one polling thread) and POP
#                 (rmq::SimpleConsumer, 20 receiving threads acking each message or each batch / Java
#                 DefaultMQPushConsumer with clientRebalance
#                 false after `mqadmin setConsumeMode -m POP -q 8`), Java right before rmq: its rows replace the
#                 beyond-push rows of latest.md/json, the other rows are kept
#   --no-beyond-push  skip it (it is part of the default full run)
#   --beyond-messages N  messages per beyond-push run (default 200,000; --quick 20,000)
#
# Compile cost: bench/compile/probe.cpp (the umbrella <rmq/rmq.hpp>, the embedded broker, a producer and a
# Concurrently consumer) and bench/compile/yardstick.cpp (fmt, nlohmann::json, std threads and containers),
# each compiled with `g++ -std=c++20 -O2 -c` under /usr/bin/time, best of 2; the figures are compiler CPU
# (user + sys) and peak RSS, and their ratios probe / yardstick. Header-only, and with
# RMQ_SEPARATE_COMPILATION (plus the one-time cost of the TU that includes <rmq/src.hpp>); and header-only with
# <rmq/remoting.hpp> (the umbrella that adds the TCP transport, Boost.Asio) instead of <rmq/rmq.hpp>.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${RMQ_BENCH_BUILD_DIR:-$ROOT/build/bench}
OUT=$ROOT/bench/results
REPS=3
MESSAGES=1000000
BACKLOG=5000000
EXTRA=()
REAL_MESSAGES=1000000
WORK_MESSAGES=100000
BUSY=1
REAL_BACKLOG=5000000
BACKLOG_WINDOW=30
RUN_JAVA=1
REPORT_ONLY=""
COMPILE=1          # 0: skip, 1: part of the full run, 2: only the compile cost
COMPILE_INCLUDE=""
ALLOCATE=1         # 0: skip, 1: part of the full run, 2: only the allocation-movement table
KEYO=1             # rmq_bench_key_orderly: 0: skip, 1: part of the full run, 2: only it
PRODUCER=1         # rmq_bench_produce + JavaProduceBench: 0: skip, 1: part of the full run, 2: only it
PRODUCE_MESSAGES=200000
BEYOND=1           # push vs lite pull vs POP: 0: skip, 1: part of the full run, 2: only it
BEYOND_MESSAGES=200000

while [[ $# -gt 0 ]]; do
    case $1 in
    --quick) REPS=1 MESSAGES=100000 BACKLOG=500000 REAL_MESSAGES=20000 REAL_BACKLOG=1000000 BACKLOG_WINDOW=10
        WORK_MESSAGES=10000 PRODUCE_MESSAGES=20000 BEYOND_MESSAGES=20000 ;;
    --reps) REPS=$2; shift ;;
    --messages) MESSAGES=$2; shift ;;
    --backlog) BACKLOG=$2; shift ;;
    --no-backlog) EXTRA+=(--no-backlog) ;;
    --no-rebalance) EXTRA+=(--no-rebalance) ;;
    --real-messages) REAL_MESSAGES=$2; shift ;;
    --work-messages) WORK_MESSAGES=$2; shift ;;
    --no-work) WORK_MESSAGES=0 ;;
    --no-busy) BUSY=0 ;;
    --real-backlog) REAL_BACKLOG=$2; shift ;;
    --backlog-window) BACKLOG_WINDOW=$2; shift ;;
    --no-real-backlog) REAL_BACKLOG=0 ;;
    --no-java) RUN_JAVA=0 ;;
    --report-only) REPORT_ONLY=$2; shift ;;
    --compile) COMPILE=2 ;;
    --no-compile) COMPILE=0 ;;
    --compile-include) COMPILE_INCLUDE=$2; shift ;;
    --allocate) ALLOCATE=2 ;;
    --no-allocate) ALLOCATE=0 ;;
    --key-orderly) KEYO=2 COMPILE=0 ;;
    --no-key-orderly) KEYO=0 ;;
    --producer) PRODUCER=2 COMPILE=0 ;;
    --no-producer) PRODUCER=0 ;;
    --produce-messages) PRODUCE_MESSAGES=$2; shift ;;
    --beyond-push) BEYOND=2 COMPILE=0 ;;
    --no-beyond-push) BEYOND=0 ;;
    --beyond-messages) BEYOND_MESSAGES=$2; shift ;;
    --build-dir) BUILD=$2; shift ;;
    --out) OUT=$2; shift ;;
    -h | --help) sed -n '2,56p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

log() { printf '[bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# Allocation movement (docs/benchmarks.md): a marked section of latest.md that the report below does not
# write; kept as found unless --allocate or a full run computes it again.
ALLOC_SECTION=$(python3 - "$OUT/latest.md" <<'PY'
import os, re, sys
text = open(sys.argv[1]).read() if os.path.exists(sys.argv[1]) else ""
m = re.search(r"<!-- allocate_movement -->.*?<!-- /allocate_movement -->", text, re.S)
print(m.group(0) if m else "")
PY
)
allocate_movement() {  # builds and runs rmq_bench_allocate_movement into $ALLOC_SECTION (needs $BUILD configured)
    log "building and running rmq_bench_allocate_movement (deterministic, ~2 min)"
    cmake --build "$BUILD" --target rmq_bench_allocate_movement -j2 >&2 || return 1
    local table
    table=$("$BUILD/bench/rmq_bench_allocate_movement" --markdown) || return 1
    ALLOC_SECTION="<!-- allocate_movement -->
## Allocation: queues moved when one member joins or leaves

$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown); \
deterministic (no broker, no clock): N = 1..64 queues, C = 1..16 consumers, three queue layouts pooled (one \
broker, two brokers, another topic). Join: C members become C+1, unavoidable = the newcomer's queues; leave: C+1 \
members become C, each member leaving in turn, unavoidable = the leaver's queues. Mean = mean of moved / \
unavoidable over the events; total = all moves / all unavoidable moves. See docs/benchmarks.md.

$table
<!-- /allocate_movement -->"
}
put_allocate_section() {  # (re)inserts the section before the raw runs of latest.md
    [[ -n $ALLOC_SECTION && -f $OUT/latest.md ]] || return 0
    ALLOC_SECTION=$ALLOC_SECTION python3 - "$OUT/latest.md" <<'PY'
import os, re, sys
text = open(sys.argv[1]).read()
section = os.environ["ALLOC_SECTION"] + "\n"
text = re.sub(r"<!-- allocate_movement -->.*?<!-- /allocate_movement -->\n\n?", "", text, flags=re.S)
at = text.find("Raw runs (one JSON object per run):")
text = text + "\n" + section if at < 0 else text[:at] + section + "\n" + text[at:]
open(sys.argv[1], "w").write(text)
PY
}
if [[ $ALLOCATE == 2 ]]; then
    [[ -f $OUT/latest.md ]] || { echo "bench.sh --allocate: no $OUT/latest.md to add to (run a full bench first)" >&2; exit 1; }
    if [[ ! -f $BUILD/CMakeCache.txt ]]; then
        GEN=()
        if command -v ninja >/dev/null; then GEN=(-G Ninja); fi
        cmake -S "$ROOT" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DRMQ_WERROR=OFF -DRMQ_BUILD_TESTS=OFF \
            -DRMQ_BUILD_EXAMPLES=OFF -DRMQ_BUILD_BENCH=ON >/dev/null
    fi
    allocate_movement
    put_allocate_section
    log "wrote the allocation-movement section of $OUT/latest.md"
    exit 0
fi

# Compile cost (see the header): prints one JSON line per (TU, mode) with the best of 2 interleaved runs.
compile_cost() {
    local inc=${COMPILE_INCLUDE:-$ROOT/include} cxx=${CXX:-g++} tmp rev
    inc=$(cd "$inc" && pwd)
    tmp=$(mktemp -d)
    rev=$(git -C "$inc" rev-parse --short HEAD 2>/dev/null || echo unknown)
    # The flags and definitions the rmq::rmq target gives its users (fmt::fmt adds FMT_SHARED; the other
    # dependencies are in the system include path).
    local flags=(-std=c++20 -O2 -c -o /dev/null -I"$inc" -DFMT_SHARED)
    echo '#include <lz4frame.h>' | "$cxx" -E -x c++ - >/dev/null 2>&1 && flags+=(-DRMQ_WITH_LZ4)
    echo '#include <zstd.h>' | "$cxx" -E -x c++ - >/dev/null 2>&1 && flags+=(-DRMQ_WITH_ZSTD)
    printf '#include <rmq/src.hpp>\n' >"$tmp/src.cpp"
    local jobs=("yardstick header-only $ROOT/bench/compile/yardstick.cpp"
        "probe header-only $ROOT/bench/compile/probe.cpp")
    if [[ -f $inc/rmq/remoting.hpp ]]; then  # the umbrella with the TCP transport
        jobs+=("probe-remoting header-only $ROOT/bench/compile/probe.cpp -DRMQ_PROBE_REMOTING")
    fi
    if [[ -f $inc/rmq/src.hpp ]]; then
        jobs+=("probe separate $ROOT/bench/compile/probe.cpp -DRMQ_SEPARATE_COMPILATION"
            "src separate $tmp/src.cpp -DRMQ_SEPARATE_COMPILATION")
    fi
    local rep job tu mode src u s m
    for rep in 1 2; do
        for job in "${jobs[@]}"; do
            set -- $job
            tu=$1 mode=$2 src=$3
            shift 3
            log "compile cost rep $rep/2: $tu ($mode) against $inc"
            if /usr/bin/time -f '%U %S %M' -o "$tmp/time" "$cxx" "${flags[@]}" "$@" "$src" >&2; then
                read -r u s m <"$tmp/time"
                printf '{"mode": "compile", "tu": "%s", "build": "%s", "cpu_s": %s, "peak_rss_mb": %s, "include": "%s", "commit": "%s", "date": "%s"}\n' \
                    "$tu" "$mode" "$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')" \
                    "$(awk -v m="$m" 'BEGIN { printf "%.1f", m / 1024 }')" "$inc" "$rev" \
                    "$(date -u '+%Y-%m-%d %H:%M UTC')" >>"$tmp/runs"
            else
                log "  $tu ($mode) failed to compile"
            fi
        done
    done
    # best of 2: the run with the least CPU, and the least peak RSS
    python3 - "$tmp/runs" "$(nproc)" "$(uptime | sed 's/.*load average: //')" <<'PY'
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
best = {}
for r in runs:
    k = (r["tu"], r["build"])
    b = best.setdefault(k, dict(r, runs=0, peak_rss_mb=r["peak_rss_mb"]))
    if r["cpu_s"] < b["cpu_s"]:
        b["cpu_s"] = r["cpu_s"]
    b["peak_rss_mb"] = min(b["peak_rss_mb"], r["peak_rss_mb"])
    b["runs"] += 1
for b in best.values():
    b.update(cpus=int(sys.argv[2]), load_average=sys.argv[3])
    print(json.dumps(b))
PY
    rm -rf "$tmp"
}

# rmq::KeyOrderly vs rmq::Orderly (bench/key_orderly.cpp): a 2 ms listener, 8 queues, 400 keys, 64 threads;
# one JSON line per policy and repetition.
key_orderly_bench() {
    local launcher=() gen=()
    if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
    if command -v ninja >/dev/null; then gen=(-G Ninja); fi
    cmake -S "$ROOT" -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DRMQ_WERROR=OFF -DRMQ_BUILD_TESTS=OFF \
        -DRMQ_BUILD_EXAMPLES=OFF -DRMQ_BUILD_BENCH=ON "${launcher[@]}" >/dev/null
    log "building rmq_bench_key_orderly"
    cmake --build "$BUILD" --target rmq_bench_key_orderly -j2 >&2
    log "key-orderly bench: $REPS repetition(s) of Orderly then KeyOrderly, 10 s windows"
    local rev stamp
    rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
    stamp=$(date -u '+%Y-%m-%d %H:%M UTC')
    "$BUILD/bench/rmq_bench_key_orderly" --queues 8 --keys 400 --threads 64 --sleep-ms 2 --seconds 10 \
        --reps "$REPS" | sed "s/}\$/,\"commit\":\"$rev\",\"date\":\"$stamp\"}/"
}

# The producer benchmark: rmq_bench_produce and JavaProduceBench on a one-broker cluster of its own (topic
# BenchProduce, 8 queues); per repetition, body size and mode, Java right before rmq. One JSON line per run.
producer_bench() {
    local launcher=() gen=() cp jout cluster namesrv rev stamp status=0
    if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
    if command -v ninja >/dev/null; then gen=(-G Ninja); fi
    cmake -S "$ROOT" -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DRMQ_WERROR=OFF -DRMQ_BUILD_TESTS=OFF \
        -DRMQ_BUILD_EXAMPLES=OFF -DRMQ_BUILD_BENCH=ON "${launcher[@]}" >/dev/null
    log "building rmq_bench_produce"
    cmake --build "$BUILD" --target rmq_bench_produce -j2 >&2 || return 1
    cp=$("$ROOT/tools/rocketmq.sh" classpath client 2>/dev/null) ||
        { "$ROOT/tools/rocketmq.sh" fetch >&2 && cp=$("$ROOT/tools/rocketmq.sh" classpath client); } || return 1
    jout=$BUILD/java
    mkdir -p "$jout"
    javac -d "$jout" -cp "$cp" "$ROOT"/bench/java/src/rmq/bench/*.java || return 1
    log "producer bench: starting a one-broker cluster"
    cluster=$("$ROOT/tools/rocketmq.sh" start --brokers 1 2> >(sed 's/^/  /' >&2)) || return 1
    namesrv=$(sed -n 's/^RMQ_NAMESRV=//p' "$cluster/cluster.env")
    "$ROOT/tools/rocketmq.sh" create-topic BenchProduce 8 --dir "$cluster" >&2
    rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
    stamp=$(date -u '+%Y-%m-%d %H:%M UTC')
    local tag="s/}\$/,\"commit\":\"$rev\",\"date\":\"$stamp\"}/"
    for rep in $(seq 1 "$REPS"); do
        for body in 128 1024; do
            for mode in sync async batch oneway; do
                log "producer bench rep $rep/$REPS, $body B, $mode: Java DefaultMQProducer"
                # Java 5.3.3's sendOneway can stall for good once 65,535 are in flight (a Netty event loop waits
                # for its own oneway semaphore inside a channel listener, and it is the thread that would release
                # it): a oneway run gets 120 s and a stalled one is reported, not counted as a failure.
                local java_secs=600
                [[ $mode == oneway ]] && java_secs=120
                timeout "$java_secs" java ${RMQ_BENCH_JVM:-} -cp "$jout:$cp" rmq.bench.JavaProduceBench "$namesrv" \
                    BenchProduce "$mode" "$PRODUCE_MESSAGES" "$body" | sed "$tag" || {
                    if [[ $mode == oneway ]]; then
                        log "  Java oneway run did not finish in $java_secs s (the stall above; its row says so)"
                    else
                        log "  Java run failed"
                        status=1
                    fi
                }
                log "producer bench rep $rep/$REPS, $body B, $mode: rmq::Producer"
                timeout 600 "$BUILD/bench/rmq_bench_produce" --namesrv "$namesrv" --topic BenchProduce --mode "$mode" \
                    --messages "$PRODUCE_MESSAGES" --body "$body" | sed "$tag" || { log "  rmq run failed"; status=1; }
            done
        done
    done
    "$ROOT/tools/rocketmq.sh" stop --fast --clean --dir "$cluster" >/dev/null 2>&1 || true
    return $status
}

# Sets group $2 of the cluster in directory $1 to POP for BenchBeyond (-q 8: each member pops queue id -1 of each broker).
set_pop_mode() {
    RMQ_CLUSTER_DIR=$1 "$ROOT/tools/rocketmq.sh" mqadmin setConsumeMode -c DefaultCluster -t BenchBeyond -g "$2" \
        -m POP -q 8 2>&1 | grep -q success || { log "  mqadmin setConsumeMode failed"; return 1; }
}

# Push, lite pull and POP side by side (--beyond-push): rmq_bench_real_broker and JavaPushBench on a one-broker
# cluster of its own, topic BenchBeyond (8 queues, BEYOND_MESSAGES of 128 B prefilled once); every run drains it
# with a fresh group from the first offset. Per repetition and consumer, Java right before rmq. Java's POP row is
# its push consumer popping: clientRebalance false (the broker assigns the queues) and the group's consume mode set
# to POP (-q 8, at least the members: 5.3.3 then assigns each member queue id -1 of each broker, every queue).
# One JSON line per run, marked "suite":"beyond_push".
beyond_push_bench() {
    local launcher=() gen=() cp jout cluster namesrv rev stamp status=0 jlogs group
    if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
    if command -v ninja >/dev/null; then gen=(-G Ninja); fi
    cmake -S "$ROOT" -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DRMQ_WERROR=OFF -DRMQ_BUILD_TESTS=OFF \
        -DRMQ_BUILD_EXAMPLES=OFF -DRMQ_BUILD_BENCH=ON "${launcher[@]}" >/dev/null
    log "building rmq_bench_real_broker"
    cmake --build "$BUILD" --target rmq_bench_real_broker -j2 >&2 || return 1
    cp=$("$ROOT/tools/rocketmq.sh" classpath client 2>/dev/null) ||
        { "$ROOT/tools/rocketmq.sh" fetch >&2 && cp=$("$ROOT/tools/rocketmq.sh" classpath client); } || return 1
    jout=$BUILD/java
    mkdir -p "$jout"
    javac -d "$jout" -cp "$cp" "$ROOT"/bench/java/src/rmq/bench/*.java || return 1
    jlogs=$(mktemp -d)
    log "beyond-push bench: starting a one-broker cluster"
    cluster=$("$ROOT/tools/rocketmq.sh" start --brokers 1 2> >(sed 's/^/  /' >&2)) || return 1
    namesrv=$(sed -n 's/^RMQ_NAMESRV=//p' "$cluster/cluster.env")
    "$ROOT/tools/rocketmq.sh" create-topic BenchBeyond 8 --dir "$cluster" >&2
    rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
    stamp=$(date -u '+%Y-%m-%d %H:%M UTC')
    local tag="s/}\$/,\"suite\":\"beyond_push\",\"commit\":\"$rev\",\"date\":\"$stamp\"}/"
    log "beyond-push bench: prefilling $BEYOND_MESSAGES messages of 128 B on BenchBeyond (Java producer)"
    java ${RMQ_BENCH_JVM:-} -Duser.home="$jlogs" -cp "$jout:$cp" rmq.bench.JavaPushBench "$namesrv" BenchBeyond \
        prefill "$BEYOND_MESSAGES" 128 2 | sed "$tag" || { rm -rf "$jlogs"; return 1; }
    for rep in $(seq 1 "$REPS"); do
        for mode in concurrently lite_pull pop; do
            group=bench_java_${mode}_$$_$rep
            [[ $mode != pop ]] || set_pop_mode "$cluster" "$group" || status=1
            log "beyond-push bench rep $rep/$REPS: Java $mode"
            timeout 600 java ${RMQ_BENCH_JVM:-} -Duser.home="$jlogs" -Drmq.bench.group="$group" -cp "$jout:$cp" \
                rmq.bench.JavaPushBench "$namesrv" BenchBeyond "$mode" "$BEYOND_MESSAGES" 20 1 128 300 |
                sed "$tag" || { log "  Java run failed"; status=1; }
            # Java's POP row is its push consumer on the broker's assignment: rmq's push consumer in POP mode is
            # its counterpart (push_pop_assigned: the same group setting; push_pop: rmq's queue id -1 per broker),
            # the SimpleConsumer rows (pop: one ACK_MESSAGE per message, pop_batch_ack: one BATCH_ACK_MESSAGE per
            # received batch) the application-driven ones
            for rmq_mode in $mode $([[ $mode != pop ]] || echo pop_batch_ack push_pop_assigned push_pop); do
                group=bench_rmq_${rmq_mode}_$$_$rep
                [[ $rmq_mode != push_pop_assigned ]] || set_pop_mode "$cluster" "$group" || status=1
                log "beyond-push bench rep $rep/$REPS: rmq $rmq_mode"
                timeout 600 "$BUILD/bench/rmq_bench_real_broker" --namesrv "$namesrv" --topic BenchBeyond --body 128 \
                    --messages "$BEYOND_MESSAGES" --mode "$rmq_mode" --group "$group" --threads 20 --batch 1 \
                    --max-seconds 300 | sed "$tag" || { log "  rmq run failed"; status=1; }
            done
        done
    done
    "$ROOT/tools/rocketmq.sh" stop --fast --clean --dir "$cluster" >/dev/null 2>&1 || true
    rm -rf "$jlogs"
    return $status
}

# The charts of latest.json (tools/bench_charts.py -> $OUT/charts/*.png), with the python that has matplotlib
# (Debian's python3-matplotlib is for /usr/bin/python3, which another python3 on PATH may hide). A machine
# without it gets the tables and a loud line, not a failed run.
charts() {
    local py
    for py in python3 /usr/bin/python3; do
        if "$py" -c 'import matplotlib' 2>/dev/null; then
            "$py" "$ROOT/tools/bench_charts.py" "$OUT" >&2 && return 0
            log "WARNING: tools/bench_charts.py failed: no charts written"
            return 0
        fi
    done
    log "WARNING: no charts: matplotlib is missing (Debian: apt-get install python3-matplotlib)"
}

# latest_params JSON RUNS_OUT [SKIP_MODE]: the runs of a latest.json (but SKIP_MODE's) as JSON lines into
# RUNS_OUT, and shell assignments of its parameters on stdout (eval them).
latest_params() {
    python3 - "$1" "$2" "${3:-}" <<'PY'
import json, shlex, sys
d = json.load(open(sys.argv[1]))
with open(sys.argv[2], "w") as f:
    for r in d.get("runs", []):
        mode, skip = r.get("mode", ""), sys.argv[3]
        if mode != skip and not (skip == "produce" and "_produce_" in mode) and \
                not (skip == "beyond_push" and r.get("suite") == "beyond_push"):
            f.write(json.dumps(r) + "\n")
for var, key in ((("KEEP_REPS" if sys.argv[3] != "compile" else "REPS"), "reps"), ("MESSAGES", "messages"), ("BACKLOG", "backlog"),
                 ("REAL_MESSAGES", "real_messages"), ("REAL_BACKLOG", "real_backlog"),
                 ("BACKLOG_WINDOW", "backlog_window_s"), ("HEADER_DATE", "generated"), ("HEADER_COMMIT", "commit"),
                 ("HEADER_LOAD", "load_average"), ("CPU_MODEL", "cpu_model"), ("LOAD_BEFORE", "load_before")):
    if key in d:
        print(f"{var}={shlex.quote(str(d[key]))}")
if d.get("real_broker_rmq", "run") != "run":
    print("REAL_REASON='not run in the last full run'")
if d.get("java", "run") != "run":
    print("JAVA_REASON='not run in the last full run'")
PY
}

HEADER_DATE="" HEADER_COMMIT="" HEADER_LOAD=""  # set when only the compile or key-orderly rows are new
# The machine, for the report: CPU model, and the load before anything of the run started (the load at the end
# says what the run itself cost). Kept from latest.json by --report-only and the partial runs.
CPU_MODEL=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
LOAD_BEFORE=$(uptime | sed 's/.*load average: //')
if [[ -n $REPORT_ONLY ]]; then
    RUNS=$REPORT_ONLY
    STATUS=0
    REAL_REASON=""  # what is missing from FILE shows as "not run"
    JAVA_REASON=""
    CPU_MODEL="" LOAD_BEFORE=""  # FILE's machine, not this one
    if python3 -c 'import json, sys; sys.exit(0 if "runs" in json.load(open(sys.argv[1])) else 1)' "$REPORT_ONLY" \
        2>/dev/null; then
        RUNS=$(mktemp)
        trap 'rm -f "$RUNS"' EXIT
        eval "$(latest_params "$REPORT_ONLY" "$RUNS")"
        REPS=${KEEP_REPS:-$REPS}
    fi
elif [[ $COMPILE == 2 || $KEYO == 2 || $PRODUCER == 2 || $BEYOND == 2 ]]; then
    # Only the compile cost (or only the key-orderly or the producer bench): keep the other rows (and their
    # parameters) of the last full run.
    ONLY_MODE=$([[ $COMPILE == 2 ]] && echo compile || { [[ $KEYO == 2 ]] && echo key_orderly_bench; } ||
        { [[ $BEYOND == 2 ]] && echo beyond_push; } || echo produce)
    mkdir -p "$OUT"
    RUNS=$(mktemp)
    trap 'rm -f "$RUNS"' EXIT
    STATUS=0
    REAL_REASON="" JAVA_REASON=""
    if [[ -f $OUT/latest.json ]]; then
        CPU_MODEL="" LOAD_BEFORE=""  # the header describes the last full run
        eval "$(latest_params "$OUT/latest.json" "$RUNS" "$ONLY_MODE")"
    fi
    if [[ $COMPILE == 2 ]]; then
        compile_cost >>"$RUNS" || STATUS=$?
    elif [[ $KEYO == 2 ]]; then
        key_orderly_bench >>"$RUNS" || STATUS=$?
        REPS=${KEEP_REPS:-$REPS}  # the header describes the last full run's in-process suite
    elif [[ $BEYOND == 2 ]]; then
        beyond_push_bench >>"$RUNS" || STATUS=$?
        REPS=${KEEP_REPS:-$REPS}
    else
        producer_bench >>"$RUNS" || STATUS=$?
        REPS=${KEEP_REPS:-$REPS}
    fi
else
# ---- what a clean Debian machine lacks: the toolchain, and for the real-broker runs the JDK + Maven ------
if [[ $RUN_JAVA == 1 ]]; then
    RMQ_DEPS_BENCH=1 RMQ_DEPS_BROKER=1 "$ROOT/tools/install-deps.sh" >&2 ||
        log "could not install the JDK/Maven: real-broker runs will be skipped"
else
    RMQ_DEPS_BENCH=1 "$ROOT/tools/install-deps.sh" >&2
fi
# ---- build (the `release` preset's settings: Release, warnings not fatal, no tests) --------------------
log "configuring $BUILD (Release)"
LAUNCHER=()
if command -v ccache >/dev/null; then LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
GEN=()
if command -v ninja >/dev/null; then GEN=(-G Ninja); fi
cmake -S "$ROOT" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DRMQ_WERROR=OFF -DRMQ_BUILD_TESTS=OFF \
    -DRMQ_BUILD_EXAMPLES=OFF -DRMQ_BUILD_BENCH=ON "${LAUNCHER[@]}" >/dev/null
log "building rmq_bench_consume"
cmake --build "$BUILD" --target rmq_bench_consume -j2 >&2
BIN=$BUILD/bench/rmq_bench_consume
if [[ $ALLOCATE == 1 ]]; then
    allocate_movement || log "allocation movement failed: the section of the last run is kept"
fi

# ---- what can run here ---------------------------------------------------------------------------------
REAL_REASON=""
if [[ ! -f $ROOT/include/rmq/transport/remoting.hpp ]]; then
    REAL_REASON="rmq::RemotingTransport (include/rmq/transport/remoting.hpp) not available yet"
elif [[ $RUN_JAVA == 0 ]]; then
    REAL_REASON="skipped (--no-java)"
else
    log "building rmq_bench_real_broker"
    if ! cmake --build "$BUILD" --target rmq_bench_real_broker -j2 >&2; then
        REAL_REASON="rmq_bench_real_broker does not build against the current remoting.hpp"
    fi
fi
JAVA_REASON=""
if [[ $RUN_JAVA == 0 ]]; then
    JAVA_REASON="skipped (--no-java)"
elif ! command -v java >/dev/null || ! command -v javac >/dev/null; then
    JAVA_REASON="no JDK on this machine"
elif ! JAVA_CP=$("$ROOT/tools/rocketmq.sh" classpath client 2>/dev/null) &&
    ! { log "fetching Apache RocketMQ and its Java client from Maven Central (tools/rocketmq.sh fetch)" &&
        "$ROOT/tools/rocketmq.sh" fetch >&2 &&
        JAVA_CP=$("$ROOT/tools/rocketmq.sh" classpath client 2>/dev/null); }; then
    JAVA_REASON="the RocketMQ jars could not be fetched (tools/rocketmq.sh fetch: is Maven Central reachable?)"
fi

# ---- run -----------------------------------------------------------------------------------------------
mkdir -p "$OUT"
RUNS=$(mktemp)
trap 'rm -f "$RUNS"' EXIT
STATUS=0
if [[ $COMPILE == 1 ]]; then
    compile_cost >>"$RUNS" || STATUS=$?
fi
log "in-process suite: $REPS repetition(s) of $MESSAGES messages, backlog $BACKLOG (progress below)"
START=$(date +%s)
"$BIN" --suite --reps "$REPS" --messages "$MESSAGES" --backlog "$BACKLOG" "${EXTRA[@]}" >>"$RUNS" || STATUS=$?
log "suite finished in $(($(date +%s) - START)) s (status $STATUS)"
if [[ $KEYO == 1 ]]; then
    key_orderly_bench >>"$RUNS" || STATUS=$?
fi

# ---- real broker: Apache RocketMQ 5.3.3 (tools/rocketmq.sh), one broker, 8 queues -------------------------
if [[ -n $JAVA_REASON && -z $REAL_REASON ]]; then
    REAL_REASON="the real-broker runs need the JDK and RocketMQ jars too ($JAVA_REASON)"
fi
if [[ -z $JAVA_REASON ]]; then
    log "real broker: building bench/java, starting a one-broker cluster"
    JOUT=$BUILD/java
    mkdir -p "$JOUT"
    javac -d "$JOUT" -cp "$JAVA_CP" "$ROOT"/bench/java/src/rmq/bench/*.java
    JVM=(${RMQ_BENCH_JVM:-})
    JLOGS=$(mktemp -d)
    jrun() { java "${JVM[@]}" -Duser.home="$JLOGS" -cp "$JOUT:$JAVA_CP" rmq.bench.JavaPushBench "$@"; }
    # jrun_for SECONDS ARGS...: the same, killed after SECONDS (a consumer run that hangs must not stop the bench)
    jrun_for() { timeout "$1" java "${JVM[@]}" -Duser.home="$JLOGS" -cp "$JOUT:$JAVA_CP" rmq.bench.JavaPushBench "${@:2}"; }
    if CLUSTER=$("$ROOT/tools/rocketmq.sh" start --brokers 1 2> >(sed 's/^/  /' >&2)); then
        trap 'rm -f "$RUNS"; "$ROOT/tools/rocketmq.sh" stop --fast --clean --dir "$CLUSTER" >/dev/null 2>&1 || true' EXIT
        NAMESRV=$(sed -n 's/^RMQ_NAMESRV=//p' "$CLUSTER/cluster.env")
        "$ROOT/tools/rocketmq.sh" create-topic BenchTopic 8 BenchTopic1K 8 BenchRebalance 8 BenchBacklog 16 \
            BenchWork 8 --dir "$CLUSTER" >&2
        declare -A TOPIC_OF=([128]=BenchTopic [1024]=BenchTopic1K)
        for body in 128 1024; do
            log "real broker: prefilling $REAL_MESSAGES messages of $body B on ${TOPIC_OF[$body]} (Java producer)"
            jrun "$NAMESRV" "${TOPIC_OF[$body]}" prefill "$REAL_MESSAGES" "$body" 2 >>"$RUNS" || STATUS=$?
        done
        RB=$BUILD/bench/rmq_bench_real_broker
        rrun() {
            [[ -z $REAL_REASON ]] || return 0
            log "real broker rep $rep/$REPS, $body B: rmq $*"
            timeout 300 "$RB" --namesrv "$NAMESRV" --topic "${TOPIC_OF[$body]}" --body "$body" \
                --messages "$REAL_MESSAGES" "$@" >>"$RUNS" || { log "  rmq run failed (status $?)"; STATUS=1; }
        }
        # Interleaved: every repetition runs each pipeline once per body size, Java right before rmq.
        for rep in $(seq 1 "$REPS"); do
            for body in 128 1024; do
                for m in "concurrently 20 1" "concurrently 20 32" "orderly 20 1"; do
                    set -- $m
                    log "real broker rep $rep/$REPS, $body B: Java DefaultMQPushConsumer $m"
                    jrun_for 300 "$NAMESRV" "${TOPIC_OF[$body]}" "$1" "$REAL_MESSAGES" "$2" "$3" "$body" >>"$RUNS" ||
                        { log "  Java run failed (status $?)"; STATUS=1; }
                    rrun --mode "$1" --threads "$2" --batch "$3"
                done
                rrun --mode raw
            done
        done
        # The machine deliberately busy: a CPU hog pinned to core 0 while each 128 B pipeline runs once more
        # (Java, then rmq), so spinning and thread counts show their cost. Runs are marked "busy": true.
        if ((BUSY)); then
            body=128
            taskset -c 0 sh -c 'while :; do :; done' &
            HOG=$!
            log "real broker: CPU hog on core 0 (pid $HOG) for the busy runs"
            for m in "concurrently 20 1" "concurrently 20 32" "orderly 20 1"; do
                set -- $m
                log "real broker busy, $body B: Java DefaultMQPushConsumer $m"
                jrun_for 300 "$NAMESRV" "${TOPIC_OF[$body]}" "$1" "$REAL_MESSAGES" "$2" "$3" "$body" |
                    sed 's/}$/,"busy":true}/' >>"$RUNS" || { log "  Java run failed"; STATUS=1; }
                [[ -z $REAL_REASON ]] || continue
                log "real broker busy, $body B: rmq $m"
                timeout 300 "$RB" --namesrv "$NAMESRV" --topic "${TOPIC_OF[$body]}" --body "$body" \
                    --messages "$REAL_MESSAGES" --mode "$1" --threads "$2" --batch "$3" |
                    sed 's/}$/,"busy":true}/' >>"$RUNS" || { log "  rmq run failed"; STATUS=1; }
            done
            kill "$HOG" 2>/dev/null || true
            wait "$HOG" 2>/dev/null || true
        fi
        # A listener that does work: sleeps 1 ms per call (waiting on I/O) or hashes each body 100 times
        # (CPU-bound); 64 consume threads, one message per call; Java right before rmq, interleaved.
        if ((WORK_MESSAGES > 0)); then
            log "real broker: prefilling $WORK_MESSAGES messages of 128 B with 400 keys on BenchWork (Java producer)"
            jrun "$NAMESRV" BenchWork prefill "$WORK_MESSAGES" 128 2 400 >>"$RUNS" || STATUS=$?
            for rep in $(seq 1 "$REPS"); do
                for work in sleep1ms hash100; do
                    for order in concurrently orderly key_orderly; do
                        if [[ $order != key_orderly ]]; then
                            log "real broker rep $rep/$REPS, work $work: Java DefaultMQPushConsumer $order"
                            jrun_for 300 "$NAMESRV" BenchWork "$order" "$WORK_MESSAGES" 64 1 128 240 \
                                "$work" >>"$RUNS" || { log "  Java run failed (status $?)"; STATUS=1; }
                        fi
                        [[ -z $REAL_REASON ]] || continue
                        log "real broker rep $rep/$REPS, work $work: rmq $order"
                        timeout 300 "$RB" --namesrv "$NAMESRV" --topic BenchWork --body 128 --messages "$WORK_MESSAGES" \
                            --mode "$order" --threads 64 --batch 1 --work "$work" --max-seconds 240 >>"$RUNS" ||
                            { log "  rmq run failed (status $?)"; STATUS=1; }
                    done
                done
            done
        fi
        for order in concurrently orderly; do
            rep=1
            log "real broker: Java rebalance/handover, $order (Java defaults: rebalance wait 20 s)"
            timeout 300 java "${JVM[@]}" -Duser.home="$JLOGS" -cp "$JOUT:$JAVA_CP" rmq.bench.JavaRebalanceBench \
                "$NAMESRV" BenchRebalance "$order" 2000 >>"$RUNS" || { log "  Java run failed (status $?)"; STATUS=1; }
            [[ -z $REAL_REASON ]] || continue
            log "real broker: rmq rebalance/handover, $order (rmq defaults: rebalance_interval 20 s)"
            timeout 300 "$RB" --namesrv "$NAMESRV" --topic BenchRebalance --mode rebalance --order "$order" \
                --rate 2000 >>"$RUNS" || { log "  rmq run failed (status $?)"; STATUS=1; }
        done
        if ((REAL_BACKLOG > 0)); then
            log "real broker backlog: prefilling $REAL_BACKLOG messages of 128 B on BenchBacklog (16 queues, 4 senders)"
            BSTART=$(date +%s)
            if jrun "$NAMESRV" BenchBacklog prefill "$REAL_BACKLOG" 128 4 >>"$RUNS"; then
                log "  prefilled in $(($(date +%s) - BSTART)) s"
                # Each drains the whole backlog from the first offset with a fresh group for the same window.
                log "real broker backlog: Java DefaultMQPushConsumer, default thresholds, ${BACKLOG_WINDOW} s window"
                jrun_for $((BACKLOG_WINDOW + 120)) "$NAMESRV" BenchBacklog backlog "$REAL_BACKLOG" 20 1 128 \
                    "$BACKLOG_WINDOW" >>"$RUNS" || { log "  Java run failed (status $?)"; STATUS=1; }
                if [[ -z $REAL_REASON ]]; then
                    log "real broker backlog: rmq PushConsumer, default thresholds, ${BACKLOG_WINDOW} s window"
                    timeout $((BACKLOG_WINDOW + 120)) "$RB" --namesrv "$NAMESRV" --topic BenchBacklog --mode backlog \
                        --messages "$REAL_BACKLOG" --max-seconds "$BACKLOG_WINDOW" >>"$RUNS" ||
                        { log "  rmq run failed (status $?)"; STATUS=1; }
                fi
            else
                log "  backlog prefill failed"; STATUS=1
            fi
        fi
        "$ROOT/tools/rocketmq.sh" stop --fast --clean --dir "$CLUSTER" >/dev/null 2>&1 || true
        trap 'rm -f "$RUNS"' EXIT
    else
        JAVA_REASON="tools/rocketmq.sh start failed on this machine"
        REAL_REASON=${REAL_REASON:-"tools/rocketmq.sh start failed on this machine"}
    fi
    rm -rf "$JLOGS"
fi
if [[ $PRODUCER == 1 && -z $JAVA_REASON ]]; then
    producer_bench >>"$RUNS" || STATUS=$?
fi
if [[ $BEYOND == 1 && -z $JAVA_REASON ]]; then
    beyond_push_bench >>"$RUNS" || STATUS=$?
fi

fi

# ---- report --------------------------------------------------------------------------------------------
# A report that fails must not lose a run of half an hour: the raw runs stay in $OUT until it succeeded.
if [[ -z $REPORT_ONLY ]]; then
    cp "$RUNS" "$OUT/runs.jsonl.unreported"
    trap 'rm -f "$RUNS"; log "the report failed: the raw runs are in $OUT/runs.jsonl.unreported (tools/bench.sh --report-only it)"' EXIT
fi
CPU_MODEL=$CPU_MODEL LOAD_BEFORE=$LOAD_BEFORE python3 - "$RUNS" "$OUT" "$REPS" "$MESSAGES" "$BACKLOG" "$REAL_REASON" "$JAVA_REASON" "$(nproc)" \
    "$(uptime | sed 's/.*load average: //')" "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    "$REAL_MESSAGES" "$REAL_BACKLOG" "$BACKLOG_WINDOW" "$HEADER_DATE" "$HEADER_COMMIT" "$HEADER_LOAD" <<'EOF'
import json, os, statistics, sys, datetime
cpu_model, load_before = os.environ.get("CPU_MODEL", ""), os.environ.get("LOAD_BEFORE", "")
(runs_path, out, reps, messages, backlog, real_reason, java_reason, cpus, load, commit,
 real_messages, real_backlog, backlog_window, header_date, header_commit, header_load) = sys.argv[1:17]
runs = [json.loads(l) for l in open(runs_path) if l.strip().startswith("{")]

def by_mode(m, body=None, busy=False, suite=None):
    """The runs of mode m (and body size); the runs beside a CPU hog only when busy is true; those of a suite
    of their own (beyond_push) only when asked for."""
    return [r for r in runs if r.get("mode") == m and (body is None or r.get("body_bytes", 128) == body)
            and r.get("busy", False) == busy and r.get("suite") == suite]

def med(mode, key, body=None):
    vals = [r[key] for r in by_mode(mode, body) if r.get("complete", True) and key in r]
    return statistics.median(vals) if vals else None

def fmt(v):
    if v is None:
        return "—"
    if isinstance(v, str):
        return v
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"

def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b

def spread(mode, key, body=None):
    """'min-max' of the complete runs, for the notes beside a median."""
    vals = [r[key] for r in by_mode(mode, body) if r.get("complete", True) and key in r]
    return f"{fmt(min(vals))}-{fmt(max(vals))}" if vals else None

def spreads(rmq_mode, java_mode, key, body=None):
    """'; rmq min-max a-b; Java min-max c-d' when rmq has more than one complete run of it."""
    n = len([r for r in by_mode(rmq_mode, body) if r.get("complete") and key in r])
    return "".join(f"; {who} min-max {sp}" for who, sp in
                   (("rmq", spread(rmq_mode, key, body)), ("Java", spread(java_mode, key, body))) if sp and n > 1)

rows = []
def row(figure, rmq, java, limit, r, note=""):
    rows.append(dict(figure=figure, rmq=rmq, java=java, limit=limit, ratio=r, note=note))

na = "n/a (in-process)"
real = "not run (1)" if real_reason else None
java_missing = "not run (2)" if java_reason else None
pipes = [("concurrently_b1", "Concurrently, batch 1"), ("concurrently_b32", "Concurrently, batch 32"),
         ("orderly", "Orderly")]
lim = {k: med("limit", k) for k in ("msgs_per_s", "cpu_s_per_million", "delta_rss_mb", "seconds")}
for key, label, note in (("msgs_per_s", "throughput (msg/s)", "ratio = rmq / raw pull limit (target Concurrently >= 0.5)"),
                         ("seconds", f"time to consume {int(messages):,} (s)", "ratio = rmq / limit"),
                         ("cpu_s_per_million", "CPU s per million msgs", "ratio = rmq / limit"),
                         ("delta_rss_mb", "peak RSS above the prefilled broker (MB)", "ratio = rmq / limit")):
    for mode, plabel in pipes:
        v = med(mode, key)
        row(f"In-process {plabel}: {label}", v, na, lim[key], ratio(v, lim[key]), note)
o, c1 = med("orderly", "msgs_per_s"), med("concurrently_b1", "msgs_per_s")
row("In-process Orderly / Concurrently batch 1 (throughput)", ratio(o, c1), na, None, ratio(o, c1), "target >= 0.8")

reb = {}
for r in [x for x in runs if x.get("mode", "").startswith("rebalance_")]:
    for ev in ("join", "leave"):
        reb.setdefault((r["mode"].split("_", 1)[1], r["rebalance_interval_ms"], ev), []).append(r[ev])
for (order, interval, ev), hs in sorted(reb.items()):
    done = [h["handover_ms"] for h in hs if h["complete"]]
    assign = [h["assign_ms"] for h in hs if h["complete"]]
    dups = sum(h["duplicates"] for h in hs)
    note = (f"{len(hs)} run(s), min-max {min(done):.0f}-{max(done):.0f} ms; allocation seen after "
            f"{statistics.median(assign):.0f} ms (median); duplicated deliveries: {dups} in total") if done else \
        f"{len(hs)} run(s), none complete"
    row(f"In-process handover after a member {'joins' if ev == 'join' else 'leaves'}: {order}, "
        f"rebalance_interval {interval} ms (ms, median)", statistics.median(done) if done else "not complete",
        "not run (needs the real broker)", None, None, note)
for r in by_mode("backlog"):
    note = (f"{r['consumed']:,} of {r['messages']:,} consumed in {r['seconds']:.0f} s; prefill {r['prefill_s']:.0f} s; "
            f"process peak incl. the embedded broker {r['process_peak_rss_mb']:,.0f} MB")
    row(f"In-process backlog {r['messages']:,} msgs on {r['queues']} queues: consumer peak RSS above the "
        f"prefilled broker (MB)", r["delta_rss_mb"], "n/a (in-process; see the real-broker backlog rows)", None, None, note)

rn = f"{int(real_messages):,}"
def size(body):
    return "1 KiB" if body == 1024 else f"{body} B"
for body in (128, 1024):
    for key, label in (("msgs_per_s", "throughput (msg/s)"), ("cpu_s_per_million", "CPU s per million msgs"),
                       ("peak_rss_mb", "peak RSS of the process (MB)")):
        for mode, plabel in pipes:
            j = med("java_" + mode, key, body)
            m = med("real_" + mode, key, body)
            l = med("real_limit", key, body)
            n = len([r for r in by_mode("real_" + mode, body) if r.get("complete")])
            spr = spreads("real_" + mode, "java_" + mode, key, body)
            row(f"Real broker ({rn} msgs of {size(body)}, 8 queues) {plabel}: {label}",
                m if m is not None else (real or "not run"), j if j is not None else (java_missing or "not run"),
                l if l is not None else (real or "not run"), ratio(m, j),
                f"ratio = rmq / Java; medians of {n} run(s)" +
                (f"; rmq / limit = {fmt(ratio(m, l))}" if ratio(m, l) is not None else "") + spr)
    # The same runs without their start-up: from the moment a fifth of the messages was consumed to the last
    # (both clients warm: connections, rebalance, Java's JIT), and the cold start on its own.
    for key, label, note in (("steady_msgs_per_s", "steady-state throughput (msg/s)", "after the first fifth"),
                             ("steady_cpu_s_per_million", "steady-state CPU s per million msgs", "after the first fifth"),
                             ("first_100k_s", "cold start: time to the first 100,000 (s)", "from start()")):
        for mode, plabel in pipes:
            j = med("java_" + mode, key, body)
            m = med("real_" + mode, key, body)
            if j is None and m is None:
                continue
            n = len([r for r in by_mode("real_" + mode, body) if r.get("complete") and key in r])
            spr = spreads("real_" + mode, "java_" + mode, key, body)
            row(f"Real broker ({rn} msgs of {size(body)}, 8 queues) {plabel}: {label}",
                m if m is not None else (real or "not run"), j if j is not None else (java_missing or "not run"),
                None, ratio(m, j), f"ratio = rmq / Java; {note}; medians of {n} run(s)" + spr)
for key, label in (("msgs_per_s", "throughput (msg/s)"), ("cpu_s_per_million", "CPU s per million msgs")):
    for mode, plabel in pipes:
        bj = [r[key] for r in by_mode("java_" + mode, 128, busy=True) if r.get("complete")]
        bm = [r[key] for r in by_mode("real_" + mode, 128, busy=True) if r.get("complete")]
        if not bj and not bm:
            continue
        m = statistics.median(bm) if bm else None
        j = statistics.median(bj) if bj else None
        quiet = med("real_" + mode, key, 128)
        row(f"Real broker ({rn} msgs of 128 B, 8 queues) {plabel}, one core busy with a CPU hog: {label}",
            m if m is not None else (real or "not run"), j if j is not None else (java_missing or "not run"), None,
            ratio(m, j), f"ratio = rmq / Java; {len(bm)} run(s)" +
            (f"; rmq busy / quiet = {fmt(ratio(m, quiet))}" if ratio(m, quiet) is not None else ""))
works = (("sleep1ms", "listener sleeps 1 ms per call"), ("hash100", "listener hashes each body 100 times"))
for work, wlabel in works:
    for mode, plabel in (("concurrently_b1", "Concurrently"), ("orderly", "Orderly"), ("key_orderly", "KeyOrderly")):
        for key, label in (("msgs_per_s", "throughput (msg/s)"), ("cpu_s_per_million", "CPU s per million msgs")):
            m = med(f"real_{mode}_{work}", key)
            j = med(f"java_{mode}_{work}", key)
            if m is None and j is None:
                continue
            wn = (by_mode(f"real_{mode}_{work}") or by_mode(f"java_{mode}_{work}"))[0]["messages"]
            n = len([r for r in by_mode(f"real_{mode}_{work}") if r.get("complete")])
            spr = spreads(f"real_{mode}_{work}", f"java_{mode}_{work}", key)
            jv = j if j is not None else ("n/a (no key-orderly consumer in Java)" if mode == "key_orderly"
                                          else (java_missing or "not run"))
            row(f"Real broker ({wn:,} msgs of 128 B, 400 keys, 8 queues) {plabel}, 64 threads, {wlabel}: {label}",
                m if m is not None else (real or "not run"), jv, None, ratio(m, j),
                ("ratio = rmq / Java; " if j is not None else "") + f"medians of {n} run(s)" + spr)
rb, jb = by_mode("real_backlog"), by_mode("java_backlog")
if rb or jb or int(real_backlog) > 0:
    # A window run stops before the end: "complete" is false by design, every run counts.
    rbm = statistics.median([r["peak_rss_mb"] for r in rb]) if rb else None
    jbm = statistics.median([r["peak_rss_mb"] for r in jb]) if jb else None
    bn = f"{(rb or jb)[0]['messages']:,}" if (rb or jb) else f"{int(real_backlog):,}"
    win = f"{float(backlog_window):g} s"
    row(f"Real broker backlog {bn} msgs of 128 B on 16 queues, default thresholds: peak RSS over a {win} "
        f"drain (MB)", rbm if rbm is not None else (real or "not run"),
        jbm if jbm is not None else (java_missing or "not run"), None, ratio(rbm, jbm),
        "ratio = rmq / Java (target <= 0.2); whole process: VmHWM")
    rbc = statistics.median([r["consumed"] for r in rb]) if rb else None
    jbc = statistics.median([r["consumed"] for r in jb]) if jb else None
    row(f"Real broker backlog {bn} msgs: messages consumed in the {win} window",
        rbc if rbc is not None else (real or "not run"), jbc if jbc is not None else (java_missing or "not run"),
        None, ratio(rbc, jbc), "ratio = rmq / Java; the window starts at start(), before the first pull" +
        "".join(f"; {who} consumed the whole backlog after {r['seconds']:.1f} s (stopped there)"
                for who, rs in (("rmq", rb), ("Java", jb)) for r in rs if r.get("complete")))
for order in ("concurrently", "orderly"):
    for ev in ("join", "leave"):
        rr = [r[ev] for r in by_mode("real_rebalance_" + order)]
        jr = [r[ev] for r in by_mode("java_rebalance_" + order)]
        rv = statistics.median([h["handover_ms"] for h in rr if h["complete"]]) if any(h["complete"] for h in rr) else None
        jv = statistics.median([h["handover_ms"] for h in jr if h["complete"]]) if any(h["complete"] for h in jr) else None
        note = "; ".join(f"{who}: allocation after {h['assign_ms']:.0f} ms, {h['duplicates']} duplicated deliveries"
                         for who, hs in (("rmq", rr), ("Java", jr)) for h in hs)
        row(f"Real broker handover after a member {'joins' if ev == 'join' else 'leaves'}: {order}, default "
            f"intervals (ms)", rv if rv is not None else (real or "not run"),
            jv if jv is not None else (java_missing or "not run"), None, ratio(rv, jv),
            "ratio = rmq / Java; 2,000 msg/s on 8 queues, 1 run; " + note)
for body in (128, 1024):
    row(f"Real broker raw rmq pull loop, no dispatch, {size(body)} (msg/s)",
        med("real_limit", "msgs_per_s", body) or real or "not run", "—",
        med("real_limit", "msgs_per_s", body) or real or "not run", None)
for body in (128, 1024):
    for mode, plabel, goal in (("sync", "sync send", ""), ("async", "async send, 1,024 in flight", "; target >= 1"),
                               ("batch", "batch send of 32", "; target >= 1"),
                               ("oneway", "oneway send (counted when the call returns)", "")):
        m_runs = [r for r in by_mode("real_produce_" + mode, body) if r.get("complete")]
        if not m_runs and not by_mode("java_produce_" + mode, body):
            continue
        where = (m_runs or by_mode("java_produce_" + mode, body))[0]
        pn = (f"{where['messages']:,} messages per run, {len(m_runs)} rmq run(s), medians; commit "
              f"{where.get('commit', '?')}, {where.get('date', '?')}")
        for key, label, note in (
                ("steady_msgs_per_s", "steady throughput (msg/s)", f"ratio = rmq / Java{goal}"),
                ("steady_cpu_s_per_million", "steady client CPU s per million msgs",
                 "ratio = rmq / Java" + ("; target <= 0.5" if goal else "")),
                ("peak_rss_mb", "peak RSS of the process (MB)", "ratio = rmq / Java")):
            m = med("real_produce_" + mode, key, body)
            j = med("java_produce_" + mode, key, body)
            j_missing = "stalled (Java's oneway, docs/benchmarks.md)" if mode == "oneway" else "not run"
            row(f"Real broker producer, {plabel}, {size(body)}: {label}", m if m is not None else "not run",
                j if j is not None else j_missing, None, ratio(m, j),
                note + spreads("real_produce_" + mode, "java_produce_" + mode, key, body) + "; " + pn)
bp_pipes = (("concurrently_b1", "concurrently_b1", "push consumer (Concurrently, 20 threads)"),
            ("lite_pull", "lite_pull", "lite pull consumer (1 polling thread)"),
            ("pop", "pop", "POP (rmq::SimpleConsumer 20 threads / Java push consumer in POP mode)"),
            ("pop_batch_ack", "pop",
             "POP, each received batch acked at once (rmq::SimpleConsumer 20 threads, BATCH_ACK_MESSAGE / Java push "
             "consumer in POP mode)"),
            ("push_pop_assigned_b1", "pop",
             "POP push consumers, 20 threads, both on the broker's assignment (rmq::AllocateByBroker)"),
            ("push_pop_b1", "pop",
             "POP push consumers, 20 threads (rmq: message_request_mode Pop, no assignment / Java: the broker's)"))
if any(r.get("suite") == "beyond_push" for r in runs):
    def bp_med(mode, key):
        vals = [r[key] for r in by_mode(mode, suite="beyond_push") if r.get("complete", True) and key in r]
        return statistics.median(vals) if vals else None
    def bp_spread(mode, key):
        vals = [r[key] for r in by_mode(mode, suite="beyond_push") if r.get("complete", True) and key in r]
        return f"{fmt(min(vals))}-{fmt(max(vals))}" if len(vals) > 1 else None
    where = next(r for r in runs if r.get("suite") == "beyond_push" and "consumed" in r)
    push_m = bp_med("real_concurrently_b1", "msgs_per_s")
    for key, label in (("msgs_per_s", "throughput (msg/s)"), ("cpu_s_per_million", "CPU s per million msgs"),
                       ("peak_rss_mb", "peak RSS of the process (MB)")):
        for mode, java_mode, plabel in bp_pipes:
            m = bp_med("real_" + mode, key)
            j = bp_med("java_" + java_mode, key)
            n = len([r for r in by_mode("real_" + mode, suite="beyond_push") if r.get("complete")])
            note = f"ratio = rmq / Java; medians of {n} rmq run(s)" + "".join(
                f"; {who} min-max {sp}" for who, sp in (("rmq", bp_spread("real_" + mode, key)),
                                                      ("Java", bp_spread("java_" + java_mode, key))) if sp)
            if key == "msgs_per_s" and mode != "concurrently_b1" and m is not None and push_m:
                note += f"; rmq {mode} / rmq push = {fmt(m / push_m)}"
            row(f"Real broker beyond push ({where['messages']:,} msgs of 128 B, 8 queues) {plabel}: {label}",
                m if m is not None else "not run", j if j is not None else "not run", None, ratio(m, j),
                note + f"; commit {where.get('commit', '?')}, {where.get('date', '?')}")
ko = [r for r in by_mode("key_orderly_bench") if r.get("policy") == "key_orderly"]
if ko:
    kv = statistics.median(r["msgs_per_s"] for r in ko)
    ov = statistics.median(r["msgs_per_s"] for r in by_mode("key_orderly_bench") if r.get("policy") == "orderly")
    viol = sum(r["order_violations"] for r in by_mode("key_orderly_bench"))
    k0 = ko[0]
    row(f"rmq::KeyOrderly vs rmq::Orderly: {k0['sleep_ms']} ms listener, {k0['queues']} queues, {k0['keys']} keys, "
        f"{k0['threads']} consume threads (msg/s)", kv, "n/a", ov, ratio(kv, ov),
        f"Limit = rmq::Orderly in the same run (one call per queue at a time); goal ratio >= 6, expected near "
        f"threads / queues = {k0['threads'] // k0['queues']}; {len(ko)} repetition(s) of {k0['seconds']:.0f} s "
        f"windows, medians; per-key order violations (both policies, all runs): {viol}; "
        f"commit {k0.get('commit', '?')}, {k0.get('date', '?')}")
comp = {(r["tu"], r["build"]): r for r in by_mode("compile")}
if comp:
    ys = comp.get(("yardstick", "header-only"))
    yc, ym = (ys["cpu_s"], ys["peak_rss_mb"]) if ys else (None, None)
    where = next(iter(comp.values()))
    cnote = (f"Limit = the yardstick TU (bench/compile/yardstick.cpp); g++ -std=c++20 -O2 -c, best of 2; "
             f"commit {where['commit']}, {where['date']}, load {where['load_average']}")
    for build, label, cpu_goal in (("header-only", "header-only", 4.5), ("separate", "RMQ_SEPARATE_COMPILATION", 2.0)):
        pr = comp.get(("probe", build))
        if pr is None:
            row(f"Compile cost, {label}: probe TU (umbrella, embedded broker, producer, consumer), CPU s",
                "not available at this commit", "n/a", yc, None, cnote)
            continue
        row(f"Compile cost, {label}: probe TU (umbrella, embedded broker, producer, consumer), CPU s",
            pr["cpu_s"], "n/a", yc, ratio(pr["cpu_s"], yc), f"target <= {cpu_goal}; {cnote}")
        row(f"Compile cost, {label}: probe TU, peak RSS (MB)", pr["peak_rss_mb"], "n/a", ym,
            ratio(pr["peak_rss_mb"], ym), ("target <= 2.5; " if build == "header-only" else "") + cnote)
    pa = comp.get(("probe-remoting", "header-only"))
    if pa is not None:
        row("Compile cost, header-only: the same probe including <rmq/remoting.hpp> (all of rmq, the TCP "
            "transport too), CPU s", pa["cpu_s"], "n/a", yc, ratio(pa["cpu_s"], yc),
            f"peak RSS {pa['peak_rss_mb']:,.0f} MB = {ratio(pa['peak_rss_mb'], ym) or 0:.2f}x the yardstick's; no target; "
            + cnote)
    src = comp.get(("src", "separate"))
    if src is not None:
        row("Compile cost, RMQ_SEPARATE_COMPILATION: the one TU including <rmq/src.hpp> (once per build), CPU s",
            src["cpu_s"], "n/a", yc, ratio(src["cpu_s"], yc), f"peak RSS {src['peak_rss_mb']:,.0f} MB; {cnote}")
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
if header_date:
    now, commit, load = header_date, header_commit, header_load  # the last full run's; compile rows say theirs
md = ["# rmq benchmarks — latest run", "",
      f"{now}, commit {commit}, {cpus} CPUs{f' ({cpu_model})' if cpu_model else ''} shared with other work "
      f"(load average{f' before the run: {load_before}, ' if load_before else ' '}at the end: {load}). "
      f"In-process: {reps} repetition(s) of {int(messages):,} messages of 128 B on 1 topic × 8 queues, "
      f"interleaved, each run in a fresh process; medians. Absolute figures are noisy on this machine: compare "
      f"the ratios. See docs/benchmarks.md for what each figure means.", "",
      "| Figure | rmq | Java | Limit | Ratio | Note |", "|---|---|---|---|---|---|"]
for r in rows:
    md.append(f"| {r['figure']} | {fmt(r['rmq'])} | {fmt(r['java'])} | {fmt(r['limit'])} | {fmt(r['ratio'])} | "
              f"{r['note']} |")
notes = []
if real_reason:
    notes.append(f"(1) rmq on the real broker: {real_reason}.")
if java_reason:
    notes.append(f"(2) Java DefaultMQPushConsumer on the real broker: {java_reason}.")
md += [""] + notes
md += ["", "Raw runs (one JSON object per run):", "", "```"] + [json.dumps(r) for r in runs] + ["```", ""]
open(f"{out}/latest.md", "w").write("\n".join(md))
machine = {k: v for k, v in (("cpu_model", cpu_model), ("load_before", load_before)) if v}
json.dump(dict(generated=now, commit=commit, cpus=int(cpus), load_average=load, **machine, reps=int(reps),
               messages=int(messages), backlog=int(backlog), real_messages=int(real_messages),
               real_backlog=int(real_backlog), backlog_window_s=float(backlog_window),
               real_broker_rmq=real or "run", java=java_missing or "run", rows=rows, runs=runs),
          open(f"{out}/latest.json", "w"), indent=1)
print("\n".join(md[: len(rows) + 8 + len(notes)]))
EOF
put_allocate_section
if [[ -z $REPORT_ONLY ]]; then
    rm -f "$OUT/runs.jsonl.unreported"
    trap 'rm -f "$RUNS"' EXIT
fi
log "wrote $OUT/latest.md and $OUT/latest.json"
charts
exit "$STATUS"
