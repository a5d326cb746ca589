#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer build of the whole suite in build-asan/ (core, CLI,
# GUI and its tests, the fuzz replays), then every test through CTest (GUI tests headless,
# offscreen), then the 1000-cycle soaks of the training worker and the training panel under
# LeakSanitizer. Any report fails the run: ASan and LSan abort, and undefined behaviour aborts
# too (-fno-sanitize-recover=undefined, CMakeLists.txt).
#   scripts/asan.sh [--cycles N] [CTEST ARGS...]   e.g. scripts/asan.sh -R 'fuzz|soak'
# Suppressions (tests/sanitizers/*.supp) are for third-party code only, each with its reason.
# Needs what scripts/setup.sh installs (it is not run here: it would also build build/).
set -euo pipefail
cd "$(dirname "$0")/.."
cycles=1000
if [[ "${1:-}" == "--cycles" ]]; then cycles="$2"; shift 2; fi

# Each torch file takes ~1.5 GB to compile with ASan: cap the jobs by memory, as setup.sh does.
jobs=$(nproc)
mem_jobs=$(($(awk '/MemAvailable/ {print $2}' /proc/meminfo) / 1500000))
((mem_jobs < 1)) && mem_jobs=1
((jobs > mem_jobs)) && jobs=$mem_jobs

cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPOSLAB_SANITIZE=address,undefined -DPOSLAB_BUILD_TESTS=ON -DPOSLAB_BUILD_BENCH=OFF > /dev/null
cmake --build build-asan -j "$jobs"

supp="$PWD/tests/sanitizers"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_init_order=1"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"
export QT_QPA_PLATFORM=offscreen
# OpenBLAS and OpenMP worker threads: one each, as in tsan.sh (they are not ours and not built
# with the sanitizers; fewer threads keeps the run quick on small machines).
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

# package.deb packs this build's executables into a .deb: a packaging check, meaningless for
# sanitizer builds (it is in the ordinary suite).
(cd build-asan && ctest --output-on-failure -j "$jobs" -E '^package\.deb$' "$@")

# The soaks, 1000 cycles each, under LeakSanitizer. The allocator's quarantine of freed memory
# (256 MB by default) is capped so that RSS measures live memory, not the quarantine filling up.
soak_asan="$ASAN_OPTIONS:quarantine_size_mb=16"
ASAN_OPTIONS="$soak_asan" nice -n 10 build-asan/tests/soak/poslab_worker_soak --cycles "$cycles"
if [[ -x build-asan/tests/soak/poslab_training_panel_soak ]]; then
  ASAN_OPTIONS="$soak_asan" nice -n 10 build-asan/tests/soak/poslab_training_panel_soak \
    --cycles "$cycles"
fi
echo "asan.sh: the suite and the soaks are clean under ASan + UBSan + LSan"
