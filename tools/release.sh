#!/usr/bin/env bash
# Makes the release tarball dist/rmq-<version>.tar.gz (top directory rmq-<version>/) from a git ref with
# `git archive`, and prints its SHA256 for docs/cmake.md's FetchContent `URL_HASH`.
#
#   tools/release.sh          the tag v<version> (version from include/rmq/version.hpp) if it exists, else HEAD
#   tools/release.sh REF      any commit-ish (a tarball for testing; the published one comes from the tag)
#
# The tarball holds the committed single headers (single_include/rmq/); the script first regenerates them from
# that ref's include/ (tools/amalgamate.py --output-dir) and refuses if they differ, so the archive always carries
# the single header generated from its own sources. `git archive` output depends only on the commit, so the same
# ref always gives the same bytes and the same hash.
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(awk '/#define RMQ_VERSION_(MAJOR|MINOR|PATCH) / {printf "%s%s", sep, $3; sep="."}' include/rmq/version.hpp)
ref=${1:-}
if [[ -z "$ref" ]]; then
    if git rev-parse -q --verify "refs/tags/v${version}" >/dev/null; then
        ref="v${version}"
    else
        ref=HEAD
        echo "release: no tag v${version}: archiving HEAD (tag the release commit, then run this again)" >&2
    fi
fi
commit=$(git rev-parse --verify "${ref}^{commit}")
# The version at that ref (it may differ from the working tree's).
ref_version=$(git show "${commit}:include/rmq/version.hpp" |
    awk '/#define RMQ_VERSION_(MAJOR|MINOR|PATCH) / {printf "%s%s", sep, $3; sep="."}')
name="rmq-${ref_version}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git archive --format=tar "$commit" | tar -x -C "$work"
python3 "$work/tools/amalgamate.py" --output-dir "$work/generated" >/dev/null
for h in rmq.hpp remoting.hpp; do
    if ! cmp -s "$work/generated/rmq/$h" "$work/single_include/rmq/$h"; then
        echo "release: single_include/rmq/$h at $ref is stale; run tools/amalgamate.py and commit" >&2
        exit 1
    fi
done

mkdir -p dist
out="dist/${name}.tar.gz"
git archive --format=tar.gz --prefix="${name}/" -o "$out" "$commit"
sha=$(sha256sum "$out" | cut -d' ' -f1)
echo "release: $out  (${ref} = ${commit})"
echo "SHA256=${sha}"
