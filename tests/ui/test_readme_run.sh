#!/usr/bin/env bash
# The README's first command, ./scripts/run.sh, opens the desktop application when there is a
# display: run it under a virtual X display (xvfb-run, installed by setup.sh) and check that the
# window came up on X11 and drew its first view. POSLAB_QUIT_AFTER makes poslab quit by itself.
# Usage: test_readme_run.sh SOURCE_DIR BUILD_DIR. run.sh builds in SOURCE_DIR/build (and with
# POSLAB_LIBTORCH=pip in SOURCE_DIR/build-pip), so the test runs only for those two builds, as the
# README's command for each (exit 77 = skipped otherwise); there ninja has nothing left to do.
set -uo pipefail
src=$(cd "${1:?source dir}" && pwd -P)
bin=$(cd "${2:?build dir}" && pwd -P)
if [ "$bin" = "$(cd "$src/build" 2>/dev/null && pwd -P)" ]; then
  libtorch=debian
elif [ "$bin" = "$(cd "$src/build-pip" 2>/dev/null && pwd -P)" ]; then
  libtorch=pip
else
  echo "skipped: run.sh builds in $src/build (POSLAB_LIBTORCH=pip: $src/build-pip), this build is $bin"
  exit 77
fi
command -v xvfb-run > /dev/null || { echo "FAIL: xvfb-run is missing (setup.sh installs xvfb)"; exit 1; }
unset QT_QPA_PLATFORM DISPLAY WAYLAND_DISPLAY  # the X server below is the display
out=$(cd "$src" && POSLAB_LIBTORCH=$libtorch POSLAB_QUIT_AFTER=1 timeout 900 xvfb-run -a ./scripts/run.sh 2>&1)
rc=$?
echo "$out" | tail -n 5
if [ $rc -ne 0 ]; then echo "FAIL: run.sh exited $rc"; exit 1; fi
if ! grep -q "poslab: window shown on xcb, first view drawn ok" <<< "$out"; then
  echo "FAIL: the window did not come up (expected 'poslab: window shown on xcb, first view drawn ok')"
  exit 1
fi
if grep -q "headless demo" <<< "$out"; then echo "FAIL: run.sh ran the headless demo"; exit 1; fi
echo "ok: POSLAB_LIBTORCH=$libtorch ./scripts/run.sh opened the window on a display"
