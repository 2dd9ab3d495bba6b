#!/usr/bin/env bash
# One command for rmq's benchmarks (docs/benchmarks.md): builds bench/ in Release with the flags of the
# `release` preset, runs every benchmark that can run on this machine (fresh process per run, interleaved,
# repeated), and writes bench/results/latest.md and bench/results/latest.json.
#
#   tools/bench.sh [--quick] [--reps N] [--messages N] [--backlog N] [--no-backlog] [--no-rebalance]
#                  [--build-dir DIR] [--out DIR]
#
#   --quick       100,000 messages, 1 repetition, 500,000-message backlog (a smoke run, ~1 minute)
#   --reps N      repetitions of the throughput runs (default 3; medians are reported)
#   --messages N  prefilled messages of the throughput runs (default 1,000,000)
#   --backlog N   messages of the backlog run (default 5,000,000; needs ~5 GB of RAM for the embedded broker)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${RMQ_BENCH_BUILD_DIR:-$ROOT/build/bench}
OUT=$ROOT/bench/results
REPS=3
MESSAGES=1000000
BACKLOG=5000000
EXTRA=()

while [[ $# -gt 0 ]]; do
    case $1 in
    --quick) REPS=1 MESSAGES=100000 BACKLOG=500000 ;;
    --reps) REPS=$2; shift ;;
    --messages) MESSAGES=$2; shift ;;
    --backlog) BACKLOG=$2; shift ;;
    --no-backlog) EXTRA+=(--no-backlog) ;;
    --no-rebalance) EXTRA+=(--no-rebalance) ;;
    --build-dir) BUILD=$2; shift ;;
    --out) OUT=$2; shift ;;
    -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

