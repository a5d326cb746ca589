#!/usr/bin/env bash
# docs/RESULTS.md's protocol: runs the four laptop-size presets (the *-paper ones take hours to days
# on a CPU and are left out) on the held-out evaluation set (--eval-data 1), jordan-kernel-lm and
# pj-sector-teachers a second time with --position-lr 30, and prints each preset's table, wall time
# and the protocol's tests (scripts/results_tests.py). Everything also goes to out/results/.
# POSLAB_SKIP_SETUP=1: use build/ as it is (no package check, no rebuild).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${POSLAB_SKIP_SETUP:-0}" = 1 ] || ./scripts/setup.sh
cli=build/app/poslab-cli
out=out/results
mkdir -p "$out"

run() {  # run NAME TAG [extra options]
  local preset=$1 tag=$2
  shift 2
  local start
  start=$(date +%s)
  "$cli" run --preset "$preset" --eval-data 1 --json "$@" > "$out/$tag.json" 2> "$out/$tag.log"
  echo "## $tag ($(($(date +%s) - start)) s)"
  python3 scripts/results_table.py "$out/$tag.json"
  echo
}

paired() {  # paired TAG A B LENGTH METRIC DIRECTION
  local tag=$1
  shift
  python3 scripts/results_tests.py paired "$out/$tag.json" "$@"
}

{
  run pope-indirect-indexing pope-indirect-indexing
  paired pope-indirect-indexing pope rope 12 accuracy greater
  paired pope-indirect-indexing pope rope 19 accuracy greater
  echo
  for setting in "" 30; do
    tag=jordan-kernel-lm${setting:+-position-lr-$setting}
    run jordan-kernel-lm "$tag" ${setting:+--position-lr "$setting"}
    paired "$tag" jordan-stabilized-abs rope 512 accuracy greater
    paired "$tag" rope direct-sum 512 accuracy greater
    echo
  done
  for setting in "" 30; do
    tag=pj-sector-teachers${setting:+-position-lr-$setting}
    run pj-sector-teachers "$tag" ${setting:+--position-lr "$setting"}
    python3 scripts/results_tests.py gates "$out/$tag.json"
    echo
  done
  run byte-lm byte-lm
  paired byte-lm rope-alibi jordan-scaled 512 loss less
  paired byte-lm jordan-scaled damped-rope 512 loss less
} | tee "$out/tables.md"
