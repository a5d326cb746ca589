#!/usr/bin/env bash
# Runs every paper preset (the seeds each preset lists: 3, or 5 for jordan-kernel-lm) and prints
# the Markdown tables that docs/RESULTS.md quotes, with each preset's wall time. Output also goes
# to out/results/.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cli=build/app/poslab-cli
mkdir -p out/results
for preset in $("$cli" run --list | grep -v '^ '); do
  start=$(date +%s)
  "$cli" run --preset "$preset" --json > "out/results/$preset.json"
  echo "## $preset ($(( $(date +%s) - start )) s)"
  python3 scripts/results_table.py "out/results/$preset.json"
  echo
done | tee out/results/tables.md
