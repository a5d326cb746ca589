#!/usr/bin/env bash
# The GPU verification in one command (docs/GPU.md), for a machine with an NVIDIA GPU, a Python
# whose torch is a CUDA build, the CUDA toolkit (nvcc), cmake and no network:
#   1. builds PosLab without the GUI in build-gpu/ against that torch's LibTorch, with PosLab's
#      CUDA kernels (fails when CMake does not enable them);
#   2. runs the whole test suite there (run.device auto: the trainer's tests run on the GPU), and
#      fails when the CUDA kernel tests were skipped;
#   3. benchmarks training tokens/s of the default model (rope, d_model 64, 4 heads, 2 layers,
#      batch 32, T 64) and of the kernel-LM paper configuration (d_model 128, 4 heads, 3 layers,
#      batch 24, T 1024) on the CPU and the GPU, and the paper model's evaluation of one 32,768-token
#      sequence (seconds and peak memory); writes out/gpu-check/bench.json and bench.md (a table).
# Made to finish within 8 minutes on a 16-core machine with one H200. On a machine without a GPU it
# prints one line saying so and exits 3, before building anything.
#
#   scripts/gpu-check.sh [--python PY] [--deps DIR] [--jobs N]
#     --python PY  the Python with torch (default: $POSLAB_PYTHON, .venv-pip/bin/python, python3,
#                  /usr/bin/python3: the first whose torch imports)
#     --deps DIR   nlohmann-json, CLI11 and GoogleTest as made by --pack-deps (default: the
#                  system's CMake packages, e.g. Debian's nlohmann-json3-dev libcli11-dev
#                  libgtest-dev)
#   scripts/gpu-check.sh --pack-deps DIR   (on a Debian machine that has them: copies those three,
#                  headers, static GoogleTest and CMake packages, into DIR to carry to the GPU
#                  machine; nothing of them travels with the repository)
# Exit status: 0 all passed; 1 the build, a test or a benchmark failed; 2 bad arguments or no
# torch; 3 no GPU, a CPU-only torch or no nvcc.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
python=${POSLAB_PYTHON:-}
deps=""
jobs=$(nproc)
out=out/gpu-check
build=build-gpu

say() { echo "gpu-check: $*"; }
die() {
  local code=$1
  shift
  echo "gpu-check: $*" >&2
  exit "$code"
}

pack_deps() {
  local dir=$1 arch
  arch=$(gcc -print-multiarch 2> /dev/null || echo x86_64-linux-gnu)
  for f in /usr/include/nlohmann /usr/share/cmake/nlohmann_json /usr/include/CLI /usr/share/cmake/CLI11 \
    /usr/include/gtest /usr/include/gmock "/usr/lib/$arch/cmake/GTest"; do
    [ -e "$f" ] || die 2 "--pack-deps: $f is missing (apt-get install nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev)"
  done
  mkdir -p "$dir/include" "$dir/share/cmake" "$dir/lib/$arch/cmake"
  cp -r /usr/include/nlohmann /usr/include/CLI /usr/include/gtest /usr/include/gmock "$dir/include/"
  cp -r /usr/share/cmake/nlohmann_json /usr/share/cmake/CLI11 "$dir/share/cmake/"
  cp -r "/usr/lib/$arch/cmake/GTest" "$dir/lib/$arch/cmake/"
  cp /usr/lib/"$arch"/libgtest*.a /usr/lib/"$arch"/libgmock*.a "$dir/lib/$arch/"
  say "packed nlohmann-json, CLI11 and GoogleTest into $dir ($(du -sh "$dir" | cut -f1)); on the GPU machine: scripts/gpu-check.sh --deps $dir"
}

while (($#)); do
  case "$1" in
    --python) python=${2:?--python needs a path}; shift 2 ;;
    --deps) deps=$(cd "${2:?--deps needs a folder}" && pwd); shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --pack-deps) pack_deps "${2:?--pack-deps needs a folder}"; exit 0 ;;
    -h | --help) sed -n '2,27p' "$0"; exit 0 ;;
    *) die 2 "unknown argument '$1' (see --help)" ;;
  esac
done
start=$(date +%s)

# 1. A torch with CUDA that sees a GPU, and nvcc: checked before anything is built.
if [ -z "$python" ]; then
  for p in .venv-pip/bin/python python3 /usr/bin/python3; do
    if command -v "$p" > /dev/null && "$p" -c "import torch" 2> /dev/null; then
      python=$p
      break
    fi
  done
fi
[ -n "$python" ] || die 2 "no Python with torch found (tried .venv-pip/bin/python, python3, /usr/bin/python3); give one with --python"
"$python" -c "import torch" 2> /dev/null || die 2 "$python cannot import torch"
read -r torch_version torch_cuda gpu_count torch_dir < <("$python" -c "
import os, torch
print(torch.__version__, torch.version.cuda or 'none', torch.cuda.device_count() if torch.cuda.is_available() else 0, os.path.dirname(torch.__file__))" 2> /dev/null)
[ "$torch_cuda" != none ] || die 3 "torch $torch_version ($python) is a CPU-only build; this check needs a CUDA build of torch"
if [ "$gpu_count" = 0 ]; then
  die 3 "no CUDA GPU on this machine (torch $torch_version, CUDA $torch_cuda, sees none); this check needs an NVIDIA GPU; nothing was built"
fi
gpu_name=$("$python" -c "import torch; print(torch.cuda.get_device_name(0))")
cuda_home=${CUDA_HOME:-/usr/local/cuda}
nvcc="$cuda_home/bin/nvcc"
[ -x "$nvcc" ] || nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] && [ -x "$nvcc" ] || die 3 "no nvcc (CUDA_HOME=$cuda_home, PATH): install the CUDA toolkit or set CUDA_HOME"
cuda_home=$(cd "$(dirname "$nvcc")/.." && pwd)
command -v cmake > /dev/null || die 3 "no cmake on PATH"
generator=(-G Ninja)
command -v ninja > /dev/null || generator=(-G "Unix Makefiles")
say "torch $torch_version (CUDA $torch_cuda) from $torch_dir; GPU: $gpu_name; nvcc: $nvcc; $jobs jobs"

