#!/usr/bin/env bash
# Builds the core tests with ThreadSanitizer in build-tsan/ and runs the training, worker and
# experiment tests (play / pause / step / reset / stop driven from another thread; several runs at
# once). OpenBLAS and OpenMP are held to one thread: their own worker threads are not instrumented
# and would report false races.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh > /dev/null
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPOSLAB_SANITIZE=thread \
  -DPOSLAB_BUILD_BENCH=OFF -DPOSLAB_BUILD_GUI=OFF > /dev/null
cmake --build build-tsan --target poslab_core_tests -j "$(nproc)"
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 TSAN_OPTIONS="halt_on_error=1" \
  build-tsan/tests/poslab_core_tests --gtest_filter='TrainingWorker*:Training.*:Experiment*'
