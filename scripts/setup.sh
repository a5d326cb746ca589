#!/usr/bin/env bash
# Sets up a Debian 12 machine for PosLab and builds it in build/ (Release): everything, or only
# the targets named in POSLAB_TARGETS (run.sh: POSLAB_TARGETS="poslab poslab-cli").
# Idempotent: installs only the Debian packages that are missing, then configures and builds.
# Extra arguments are passed to CMake (e.g. -DPOSLAB_BUILD_GUI=OFF, -DTorch_DIR=...).
# POSLAB_LIBTORCH=pip: LibTorch 2.x from PyPI in .venv-pip/, built in build-pip/ (libtorch.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/libtorch.sh

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  clang-format          # the style check (tests: style.clang_format)
  libtorch-dev          # LibTorch 1.13 (CPU): model, training, tensors
  libgloo-dev           # Gloo headers for c10d's ProcessGroupGloo (data-parallel training)
  libopenblas0-pthread  # without it Debian's torch runs on the reference BLAS, ~3x slower
  nlohmann-json3-dev    # JSON for configs, sessions, --json output
  libcli11-dev          # poslab-cli's argument parsing
  libgtest-dev libgmock-dev  # tests
  python3               # the CLI tests read its JSON with python3
  python3-torch         # the checkpoint round trip through torch.load, and the Python benchmark
  fortunes-min fortunes # byte-lm's default corpus: English text in /usr/share/games/fortunes/
  qt6-base-dev          # the desktop application `poslab` (Qt 6 Widgets, PrintSupport, Test)
  qt6-svg-dev           # Qt 6 Svg (icons, plot export)
  libqcustomplot-dev libqcustomplot2.1-qt6  # QCustomPlot, the GUI's plots (Qt 6 build)
  xvfb xauth            # a virtual display for running the GUI headless (xvfb-run)
  dpkg-dev file         # the Debian package (scripts/package.sh): dpkg-shlibdeps, cpack's ELF check
)
if [ "${POSLAB_LIBTORCH:-debian}" = pip ]; then
  packages+=(python3-venv python3-pip)  # the virtual environment .venv-pip/ with PyPI's torch
fi

missing=()
for p in "${packages[@]}"; do
  [[ "$p" == \#* ]] && continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

jobs=$(nproc)
# Each file that includes torch takes ~1.3 GB to compile: cap the jobs by memory (1.5 GB each).
mem_kb=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)
mem_jobs=$((mem_kb / 1500000))
((mem_jobs < 1)) && mem_jobs=1
((jobs > mem_jobs)) && jobs=$mem_jobs

poslab_prepare_libtorch
log="$POSLAB_BUILD_DIR.log"
# Configured once per set of arguments: a later call with none (run.sh) or the same ones keeps the
# build folder's configuration, and ninja itself reruns CMake when a CMakeLists.txt changed.
configure_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release "${POSLAB_CMAKE_ARGS[@]}" "$@")
args_file="$POSLAB_BUILD_DIR/poslab-configure-args"
if [ ! -f "$POSLAB_BUILD_DIR/build.ninja" ] || { (($# + ${#POSLAB_CMAKE_ARGS[@]} > 0)) &&
  [ "$(cat "$args_file" 2>/dev/null)" != "${configure_args[*]}" ]; }; then
  cmake -S . -B "$POSLAB_BUILD_DIR" "${configure_args[@]}" > "$log" 2>&1 || { cat "$log"; exit 1; }
  echo "${configure_args[*]}" > "$args_file"
fi
# POSLAB_TARGETS (run.sh: the application and the CLI) builds only those targets and what they
# need; unset, everything (tests and benchmarks included). Targets this configuration lacks (the
# GUI without Qt) are left out.
targets=()
for t in ${POSLAB_TARGETS:-}; do
  ninja -C "$POSLAB_BUILD_DIR" -t query "$t" > /dev/null 2>&1 && targets+=(--target "$t")
done
if [ -n "${POSLAB_TARGETS:-}" ] && ((${#targets[@]} == 0)); then
  echo "setup: none of POSLAB_TARGETS ($POSLAB_TARGETS) is a target of $POSLAB_BUILD_DIR" >&2
  exit 1
fi
if ! cmake --build "$POSLAB_BUILD_DIR" -j "$jobs" "${targets[@]}" > "$log" 2>&1; then
  # The compiler's errors, not only ninja's last lines ("build stopped: subcommand failed").
  grep -E -m 20 -B 2 -A 8 "error|FAILED" "$log" || tail -n 40 "$log"
  echo "setup: the build failed; the whole log is $log"
  exit 1
fi
tail -n 3 "$log"
rm -f "$log"
