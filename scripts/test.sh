#!/usr/bin/env bash
# Sets up and builds PosLab (with tests), then runs every test through CTest.
# POSLAB_LIBTORCH=pip: against LibTorch 2.x from PyPI, in build-pip/ (scripts/libtorch.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh -DPOSLAB_BUILD_TESTS=ON "$@"
source scripts/libtorch.sh
cd "$POSLAB_BUILD_DIR"
ctest --output-on-failure -j "$(nproc)"
