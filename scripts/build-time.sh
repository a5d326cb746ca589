#!/usr/bin/env bash
# How long PosLab takes to build on this machine, from a clean build folder (build-time/):
#   1. run.sh's build without a display (the CLI, POSLAB_TARGETS="poslab-cli"), then what run.sh
#      adds with a display (the application, poslab): the sum of the two is run.sh's build there;
#   2. test.sh's build after it (everything else: tests, benchmarks, fuzz harnesses);
#   3. the ten slowest translation units (from the build's own .ninja_log);
#   4. the rebuild after touching one family's file (core/encodings/jordan_blocks.cpp) and one
#      view's file (ui/explorer/kernel_view.cpp): run.sh's targets, then everything (test.sh).
# Each number is printed with the date and the machine's load (uptime): on a shared machine the
# load says how much of the time was someone else's. The compiler cache is off (CCACHE_DISABLE=1),
# as on a fresh machine; --ccache keeps it (a contributor's second build). The packages setup.sh
# installs must be there (run setup.sh once). Extra arguments go to CMake, e.g.
#   scripts/build-time.sh -DPOSLAB_PRECOMPILE_TORCH=OFF    # the same without the precompiled header
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${POSLAB_BUILD_TIME_DIR:-build-time}
if [ "${1:-}" = --ccache ]; then
  shift
else
  export CCACHE_DISABLE=1
fi

jobs=$(nproc)
mem_jobs=$(($(awk '/MemAvailable/ {print $2}' /proc/meminfo) / 1500000))  # as setup.sh: 1.5 GB a job
((mem_jobs < 1)) && mem_jobs=1
((jobs > mem_jobs)) && jobs=$mem_jobs

load() { uptime | sed 's/.*load average: /load /'; }
timed() {  # timed LABEL COMMAND...: runs COMMAND quietly, prints LABEL, its wall seconds and the load
  local label=$1 start end
  shift
  local before
  before=$(load)
  start=$(date +%s.%N)
  "$@" > "$dir.log" 2>&1 || { tail -n 30 "$dir.log"; echo "build-time: $label failed (log: $dir.log)" >&2; exit 1; }
  end=$(date +%s.%N)
  # awk, not bc: a fresh Debian has no bc
  printf '%-58s %7.1f s   (%s; after: %s)\n' "$label" "$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')" \
    "$before" "$(load)"
}

echo "build-time: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD)," \
  "$(nproc) cores, -j$jobs, ccache $([ -n "${CCACHE_DISABLE:-}" ] && echo off || echo on), $(load)"
echo "build-time: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
rm -rf "$dir"
timed "configure (CMake)" cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPOSLAB_BUILD_TESTS=ON "$@"
run_targets=(poslab-cli)
timed "run.sh's build without a display (poslab-cli)" cmake --build "$dir" -j "$jobs" --target poslab-cli
if ninja -C "$dir" -t query poslab > /dev/null 2>&1; then
  run_targets+=(poslab)
  timed "  with a display, the application too (poslab)" cmake --build "$dir" -j "$jobs" --target poslab
fi
timed "test.sh's build after it (everything else)" cmake --build "$dir" -j "$jobs"
echo "build-time: $(awk 'NR > 1 && $4 ~ /\.o$/' "$dir/.ninja_log" | wc -l) translation units; the ten slowest" \
  "(seconds, from $dir/.ninja_log, at -j$jobs):"
awk 'NR > 1 && $4 ~ /\.o$/ {printf "%8.1f  %s\n", ($2 - $1) / 1000, $4}' "$dir/.ninja_log" |
  sort -rn | head -n 10

for file in core/encodings/jordan_blocks.cpp ui/explorer/kernel_view.cpp; do
  [ -f "$file" ] || continue
  touch "$file"
  timed "touch $file: run.sh's" cmake --build "$dir" -j "$jobs" --target "${run_targets[@]}"
  timed "  then everything (test.sh's build)" cmake --build "$dir" -j "$jobs"
  touch "$file"
  timed "touch $file: everything" cmake --build "$dir" -j "$jobs"
done
rm -f "$dir.log"
echo "build-time: done, $(date -u '+%H:%M UTC'), $(load); the build folder stays in $dir/"
