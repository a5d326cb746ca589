#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz/ with clang (ASan + UBSan, build-fuzz/) and runs each
# for a while on its seed corpus, one after the other, under nice.
#   scripts/fuzz.sh [--seconds N] [--jobs J] [--merge] [HARNESS...]
#     --seconds N  run each harness N seconds (default 600)
#     --jobs J     run J harnesses at once (default 1; the fuzzers themselves are one process each)
#     --merge      afterwards, minimise each harness's working corpus into tests/fuzz/corpus/NAME
#                  (libFuzzer -merge=1: only inputs that add coverage are kept)
#     HARNESS      session_file state_string experiment_config cli_options checkpoint (default all)
# New inputs go to build-fuzz/corpus/NAME (seeded from tests/fuzz/corpus/NAME and
# tests/fuzz/regressions/NAME), crashes to build-fuzz/artifacts/NAME/, the log to
# build-fuzz/logs/NAME.log. A crash is kept: fix it, copy the input into
# tests/fuzz/regressions/NAME/, and the ordinary ctest (fuzz.NAME) replays it from then on.
# Exit status 1 when any harness found a crash, leak, timeout or out-of-memory.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=600
jobs=1
merge=0
harnesses=()
while (($#)); do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --merge) merge=1; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) harnesses+=("$1"); shift ;;
  esac
done
((${#harnesses[@]})) || harnesses=(session_file state_string experiment_config cli_options checkpoint)

for h in "${harnesses[@]}"; do
  [[ -f "tests/fuzz/$h.cpp" ]] || { echo "fuzz.sh: unknown harness '$h'" >&2; exit 2; }
done
command -v clang++-14 > /dev/null || { echo "fuzz.sh: clang++-14 is needed (apt install clang-14)" >&2; exit 2; }

# -O1: the usual fuzzing trade-off (fast enough, and ASan reports stay readable).
CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" -DPOSLAB_FUZZ=ON -DPOSLAB_BUILD_TESTS=OFF \
  -DPOSLAB_BUILD_BENCH=OFF -DPOSLAB_BUILD_GUI=OFF > /dev/null
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
cmake --build build-fuzz -j "$(nproc)" --target "${targets[@]}"

# A leak is a finding too. The suppressions are third-party only (tests/sanitizers/lsan.supp).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

run_one() {
  local h="$1"
  local dict=()
  case "$h" in
    session_file|state_string|experiment_config) dict=(-dict=tests/fuzz/json.dict) ;;
    cli_options) dict=(-dict=tests/fuzz/cli.dict) ;;
  esac
  # Artifacts of an earlier run are gone: keep a crash by copying it to tests/fuzz/regressions/.
  rm -rf "build-fuzz/artifacts/$h"
  mkdir -p "build-fuzz/corpus/$h" "build-fuzz/artifacts/$h" build-fuzz/logs
  local seeds=("tests/fuzz/corpus/$h")
  [[ -d "tests/fuzz/regressions/$h" ]] && seeds+=("tests/fuzz/regressions/$h")
  echo "fuzz.sh: $h for ${seconds}s (log build-fuzz/logs/$h.log)"
  # -timeout: one input taking 30 s is a hang; -rss_limit_mb: 2 GB is "exhausts memory".
  local status=0
  # The checkpoint harness's one suppression (LibTorch's reader) needs full allocation stacks.
  local asan="$ASAN_OPTIONS"
  [[ "$h" == checkpoint ]] && asan="$asan:fast_unwind_on_malloc=0"
  ASAN_OPTIONS="$asan" nice -n 10 "build-fuzz/tests/fuzz/fuzz_$h" "build-fuzz/corpus/$h" "${seeds[@]}" "${dict[@]}" \
    -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$h/" \
    > "build-fuzz/logs/$h.log" 2>&1 || status=$?
  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|Done [0-9]+ runs)' \
    "build-fuzz/logs/$h.log" | sed "s/^/fuzz.sh: $h: /" || true
  if ((status != 0)); then
    echo "fuzz.sh: $h FOUND A PROBLEM (exit $status): $(ls "build-fuzz/artifacts/$h")" >&2
    grep -m3 -E 'ERROR|runtime error|property broken|Assertion' "build-fuzz/logs/$h.log" >&2 || true
    return 1
  fi
  if ((merge)); then
    local merged="build-fuzz/merged/$h"
    rm -rf "$merged" && mkdir -p "$merged"
    "build-fuzz/tests/fuzz/fuzz_$h" -merge=1 "$merged" "tests/fuzz/corpus/$h" "build-fuzz/corpus/$h" \
      "${dict[@]}" -timeout=30 -rss_limit_mb=2048 -max_len=65536 >> "build-fuzz/logs/$h.log" 2>&1
    rm -rf "tests/fuzz/corpus/$h" && cp -r "$merged" "tests/fuzz/corpus/$h"
    echo "fuzz.sh: $h: corpus minimised to $(ls "tests/fuzz/corpus/$h" | wc -l) files," \
      "$(du -sh "tests/fuzz/corpus/$h" | cut -f1)"
  fi
}

failed=0
if ((jobs > 1)); then
  pids=()
  for h in "${harnesses[@]}"; do
    while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
    run_one "$h" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
else
  for h in "${harnesses[@]}"; do run_one "$h" || failed=1; done
fi
exit "$failed"
