#!/usr/bin/env bash
# RoPE written in PyTorch against the built-in rope (bench_torchscript_family.cpp): writes the
# module with the system's Python torch, then times both at a short (materialised attention) and
# a long (fused kernel) training length. Usage: bench/run_torchscript_bench.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
/usr/bin/python3 "$root/tests/torchscript/write_modules.py" "$dir" > /dev/null
for T in 64 512; do
  "$build/bench/poslab_bench_torchscript_family" --module "$dir/rope.pt" --train-length "$T" \
    --batch $((1024 / T > 2 ? 1024 / T : 2)) --steps 10
done
