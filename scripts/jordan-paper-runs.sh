#!/usr/bin/env bash
# RESULTS protocol amendment 5: `jordan-kernel-lm-paper` at the paper's size for rope, direct-sum and
# jordan-stabilized-abs (the reference's jordan_rope), seeds 0, 1, 2, one seed at a time (its three
# runs side by side, one thread each), on this CPU. Hours per seed: run it in the background,
#     nohup nice -n 10 scripts/jordan-paper-runs.sh > /var/tmp/poslab-runs/jordan-paper.log 2>&1 &
# and give the same command again after anything stops it (session end, SIGTERM, kill -9, reboot):
# finished runs are skipped and each unfinished one continues from its last checkpoint (every 20
# steps), with the numbers of an uninterrupted run bit for bit (docs/DISTRIBUTED.md).
#   POSLAB_CLI   the poslab-cli to run (default build/app/poslab-cli; the runs of amendment 5 use a
#                copy kept beside the results, so that rebuilding the tree does not change it)
#   $1           the results folder (default /var/tmp/poslab-runs/jordan-kernel-lm-paper)
#   POSLAB_SEEDS the seeds to run (default "0 1 2"); the tests run once all three seeds' JSON are in
#                the results folder (amendment 5's three seeds finished on 2026-12-07; their JSON
#                is in docs/results/data/amendment-5/)
# When all nine runs are there it writes all-seeds.json (the three seeds' `--json` documents as
# one) and prints the protocol's tests (scripts/results_tests.py paired).
set -euo pipefail
cd "$(dirname "$0")/.."
cli=${POSLAB_CLI:-build/app/poslab-cli}
out=${1:-/var/tmp/poslab-runs/jordan-kernel-lm-paper}
families=rope,direct-sum,jordan-stabilized-abs
mkdir -p "$out"
for seed in ${POSLAB_SEEDS:-0 1 2}; do
  [[ "$seed" =~ ^[0-9]+$ ]] || { echo "jordan-paper-runs.sh: POSLAB_SEEDS: '$seed' is not a seed number" >&2; exit 2; }
  [ -f "$out/seed$seed.json" ] && continue
  echo "$(date -u '+%F %T') seed $seed: $cli run --preset jordan-kernel-lm-paper --families $families"
  POSLAB_THREADS=2 "$cli" run --preset jordan-kernel-lm-paper --families "$families" \
    --seeds "$seed" --jobs 3 --checkpoint-every 20 --out "$out/seed$seed" --json \
    > "$out/seed$seed.json.tmp"
  mv "$out/seed$seed.json.tmp" "$out/seed$seed.json"
done
for seed in 0 1 2; do
  [ -f "$out/seed$seed.json" ] || { echo "$(date -u '+%F %T') seed $seed not in $out yet: no tests"; exit 0; }
done
/usr/bin/python3 - "$out" << 'PY'
import json, sys
out = sys.argv[1]
docs = [json.load(open(f"{out}/seed{s}.json")) for s in (0, 1, 2)]
merged = dict(docs[0])
merged["results"] = [r for d in docs for r in d["results"]]
json.dump(merged, open(f"{out}/all-seeds.json", "w"), indent=1)
PY
echo "$(date -u '+%F %T') all nine runs done: $out/all-seeds.json"
for pair in "jordan-stabilized-abs rope" "rope direct-sum"; do
  # shellcheck disable=SC2086  # two family names
  /usr/bin/python3 scripts/results_tests.py paired "$out/all-seeds.json" $pair 8192 accuracy greater
done
