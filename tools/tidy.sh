#!/usr/bin/env bash
# Runs clang-tidy-16 with the repository's .clang-tidy over rmq's headers; any finding fails (exit 1).
#   tools/tidy.sh              configure the dev preset (no build), then check
#   CLANG_TIDY=... tools/tidy.sh   another clang-tidy binary (other versions find other things)
#
# What is checked: the per-header check sources of the dev preset (build/dev/tests/header_check/*.cpp, one per
# header, RMQ_HEADER_CHECK) with build/dev/compile_commands.json. HeaderFilterRegex reports findings in every rmq
# header a source includes, so one source covers them all: the one of <rmq/remoting.hpp>, the umbrella of
# umbrellas, reaches every header under include/rmq except rmq/src.hpp (which only includes remoting.hpp under
# RMQ_SEPARATE_COMPILATION). Checking all 117 sources would repeat most of that work per source, where this one
# costs ~2 CPU-minutes. The script fails when a header is not reached, so a header that the umbrella misses
# cannot go unchecked; add its check source to SOURCES then.
#
# The checks are split over two clang-tidy processes (two cores), each parsing the source once and running half
# of the checks: 1-2 minutes in all.
set -euo pipefail
cd "$(dirname "$0")/.."

CLANG_TIDY=${CLANG_TIDY:-clang-tidy-16}
BUILD=build/dev
SOURCES=("$BUILD/tests/header_check/rmq_remoting_hpp.cpp")

if ! command -v "$CLANG_TIDY" >/dev/null 2>&1; then
    echo "tidy: $CLANG_TIDY not found (apt-get install clang-tidy-16, or run tools/install-deps.sh)" >&2
    exit 2
fi

# Every exclusion in .clang-tidy's Checks has its reason line (YAML has no comments inside the string).
listed=$(sed -n 's/^#   -\([^ ]*\)  .*/\1/p' .clang-tidy | sort)
excluded=$(sed -n "s/^ *-\([^ ,']*\)[,']\$/\1/p" .clang-tidy | sort)
if [[ "$listed" != "$excluded" ]]; then
    echo "tidy: .clang-tidy: exclusions without a reason line (>) or reasons without an exclusion (<):" >&2
    diff <(echo "$listed") <(echo "$excluded") | grep '^[<>]' >&2
    exit 1
fi

# Configure only (a few seconds; nothing is built): compile_commands.json and the check sources, current.
cmake --preset dev >/dev/null

# The sources reach every header (the compiler's dependency list, from the compile command of each source).
python3 - "$BUILD" "${SOURCES[@]}" <<'EOF'
import json, pathlib, shlex, subprocess, sys
build, sources = pathlib.Path(sys.argv[1]), [str(pathlib.Path(s).resolve()) for s in sys.argv[2:]]
commands = {e["file"]: e for e in json.loads((build / "compile_commands.json").read_text())}
reached = set()
for src in sources:
    entry = commands[src]
    args = shlex.split(entry["command"])
    args = [a for i, a in enumerate(args) if a != "-o" and (i == 0 or args[i - 1] != "-o") and a != "-c"]
    deps = subprocess.run(args + ["-M", "-MT", "x"], cwd=entry["directory"], check=True, capture_output=True,
                          text=True).stdout
    reached |= {str(pathlib.Path(d).resolve()) for d in deps.replace("\\\n", " ").split()[1:]}
root = pathlib.Path("include").resolve()
missing = [str(h.relative_to(root.parent)) for h in sorted(root.rglob("*")) if h.is_file() and str(h) not in reached
           and h.name != "src.hpp"]
if missing:
    sys.exit("tidy: no checked source includes " + ", ".join(missing) + "; add one to SOURCES in tools/tidy.sh")
EOF

# Two halves of the enabled checks, one process each (the compiler's own warnings go with the first).
mapfile -t checks < <("$CLANG_TIDY" --list-checks -p "$BUILD" "${SOURCES[0]}" | sed -n 's/^ \+\([a-z].*\)$/\1/p')
half=$((${#checks[@]} / 2))
parts=("$(IFS=,; echo "-*,clang-diagnostic-*,${checks[*]:0:half}")" "$(IFS=,; echo "-*,${checks[*]:half}")")
echo "tidy: ${#checks[@]} checks over ${SOURCES[*]#"$BUILD/"}"

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
pids=()
for i in "${!parts[@]}"; do
    "$CLANG_TIDY" -p "$BUILD" --quiet --checks="${parts[$i]}" --warnings-as-errors='*' "${SOURCES[@]}" \
        >"$logs/$i" 2>&1 &
    pids+=($!)
done
rc=0
for pid in "${pids[@]}"; do
    wait "$pid" || rc=1
done
# clang-tidy's own chatter (counts of warnings generated and suppressed in other headers) is not a finding.
grep -h -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^[0-9]+ warnings? treated as errors?$' \
    "$logs"/* || true
if [[ $rc -ne 0 ]]; then
    echo "tidy: FAILED: fix the findings above, or silence one line with NOLINT(check) and a reason" >&2
    exit 1
fi
echo "tidy: no findings"
