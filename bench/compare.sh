#!/usr/bin/env bash
# Every --quick bench on REV and on the working tree, alternating: one JSON object on stdout.
#
#   bench/compare.sh REV [--rounds N] [--only NAME,...] [--all] [--args NAME=ARGS]...
#
# REV is checked out into a temporary git worktree, removed at the end; each bench runs with
# this checkout's venv (or $PYTHON) and PYTHONPATH set to its own tree (bench/compare.py).
set -euo pipefail
if [ $# -lt 1 ] || [ "${1#-}" != "$1" ]; then
    echo "usage: bench/compare.sh REV [--rounds N] [--only NAME,...] [--all] [--args NAME=ARGS]" >&2
    exit 2
fi
rev=$1
shift
here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-$here/.venv/bin/python}
commit=$(git -C "$here" rev-parse --verify --quiet "$rev^{commit}") || {
    echo "compare: no such revision: $rev" >&2
    exit 2
}
work=$(mktemp -d "${TMPDIR:-/tmp}/chouette-compare.XXXXXX")
cleanup() {
    git -C "$here" worktree remove --force "$work/rev" >/dev/null 2>&1 || true
    rm -rf "$work"
    git -C "$here" worktree prune >/dev/null 2>&1 || true
}
trap cleanup EXIT
git -C "$here" worktree add --detach --quiet "$work/rev" "$commit"
"$python" "$here/bench/compare.py" --rev "$rev" --rev-tree "$work/rev" --ours-tree "$here" "$@"
