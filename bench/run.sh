#!/usr/bin/env bash
# bench/run.sh BUILD - run every benchmark (bench/*/run.sh, in name order) against BUILD.
# Installs missing packages first (scripts/install-deps.sh is idempotent and fast when
# nothing is missing). Exits non-zero when any benchmark did.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
bash "$ROOT/scripts/install-deps.sh" || { echo "bench: installing dependencies failed" >&2; exit 1; }
status=0
for b in "$ROOT"/bench/*/run.sh; do
    [ -f "$b" ] || continue
    echo "### $(basename "$(dirname "$b")")"
    bash "$b" "$BUILD" || { echo "bench: $b exited $?" >&2; status=1; }
done
exit $status
