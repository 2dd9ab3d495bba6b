#!/usr/bin/env bash
# Makes a source tarball of one commit with `git archive` and prints its SHA256 for docs/cmake.md's
# FetchContent `URL_HASH`.
#
#   tools/release.sh          HEAD
#   tools/release.sh REF      any commit-ish
#
# The archive is named by a version only when the script can prove it: a tag v<X.Y.Z> points at exactly that
# commit and X.Y.Z is the version in that commit's include/rmq/version.hpp. Then it is dist/rmq-X.Y.Z.tar.gz
# (top directory rmq-X.Y.Z/). Otherwise -- an untagged commit, as in any clone of main (tags do not travel with
# main), or a commit carrying a newer version than its tag -- it is dist/rmq-<short commit>.tar.gz (top
# directory rmq-<short commit>/), and the script says why. A tag v* on the commit that disagrees with
# version.hpp is an error: one of the two is wrong.
#
# The tarball holds the committed single headers (single_include/rmq/); the script first regenerates them from
# that commit's include/ (tools/amalgamate.py --output-dir) and refuses if they differ, so the archive always
# carries the single header generated from its own sources. `git archive` output depends only on the commit, so
# the same commit always gives the same bytes and the same hash.
set -euo pipefail
cd "$(dirname "$0")/.."

ref=${1:-HEAD}
commit=$(git rev-parse --verify "${ref}^{commit}")
short=$(git rev-parse --short=12 "$commit")
# The version at that commit (it may differ from the working tree's).
version=$(git show "${commit}:include/rmq/version.hpp" |
    awk '/#define RMQ_VERSION_(MAJOR|MINOR|PATCH) / {printf "%s%s", sep, $3; sep="."}')
if [[ ! "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
    echo "release: cannot read the version from include/rmq/version.hpp at ${commit}" >&2
    exit 1
fi

# Tags of the form vX.Y.Z on exactly this commit.
mapfile -t tags < <(git tag --points-at "$commit" --list 'v[0-9]*.[0-9]*.[0-9]*' |
    grep -E '^v[0-9]+\.[0-9]+\.[0-9]+$' || true)
name="rmq-${short}"
why="no tag v${version} points at ${short}"
for tag in "${tags[@]}"; do
    if [[ "$tag" == "v${version}" ]]; then
        name="rmq-${version}"
        why=""
    else
        echo "release: tag ${tag} is on ${short} but its include/rmq/version.hpp says ${version}" >&2
        exit 1
    fi
done
if [[ -n "$why" ]]; then
    echo "release: ${why}: naming the archive by its commit, ${name} (tag v${version} on it for a versioned name)" >&2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git archive --format=tar "$commit" | tar -x -C "$work"
python3 "$work/tools/amalgamate.py" --output-dir "$work/generated" >/dev/null
for h in rmq.hpp remoting.hpp; do
    if ! cmp -s "$work/generated/rmq/$h" "$work/single_include/rmq/$h"; then
        echo "release: single_include/rmq/$h at ${short} is stale; run tools/amalgamate.py and commit" >&2
        exit 1
    fi
done

mkdir -p dist
out="dist/${name}.tar.gz"
git archive --format=tar.gz --prefix="${name}/" -o "$out" "$commit"
sha=$(sha256sum "$out" | cut -d' ' -f1)
echo "release: $out  (${commit})"
echo "SHA256=${sha}"
