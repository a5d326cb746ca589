#!/usr/bin/env bash
# Sets up and builds PosLab (with tests), then runs every test through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh -DPOSLAB_BUILD_TESTS=ON "$@"
cd build
ctest --output-on-failure -j "$(nproc)"
