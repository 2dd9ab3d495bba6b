#!/usr/bin/env bash
# Runs many seeds of the deterministic simulation (rmq::sim, docs/simulation.md) through the hidden
# "[.sim-many]" case of rmq_unit_simulation, and prints seeds/s and faults injected per CPU second. A failing
# seed is printed with the command that replays it (this script with --seed N --seeds 1).
#
#   tools/sim.sh                                   1000 seeds of every policy from seed 1
#   tools/sim.sh --policy orderly --seed 42        replay one seed (prints its trace hash)
#   tools/sim.sh --policy orderly --seed 42 --trace   ... and every record of its trace
#   tools/sim.sh --policy orderly --seed 42 --logs    ... and the members' logs (debug level)
#   tools/sim.sh --policy key_orderly --seeds 5000 --seed 1000
#   RMQ_SIM_PRESET=tsan tools/sim.sh --seeds 20    another build preset (default dev)
set -euo pipefail
cd "$(dirname "$0")/.."
policies=(concurrently orderly key_orderly)
seed=1
seed_given=0
seeds=""
while [[ $# -gt 0 ]]; do
    case "$1" in
    --policy) policies=("$2"); shift 2 ;;
    --seed) seed="$2"; seed_given=1; shift 2 ;;
    --seeds) seeds="$2"; shift 2 ;;
    --trace) export RMQ_SIM_TRACE=1; shift ;;
    --logs) export RMQ_SIM_LOGS=1; shift ;;
    *) echo "sim.sh: unknown argument $1 (--policy P --seed N --seeds COUNT --trace --logs)" >&2; exit 2 ;;
    esac
done
if [[ -z "$seeds" ]]; then
    # A seed given alone is a replay.
    if [[ $seed_given == 1 ]]; then seeds=1; else seeds=1000; fi
fi
preset=${RMQ_SIM_PRESET:-dev}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=1
if [[ ! -d build/$preset ]]; then
    cmake --preset "$preset" >/dev/null
fi
cmake --build --preset "$preset" --target rmq_unit_simulation >/dev/null
status=0
for policy in "${policies[@]}"; do
    out=$(mktemp)
    if ! RMQ_SIM_POLICY=$policy RMQ_SIM_SEED=$seed RMQ_SIM_SEEDS=$seeds \
        "build/$preset/tests/rmq_unit_simulation" "simulation: many seeds" >"$out" 2>&1; then
        status=1
    fi
    grep -E '^(FAIL|  |seed |t=|[0-9]+ seeds)' "$out" || cat "$out"
    rm -f "$out"
done
exit $status
