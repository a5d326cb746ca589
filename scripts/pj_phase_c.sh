#!/usr/bin/env bash
# The PJ-RoPE paper's Phase C as its reference ran it: every pj-phase-c-* preset (one per main run of
# the reference's phase_c_export_tables.py MAIN_RUNS, docs/RESULTS.md amendment 6), in MAIN_RUNS
# order, on the held-out evaluation set (--eval-data 1), niced; each run's JSON, log and wall time
# go to out/phase-c/ (each run also under out/phase-c/PRESET.runs/, so the same command continues a
# stopped preset from its runs' checkpoints), then its table and the recovery test by the
# reference's preferred_sector (scripts/results_tests.py gates, with the run's teacher).
# Usage: pj_phase_c.sh [PRESET ...]   (default: all ten; names pick some of them)
# Needs build/app/poslab-cli. Run time: about 5 h in all on this 2-core machine under load (the sum
# of the presets' stated times, each measured: 1-70 min a preset), less on an idle one.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=build/app/poslab-cli
[[ -x $cli ]] || { echo "pj_phase_c.sh: $cli is missing: build it first" >&2; exit 2; }
all=(attention-affine-3seed attention-recency-support-sweep signed-firstjet-singlelen-3seed
     signed-firstjet-multilen-3seed signed-firstjet-full-auto-multilen-3seed
     signed-secondjet-multilen-3seed signed-secondjet-full-auto-multilen-3seed
     signed-thirdjet-multilen-3seed signed-thirdjet-full-auto-multilen-3seed
     signed-lccore-multilen-3seed)
wanted=("$@")
((${#wanted[@]})) || wanted=("${all[@]/#/pj-phase-c-}")
for name in "${wanted[@]}"; do
  [[ " ${all[*]/#/pj-phase-c-} " == *" $name "* ]] || {
    echo "pj_phase_c.sh: '$name' is not a Phase C preset: ${all[*]/#/pj-phase-c-}" >&2
    exit 2
  }
done
out=out/phase-c
mkdir -p "$out"
for name in "${wanted[@]}"; do
  start=$(date +%s)
  nice -n 10 "$cli" run --preset "$name" --eval-data 1 --out "$out/$name.runs" --json \
    > "$out/$name.json" 2> "$out/$name.log"
  echo "## $name ($(($(date +%s) - start)) s)"
  teacher=attention
  [[ $name == *signed* ]] && teacher=signed
  python3 scripts/results_tests.py gates "$out/$name.json" --teacher "$teacher"
  echo
done
