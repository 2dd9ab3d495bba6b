#!/usr/bin/env bash
# Formats rmq's C++ sources with clang-format-16 (pinned: other versions format differently).
#   tools/format.sh           rewrite files in place
#   tools/format.sh --check   change nothing; list unformatted files and exit 1 if there are any
# Covers include/ tests/ examples/ bench/ (*.hpp, *.ipp, *.cpp); never single_include/ (generated from include/).
set -euo pipefail
cd "$(dirname "$0")/.."

CLANG_FORMAT=${CLANG_FORMAT:-clang-format-16}
if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
    echo "format: $CLANG_FORMAT not found (apt-get install clang-format-16, or run tools/install-deps.sh)" >&2
    exit 2
fi

mapfile -d '' files < <(find include tests examples bench -type f \( -name '*.hpp' -o -name '*.ipp' -o -name '*.cpp' \) \
    -not -path 'tests/data/*' -print0 2>/dev/null | sort -z)
if [[ ${#files[@]} -eq 0 ]]; then
    echo "format: no files"
    exit 0
fi

if [[ "${1:-}" == "--check" ]]; then
    bad=()
    for f in "${files[@]}"; do
        if ! "$CLANG_FORMAT" --style=file "$f" | cmp -s - "$f"; then
            bad+=("$f")
        fi
    done
    if [[ ${#bad[@]} -gt 0 ]]; then
        printf 'format: not formatted: %s\n' "${bad[@]}" >&2
        echo "format: ${#bad[@]} of ${#files[@]} files need formatting; run tools/format.sh" >&2
        exit 1
    fi
    echo "format: ${#files[@]} files formatted"
else
    "$CLANG_FORMAT" --style=file -i "${files[@]}"
    echo "format: formatted ${#files[@]} files"
fi