# 2. Build without the GUI against that LibTorch.
dep_args=()
if [ -n "$deps" ]; then
  arch=$(gcc -print-multiarch 2> /dev/null || echo x86_64-linux-gnu)
  dep_args=(-Dnlohmann_json_DIR="$deps/share/cmake/nlohmann_json" -DCLI11_DIR="$deps/share/cmake/CLI11"
    -DGTest_DIR="$deps/lib/$arch/cmake/GTest")
fi
mkdir -p "$out"
export TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST:-7.5;8.0;9.0+PTX}"
say "configuring $build/ (log: $out/configure.log)"
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DPOSLAB_BUILD_GUI=OFF \
  -DPOSLAB_BUILD_TESTS=ON -DPOSLAB_PRECOMPILE_TORCH=ON -DCMAKE_PREFIX_PATH="$torch_dir;$torch_dir/share/cmake" \
  -DCUDAToolkit_ROOT="$cuda_home" -DCMAKE_CUDA_COMPILER="$nvcc" "${dep_args[@]}" \
  > "$out/configure.log" 2>&1 || { tail -n 30 "$out/configure.log"; die 1 "configure failed"; }
grep -q "CUDA kernels ON" "$out/configure.log" ||
  die 1 "CMake did not enable PosLab's CUDA kernels (see $out/configure.log)"
say "building (log: $out/build.log)"
cmake --build "$build" -j "$jobs" > "$out/build.log" 2>&1 || { tail -n 40 "$out/build.log"; die 1 "build failed"; }
say "built in $(($(date +%s) - start)) s"

# 3. The whole suite (the .deb check is a packaging test of build/, not of this build).
status=0
t0=$(date +%s)
(cd "$build" && ctest -j "$jobs" --timeout 400 --output-on-failure -E '^package\.deb$') > "$out/ctest.log" 2>&1 || status=1
grep -E "tests passed|tests failed" "$out/ctest.log" | tail -n 1 || true
[ "$status" = 0 ] || { grep -E "\(Failed\)|\(Timeout\)|\*\*\*" "$out/ctest.log" | head -n 20; say "test failures: see $out/ctest.log"; }
"$build/tests/poslab_core_tests" --gtest_filter='*CudaFused*' > "$out/cuda-tests.log" 2>&1 || status=1
if grep -q "SKIPPED" "$out/cuda-tests.log"; then
  say "the CUDA kernel tests were skipped on a GPU machine:"
  grep -m 3 -A1 "Skipped\|SKIPPED" "$out/cuda-tests.log"
  status=1
fi
say "tests took $(($(date +%s) - t0)) s"

# 4. Benchmarks: one JSON line each from poslab_bench_training, then the table.
bench="$build/bench/poslab_bench_training"
: > "$out/bench.jsonl"
run_bench() {  # run_bench NAME ARGS...: appends {"name": NAME, ...} to bench.jsonl
  local name=$1
  shift
  say "bench $name: $*"
  if line=$("$bench" "$@" 2>> "$out/bench.log"); then
    echo "{\"name\": \"$name\", \"result\": $line}" >> "$out/bench.jsonl"
  else
    say "bench $name failed (see $out/bench.log)"
    status=1
  fi
}
paper=(--d-model 128 --heads 4 --layers 3 --batch 24 --T 1024)
run_bench default-cpu --device cpu --steps 30 --warmup-steps 3
run_bench default-cuda --device cuda --steps 200 --warmup-steps 10 --metrics-every 50
run_bench paper-cpu --device cpu "${paper[@]}" --steps 3 --warmup-steps 1 --eval-length 32768
run_bench paper-cuda --device cuda "${paper[@]}" --steps 40 --warmup-steps 5 --metrics-every 20 \
  --eval-length 32768
"$python" - "$out" "$gpu_name" "$torch_version" "$(($(date +%s) - start))" <<'EOF'
import json, sys
out, gpu, torch_version, seconds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
runs = [json.loads(l) for l in open(f"{out}/bench.jsonl") if l.strip()]
doc = {"gpu": gpu, "torch": torch_version, "total_seconds": seconds, "runs": runs}
json.dump(doc, open(f"{out}/bench.json", "w"), indent=1)
rows = ["| run | device | d_model/heads/layers | batch x T | tokens/s | eval 32,768: s | eval peak MiB |",
        "|---|---|---|---|---|---|---|"]
for r in runs:
    x = r["result"]
    ev = f'{x["eval_seconds"]:.2f}' if "eval_seconds" in x else "-"
    mem = f'{x["eval_peak_mib"]:.0f}' if "eval_peak_mib" in x else "-"
    rows.append(f'| {r["name"]} | {x["device"]} | {x["d_model"]}/{x["heads"]}/{x["layers"]} | '
                f'{x["batch"]} x {x["T"]} | {x["tokens_per_s"]:.0f} | {ev} | {mem} |')
open(f"{out}/bench.md", "w").write(f"GPU: {gpu}, torch {torch_version}\n\n" + "\n".join(rows) + "\n")
print("\n".join(rows))
EOF
say "done in $(($(date +%s) - start)) s; results in $out/bench.json and $out/bench.md"
[ "$status" = 0 ] && say "PASSED" || say "FAILED (see above)"
exit "$status"
