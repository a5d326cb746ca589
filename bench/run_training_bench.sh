#!/usr/bin/env bash
# Training throughput, PosLab vs a plain PyTorch reference (bench/python_reference.py): the same
# model (RoPE, d_model 64, 4 heads, 2 layers), task shape (kernel-lm, batch 32, T 64), optimiser
# and thread count. Runs `rounds` rounds, each one PosLab run and one Python run, alternating which
# goes first so that machine noise hits both, and prints the median tokens/s of each and the ratio.
#
# Usage: bench/run_training_bench.sh [--threads N] [--steps N] [--rounds N] [--build-dir DIR]
#   --threads  torch intra-op threads for both (default: nproc)
#   --steps    timed steps per run (default 100; each run also does 5 untimed warm-up steps)
#   --rounds   rounds (default 3)
# Builds poslab_bench_training first if needed (cmake + ninja in the build dir, default build/).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
threads="$(nproc)"
steps=100
rounds=3
build_dir="$repo/build"
python=/usr/bin/python3

while [[ $# -gt 0 ]]; do
  case "$1" in
    --threads) threads="$2"; shift 2 ;;
    --steps) steps="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_training_bench.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

if [[ ! -f "$build_dir/build.ninja" ]]; then
  cmake -S "$repo" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPOSLAB_BUILD_BENCH=ON
elif ! grep -q '^POSLAB_BUILD_BENCH:BOOL=ON' "$build_dir/CMakeCache.txt"; then
  cmake "$build_dir" -DPOSLAB_BUILD_BENCH=ON
fi
cmake --build "$build_dir" --target poslab_bench_training >/dev/null
bench="$build_dir/bench/poslab_bench_training"

results="$(mktemp)"
trap 'rm -f "$results"' EXIT

run_poslab() { POSLAB_THREADS="$threads" "$bench" --steps "$steps" | tee -a "$results"; }
run_python() { "$python" "$repo/bench/python_reference.py" --threads "$threads" --steps "$steps" \
                 | tee -a "$results"; }

echo "threads $threads, steps $steps, rounds $rounds; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; ++r)); do
  if (( r % 2 == 1 )); then run_poslab; run_python; else run_python; run_poslab; fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

"$python" - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
tps = {impl: [r["tokens_per_s"] for r in rows if r["impl"] == impl] for impl in ("poslab", "python")}
med = {impl: statistics.median(v) for impl, v in tps.items()}
print()
print(f"{'':24}{'median':>12}   all runs")
for impl, label in (("poslab", "tokens/s PosLab"), ("python", "tokens/s Python")):
    print(f"{label:24}{med[impl]:12.0f}   " + " ".join(f"{v:.0f}" for v in tps[impl]))
print(f"{'ratio PosLab/Python':24}{med['poslab'] / med['python']:12.3f}")
PY