log() { printf '[bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

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

# ---- what can run here ---------------------------------------------------------------------------------
REAL_REASON=""
if [[ ! -f $ROOT/include/rmq/transport/remoting.hpp ]]; then
    REAL_REASON="rmq::RemotingTransport (include/rmq/transport/remoting.hpp) not available yet"
elif ! grep -q 'class RemotingTransport' "$ROOT/include/rmq/transport/remoting.hpp"; then
    REAL_REASON="include/rmq/transport/remoting.hpp has no rmq::RemotingTransport yet"
elif [[ ! -f $ROOT/bench/real_broker.cpp ]]; then
    REAL_REASON="the real-broker benchmark (bench/real_broker.cpp) is not written yet"
fi
JAVA_REASON=""
if ! command -v java >/dev/null; then
    JAVA_REASON="no Java runtime on this machine"
elif [[ ! -d $ROOT/bench/java ]]; then
    JAVA_REASON="the Java benchmark (bench/java) is not written yet"
fi

# ---- run -----------------------------------------------------------------------------------------------
mkdir -p "$OUT"
RUNS=$(mktemp)
trap 'rm -f "$RUNS"' EXIT
log "in-process suite: $REPS repetition(s) of $MESSAGES messages, backlog $BACKLOG (progress below)"
START=$(date +%s)
STATUS=0
"$BIN" --suite --reps "$REPS" --messages "$MESSAGES" --backlog "$BACKLOG" "${EXTRA[@]}" >"$RUNS" || STATUS=$?
log "suite finished in $(($(date +%s) - START)) s (status $STATUS)"

# ---- report --------------------------------------------------------------------------------------------
python3 - "$RUNS" "$OUT" "$REPS" "$MESSAGES" "$BACKLOG" "$REAL_REASON" "$JAVA_REASON" "$(nproc)" \
    "$(uptime | sed 's/.*load average: //')" "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" <<'EOF'
import json, statistics, sys, datetime
runs_path, out, reps, messages, backlog, real_reason, java_reason, cpus, load, commit = sys.argv[1:11]
runs = []
for line in open(runs_path):
    line = line.strip()
    if line.startswith("{"):
        runs.append(json.loads(line))

def by_mode(m):
    return [r for r in runs if r.get("mode") == m]

def med(mode, key):
    vals = [r[key] for r in by_mode(mode) if r.get("complete", True)]
    return statistics.median(vals) if vals else None

def fmt(v, unit=""):
    if v is None:
        return "—"
    if isinstance(v, str):
        return v
    if abs(v) >= 1000:
        s = f"{v:,.0f}"
    elif abs(v) >= 10:
        s = f"{v:.1f}"
    else:
        s = f"{v:.2f}"
    return s + unit

def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b

rows = []   # figure, rmq, java, limit, ratio, note
def row(figure, rmq, java, limit, r, note=""):
    rows.append(dict(figure=figure, rmq=rmq, java=java, limit=limit, ratio=r, note=note))

na = "n/a (in-process)"
real = f"not run ({real_reason})" if real_reason else None
java = f"not run ({java_reason or real_reason})" if (java_reason or real_reason) else None
pipes = [("concurrently_b1", "Concurrently, batch 1"), ("concurrently_b32", "Concurrently, batch 32"),
         ("orderly", "Orderly")]
lim_tp, lim_cpu, lim_rss = med("limit", "msgs_per_s"), med("limit", "cpu_s_per_million"), med("limit", "delta_rss_mb")
for mode, label in pipes:
    tp = med(mode, "msgs_per_s")
    row(f"In-process throughput, {label} (msg/s)", tp, na, lim_tp, ratio(tp, lim_tp), "ratio = rmq / raw pull limit")
for mode, label in pipes:
    c = med(mode, "cpu_s_per_million")
    row(f"In-process CPU s per million msgs, {label}", c, na, lim_cpu, ratio(c, lim_cpu), "ratio = rmq / limit")
for mode, label in pipes:
    d = med(mode, "delta_rss_mb")
    row(f"In-process peak RSS above the prefilled broker, {label} (MB)", d, na, lim_rss, ratio(d, lim_rss),
        "ratio = rmq / limit")
for mode, label in pipes:
    t = med(mode, "seconds")
    row(f"In-process time to consume all {int(messages):,}, {label} (s)", t, na, med("limit", "seconds"),
        ratio(t, med("limit", "seconds")), "ratio = rmq / limit")
o, c1 = med("orderly", "msgs_per_s"), med("concurrently_b1", "msgs_per_s")
row("Orderly / Concurrently batch 1 throughput", ratio(o, c1), na, None, ratio(o, c1), "target >= 0.8")

for r in [x for x in runs if x.get("mode", "").startswith("rebalance_")]:
    order = r["mode"].split("_", 1)[1]
    for ev in ("join", "leave"):
        h = r[ev]
        val = h["handover_ms"] if h["complete"] else None
        row(f"Handover after a member {'joins' if ev == 'join' else 'leaves'}, {order}, "
            f"rebalance_interval {r['rebalance_interval_ms']} ms (ms)", val, java or "not run",
            None, None, f"allocation seen after {h['assign_ms']:.0f} ms; duplicated deliveries: {h['duplicates']}")
for r in by_mode("backlog"):
    note = (f"{r['consumed']:,} of {r['messages']:,} consumed in {r['seconds']:.0f} s; prefill {r['prefill_s']:.0f} s; "
            f"process peak incl. broker {r['process_peak_rss_mb']:.0f} MB")
    row(f"Backlog {r['messages']:,} msgs on {r['queues']} queues: consumer peak RSS above the prefilled broker (MB)",
        r["delta_rss_mb"], java or "not run",
        None, None, note)

if real or java:
    for label in ("Real broker throughput, Concurrently (msg/s)", "Real broker throughput, Orderly (msg/s)",
                  "Real broker CPU s per million msgs", "Real broker peak RSS (MB)",
                  "Real broker raw pull loop (msg/s)"):
        row(label, real or "not run", java or "not run", real or "not run", None)

now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
md = [f"# rmq benchmarks — latest run", "",
      f"{now}, commit {commit}, {cpus} CPUs (load average at the end: {load}). Throughput runs: {reps} "
      f"repetition(s) of {int(messages):,} messages of 128 B on 1 topic × 8 queues, interleaved, each in a fresh "
      f"process; medians. The machine is shared, so absolute figures are noisy: compare the ratios (measured in "
      f"the same run). See docs/benchmarks.md for what each figure means.", "",
      "| Figure | rmq | Java | Limit | Ratio | Note |", "|---|---|---|---|---|---|"]
for r in rows:
    md.append(f"| {r['figure']} | {fmt(r['rmq'])} | {fmt(r['java'])} | {fmt(r['limit'])} | "
              f"{fmt(r['ratio'])} | {r['note']} |")
md += ["", "Raw runs (one per line):", "", "```"] + [json.dumps(r) for r in runs] + ["```", ""]
open(f"{out}/latest.md", "w").write("\n".join(md))
json.dump(dict(generated=now, commit=commit, cpus=int(cpus), load_average=load, reps=int(reps),
               messages=int(messages), backlog=int(backlog), real_broker=real or "run", java=java or "run",
               rows=rows, runs=runs), open(f"{out}/latest.json", "w"), indent=1)
print("\n".join(md[:len(rows) + 6]))
EOF
log "wrote $OUT/latest.md and $OUT/latest.json"
exit "$STATUS"
